/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * dwarf_opt.c - DWARF of optimised code (built -O2, mk/progs-extra.mk):
 * constants of narrow unsigned types, return values of every scalar kind,
 * floating point in memory and in xmm registers, offsets into a function.
 * Prints to stderr what a trace must see.
 */
#include <stdbool.h>
#include <stdio.h>

enum mood { SAD = -1, OK, GLAD };

struct pt {
	int id;
	double w;
	float f;
};

struct pair {
	long a, b;
};

volatile long g_sink;
double g_ratio = 2.25;
float g_half = -0.5f;
struct pt g_pt = { 7, 1.5, 0.25f };

/* At -O2 m, w, s and u have constant locations (DW_AT_const_value). */
__attribute__((noipa)) int masks(int x)
{
	unsigned char m = 255;
	unsigned short w = 65535;
	signed char s = -2;
	unsigned int u = 4000000000u;

	g_sink = x;
	return (x & m) + s + w + (int)u;
}

__attribute__((noipa)) int ret_int(int x) { return x - 705032704; }
__attribute__((noipa)) short ret_short(int x) { return (short)(x - 3); }
__attribute__((noipa)) unsigned char ret_uchar(unsigned x) { return (unsigned char)(x + 1); }
__attribute__((noipa)) bool ret_bool(int x) { return x > 5; }
__attribute__((noipa)) enum mood ret_enum(int x) { return x ? SAD : GLAD; }
__attribute__((noipa)) struct pt *ret_ptr(int x) { return x ? &g_pt : NULL; }
__attribute__((noipa)) double ret_double(int x) { return x * 0.5; }
__attribute__((noipa)) struct pair ret_pair(long x) { return (struct pair){ x, -x }; }

/* p->w is in memory, d only in xmm0. */
__attribute__((noipa)) double scale(const struct pt *p, double d)
{
	g_sink = p->id;
	return p->w * d + p->f;
}

int main(void)
{
	long sum = masks(3);

	sum += ret_int(9) + ret_short(1) + ret_uchar(0x1ff) + ret_bool(9) + ret_enum(1);
	sum += ret_ptr(1) != NULL;
	sum += (long)ret_double(3) + ret_pair(4).b;
	sum += (long)scale(&g_pt, 2.0);
	fprintf(stderr, "masks m=255 w=65535 s=-2 u=4000000000\n"
		"ret_int=%d ret_short=%d ret_uchar=%d ret_bool=%d ret_enum=%d\n"
		"scale p->w=1.5 p->f=0.25 d=2 g_ratio=2.25 g_half=-0.5 sum=%ld\n",
		ret_int(9), ret_short(1), ret_uchar(0x1ff), ret_bool(9), ret_enum(1), sum);
	return 0;
}
