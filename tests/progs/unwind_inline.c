/* SPDX-License-Identifier: GPL-2.0-only */ /* unwind_inline N: main calls in_top(i) N times; in_top has in_outer
 * inlined into it, and in_outer in_inner, which calls in_leaf (not
 * inlined).  Built -O2 -fomit-frame-pointer with DWARF
 * (mk/progs-extra.mk): a user stack at in_leaf shows the two inlined
 * frames at in_top's return address, as perf does.  Prints "inline
 * calls=N sum=S". */
#include <stdio.h>
#include <stdlib.h>

#define KEEP __attribute__((noipa))
#define INLINE static inline __attribute__((always_inline))

KEEP long in_leaf(long x)
{
	return x * 5 + 2;
}

INLINE long in_inner(long x)
{
	long r = in_leaf(x + 1);

	return r * 3 + x;
}

INLINE long in_outer(long x)
{
	return in_inner(x ^ 1) + 7;
}

KEEP long in_top(long x)
{
	return in_outer(x) - 1;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	long sum = 0;

	for (int i = 0; i < n; i++)
		sum += in_top(i);
	fprintf(stderr, "inline calls=%d sum=%ld\n", n, sum);
	return 0;
}
