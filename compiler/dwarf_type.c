// SPDX-License-Identifier: GPL-2.0-only
/*
 * dwarf_type.c - DWARF type DIEs → struct type, cached per DIE offset.
 *
 * Typedefs and qualifiers are looked through (struct type has no alias
 * kind); float and double become T_FLOAT, whose bits are carried to user
 * space and printed there (long double and complex cannot be expressed).
 * A record is cached before its members are
 * converted, so that `struct node { struct node *next; }` ends.
 */
#define _GNU_SOURCE
#include "dwarf_type.h"

#include <dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf_decl.h"
#include "lib/types.h"

struct slot {
	Dwarf_Off off;          /* 0 = empty (no type DIE sits at offset 0) */
	const struct type *t;
};

struct dwt_cache {
	struct slot *v;
	size_t cap, n;
	char **names;           /* strings the types point to */
	size_t nnames, capnames;
	struct dwd_index *defs; /* definitions of declared-only records, on first use */
	bool kernel;            /* pointers point into kernel memory */
};

/* The records still to fill (types.h's fill hook), by fill_id: the DIE
 * and the cache its members' types go into.  A kernel's struct file
 * reaches most of vmlinux's types; a probe reads a few of them. */
struct pending {
	struct dwt_cache *c;    /* NULL once the cache is freed */
	Dwarf_Die die;
};

static struct pending *pend;
static size_t npend, cappend;

static void fill_record(struct type *t);
static void fill_declared(struct type *t);

/* rec filled by fn from d on first need. */
static void defer(struct dwt_cache *c, const struct type *rec, Dwarf_Die *d,
		  void (*fn)(struct type *))
{
	struct type *w = (struct type *)rec;

	if (npend == cappend) {
		cappend = cappend ? 2 * cappend : 256;
		if (!(pend = realloc(pend, cappend * sizeof(*pend))))
			abort();
	}
	pend[npend] = (struct pending){ c, *d };
	w->fill = fn;
	w->fill_id = (uint32_t)npend++;
}

struct dwt_cache *dwt_new(void)
{
	struct dwt_cache *c = calloc(1, sizeof(*c));

	if (!c)
		abort();
	c->cap = 256;
	c->v = calloc(c->cap, sizeof(*c->v));
	if (!c->v)
		abort();
	return c;
}

void dwt_set_kernel(struct dwt_cache *c)
{
	c->kernel = true;
}

void dwt_free(struct dwt_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < npend; i++)
		if (pend[i].c == c)
			pend[i].c = NULL;
	for (size_t i = 0; i < c->nnames; i++)
		free(c->names[i]);
	free(c->names);
	free(c->v);
	dwd_free(c->defs);
	free(c);
}

struct dwd_index **dwt_decls(struct dwt_cache *c)
{
	return &c->defs;
}

static const char *keep(struct dwt_cache *c, char *s)
{
	if (!s)
		abort();
	if (c->nnames == c->capnames) {
		c->capnames = c->capnames ? c->capnames * 2 : 16;
		c->names = realloc(c->names, c->capnames * sizeof(*c->names));
		if (!c->names)
			abort();
	}
	c->names[c->nnames++] = s;
	return s;
}

static struct slot *lookup(struct dwt_cache *c, Dwarf_Off off)
{
	size_t i = (off * 0x9E3779B97F4A7C15ull) & (c->cap - 1);

	while (c->v[i].off && c->v[i].off != off)
		i = (i + 1) & (c->cap - 1);
	return &c->v[i];
}

static void put(struct dwt_cache *c, Dwarf_Off off, const struct type *t)
{
	if (2 * (c->n + 1) > c->cap) {
		struct slot *old = c->v;
		size_t oldcap = c->cap;

		c->cap *= 2;
		c->v = calloc(c->cap, sizeof(*c->v));
		if (!c->v)
			abort();
		c->n = 0;
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].off)
				put(c, old[i].off, old[i].t);
		free(old);
	}
	struct slot *s = lookup(c, off);
	if (!s->off)
		c->n++;
	s->off = off;
	s->t = t;
}

static const struct type *convert(struct dwt_cache *c, Dwarf_Die *d);

const struct type *dwt_type_of(struct dwt_cache *c, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Die t;

	if (!dwarf_attr_integrate(die, DW_AT_type, &a) || !dwarf_formref_die(&a, &t))
		return type_void();
	return convert(c, &t);
}

static const struct type *base_type(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	Dwarf_Word enc = 0;
	int size = dwarf_bytesize(d);

	if (dwarf_attr(d, DW_AT_encoding, &a))
		dwarf_formudata(&a, &enc);
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return NULL;
	if (enc == DW_ATE_float)
		return size == 4 || size == 8 ? type_float((unsigned)size) : NULL;
	if (enc == DW_ATE_complex_float || enc == DW_ATE_decimal_float)
		return NULL;
	bool sign = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
	const char *name = dwarf_diename(d);

	if (size == 1 && sign && name && !strcmp(name, "char"))
		return type_char();   /* not "signed char": its arrays are strings */
	return type_int((unsigned)size, sign);
}

static uint32_t member_offset(Dwarf_Die *m)
{
	Dwarf_Attribute a;
	Dwarf_Word v = 0;
	Dwarf_Op *ops;
	size_t n;

	if (!dwarf_attr(m, DW_AT_data_member_location, &a))
		return 0;
	if (dwarf_formudata(&a, &v) == 0)
		return (uint32_t)v;
	/* DWARF 2 style: an expression, DW_OP_plus_uconst N. */
	if (dwarf_getlocation(&a, &ops, &n) == 0 && n == 1 && ops[0].atom == DW_OP_plus_uconst)
		return (uint32_t)ops[0].number;
	return 0;
}

/* Places a bitfield in the aligned storage unit of its declared type, bit
 * 0 being the least significant (little-endian x86-64). */
static void bitfield(Dwarf_Die *m, const struct type *ft, struct field *f)
{
	Dwarf_Attribute a;
	Dwarf_Word bits, dbo;
	unsigned unit = ft && ft->size ? ft->size : 1;

	if (!dwarf_attr(m, DW_AT_bit_size, &a) || dwarf_formudata(&a, &bits))
		return;
	if (dwarf_attr(m, DW_AT_data_bit_offset, &a) && dwarf_formudata(&a, &dbo) == 0) {
		/* DWARF 4+: bits from the start of the record. */
	} else {
		/* DWARF 2/3: DW_AT_bit_offset counts from the most significant bit
		 * of the storage unit at data_member_location. */
		Dwarf_Word bo = 0;
		int bsz = dwarf_bytesize(m);
		if (bsz <= 0)
			bsz = (int)unit;
		if (dwarf_attr(m, DW_AT_bit_offset, &a))
			dwarf_formudata(&a, &bo);
		dbo = (Dwarf_Word)member_offset(m) * 8 + (Dwarf_Word)bsz * 8 - bo - bits;
	}
	uint64_t start = dbo / (unit * 8) * unit;
	if (dbo + bits > (start + unit) * 8)  /* straddles (packed): bytes instead */
		start = dbo / 8;
	f->offset = (uint32_t)start;
	f->bit_offset = (uint16_t)(dbo - start * 8);
	f->bit_size = (uint16_t)bits;
}

static const char *tag_name(struct dwt_cache *c, Dwarf_Die *d, const char *kw)
{
	const char *n = dwarf_diename(d);
	char *s;

	if (asprintf(&s, "%s %s", kw, n ? n : "(anonymous)") < 0)
		abort();
	return keep(c, s);
}

/* A record this unit only declares: filled from the unit that defines it,
 * or left without fields, its name saying why (the index of definitions
 * reads every unit: only a script that looks inside pays for it). */
static const struct type *declared(struct dwt_cache *c, Dwarf_Die *d, bool is_union)
{
	const struct type *t = type_record(tag_name(c, d, is_union ? "union" : "struct"),
					   is_union, 0, NULL, 0);

	put(c, dwarf_dieoffset(d), t);
	defer(c, t, d, fill_declared);
	return t;
}

static void fill_declared(struct type *t)
{
	struct pending p = pend[t->fill_id];
	Dwarf_Die def;
	int n;
	char *s;

	if (!p.c)
		return;
	int r = dwd_definition(&p.c->defs, &p.die, &def, &n);
	if (r == 1) {
		const struct type *d = convert(p.c, &def);
		type_complete(d);
		if (d && d->kind == T_RECORD && d != t) {
			struct field *f = calloc(d->nfields ? d->nfields : 1, sizeof(*f));
			if (!f)
				abort();
			memcpy(f, d->fields, d->nfields * sizeof(*f));
			free((void *)t->fields);
			t->fields = f;
			t->nfields = d->nfields;
			t->size = d->size;
		}
	} else if (r < 0) {
		if (asprintf(&s, "%s (%d units define it differently)", t->name, n) < 0)
			abort();
		t->name = keep(p.c, s);
	}
}

/* True if record d has a direct data member called name. */
static bool has_member(Dwarf_Die *d, const char *name)
{
	Dwarf_Die m;
	const char *n;

	if (dwarf_child(d, &m) != 0)
		return false;
	do {
		if (dwarf_tag(&m) == DW_TAG_member && (n = dwarf_diename(&m)) && !strcmp(n, name))
			return true;
	} while (dwarf_siblingof(&m, &m) == 0);
	return false;
}

/* A C++ base class's fields, as members of the derived record d at the
 * base's offset (gdb reaches a std::vector's _M_impl so), those a member
 * of d hides left out; a virtual base (its offset an expression read at
 * run time) is not reached.  Appends to *f, which holds n; the new n. */
static int base_fields(struct dwt_cache *c, Dwarf_Die *d, Dwarf_Die *inh, struct field **f, int n)
{
	Dwarf_Attribute a;
	Dwarf_Word off = 0;
	Dwarf_Op *ops;
	size_t nops;

	if (dwarf_attr(inh, DW_AT_data_member_location, &a) && dwarf_formudata(&a, &off) &&
	    (dwarf_getlocation(&a, &ops, &nops) || nops != 1 || ops[0].atom != DW_OP_plus_uconst))
		return n;
	if (dwarf_attr(inh, DW_AT_data_member_location, &a) && dwarf_formudata(&a, &off))
		off = ops[0].number;
	const struct type *bt = dwt_type_of(c, inh);
	if (!bt || bt->kind != T_RECORD)
		return n;
	type_complete(bt);
	for (int i = 0; i < bt->nfields; i++) {
		if (bt->fields[i].name[0] && has_member(d, bt->fields[i].name))
			continue;
		*f = realloc(*f, (n + 1) * sizeof(**f));
		if (!*f)
			abort();
		(*f)[n] = bt->fields[i];
		(*f)[n].offset += (uint32_t)off;
		n++;
	}
	return n;
}

/* A record is made with its size and filled on first need (fill_record):
 * types.c allocates record fields with malloc and frees them in
 * type_free_all(), so replacing them keeps its ownership rule. */
static const struct type *record(struct dwt_cache *c, Dwarf_Die *d, bool is_union)
{
	Dwarf_Attribute a;
	int size = dwarf_bytesize(d);

	if (dwarf_attr(d, DW_AT_declaration, &a))
		return declared(c, d, is_union);
	const struct type *rec = type_record(tag_name(c, d, is_union ? "union" : "struct"),
					     is_union, size > 0 ? (uint32_t)size : 0, NULL, 0);
	put(c, dwarf_dieoffset(d), rec);
	defer(c, rec, d, fill_record);
	return rec;
}

static void fill_record(struct type *t)
{
	struct pending p = pend[t->fill_id];
	struct dwt_cache *c = p.c;
	Dwarf_Die *d = &p.die, m;
	Dwarf_Attribute a;
	struct field *f = NULL;
	int n = 0;

	if (!c || dwarf_child(d, &m) != 0)
		return;
	do {
		if (dwarf_tag(&m) == DW_TAG_inheritance) {
			n = base_fields(c, d, &m, &f, n);
			continue;
		}
		/* a static member is no part of the object */
		if (dwarf_tag(&m) != DW_TAG_member || dwarf_attr(&m, DW_AT_declaration, &a) ||
		    dwarf_attr(&m, DW_AT_external, &a))
			continue;
		const struct type *ft = dwt_type_of(c, &m);
		if (!ft)
			continue;
		f = realloc(f, (n + 1) * sizeof(*f));
		if (!f)
			abort();
		const char *name = dwarf_diename(&m);
		f[n] = (struct field){ .name = name ? keep(c, strdup(name)) : "", .type = ft,
				       .offset = member_offset(&m) };
		bitfield(&m, ft, &f[n]);
		n++;
	} while (dwarf_siblingof(&m, &m) == 0);
	free((void *)t->fields);
	t->fields = f ? f : calloc(1, sizeof(*f));
	t->nfields = n;
}

static const struct type *enumeration(struct dwt_cache *c, Dwarf_Die *d)
{
	Dwarf_Die e;
	Dwarf_Attribute a;
	struct enumerator *v = NULL;
	int n = 0, size = dwarf_bytesize(d);
	bool sign = false;
	const struct type *under = dwt_type_of(c, d);

	if (under && under->kind == T_INT)
		sign = under->is_signed;
	if (dwarf_child(d, &e) == 0) {
		do {
			Dwarf_Sword val = 0;
			if (dwarf_tag(&e) != DW_TAG_enumerator)
				continue;
			if (dwarf_attr(&e, DW_AT_const_value, &a))
				dwarf_formsdata(&a, &val);
			v = realloc(v, (n + 1) * sizeof(*v));
			if (!v)
				abort();
			v[n++] = (struct enumerator){ keep(c, strdup(dwarf_diename(&e) ?: "?")), val };
			if (val < 0)
				sign = true;
		} while (dwarf_siblingof(&e, &e) == 0);
	}
	const struct type *t = type_enum(tag_name(c, d, "enum"), size > 0 ? (uint32_t)size : 4,
					 sign, v, n);
	free(v);
	return t;
}

static uint32_t subrange_count(Dwarf_Die *s)
{
	Dwarf_Attribute a;
	Dwarf_Word v;

	if (dwarf_attr(s, DW_AT_count, &a) && dwarf_formudata(&a, &v) == 0)
		return (uint32_t)v;
	if (dwarf_attr(s, DW_AT_upper_bound, &a) && dwarf_formudata(&a, &v) == 0)
		return (uint32_t)v + 1;
	return 0;  /* flexible array member */
}

static const struct type *array(struct dwt_cache *c, Dwarf_Die *d)
{
	uint32_t dims[16];
	int nd = 0;
	Dwarf_Die s;
	const struct type *t = dwt_type_of(c, d);

	if (!t)
		return NULL;
	if (dwarf_child(d, &s) == 0) {
		do {
			if (dwarf_tag(&s) == DW_TAG_subrange_type && nd < 16)
				dims[nd++] = subrange_count(&s);
		} while (dwarf_siblingof(&s, &s) == 0);
	}
	if (nd == 0)
		dims[nd++] = 0;
	while (nd-- > 0)
		t = type_array(t, dims[nd]);
	return t;
}

static const struct type *pointer(struct dwt_cache *c, Dwarf_Die *d)
{
	Dwarf_Attribute a;
	Dwarf_Die t;

	if (!dwarf_attr_integrate(d, DW_AT_type, &a) || !dwarf_formref_die(&a, &t) ||
	    dwarf_tag(&t) == DW_TAG_subroutine_type)
		return type_ptr(type_void(), !c->kernel);
	const struct type *e = convert(c, &t);
	return type_ptr(e ? e : type_void(), !c->kernel);
}

static const struct type *convert(struct dwt_cache *c, Dwarf_Die *d)
{
	Dwarf_Off off = dwarf_dieoffset(d);
	struct slot *s = lookup(c, off);
	const struct type *t;

	if (s->off)
		return s->t;
	switch (dwarf_tag(d)) {
	case DW_TAG_base_type: t = base_type(d); break;
	case DW_TAG_typedef: case DW_TAG_const_type: case DW_TAG_volatile_type:
	case DW_TAG_restrict_type: case DW_TAG_atomic_type:
		t = dwt_type_of(c, d);
		break;
	case DW_TAG_pointer_type: case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		t = pointer(c, d);
		break;
	case DW_TAG_structure_type: case DW_TAG_class_type: return record(c, d, false);
	case DW_TAG_union_type: return record(c, d, true);
	case DW_TAG_enumeration_type: t = enumeration(c, d); break;
	case DW_TAG_array_type: t = array(c, d); break;
	case DW_TAG_unspecified_type: t = type_void(); break;
	default: t = NULL;
	}
	put(c, off, t);
	return t;
}

const struct type *dwt_convert(struct dwt_cache *c, Dwarf_Die *type_die)
{
	return convert(c, type_die);
}

/* Like dwarf_formref_die on DW_AT_type, skipping qualifiers as perf does. */
static Dwarf_Die *real_type(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	if (!dwarf_attr_integrate(die, DW_AT_type, &a) || !dwarf_formref_die(&a, out))
		return NULL;
	for (;;) {
		int tag = dwarf_tag(out);
		if (tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
		    tag != DW_TAG_restrict_type && tag != DW_TAG_shared_type)
			return out;
		if (!dwarf_attr_integrate(out, DW_AT_type, &a) || !dwarf_formref_die(&a, out))
			return NULL;
	}
}

static int name_of(Dwarf_Die *die, char *buf, size_t n)
{
	Dwarf_Die t;
	const char *kw = "";

	if (!real_type(die, &t))
		return -1;
	int tag = dwarf_tag(&t);
	if (tag == DW_TAG_array_type || tag == DW_TAG_pointer_type) {
		if (name_of(&t, buf, n) < 0)
			return -1;
		size_t l = strlen(buf);
		snprintf(buf + l, n - l, "*");
		return 0;
	}
	if (tag == DW_TAG_subroutine_type) {
		snprintf(buf, n, "(function_type)");
		return 0;
	}
	if (!dwarf_diename(&t))
		return -1;
	if (tag == DW_TAG_union_type)
		kw = "union ";
	else if (tag == DW_TAG_structure_type)
		kw = "struct ";
	else if (tag == DW_TAG_enumeration_type)
		kw = "enum ";
	snprintf(buf, n, "%s%s", kw, dwarf_diename(&t));
	return 0;
}

void dwt_name_of(Dwarf_Die *die, char *buf, size_t n)
{
	buf[0] = '\0';
	if (name_of(die, buf, n) < 0)
		snprintf(buf, n, "(unknown_type)");
}
