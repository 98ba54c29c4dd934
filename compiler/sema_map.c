// SPDX-License-Identifier: GPL-2.0-only
/*
 * sema_map.c - map typing: a map's key and value types learned from its
 * uses and assignments (map_get, map_keys, map_assign, unify, widen), and
 * map declarations of newer bpftrace (let @m = hash(N)).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/bpf.h>

#include "builtin.h"
#include "sema_int.h"

/* ---- maps ---- */

static int map_find(struct sema *s, const char *name)
{
	for (int i = 0; i < s->nmaps; i++)
		if (!strcmp(s->maps[i].name + 1, name))
			return i;
	return -1;
}

int map_get(struct sctx *c, struct node *m)
{
	struct sema *s = c->s;
	int i = map_find(s, m->name);

	if (i < 0) {
		struct sema_map *nm = realloc(s->maps, (s->nmaps + 1) * sizeof(*nm));

		if (!nm)
			abort();
		s->maps = nm;
		i = s->nmaps++;
		memset(&s->maps[i], 0, sizeof(s->maps[i]));
		if (asprintf(&s->maps[i].name, "@%s", m->name) < 0)
			abort();
		s->maps[i].loc = m->loc;
	}
	m->aux = (void *)(intptr_t)(i + 1);
	return i;
}

/* Keys and stored ints are 8 bytes wide; strings keep their size. */
const struct type *widen(const struct type *t)
{
	if (t->kind == T_INT || t->kind == T_ENUM)
		return type_int(8, t->is_signed);
	if (t->kind == T_BOOL && !t->is_word)
		return type_int(8, false);
	return t;
}

/* A variable keeps an enum's type, 8 bytes wide, so that %s and print()
 * name its value (newer bpftrace); map keys and values stay integers, as
 * bpftrace 0.17 prints them. */
const struct type *widen_var(const struct type *t)
{
	if (t->kind == T_ENUM)
		return t->size < 8 ? type_enum(t->name, 8, t->is_signed, t->enums, t->nenums) : t;
	if (t->kind == T_INT)
		return t;   /* its width shows: bswap($x), sizeof($x), printf %x */
	return widen(t);
}


/* A variable's type joined with a later assignment's: an integer takes
 * the wider of the two (newer bpftrace resizes it; 0.17 drops the store). */
const struct type *unify_var(const struct type *a, const struct type *b)
{
	if (a && a->kind == T_INT && b->kind == T_INT)
		return type_int(a->size > b->size ? a->size : b->size,
				a->is_signed || b->is_signed);
	return unify(a, b);
}

bool storable(const struct type *t)
{
	switch (t->kind) {
	case T_INT: case T_BOOL: case T_ENUM: case T_STR: case T_STACK:
	case T_USYM: case T_KSYM: case T_PTR: case T_UFMT: case T_FLOAT: case T_TUPLE:
		return true;
	default:
		return false;
	}
}

/* A struct or array copied by value into a variable, a map key or value,
 * or print()'s record, as bpftrace 0.17 copies them.  The bound keeps
 * the copy within the per-CPU heap of temporaries. */
bool agg_copyable(const struct type *t)
{
	return (t->kind == T_RECORD || t->kind == T_ARRAY) && t->size > 0 && t->size <= 1024;
}


/* Where such a copy can come from: the traced program's memory (a place)
 * or another copy; not a probe's context (tracepoint `args`, its fields). */
bool agg_source(struct sctx *c, const struct node *n)
{
	return (is_place(n) && !is_tp_field(c, n)) || n->kind == N_VAR || n->kind == N_MAP ||
	       (n->kind == N_CALL && n->bi == BI_PTON);
}

/* Joins two types of the same kind, or returns NULL if they disagree. */
const struct type *unify(const struct type *a, const struct type *b)
{
	if (!a)
		return b;
	if (a->kind == T_ENUM && b->kind == T_ENUM && a->name && b->name &&
	    !strcmp(a->name, b->name))
		return a->size >= b->size ? a : b;   /* one enum: printed by name (%s) */
	if (a->kind == T_BOOL && a->is_word && b->kind == T_BOOL && b->is_word)
		return a;   /* true/false stays a bool */
	if (type_is_int(a) && type_is_int(b))
		return type_int(8, a->is_signed || b->is_signed);
	if (a->kind == T_STR && b->kind == T_STR)
		return a->size >= b->size ? a : b;
	if (a->kind == T_PTR && b->kind == T_PTR)
		return a;
	if (a->kind == T_TUPLE && b->kind == T_TUPLE && a->nfields == b->nfields &&
	    a->nfields <= 16) {
		const struct type *u[16];

		/* Element by element: a longer string widens its element (codegen
		 * converts the narrower layout, cg_store_as). */
		for (int i = 0; i < a->nfields; i++) {
			u[i] = unify(a->fields[i].type, b->fields[i].type);
			if (!u[i] || u[i]->kind != a->fields[i].type->kind ||
			    u[i]->kind != b->fields[i].type->kind)
				return NULL;
			u[i] = widen(u[i]);
		}
		return type_tuple(u, a->nfields);
	}
	return type_equal(a, b) ? a : NULL;
}

void map_keys(struct sctx *c, struct node *m, int mi)
{
	struct sema_map *sm;
	const struct type *kt[16];
	int n = 0;
	char b1[64], b2[64];

	for (struct node *k = m->list; k; k = k->next) {
		const struct type *t = check_expr(c, k);

		if (!t)
			return;
		t = array_as_str(c, k, t);
		if (t->kind == T_TUPLE) {
			/* as bpftrace 0.17; @m[(a, b)] itself is @m[a, b] (parser) */
			err(c, k->loc, "a tuple cannot be a map key; write its elements as "
			    "the keys: @m[a, b]");
			return;
		}
		if (!storable(t) && !(agg_copyable(t) && agg_source(c, k))) {
			err(c, k->loc, "a map key cannot be %s", tname(t, b1, sizeof(b1)));
			return;
		}
		if (n == 16) {
			err(c, k->loc, "a map has at most 16 keys");
			return;
		}
		kt[n++] = widen(t);
	}
	sm = &c->s->maps[mi];
	if (!sm->key_set) {
		sm->key_set = true;
		sm->key = n ? type_tuple(kt, n) : NULL;
		return;
	}
	int have = sm->key ? sm->key->nfields : 0;
	const struct type *u[16];

	if (have != n) {
		err(c, m->loc, "@%s is used with %d key%s here but %d elsewhere",
		    m->name, n, n == 1 ? "" : "s", have);
		return;
	}
	for (int i = 0; i < n; i++) {
		u[i] = unify(sm->key->fields[i].type, kt[i]);
		if (!u[i] || u[i]->kind != kt[i]->kind) {
			err(c, m->loc, "key %d of @%s is %s here but %s elsewhere", i + 1,
			    m->name, tname(kt[i], b1, sizeof(b1)),
			    tname(sm->key->fields[i].type, b2, sizeof(b2)));
			return;
		}
	}
	if (n)
		sm->key = type_tuple(u, n);
}

void map_assign(struct sctx *c, struct node *m, int mi, const struct type *v,
		       struct loc loc)
{
	struct sema_map *sm = &c->s->maps[mi];
	const struct type *u;
	char b1[64], b2[64];

	if (v->kind != T_AGG)
		v = widen(v);
	u = unify(sm->value, v);
	if (!u || (sm->value && (sm->value->kind == T_AGG) != (v->kind == T_AGG))) {
		err(c, loc, "cannot assign %s to @%s, which holds %s",
		    v->kind == T_STR ? "string" : tname(v, b1, sizeof(b1)), m->name,
		    tname(sm->value, b2, sizeof(b2)));
		return;
	}
	sm->value = u;
}

/* ---- map declarations (newer bpftrace): let @m = hash(N); ---- */

static const struct {
	const char *name;
	int type;
	bool percpu;
} map_kinds[] = {
	{ "hash", BPF_MAP_TYPE_HASH, false },
	{ "lruhash", BPF_MAP_TYPE_LRU_HASH, false },
	{ "percpuhash", BPF_MAP_TYPE_PERCPU_HASH, true },
	{ "percpulruhash", BPF_MAP_TYPE_LRU_PERCPU_HASH, true },
};

static int map_kind(int type)
{
	for (size_t i = 0; i < sizeof(map_kinds) / sizeof(map_kinds[0]); i++)
		if (map_kinds[i].type == type)
			return (int)i;
	return 0;
}

void check_map_decl(struct sctx *c, struct node *n)
{
	struct node *call = n->b, *a = call->list;
	size_t k = 0;
	int mi;

	while (k < sizeof(map_kinds) / sizeof(map_kinds[0]) && strcmp(map_kinds[k].name, call->name))
		k++;
	if (k == sizeof(map_kinds) / sizeof(map_kinds[0])) {
		err(c, call->loc, "unknown map type '%s'; hash, lruhash, percpuhash or percpulruhash",
		    call->name);
		return;
	}
	if (!a || a->next || a->kind != N_INT || a->ival < 1 || a->ival > (1u << 24)) {
		err(c, a ? a->loc : call->loc, "%s() takes one argument, the map's maximum number "
		    "of entries (1 to %u)", call->name, 1u << 24);
		return;
	}
	mi = map_get(c, n->a);
	if (c->s->maps[mi].decl_type) {
		err(c, n->loc, "@%s is declared twice", n->a->name);
		return;
	}
	c->s->maps[mi].decl_type = map_kinds[k].type;
	c->s->maps[mi].decl_max = (uint32_t)a->ival;
	c->s->maps[mi].decl_loc = n->loc;
}

/* A per-CPU declaration holds aggregations, and only it can. */
void check_decl_kind(struct sctx *c, const struct sema_map *sm)
{
	const char *k = map_kinds[map_kind(sm->decl_type)].name;
	bool percpu = map_kinds[map_kind(sm->decl_type)].percpu;
	char b1[64];

	if (!sm->decl_type || !sm->value)
		return;
	if (sm->value->kind == T_AGG && !percpu)
		err(c, sm->decl_loc, "%s is declared %s(), but it holds %s(), whose values are per "
		    "CPU: declare it percpu%s(N)", sm->name, k, agg_name(sm->value->agg), k);
	else if (sm->value->kind != T_AGG && percpu)
		err(c, sm->decl_loc, "%s is declared %s(), which holds aggregations (count(), sum(), "
		    "...), but it holds %s: declare it %s(N)", sm->name, k,
		    tname(sm->value, b1, sizeof(b1)), k + 6);
}
