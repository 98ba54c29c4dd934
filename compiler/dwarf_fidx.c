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

static bool ends_sequence(Dwarf_Lines *lines, size_t i)
{
	bool end;

	return !dwarf_lineendsequence(dwarf_onesrcline(lines, i), &end) && end;
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
			if (row_addr(lines, i, &a) && a == addr && !ends_sequence(lines, i)) {
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
	/* A sequence ending at addr (the function before, in a section of
	 * its own: C++ templates and inline functions) is no row of it. */
	while (lo < n && row_addr(lines, lo, &a) && a == addr && ends_sequence(lines, lo))
		lo++;
	if (lo == n || !row_addr(lines, lo, &a) || a != addr)
		return false;
	*idx = lo;
	return true;
}

uint64_t dwf_body_start(struct dwf_cache **c, Dwarf_Die *cu, Dwarf_Die *sp, uint64_t entry)
{
	Dwarf_Lines *lines;
	Dwarf_Addr high, addr;
	size_t n, i, idx;
	int lno0, lno;
	bool pe;

	if (dwf_optimized(c, cu) || dwarf_highpc(sp, &high) || dwarf_getsrclines(cu, &lines, &n))
		return entry;
	if (!dwf_line_at(c, cu, entry, &idx) || dwarf_lineno(dwarf_onesrcline(lines, idx), &lno0))
		return entry;
	Dwarf_Line *l = NULL;
	for (i = idx; i < n; i++) {
		l = dwarf_onesrcline(lines, i);
		if (dwarf_lineaddr(l, &addr) || dwarf_lineno(l, &lno) || dwarf_lineprologueend(l, &pe))
			return entry;
		if (addr >= high || pe || lno != lno0 || i != idx)
			break;
	}
	dwarf_lineaddr(l, &addr);
	if (addr >= high && i > 0)
		dwarf_lineaddr(dwarf_onesrcline(lines, i - 1), &addr);
	return addr;
}

/* The first row in [entry, high) flagged prologue_end (clang flags one
 * in optimised code too; gcc none); 0 if none. */
static uint64_t flagged_end(struct dwf_cache **c, Dwarf_Die *cu, uint64_t entry, uint64_t high)
{
	Dwarf_Lines *lines;
	Dwarf_Addr addr;
	size_t n, idx;
	bool pe;

	if (dwarf_getsrclines(cu, &lines, &n) || !dwf_line_at(c, cu, entry, &idx))
		return 0;
	for (size_t i = idx; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		if (dwarf_lineaddr(l, &addr) || addr >= high || addr < entry)
			return 0;
		if (!dwarf_lineprologueend(l, &pe) && pe)
			return addr;
	}
	return 0;
}

uint64_t dwf_prologue_end(struct dwf_cache **c, Dwarf_Die *cu, Dwarf_Die *sp, uint64_t entry)
{
	Dwarf_Addr high;
	uint64_t end;

	if (!dwf_optimized(c, cu)) {
		end = dwf_body_start(c, cu, sp, entry);
		return end > entry ? end : entry + 1;
	}
	if (dwarf_highpc(sp, &high))
		return entry + 1;
	end = flagged_end(c, cu, entry, high);
	return end > entry ? end : entry + 1;
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
