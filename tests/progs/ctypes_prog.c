/* SPDX-License-Identifier: GPL-2.0-only */ /* ctypes_prog N: passes N records through take(void *p), a target for
 * casts to C types that a script declares itself ((struct view *)arg0):
 * the argument is void *, so the program's DWARF does not type it, and the
 * script's names (view, vpoint, ...) are not the program's.  Prints what a
 * trace must see to stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct point {
	int x, y;
};

union num {
	long l;
	int i[2];
};

enum color { RED = 1, GREEN = 2, BLUE = 4 };

struct item {
	int id;
	char name[16];
	struct point pos;
	struct point *ref;
	enum color color;
	union num n;
	struct {
		short lo;
		short hi;
	};
	unsigned a : 3, b : 5;
	int c : 7;
	struct item *next;
	unsigned long long big;
};

__attribute__((noipa)) long take(void *p)
{
	return ((struct item *)p)->id;
}

static void fill(struct item *it, int i, struct item *next)
{
	static const enum color colors[3] = { RED, GREEN, BLUE };

	memset(it, 0, sizeof(*it));
	it->id = i + 1;
	snprintf(it->name, sizeof(it->name), "item%d", i);
	it->pos = (struct point){ i, 2 * i };
	it->ref = &it->pos;
	it->color = colors[i % 3];
	it->n.l = (long)(i + 1) * 1000;
	it->lo = (short)-i;
	it->hi = (short)(3 * i);
	it->a = (unsigned)i & 7;
	it->b = (unsigned)i & 31;
	it->c = -(i & 63);
	it->next = next;
	it->big = (1ull << 40) | (unsigned)i;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	struct item *v = calloc((size_t)n + 1, sizeof(*v));
	long ids = 0, ys = 0, nl = 0, lo = 0, c = 0, next = 0, blue = 0, bits = 0;

	if (!v)
		return 1;
	for (int i = n - 1; i >= 0; i--)
		fill(&v[i], i, i + 1 < n ? &v[i + 1] : NULL);
	for (int i = 0; i < n; i++) {
		ids += take(&v[i]);
		ys += v[i].ref->y;
		nl += v[i].n.l;
		lo += v[i].lo;
		c += v[i].c;
		bits += v[i].a + v[i].b;
		next += v[i].next ? v[i].next->id : 0;
		blue += v[i].color == BLUE;
	}
	fprintf(stderr, "calls=%d sizeof=%zu ids=%ld ys=%ld nl=%ld lo=%ld c=%ld bits=%ld next=%ld "
		"blue=%ld name0=%s\n", n, sizeof(struct item), ids, ys, nl, lo, c, bits, next, blue,
		v[0].name);
	free(v);
	return 0;
}
