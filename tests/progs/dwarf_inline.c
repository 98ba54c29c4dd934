/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * dwarf_inline.c - inlining target: a static inline helper inlined into
 * several callers (and kept out of line once through its address), a
 * parameter unused after the entry, and values the optimiser turns into
 * constants or entry values.  tests/dwarf/conformance.sh probes mix,
 * scale and their callers.
 */
#include <stdio.h>

volatile int g_sink;

static inline int mix(int a, int b)
{
	int t = a * 31 + b;    /* MIX body */

	return t ^ (t >> 3);
}

static int scale(int v, int factor, int unused)
{
	int r = v * factor;    /* SCALE body */

	(void)unused;
	return mix(r, factor);
}

__attribute__((noinline)) int caller_one(int x)
{
	int m = mix(x, 7);

	g_sink = m;
	return scale(m, 3, x) + mix(m, x);
}

__attribute__((noinline)) int caller_two(int x, int y)
{
	int acc = 0;

	for (int i = 0; i < y; i++)
		acc += scale(x + i, i, y);   /* CALL scale */
	return acc;
}

int (*g_fp)(int, int) = mix;

int main(int argc, char **argv)
{
	(void)argv;
	g_sink = caller_one(argc);
	g_sink += caller_two(argc, 4);
	g_sink += g_fp(argc, 2);
	printf("%d\n", g_sink);
	return 0;
}
