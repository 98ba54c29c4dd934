// SPDX-License-Identifier: GPL-2.0-only
/*
 * types.c - construction, interning and printing of script types.
 *
 * Integer, bool and symbol types are static singletons; strings, pointers
 * and arrays are interned so that pointer equality mostly answers
 * type_equal().  Everything built at run time is chained on one list and
 * released by type_free_all(), so callers never free a type.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "lib/types.h"

struct type_box {
	struct type_box *next;
	struct type t;
};

static struct type_box *all_types;

static const struct type t_void = { .kind = T_VOID };
static const struct type t_bool = { .kind = T_BOOL, .size = 8 };
static const struct type t_ints[2][4] = {
	{ { .kind = T_INT, .size = 1 }, { .kind = T_INT, .size = 2 },
	  { .kind = T_INT, .size = 4 }, { .kind = T_INT, .size = 8 } },
	{ { .kind = T_INT, .size = 1, .is_signed = true },
	  { .kind = T_INT, .size = 2, .is_signed = true },
	  { .kind = T_INT, .size = 4, .is_signed = true },
	  { .kind = T_INT, .size = 8, .is_signed = true } },
};
static const struct type t_truth = { .kind = T_BOOL, .size = 8, .is_word = true };
static const struct type t_char = { .kind = T_INT, .size = 1, .is_signed = true,
				    .is_char = true };
static const struct type t_ustack = { .kind = T_STACK, .size = 8, .is_user = true };
static const struct type t_kstack = { .kind = T_STACK, .size = 8 };
static const struct type t_usym = { .kind = T_USYM, .size = 16 };
static const struct type t_ksym = { .kind = T_KSYM, .size = 8 };
static const struct type t_float = { .kind = T_FLOAT, .size = 4, .name = "float" };
static const struct type t_double = { .kind = T_FLOAT, .size = 8, .name = "double" };

static struct type *type_alloc(void)
{
	struct type_box *b = calloc(1, sizeof(*b));

	if (!b)
		abort();
	b->next = all_types;
	all_types = b;
	return &b->t;
}

const struct type *type_void(void) { return &t_void; }
const struct type *type_bool(void) { return &t_bool; }
const struct type *type_stack(bool is_user) { return is_user ? &t_ustack : &t_kstack; }
const struct type *type_usym(void) { return &t_usym; }

const struct type *type_stack_mode(bool is_user, bool perf_mode, unsigned frames)
{
	struct type *t;

	if (!perf_mode && !frames)
		return type_stack(is_user);
	frames = frames > 127 ? 127 : frames;
	for (struct type_box *b = all_types; b; b = b->next)
		if (b->t.kind == T_STACK && b->t.is_user == is_user &&
		    b->t.perf_mode == perf_mode && b->t.frames == frames)
			return &b->t;
	t = type_alloc();
	*t = *type_stack(is_user);
	t->perf_mode = perf_mode;
	t->frames = (uint16_t)frames;
	return t;
}
const struct type *type_ksym(void) { return &t_ksym; }
const struct type *type_float(unsigned size) { return size == 4 ? &t_float : &t_double; }

const struct type *type_ufmt(enum ufmt_kind k, uint32_t size, const char *fmt)
{
	struct type *t;

	for (struct type_box *b = all_types; b; b = b->next)
		if (b->t.kind == T_UFMT && b->t.ufmt == k && b->t.size == size &&
		    (!fmt ? !b->t.name : b->t.name && !strcmp(fmt, b->t.name)))
			return &b->t;
	t = type_alloc();
	t->kind = T_UFMT;
	t->ufmt = k;
	t->size = size;
	t->name = fmt ? strdup(fmt) : NULL;
	if (fmt && !t->name)
		abort();
	return t;
}

bool type_ufmt_mem(const struct type *t)
{
	return t && t->kind == T_UFMT && t->ufmt >= UF_INET && t->ufmt != UF_CGPATH;
}

const struct type *type_truth(void)
{
	return &t_truth;
}

const struct type *type_char(void)
{
	return &t_char;
}

const struct type *type_int(unsigned size, bool is_signed)
{
	int i = size >= 8 ? 3 : size >= 4 ? 2 : size >= 2 ? 1 : 0;

	return &t_ints[is_signed][i];
}

/* The interned types (strings, pointers, arrays, aggregations) by their
 * key, open addressing: a kernel's DWARF types reach tens of thousands of
 * pointers and arrays, which a walk of all_types made quadratic. */
static const struct type **interned;
static size_t icap, icount;

static bool same_key(const struct type *t, const struct type *want)
{
	return t->kind == want->kind && t->size == want->size && t->elem == want->elem &&
	       t->is_user == want->is_user && t->count == want->count && t->agg == want->agg &&
	       t->lh_min == want->lh_min && t->lh_max == want->lh_max &&
	       t->lh_step == want->lh_step && t->str_more == want->str_more;
}

static size_t key_hash(const struct type *t)
{
	uint64_t h = (uint64_t)t->kind * 0x9E3779B97F4A7C15ull;

	h = (h ^ (uintptr_t)t->elem) * 0x9E3779B97F4A7C15ull;
	h = (h ^ ((uint64_t)t->size << 32 | t->count)) * 0x9E3779B97F4A7C15ull;
	h = (h ^ ((uint64_t)t->agg << 2 | (uint64_t)t->is_user << 1 | t->str_more)) *
	    0x9E3779B97F4A7C15ull;
	h = (h ^ (uint64_t)t->lh_min ^ (uint64_t)t->lh_max << 1 ^ (uint64_t)t->lh_step << 2) *
	    0x9E3779B97F4A7C15ull;
	return (size_t)(h >> 17);
}

static const struct type **slot_of(const struct type *want)
{
	size_t i = key_hash(want) & (icap - 1);

	while (interned[i] && !same_key(interned[i], want))
		i = (i + 1) & (icap - 1);
	return &interned[i];
}

static void intern_grow(void)
{
	const struct type **old = interned;
	size_t oldcap = icap;

	icap = icap ? icap * 2 : 256;
	if (!(interned = calloc(icap, sizeof(*interned))))
		abort();
	for (size_t i = 0; i < oldcap; i++)
		if (old[i])
			*slot_of(old[i]) = old[i];
	free(old);
}

static const struct type *type_intern(const struct type *want)
{
	const struct type **s;
	struct type *n;

	if (2 * (icount + 1) > icap)
		intern_grow();
	if (*(s = slot_of(want)))
		return *s;
	n = type_alloc();
	*n = *want;
	*s = n;
	icount++;
	return n;
}

const struct type *type_str(unsigned size)
{
	struct type w = { .kind = T_STR, .size = size };

	return type_intern(&w);
}

const struct type *type_str_read(unsigned size)
{
	struct type w = { .kind = T_STR, .size = size + 1, .str_more = true };

	return type_intern(&w);
}

const struct type *type_ptr(const struct type *elem, bool is_user)
{
	struct type w = { .kind = T_PTR, .size = 8, .elem = elem, .is_user = is_user };

	return type_intern(&w);
}

const struct type *type_array(const struct type *elem, uint32_t count)
{
	struct type w = { .kind = T_ARRAY, .size = elem->size * count,
			  .elem = elem, .count = count };

	return type_intern(&w);
}

const struct type *type_agg(enum agg_kind agg, int64_t lh_min, int64_t lh_max, int64_t lh_step)
{
	struct type w = { .kind = T_AGG, .agg = agg, .lh_min = lh_min,
			  .lh_max = lh_max, .lh_step = lh_step };

	switch (agg) {
	case AGG_SUM: case AGG_MIN: case AGG_MAX: case AGG_AVG: case AGG_STATS:
		w.size = 16;   /* the value, then the hits (sum: to tell 0 from no hit) */
		break;
	case AGG_TSERIES:
		w.size = TS_SLOT;
		break;
	default:
		w.size = 8;
	}
	return type_intern(&w);
}

static struct field *fields_copy(const struct field *f, int n)
{
	struct field *c = calloc(n ? n : 1, sizeof(*c));

	if (!c)
		abort();
	if (n)
		memcpy(c, f, n * sizeof(*c));
	return c;
}

/* The field array is leaked on purpose: it lives as long as the type. */
const struct type *type_record(const char *name, bool is_union, uint32_t size,
			       const struct field *fields, int nfields)
{
	struct type *t = type_alloc();

	t->kind = T_RECORD;
	t->name = name;
	t->is_union = is_union;
	t->size = size;
	t->fields = fields_copy(fields, nfields);
	t->nfields = nfields;
	return t;
}

const struct type *type_enum(const char *name, uint32_t size, bool is_signed,
			     const struct enumerator *enums, int nenums)
{
	struct type *t = type_alloc();
	struct enumerator *e = calloc(nenums ? nenums : 1, sizeof(*e));

	if (!e)
		abort();
	if (nenums)
		memcpy(e, enums, nenums * sizeof(*e));
	t->kind = T_ENUM;
	t->name = name;
	t->size = size;
	t->is_signed = is_signed;
	t->enums = e;
	t->nenums = nenums;
	return t;
}

uint32_t hist_buckets(int k)
{
	return ((64u - (uint32_t)k) << k) + (1u << k) + 1;
}

uint64_t hist_bucket_start(int k, uint32_t i)
{
	uint32_t n = 1u << k, power = (i >> k) - 1;

	return power >= 64 ? UINT64_MAX : (1ull << power) * (n + (i & (n - 1)));
}

const struct type *type_tuple(const struct type *const *elems, int n)
{
	struct field *f = calloc(n ? n : 1, sizeof(*f));
	uint32_t off = 0;
	struct type *t;

	if (!f)
		abort();
	for (int i = 0; i < n; i++) {
		f[i].name = "";
		f[i].type = elems[i];
		f[i].offset = off;
		off += (elems[i]->size + 7) & ~7u;
	}
	/* Reuse an equal tuple so map key types compare by pointer too. */
	for (struct type_box *b = all_types; b; b = b->next) {
		if (b->t.kind == T_TUPLE && b->t.nfields == n && b->t.size == off) {
			int i = 0;

			while (i < n && type_equal(b->t.fields[i].type, elems[i]))
				i++;
			if (i == n) {
				free(f);
				return &b->t;
			}
		}
	}
	t = type_alloc();
	t->kind = T_TUPLE;
	t->size = off;
	t->fields = f;
	t->nfields = n;
	return t;
}

static const struct { const char *name; unsigned size; bool sign; } int_names[] = {
	{ "uint8", 1, false }, { "uint16", 2, false }, { "uint32", 4, false },
	{ "uint64", 8, false }, { "int8", 1, true }, { "int16", 2, true },
	{ "int32", 4, true }, { "int64", 8, true },
	{ "u8", 1, false }, { "u16", 2, false }, { "u32", 4, false }, { "u64", 8, false },
	{ "s8", 1, true }, { "s16", 2, true }, { "s32", 4, true }, { "s64", 8, true },
	{ "__u8", 1, false }, { "__u16", 2, false }, { "__u32", 4, false },
	{ "__u64", 8, false }, { "__s8", 1, true }, { "__s16", 2, true },
	{ "__s32", 4, true }, { "__s64", 8, true },
	{ "char", 1, true }, { "signed char", 1, true }, { "unsigned char", 1, false },
	{ "short", 2, true }, { "unsigned short", 2, false }, { "int", 4, true },
	{ "unsigned int", 4, false }, { "unsigned", 4, false }, { "long", 8, true },
	{ "unsigned long", 8, false }, { "long long", 8, true },
	{ "unsigned long long", 8, false }, { "size_t", 8, false }, { "ssize_t", 8, true },
	{ "pid_t", 4, true }, { "uid_t", 4, false }, { "gid_t", 4, false },
	{ "bool", 1, false }, { "_Bool", 1, false },
};

const struct type *type_by_name(const char *name)
{
	for (size_t i = 0; i < sizeof(int_names) / sizeof(int_names[0]); i++)
		if (!strcmp(name, int_names[i].name))
			return type_int(int_names[i].size, int_names[i].sign);
	return NULL;
}

bool type_is_int(const struct type *t)
{
	return t && (t->kind == T_INT || t->kind == T_BOOL || t->kind == T_ENUM);
}

bool type_equal(const struct type *a, const struct type *b)
{
	if (a == b)
		return true;
	if (!a || !b || a->kind != b->kind || a->size != b->size)
		return false;
	switch (a->kind) {
	case T_INT:
		return a->is_signed == b->is_signed;
	case T_PTR:
		return a->is_user == b->is_user && type_equal(a->elem, b->elem);
	case T_ARRAY:
		return a->count == b->count && type_equal(a->elem, b->elem);
	case T_STACK:
		return a->is_user == b->is_user && a->perf_mode == b->perf_mode &&
		       a->frames == b->frames;
	case T_UFMT:
		return a->ufmt == b->ufmt && (!a->name || !b->name || !strcmp(a->name, b->name));
	case T_AGG:
		return a->agg == b->agg && a->lh_min == b->lh_min &&
		       a->lh_max == b->lh_max && a->lh_step == b->lh_step;
	case T_RECORD: case T_ENUM:
		return a->name && b->name && !strcmp(a->name, b->name);
	case T_TUPLE:
		if (a->nfields != b->nfields)
			return false;
		for (int i = 0; i < a->nfields; i++)
			if (!type_equal(a->fields[i].type, b->fields[i].type))
				return false;
		return true;
	default:
		return true;
	}
}

static bool str_same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Every field that printing or storing a value reads; depth bounds the walk
 * through records that point to themselves (past it: not the same). */
static bool same_at(const struct type *a, const struct type *b, int depth)
{
	if (a == b)
		return true;
	if (!a || !b || depth > 8)
		return false;
	type_complete(a);   /* DWARF records are filled on first need too */
	type_complete(b);
	if (a->kind != b->kind || a->size != b->size || a->is_signed != b->is_signed ||
	    a->is_user != b->is_user || a->is_union != b->is_union || a->is_const != b->is_const ||
	    a->is_word != b->is_word || a->is_char != b->is_char || a->str_more != b->str_more ||
	    a->data_loc != b->data_loc || !str_same(a->name, b->name) || a->count != b->count ||
	    a->nfields != b->nfields || a->nenums != b->nenums || a->agg != b->agg ||
	    a->ufmt != b->ufmt || a->lh_min != b->lh_min || a->lh_max != b->lh_max ||
	    a->lh_step != b->lh_step || a->frames != b->frames || a->perf_mode != b->perf_mode ||
	    !same_at(a->elem, b->elem, depth + 1))
		return false;
	for (int i = 0; i < a->nfields; i++) {
		const struct field *x = &a->fields[i], *y = &b->fields[i];
		if (!str_same(x->name, y->name) || x->offset != y->offset ||
		    x->bit_offset != y->bit_offset || x->bit_size != y->bit_size ||
		    !same_at(x->type, y->type, depth + 1))
			return false;
	}
	for (int i = 0; i < a->nenums; i++)
		if (!str_same(a->enums[i].name, b->enums[i].name) ||
		    a->enums[i].value != b->enums[i].value)
			return false;
	return true;
}

bool type_same(const struct type *a, const struct type *b)
{
	return same_at(a, b, 0);
}

void type_bitfield(struct field *f, uint64_t bit_pos, unsigned bits)
{
	unsigned unit = f->type && f->type->size ? f->type->size : 1;
	uint64_t start = bit_pos / (unit * 8) * unit;

	if (bit_pos + bits > (start + unit) * 8)
		start = bit_pos / 8;
	f->offset = (uint32_t)start;
	f->bit_offset = (uint16_t)(bit_pos - start * 8);
	f->bit_size = (uint16_t)bits;
}

void type_complete(const struct type *t)
{
	struct type *w = (struct type *)t;
	void (*fill)(struct type *) = t ? t->fill : NULL;

	if (fill) {
		w->fill = NULL;
		fill(w);
	}
}

void type_complete_value(const struct type *t)
{
	for (int depth = 0; t && depth < 32; depth++) {
		if (t->kind == T_PTR) {
			type_complete(t->elem);   /* the pointee's own fields, not beyond */
			return;
		}
		if (t->kind == T_ARRAY) {
			t = t->elem;
			continue;
		}
		if (t->kind != T_RECORD && t->kind != T_ARGS)
			return;
		type_complete(t);
		for (int i = 0; i < t->nfields; i++)
			if (t->fields[i].type && t->fields[i].type->kind != T_PTR)
				type_complete_value(t->fields[i].type);
		return;
	}
}

/* Fields reached through anonymous struct and union members, as C names
 * them (iov_iter's count): made on first lookup, their offsets from the
 * outer record; freed by type_free_all(). */
struct derived {
	struct derived *next;
	const struct type *rec;
	struct field f;
};

static struct derived *derived;

static const struct field *direct_field(const struct type *rec, const char *name)
{
	type_complete(rec);
	for (int i = 0; i < rec->nfields; i++)
		if (rec->fields[i].name && !strcmp(rec->fields[i].name, name))
			return &rec->fields[i];
	return NULL;
}

static bool anon_field(const struct type *rec, const char *name, struct field *out, int depth)
{
	for (int i = 0; i < rec->nfields && depth < 8; i++) {
		const struct field *a = &rec->fields[i], *f;
		if ((a->name && a->name[0]) || !a->type || a->type->kind != T_RECORD)
			continue;
		if ((f = direct_field(a->type, name)))
			*out = *f;
		else if (!anon_field(a->type, name, out, depth + 1))
			continue;
		out->offset += a->offset;
		return true;
	}
	return false;
}

const struct field *type_field(const struct type *rec, const char *name)
{
	const struct field *f;
	struct field found;
	struct derived *d;

	if (!rec || (rec->kind != T_RECORD && rec->kind != T_ARGS && rec->kind != T_TUPLE))
		return NULL;
	if ((f = direct_field(rec, name)) || rec->kind != T_RECORD)
		return f;
	for (d = derived; d; d = d->next)
		if (d->rec == rec && !strcmp(d->f.name, name))
			return &d->f;
	if (!anon_field(rec, name, &found, 0))
		return NULL;
	if (!(d = calloc(1, sizeof(*d))))
		abort();
	d->rec = rec;
	d->f = found;
	d->next = derived;
	derived = d;
	return &d->f;
}

const char *agg_name(enum agg_kind agg)
{
	static const char *const names[] = {
		"none", "count", "sum", "avg", "min", "max", "stats", "hist", "lhist",
		"tseries",
	};

	return agg <= AGG_TSERIES ? names[agg] : "?";
}

static size_t put(char *buf, size_t n, size_t at, const char *s)
{
	size_t l = strlen(s);

	if (at < n) {
		size_t c = l < n - at - 1 ? l : n - at - 1;

		memcpy(buf + at, s, c);
		buf[at + c] = 0;
	}
	return at + l;
}

static size_t type_fmt(char *buf, size_t n, size_t at, const struct type *t)
{
	char tmp[48];

	if (!t)
		return put(buf, n, at, "?");
	switch (t->kind) {
	case T_VOID:
		return put(buf, n, at, "void");
	case T_INT:
		snprintf(tmp, sizeof(tmp), "%sint%u", t->is_signed ? "" : "u", t->size * 8);
		return put(buf, n, at, tmp);
	case T_BOOL:
		return put(buf, n, at, "bool");
	case T_STR:
		snprintf(tmp, sizeof(tmp), "string[%u]", t->size);
		return put(buf, n, at, tmp);
	case T_PTR:
		at = type_fmt(buf, n, at, t->elem);
		return put(buf, n, at, " *");
	case T_ARRAY:
		at = type_fmt(buf, n, at, t->elem);
		snprintf(tmp, sizeof(tmp), "[%u]", t->count);
		return put(buf, n, at, tmp);
	case T_RECORD: case T_ENUM:
		return put(buf, n, at, t->name ? t->name : t->kind == T_ENUM ? "enum" : "struct");
	case T_STACK:
		return put(buf, n, at, t->is_user ? "ustack" : "kstack");
	case T_USYM:
		return put(buf, n, at, "usym");
	case T_KSYM:
		return put(buf, n, at, "ksym");
	case T_FLOAT:
		return put(buf, n, at, t->size == 4 ? "float" : "double");
	case T_AGG:
		return put(buf, n, at, agg_name(t->agg));
	case T_ARGS:
		return put(buf, n, at, "args");
	case T_UFMT: {
		static const char *const names[] = {
			[UF_NONE] = "?", [UF_USERNAME] = "username", [UF_STRFTIME] = "strftime",
			[UF_STRERROR] = "strerror", [UF_SYSCALL] = "syscall_name", [UF_INET] = "inet", [UF_MAC] = "macaddr",
			[UF_BUF] = "buffer", [UF_JOIN] = "join",
			[UF_CGPATH] = "cgroup_path",
		};
		return put(buf, n, at, names[t->ufmt]);
	}
	case T_TUPLE:
		at = put(buf, n, at, "(");
		for (int i = 0; i < t->nfields; i++) {
			if (i)
				at = put(buf, n, at, ", ");
			at = type_fmt(buf, n, at, t->fields[i].type);
		}
		return put(buf, n, at, ")");
	}
	return at;
}

const char *type_str_name(const struct type *t, char *buf, size_t n)
{
	if (n)
		buf[0] = 0;
	type_fmt(buf, n, 0, t);
	return buf;
}

void type_print(FILE *out, const struct type *t)
{
	char buf[256];

	fputs(type_str_name(t, buf, sizeof(buf)), out);
}

void type_free_all(void)
{
	free(interned);
	interned = NULL;
	icap = icount = 0;
	while (derived) {
		struct derived *d = derived;
		derived = d->next;
		free(d);
	}
	while (all_types) {
		struct type_box *b = all_types;

		all_types = b->next;
		if (b->t.kind == T_RECORD || b->t.kind == T_TUPLE || b->t.kind == T_ARGS)
			free((void *)b->t.fields);
		if (b->t.kind == T_ENUM)
			free((void *)b->t.enums);
		if (b->t.kind == T_UFMT)
			free((void *)b->t.name);
		free(b);
	}
}
