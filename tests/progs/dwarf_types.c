/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * dwarf_types.c - DWARF type conversion target: structs, unions, bitfields,
 * arrays, enums, pointers to structs, strings, typedefs, const, globals.
 * tests/dwarf/conformance.sh probes show_req, show_shape and set_flags.
 */
#include <stdio.h>
#include <string.h>

enum color { RED, GREEN = 5, BLUE = -1 };

typedef unsigned long long u64_t;

struct flags {
	unsigned int ready : 1;
	unsigned int mode : 3;
	signed int delta : 5;
	unsigned int wide : 20;
	unsigned char tail;
};

union number {
	int i;
	float f;
	unsigned char bytes[4];
};

struct point {
	short x, y;
};

struct req {
	int id;
	char name[16];
	const char *path;
	struct point pts[3];
	struct req *next;
	enum color color;
	union number num;
	struct flags fl;
	u64_t total;
	double ratio;
	int grid[2][3];
};

struct req g_reqs[2];
const char *g_greeting = "hello";
static int s_count = 7;
volatile long g_sink;

__attribute__((noinline)) long show_req(const struct req *r, int depth)
{
	long sum = r->id + depth;

	for (int i = 0; i < 3; i++)
		sum += r->pts[i].x * r->pts[i].y;
	if (r->next)
		sum += r->next->id;
	sum += r->fl.mode + r->fl.delta + (long)r->total + s_count;
	g_sink = sum;
	return sum;
}

__attribute__((noinline)) int show_shape(union number n, enum color c, struct point p)
{
	int v = n.i + (int)c + p.x - p.y;

	g_sink = v;
	return v;
}

__attribute__((noinline)) void set_flags(struct flags *f, unsigned mode, int delta)
{
	f->ready = 1;
	f->mode = mode & 7;
	f->delta = delta;
	f->wide = 0x12345;
	f->tail = 'z';
	g_sink = f->wide;
}

int main(int argc, char **argv)
{
	struct req *a = &g_reqs[0], *b = &g_reqs[1];

	(void)argv;
	a->id = 10;
	strcpy(a->name, "first");
	a->path = g_greeting;
	for (int i = 0; i < 3; i++) {
		a->pts[i].x = (short)(i + 1);
		a->pts[i].y = (short)(2 * i);
	}
	a->next = b;
	b->id = 20;
	strcpy(b->name, "second");
	a->color = GREEN;
	a->num.i = 0x41424344;
	a->total = 1ull << 40;
	a->ratio = 0.5;
	a->grid[1][2] = 12;
	set_flags(&a->fl, 5, -3);
	show_req(a, argc);
	show_shape(a->num, BLUE, a->pts[1]);
	printf("%ld\n", (long)g_sink);
	return 0;
}
