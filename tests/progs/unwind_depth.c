/* SPDX-License-Identifier: GPL-2.0-only */ /* unwind_depth D...: for each D, calls rec(D) twice; rec recurses D times
 * down to depth_leaf, so that a user stack at depth_leaf has D + 5 frames
 * (depth_leaf, D + 1 rec, main, __libc_start_call_main, __libc_start_main;
 * _start is a tail call away).  Built -O2 without frame pointers.  Prints
 * "depth calls=N sum=S". */
#include <stdio.h>
#include <stdlib.h>

#define KEEP __attribute__((noipa))

KEEP long depth_leaf(long x)
{
	return x * 3 + 1;
}

long rec(long d);
/* called through a volatile pointer, which gcc cannot make a loop of */
static long (*volatile rec_p)(long) = rec;

KEEP long rec(long d)
{
	if (d == 0)
		return depth_leaf(d);
	return rec_p(d - 1) * 2 + d;   /* work after the call: no tail call */
}

int main(int argc, char **argv)
{
	long sum = 0;
	int n = 0;

	for (int i = 1; i < argc; i++)
		for (int k = 0; k < 2; k++, n++)
			sum += rec(atol(argv[i])) % 1000;
	fprintf(stderr, "depth calls=%d sum=%ld\n", n, sum);
	return 0;
}
