/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * dwarf_pieces.c - values DWARF splits into pieces (DW_OP_piece): small
 * structs passed and kept by value in registers, one whose second half is
 * optimised out, and a loop body the compiler duplicates (a line with
 * several addresses).  tests/dwarf/values.sh reads them against gdb.
 * Prints to stderr what a trace must see.
 */
#include <stdio.h>

struct pr {
	int a, b;
};

struct tri {
	long x, y, z;
};

volatile long g_sink;

/* p arrives in one register (two 4-byte halves), t in memory. */
__attribute__((noinline)) long by_value(struct pr p, struct tri t)
{
	g_sink = p.a;
	g_sink = t.x + t.z;    /* BYVAL body */
	return p.b;
}

/* At the entry q.b is not computed yet: DWARF gives only q.a's piece. */
__attribute__((noinline)) long half_used(int n)
{
	struct pr q = { n, n * 3 };

	g_sink = q.a;          /* HALF a */
	g_sink = q.b;          /* HALF b */
	return q.a + q.b;
}

/* A fixed count of 3: unrolled, the body's line has one address per copy. */
__attribute__((noinline)) long unrolled(const int *v)
{
	long s = 0;

	for (int i = 0; i < 3; i++)
		s += v[i] * (i + 1);   /* UNROLLED body */
	return s;
}

int main(int argc, char **argv)
{
	int v[3] = { 2, 3, 4 };
	struct tri t = { argc, argc + 1, argc + 2 };
	struct pr p = { 4, 5 };
	long r;

	(void)argv;
	r = by_value(p, t) + half_used(argc) + unrolled(v);
	fprintf(stderr, "by_value p.a=4 p.b=5 t.x=%d t.z=%d half_used n=%d unrolled=%ld sum=%ld\n",
		argc, argc + 2, argc, unrolled(v), r);
	return 0;
}
