/* SPDX-License-Identifier: GPL-2.0-only */ /* unwind_o2 N: main calls funcA(i) N times; funcA -> funcB -> funcC ->
 * funcD, each noipa and doing work after its call (no tail call), built
 * -O2 -fomit-frame-pointer (mk/progs-extra.mk, with gcc and with clang) as
 * distributions build: user stacks at funcD need CFI to reach main.
 * funcB keeps many values live across its call, so that it saves rbp and
 * uses it as a plain register; funcC has a stack array, so its CFA offset
 * is not the usual 8 or 16.  Prints the sum of funcD's results. */
#include <stdio.h>
#include <stdlib.h>

#ifdef __clang__
#define KEEP __attribute__((noinline))
#else
#define KEEP __attribute__((noipa))
#endif

KEEP long funcD(long x)
{
	return x * 3 + 1;
}

KEEP long funcC(long x)
{
	volatile long buf[37];

	for (int i = 0; i < 37; i++)
		buf[i] = x + i;
	return funcD(buf[x % 37]) + buf[3];
}

KEEP long funcB(long x)
{
	long a = x * 7, b = x ^ 0x55, c = x + 11, d = x * x, e = x - 5, f = x | 9, g = x << 2;
	long r = funcC(x);

	return r + a * b - c * d + e * f - g + (a ^ c ^ e) * (b | d | f);
}

KEEP long funcA(long x)
{
	return funcB(x + 1) - 1;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	long sum = 0;

	for (int i = 0; i < n; i++)
		sum += funcA(i);
	fprintf(stderr, "calls=%d sum=%ld\n", n, sum);
	return 0;
}
