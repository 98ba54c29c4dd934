// SPDX-License-Identifier: GPL-2.0-only
/*
 * inl_only.c - a static function that exists only inlined (clang-19 -O2
 * inlines scale into one and two and emits no copy of its own), for
 * FUNC:N in every inlined copy (tests/runtime/dwarf.test).  Prints the sum;
 * one(i) and two(i) each run scale once per i.
 */
#include <stdio.h>
#include <stdlib.h>

static int scale(int x, int k)
{
	int y = x * k;
	y += k;    /* scale:3 */
	return y ^ (x >> 1);    /* scale:4 */
}

__attribute__((noinline)) int one(int a) { return scale(a, 3) + 1; }
__attribute__((noinline)) int two(int a) { return scale(a, a) - 2; }

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3, s = 0;
	for (int i = 0; i < n; i++)
		s += one(i) + two(i);
	printf("%d\n", s);
	return 0;
}
