/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * dwarf_implptr.c - values gdb reads where the machine code keeps no
 * address: a pointer to a local the compiler holds in registers (gcc -O2
 * describes it with DW_OP_implicit_pointer; gdb prints it as
 * <synthetic pointer> and dereferences it), a NULL pointer member (gdb:
 * 0x0), and bitfields of a struct only partly given by DW_OP_piece pieces
 * (clang -O1).  tests/dwarf/values.sh reads them against gdb; the cases of
 * tests/runtime/dwarf.test build it at those levels.
 * Prints to stderr what a trace must see.
 */
#include <stdio.h>

struct pt {
	int x, y;
};

struct fl {
	unsigned a : 3, b : 5;
	int c;
	struct pt *link;
};

struct bf {
	unsigned a : 3;
	int b : 5;
	int c;
	long d;
};

volatile long g_sink;

__attribute__((noinline)) void sink(long v)
{
	g_sink += v;
}

/* Inlined into make(): p is &q, and q lives in make's registers. */
static inline long use_pt(const struct pt *p)
{
	long r = p->x * 3;

	sink(r);               /* USE_PT sink */
	return r + p->y;
}

__attribute__((noinline)) long make(int a, int b)
{
	struct pt q = { a, b };

	return use_pt(&q);
}

__attribute__((noinline)) long with_null(struct fl f)
{
	sink(f.c);
	return f.a + f.b + (f.link != 0);
}

/* s.d goes first: after it, clang keeps a and b's byte and c, not d. */
__attribute__((noinline)) long part(struct bf s)
{
	sink(s.d);
	sink(s.c);             /* PART c */
	return s.a + s.b;
}

int main(int argc, char **argv)
{
	struct fl f = { 5, 17, argc + 6, 0 };
	struct bf s = { argc + 4, -argc - 2, argc * 10, argc * 100 };
	long r;

	(void)argv;
	r = make(argc + 3, argc + 6) + with_null(f) + part(s);
	fprintf(stderr, "make q.x=%d q.y=%d with_null f.c=%d part s.a=%d s.b=%d s.c=%d r=%ld\n",
		argc + 3, argc + 6, argc + 6, argc + 4, -argc - 2, argc * 10, r);
	return 0;
}
