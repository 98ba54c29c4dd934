/* SPDX-License-Identifier: GPL-2.0-only */ /* dwarf_prologue: parameters of every SysV x86-64 class, for reads inside
 * a function's prologue (f+0, f+N before the body, *ADDR), where -O0 DWARF
 * names stack slots the prologue has not written yet.  tests/dwarf/
 * prologue.sh builds it with gcc and clang at -O0..-O3.  Each call prints
 * to stderr the values it passes: the truth a trace must match. */
#include <stdio.h>
#include <stdlib.h>

struct pair { int a, b; };             /* one INTEGER eightbyte */
struct two { long x; long y; };        /* two INTEGER eightbytes */
struct big { long v[3]; };             /* MEMORY: on the stack */
struct mixed { long n; double d; };    /* INTEGER + SSE */

/* gcc's noipa keeps every parameter where the ABI puts it; clang does not
 * change the signature of a function with external linkage. */
#ifdef __clang__
#define PROBED __attribute__((noinline))
#else
#define PROBED __attribute__((noinline, noipa))
#endif

volatile long sink;

PROBED int pi(int i, long l, const char *s, char c)
{
	int local = i * 7;
	sink = local + l + s[0] + c;
	return local;
}

PROBED long ps(struct pair p, struct two t, int after)
{
	sink = p.a + p.b + t.x + t.y + after;
	return sink;
}

PROBED long pm(struct big b, double d, int i, struct mixed m, int j)
{
	sink = b.v[0] + (long)d + i + m.n + (long)m.d + j;
	return sink;
}

PROBED struct big pr(int i, long l)
{
	struct big b = { { i, l, i + l } };
	sink = i;
	return b;
}

PROBED long p7(int a, int b, int c, int d, int e, int f, int g)
{
	sink = a + b + c + d + e + f + g;
	return sink;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;

	for (int k = 0; k < n; k++) {
		/* the first call passes 0: a prologue slot holds garbage, not 0 */
		int i = k * 11;
		long l = 1000 + k;
		char c = (char)('a' + k);
		struct pair p = { k + 1, k + 2 };
		struct two t = { 100 + k, 200 + k };
		struct big b = { { 7, 8, 9 + k } };
		struct mixed m = { 40 + k, 0.5 };

		fprintf(stderr, "pi i=%d l=%ld c=%d\n", i, l, c);
		pi(i, l, argv[0], c);  /* not a constant: clang-19 specialises on one */
		fprintf(stderr, "ps p.a=%d p.b=%d t.x=%ld t.y=%ld after=%d\n", p.a, p.b, t.x, t.y, 5 + k);
		ps(p, t, 5 + k);
		fprintf(stderr, "pm b.v[2]=%ld i=%d j=%d\n", b.v[2], i, 3 * k);
		pm(b, 1.5, i, m, 3 * k);
		fprintf(stderr, "pr i=%d l=%ld\n", i, l);
		sink = pr(i, l).v[2];
		fprintf(stderr, "p7 a=%d f=%d g=%d\n", 1, 6 + k, 7 + k);
		p7(1, 2, 3, 4, 5, 6 + k, 7 + k);
	}
	return 0;
}
