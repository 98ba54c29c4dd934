/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * dwarf_real.c - the forms tests/dwarf/realcode.sh found on real code
 * (cjson, lua, zlib) that perf-run read wrong: floating-point constants
 * DWARF gives as DW_OP_implicit_value, an int constant 255 given in one
 * byte, and parameters it gives as their
 * value at the function's entry (DW_OP_entry_value) in a recursive
 * function, where a deeper call's entry is not this frame's, and an
 * address in a function inlined into itself.
 * tests/dwarf/values.sh reads them against gdb.  Prints to stderr what a
 * trace must see.  "dwarf_real wait N" polls N times in poll_loop, for a
 * trace attached by -p after its entry (tests/runtime/dwarf.test).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

volatile long g_sink;
volatile double g_fsink;

/* At -O1+ step and scale are constants: DW_OP_implicit_value 8 bytes. */
__attribute__((noinline)) double fp_const(int n)
{
	double step = 0.25, scale = -3.5;
	double acc = 0;

	for (int i = 0; i < n; i++)
		acc += step * i;        /* FP loop */
	g_fsink = acc;
	return acc * scale;        /* FP scale */
}

struct node {
	int v;
	struct node *l, *r;
};

/* After the left call t is dead, so DWARF says "t's value at entry"; the
 * last entry seen is the left child's, not this frame's. */
__attribute__((noinline)) long tree_sum(const struct node *t, int depth)
{
	long s = t->v;
	const struct node *r = t->r;

	if (t->l) {
		s += tree_sum(t->l, depth + 1);
		g_sink = s;            /* TREE after left */
	}
	if (r)
		s += tree_sum(r, depth + 1);
	return s;
}

/* t is dead in the loop: DWARF gives it as its value at the entry. */
__attribute__((noinline)) long poll_loop(const struct node *t, int rounds)
{
	long s = t->v;

	for (int i = 0; i < rounds; i++) {
		usleep(20000);
		g_sink = s + i;        /* POLL body */
	}
	return s;
}

/* At -O3 gcc inlines walk into itself a few levels deep; an inlined
 * copy's DW_AT_entry_pc is inside its code, not where its ranges begin. */
__attribute__((noinline)) static int is_big(const struct node *c)
{
	return c->v > 2;
}

static double walk(const struct node *t, int depth)
{
	double sum = 0;

	for (const struct node *c = t->l; c; c = c->r) {
		if (is_big(c))
			sum += c->v * (depth + 1);
		else if (c->v)
			sum += (double)(unsigned char)c->v;
		sum += walk(c, depth + 1);   /* WALK recurse */
	}
	return sum;
}

/* Called only with 255: gcc's clone has reg as DW_AT_const_value in
 * DW_FORM_data1, 0xff, which is 255 in an int, not -1. */
__attribute__((noinline)) static long with_const(const struct node *t, int reg)
{
	g_sink = t->v + reg;          /* CONST body */
	return reg;
}

/* A local of more than 1024 bytes, as lua's luaL_Buffer. */
struct bigbuf {
	int len;
	char text[1100];
};

__attribute__((noinline)) static long big_local(int n)
{
	struct bigbuf b = { n, "abc" };

	b.text[n] = 'z';
	g_sink = b.len + b.text[0];   /* BIG body */
	return b.text[1];
}

/* r is never used: DWARF computes it, min and max by "DW_OP_bra 1;
 * DW_OP_swap; DW_OP_drop" (zlib's inflate_table, root). */
__attribute__((noinline)) static void consume(unsigned v)
{
	g_sink = v;
}

/* Before the call r is not computed yet: DWARF gives it as min and max of
 * a, lo and hi by "DW_OP_bra 1; DW_OP_swap; DW_OP_drop" (as zlib's
 * inflate_table, root). */
__attribute__((noinline)) static unsigned clamp_use(unsigned a, unsigned lo, unsigned hi)
{
	unsigned r = a;

	if (r > hi)
		r = hi;
	if (r < lo)
		r = lo;
	consume(lo + hi);            /* CLAMP body */
	consume(a);
	return r * 3 + lo + hi;
}

/* As zlib's z_stream in example.c: clang -O1 keeps the three pointers it
 * knows are 0 as constant pieces, the bytes around them as two memory
 * pieces of 64 and 24 bytes. */
struct stream {
	const char *next_in;
	unsigned avail_in;
	unsigned long total_in;
	char *next_out;
	unsigned avail_out;
	unsigned long total_out;
	const char *msg;
	void *state;
	void *zalloc, *zfree, *opaque;
	int data_type;
	unsigned long adler, reserved;
};

__attribute__((noinline)) static int stream_init(struct stream *s, int level)
{
	s->adler = 1;
	s->total_in = (unsigned long)level;
	return s->zalloc != 0;
}

__attribute__((noinline)) static long stream_use(int n)
{
	struct stream s;

	s.zalloc = 0;
	s.zfree = 0;
	s.opaque = 0;
	s.avail_in = (unsigned)n;
	stream_init(&s, n);           /* STREAM init */
	return (long)(s.adler + s.avail_in + s.total_in);
}

static struct node leaf_a = { 2, 0, 0 }, leaf_b = { 3, 0, 0 };
static struct node mid = { 5, &leaf_a, 0 }, root = { 7, &mid, &leaf_b };

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "wait"))
		return (int)poll_loop(&root, atoi(argv[2])) - 7;
	double f = fp_const(argc + 3);
	long t = tree_sum(&root, argc);
	double w = walk(&root, argc);

	t += with_const(&root, 255) + with_const(&mid, 255) + big_local(argc + 2);
	t += clamp_use(argc + 40, 3, 9) + stream_use(argc + 4);

	fprintf(stderr, "fp_const n=%d step=0.25 scale=-3.5 -> %g tree_sum %ld walk %g\n",
		argc + 3, f, t, w);
	return 0;
}
