/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * dwarf_oddpieces.c - pieces of sizes a register does not hold whole:
 * clang -O1 and up keeps a 24-bit and a 48-bit bitfield as 3- and 6-byte
 * stack values (DW_OP_convert to unsigned_24 / unsigned_48, DW_OP_piece 3
 * and 6); gcc -O2 keeps a struct holding &local as an implicit pointer
 * piece next to a register piece, and a struct of bitfields as bit pieces
 * (DW_OP_bit_piece).  tests/dwarf/values.sh reads them against gdb.
 * Prints to stderr what a trace must see.
 */
#include <stdio.h>

struct u24 {
	unsigned char a;
	unsigned b : 24;
	int c;
};

struct u48 {
	unsigned short a;
	unsigned long b : 48;
};

struct bits {
	unsigned a : 3, b : 9, c : 12;
	int d;
};

struct hp {
	int *p;
	int n;
};

volatile long g_sink;

__attribute__((noinline)) void sink(long v)
{
	g_sink += v;
}

__attribute__((noinline)) long f24(struct u24 o)
{
	sink(o.a);
	sink(o.c);             /* U24 c */
	sink(o.b);
	return o.b;
}

__attribute__((noinline)) long f48(struct u48 o)
{
	sink(o.a);
	sink(o.b);             /* U48 b */
	return o.b;
}

__attribute__((noinline)) long bitsf(int n)
{
	struct bits b = { n & 7, n * 5, n * 9, n + 1 };

	sink(b.a);
	sink(b.b);             /* BITS b */
	sink(b.c);
	return b.a + b.c;
}

static inline long use_hp(struct hp h)
{
	sink(*h.p);
	sink(h.n);             /* HP n */
	return *h.p + h.n;
}

__attribute__((noinline)) long hpf(int n)
{
	int loc = n * 7;
	struct hp h = { &loc, n + 2 };
	long r = use_hp(h);

	sink(loc);
	return r;
}

int main(int argc, char **argv)
{
	struct u24 a = { argc, 70000 + argc, argc * 3 };
	struct u48 c = { 7, 281474976710000UL + argc };
	long r;

	(void)argv;
	r = f24(a) + f48(c) + bitsf(argc + 4) + hpf(argc);
	fprintf(stderr, "f24 o.a=%d o.b=%d o.c=%d f48 o.a=7 o.b=%lu bitsf b.a=%d b.b=%d b.c=%d "
		"hpf h.n=%d *h.p=%d r=%ld\n", argc, 70000 + argc, argc * 3, 281474976710000UL + argc,
		(argc + 4) & 7, (argc + 4) * 5, (argc + 4) * 9, argc + 2, argc * 7, r);
	return 0;
}
