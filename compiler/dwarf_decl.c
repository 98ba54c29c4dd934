/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * dwarf_decl.c - declared-only records completed from the unit that
 * defines them: an index of every unit's struct, class and union
 * definitions (at file scope, in namespaces, nested in classes) by
 * qualified name, sorted and searched by bisection.
 */
#define _GNU_SOURCE
#include "dwarf_decl.h"

#include <dwarf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct def {
	char *name;             /* "ns::Outer::Name" */
	bool is_union;
	Dwarf_Off off;
};

struct dwd_index {
	Dwarf *dbg;
	struct def *v;
	size_t n, cap;
};

static bool is_record(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_class_type || tag == DW_TAG_union_type;
}

static char *qualify(const char *prefix, const char *name)
{
	char *s;

	if (asprintf(&s, "%s%s%s", prefix, *prefix ? "::" : "", name) < 0)
		abort();
	return s;
}

static void add(struct dwd_index *ix, char *name, bool is_union, Dwarf_Off off)
{
	if (ix->n == ix->cap) {
		ix->cap = ix->cap ? 2 * ix->cap : 256;
		ix->v = realloc(ix->v, ix->cap * sizeof(*ix->v));
		if (!ix->v)
			abort();
	}
	ix->v[ix->n++] = (struct def){ name, is_union, off };
}

/* The definitions among the children of scope, whose qualified name is
 * prefix; into namespaces and records (nested types), not functions. */
static void collect(struct dwd_index *ix, Dwarf_Die *scope, const char *prefix, int depth)
{
	Dwarf_Die d;
	Dwarf_Attribute a;

	if (depth > 32 || dwarf_child(scope, &d) != 0)
		return;
	do {
		int tag = dwarf_tag(&d);
		const char *name = dwarf_diename(&d);
		if (!name || (tag != DW_TAG_namespace && !is_record(tag)))
			continue;  /* an anonymous namespace's types are its unit's own */
		char *q = qualify(prefix, name);
		if (is_record(tag) && !dwarf_attr(&d, DW_AT_declaration, &a) &&
		    dwarf_bytesize(&d) >= 0) {
			add(ix, q, tag == DW_TAG_union_type, dwarf_dieoffset(&d));
			collect(ix, &d, ix->v[ix->n - 1].name, depth + 1);
			continue;
		}
		collect(ix, &d, q, depth + 1);
		free(q);
	} while (dwarf_siblingof(&d, &d) == 0);
}

static int cmp_def(const void *pa, const void *pb)
{
	const struct def *a = pa, *b = pb;
	int r = strcmp(a->name, b->name);

	if (r)
		return r;
	if (a->is_union != b->is_union)
		return a->is_union - b->is_union;
	return a->off < b->off ? -1 : a->off > b->off;
}

static struct dwd_index *build(Dwarf *dbg)
{
	struct dwd_index *ix = calloc(1, sizeof(*ix));
	Dwarf_Off off = 0, next;
	size_t hs;
	Dwarf_Die cu;

	if (!ix)
		abort();
	ix->dbg = dbg;
	while (dwarf_nextcu(dbg, off, &next, &hs, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dbg, off + hs, &cu))
			collect(ix, &cu, "", 0);
		off = next;
	}
	qsort(ix->v, ix->n, sizeof(*ix->v), cmp_def);
	return ix;
}

/* d's qualified name; NULL inside an anonymous namespace or a function. */
static char *decl_name(Dwarf_Die *d)
{
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes_die(d, &scopes);
	char *q, *t;

	if (n <= 0) {
		free(scopes);
		return NULL;
	}
	if (!(q = strdup("")))
		abort();
	for (int i = n - 2; i >= 0 && q; i--) {  /* scopes[n-1] is the unit */
		const char *name = dwarf_diename(&scopes[i]);
		int tag = dwarf_tag(&scopes[i]);
		if (!name || (tag != DW_TAG_namespace && !is_record(tag))) {
			free(q);
			q = NULL;
			break;
		}
		t = qualify(q, name);
		free(q);
		q = t;
	}
	free(scopes);
	return q;
}

/* A definition's shape: its size and its members' names and offsets. */
static unsigned long shape(Dwarf_Die *d)
{
	unsigned long h = (unsigned long)dwarf_bytesize(d) * 1000003u;
	Dwarf_Die m;
	Dwarf_Attribute a;
	Dwarf_Word off;

	if (dwarf_child(d, &m) != 0)
		return h;
	do {
		int tag = dwarf_tag(&m);
		if (tag != DW_TAG_member && tag != DW_TAG_inheritance)
			continue;
		for (const char *s = dwarf_diename(&m) ?: "^"; *s; s++)
			h = h * 31 + (unsigned char)*s;
		if (dwarf_attr(&m, DW_AT_data_member_location, &a) && !dwarf_formudata(&a, &off))
			h = h * 131 + off;
	} while (dwarf_siblingof(&m, &m) == 0);
	return h;
}

int dwd_definition(struct dwd_index **ixp, Dwarf_Die *d, Dwarf_Die *def, int *n)
{
	Dwarf *dbg = dwarf_cu_getdwarf(d->cu);
	char *name = decl_name(d);
	bool is_union = dwarf_tag(d) == DW_TAG_union_type;
	size_t lo = 0, hi;

	*n = 0;
	if (!name || !dbg) {
		free(name);
		return 0;
	}
	if (!*ixp)
		*ixp = build(dbg);
	struct dwd_index *ix = *ixp;
	for (hi = ix->n; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;
		int r = strcmp(ix->v[mid].name, name);
		if (r < 0 || (!r && ix->v[mid].is_union < is_union))
			lo = mid + 1;
		else
			hi = mid;
	}
	unsigned long first = 0;
	bool differ = false;
	for (size_t i = lo; i < ix->n && !strcmp(ix->v[i].name, name) &&
			    ix->v[i].is_union == is_union; i++) {
		Dwarf_Die c;
		if (!dwarf_offdie(ix->dbg, ix->v[i].off, &c))
			continue;
		unsigned long s = shape(&c);
		if (!*n)
			*def = c, first = s;
		else if (s != first)
			differ = true;
		(*n)++;
	}
	free(name);
	return !*n ? 0 : differ ? -1 : 1;
}

bool dwd_complete(struct dwd_index **ix, Dwarf_Die *t)
{
	Dwarf_Attribute a;
	Dwarf_Die def;
	int n;

	if (!is_record(dwarf_tag(t)) || !dwarf_attr(t, DW_AT_declaration, &a))
		return true;
	if (dwd_definition(ix, t, &def, &n) != 1)
		return false;
	*t = def;
	return true;
}

void dwd_free(struct dwd_index *ix)
{
	if (!ix)
		return;
	for (size_t i = 0; i < ix->n; i++)
		free(ix->v[i].name);
	free(ix->v);
	free(ix);
}
