/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * bitfields.c - bitfields in every layout, for the bitfield runtime cases:
 * signed and unsigned, straddling a byte and a 32-bit boundary, after other
 * bitfields, in a packed struct, up to 63 bits.  take() gets a pointer to
 * each struct; main prints to stderr the values it set so a case can check the
 * tracer reads the same ones.
 */
#include <stdio.h>

struct bf {
	unsigned int u3 : 3;       /* bits 0..2 */
	signed int s5 : 5;         /* bits 3..7 */
	signed int sx : 6;         /* bits 8..13 */
	unsigned int ux : 12;      /* bits 14..25: straddles bytes 1..3 */
	signed int s10 : 10;       /* does not fit in the first u32: next one */
	unsigned long long u40 : 40; /* bits 64..103 */
	signed long long s20 : 20;   /* bits 104..123 */
	signed long long s63 : 63;   /* a new 64-bit unit */
	unsigned long long u63 : 63;
};

struct __attribute__((packed)) pk {
	unsigned char tag;
	unsigned int a : 7;        /* bits 8..14 */
	signed int b : 13;         /* bits 15..27: straddles bytes */
	signed long long c : 38;   /* bits 28..65: straddles the 32- and 64-bit boundaries */
	unsigned int d : 3;
};

__attribute__((noinline)) int take(struct bf *f, struct pk *p)
{
	__asm__ volatile("" ::"r"(f), "r"(p) : "memory");
	return f->u3 + p->a;
}

int main(void)
{
	static struct bf f = { 5, -11, -32, 0xabc, -300, 0xfedcba9876ULL, -500000,
			       -4611686018427387000LL, 0x7123456789abcdefULL };
	static struct pk p = { 0x5a, 99, -4000, -100000000000LL, 6 };

	take(&f, &p);
	fprintf(stderr, "u3=%u s5=%d sx=%d ux=%u s10=%d u40=%llu s20=%lld s63=%lld u63=%llu\n",
	       f.u3, f.s5, f.sx, f.ux, f.s10, (unsigned long long)f.u40,
	       (long long)f.s20, (long long)f.s63, (unsigned long long)f.u63);
	fprintf(stderr, "sizeof_pk=%zu tag=%u a=%u b=%d c=%lld d=%u\n", sizeof p, p.tag, p.a, p.b,
	       (long long)p.c, p.d);
	return 0;
}
