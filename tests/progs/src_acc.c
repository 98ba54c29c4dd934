/* src_acc N: a loop accumulating into `acc`, probed by source line and
 * lazy pattern (tests/runtime/tools.test).  Prints what a trace must see. */
#include <stdio.h>
#include <stdlib.h>
// SPDX-License-Identifier: GPL-2.0-only
__attribute__((noinline)) long accumulate(long n)
{
	long acc = 0;
	for (long i = 0; i < n; i++) {
		acc += i * 3;
	}
	return acc;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10;
	printf("acc %ld\n", accumulate(n));
	return 0;
}
