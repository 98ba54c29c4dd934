// SPDX-License-Identifier: GPL-2.0-only
/*
 * dwarf_fidx.c - a compile unit's real functions by address: each
 * subprogram's address ranges, sorted by start, searched by bisection.
 */
#include "dwarf_fidx.h"
#include "dwarf_walk.h"

#include <dwarf.h>
#include <stdlib.h>

struct frange {
	uint64_t lo, hi;        /* [lo, hi), as dwarf_haspc compares */
	uint64_t maxhi;         /* the largest hi of this and every earlier range */
	size_t order;           /* the function's place in dwarf_getfuncs' walk */
	Dwarf_Die fn;
};

struct cu_index {
	Dwarf_CU *unit;         /* the key: one per unit of the Dwarf */
	struct frange *r;
	size_t n, cap, nfuncs;
	signed char optimized;  /* -1 until asked */
	signed char lines_sorted;
	struct cu_index *next;
};

struct dwf_cache {
	struct cu_index *units;
};

static int add_cb(Dwarf_Die *fn, void *arg)
{
	struct cu_index *x = arg;
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	if (dwarf_tag(fn) != DW_TAG_subprogram)
		return DWARF_CB_OK;
	while ((off = dwarf_ranges(fn, off, &base, &lo, &hi)) > 0) {
		if (x->n == x->cap) {
			x->cap = x->cap ? 2 * x->cap : 64;
			x->r = realloc(x->r, x->cap * sizeof(*x->r));
			if (!x->r)
				abort();
		}
		x->r[x->n++] = (struct frange){ lo, hi, 0, x->nfuncs, *fn };
	}
	x->nfuncs++;
	return DWARF_CB_OK;
}

static int by_lo(const void *a, const void *b)
{
	const struct frange *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static struct cu_index *build(Dwarf_Die *cu)
{
	struct cu_index *x = calloc(1, sizeof(*x));

	if (!x)
		abort();
	x->unit = cu->cu;
	x->optimized = x->lines_sorted = -1;
	dwarf_getfuncs(cu, add_cb, x, 0);
	if (x->n)
		qsort(x->r, x->n, sizeof(*x->r), by_lo);
	for (size_t i = 0; i < x->n; i++)
		x->r[i].maxhi = i && x->r[i - 1].maxhi > x->r[i].hi ? x->r[i - 1].maxhi : x->r[i].hi;
	return x;
}

static struct cu_index *unit_index(struct dwf_cache **c, Dwarf_Die *cu)
{
	if (!*c && !(*c = calloc(1, sizeof(**c))))
		abort();
	for (struct cu_index **p = &(*c)->units; *p; p = &(*p)->next)
		if ((*p)->unit == cu->cu) {
			struct cu_index *x = *p;
			*p = x->next;  /* to the front: sites come grouped by unit */
			x->next = (*c)->units;
			(*c)->units = x;
			return x;
		}
	struct cu_index *x = build(cu);
	x->next = (*c)->units;
	(*c)->units = x;
	return x;
}

bool dwf_realfunc(struct dwf_cache **c, Dwarf_Die *cu, uint64_t addr, Dwarf_Die *out)
{
	struct cu_index *x = unit_index(c, cu);
	size_t lo = 0, hi = x->n, best = SIZE_MAX, at = 0;

	while (lo < hi) {  /* the first range starting above addr */
		size_t mid = lo + (hi - lo) / 2;
		if (x->r[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Every range that can hold addr starts at or below it; the walk
	 * took the first function in its order, so overlaps keep the least. */
	for (size_t i = lo; i-- > 0 && x->r[i].maxhi > addr;)
		if (x->r[i].hi > addr && x->r[i].order < best) {
			best = x->r[i].order;
			at = i;
		}
	if (best == SIZE_MAX)
		return false;
	*out = x->r[at].fn;
	return true;
}

static bool has_loclist(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	int tag = dwarf_tag(d);

	if (tag != DW_TAG_formal_parameter && tag != DW_TAG_variable)
		return false;
	return dwarf_attr_integrate(d, DW_AT_location, &a) &&
	       dwarf_whatform(&a) == DW_FORM_sec_offset;
}

static int loclist_cb(Dwarf_Die *d, void *arg)
{
	if (has_loclist(d)) {
		*(bool *)arg = true;
		return DWW_END;
	}
	return DWW_CONT;
}

bool dwf_optimized(struct dwf_cache **c, Dwarf_Die *cu)
{
	struct cu_index *x = unit_index(c, cu);

	if (x->optimized < 0) {
		bool opt = false;
		dww_walk_children(cu, loclist_cb, &opt);
		x->optimized = opt;
	}
	return x->optimized;
}

static bool row_addr(Dwarf_Lines *lines, size_t i, uint64_t *a)
{
	Dwarf_Addr v;

	if (dwarf_lineaddr(dwarf_onesrcline(lines, i), &v))
		return false;
	*a = v;
	return true;
}

/* libdw sorts a unit's rows by address; checked once, as a row whose
 * address cannot be read or an unsorted table leaves only the scan. */
static bool sorted(Dwarf_Lines *lines, size_t n)
{
	uint64_t prev = 0, a;

	for (size_t i = 0; i < n; i++) {
		if (!row_addr(lines, i, &a) || a < prev)
			return false;
		prev = a;
	}
	return true;
}

bool dwf_line_at(struct dwf_cache **c, Dwarf_Die *cu, uint64_t addr, size_t *idx)
{
	struct cu_index *x = unit_index(c, cu);
	Dwarf_Lines *lines;
	size_t n, lo = 0, hi;
	uint64_t a;

	if (dwarf_getsrclines(cu, &lines, &n))
		return false;
	if (x->lines_sorted < 0)
		x->lines_sorted = sorted(lines, n);
	if (!x->lines_sorted) {
		for (size_t i = 0; i < n; i++)
			if (row_addr(lines, i, &a) && a == addr) {
				*idx = i;
				return true;
			}
		return false;
	}
	for (hi = n; lo < hi;) {  /* the first row at or above addr */
		size_t mid = lo + (hi - lo) / 2;
		if (row_addr(lines, mid, &a) && a < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n || !row_addr(lines, lo, &a) || a != addr)
		return false;
	*idx = lo;
	return true;
}

void dwf_free(struct dwf_cache *c)
{
	if (!c)
		return;
	while (c->units) {
		struct cu_index *x = c->units;
		c->units = x->next;
		free(x->r);
		free(x);
	}
	free(c);
}
