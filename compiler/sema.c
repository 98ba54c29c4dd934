// SPDX-License-Identifier: GPL-2.0-only
/*
 * sema.c - semantic analysis of a parsed, resolved program.
 *
 * Two walks over every probe: the first, silent, only learns the types of
 * global maps from their assignments (a probe may read a map that a later
 * probe writes); the second checks everything against them and reports.
 * A scratch variable has one type within one probe: the widest of the
 * values assigned to it (strings, as in bpftrace), learned by the silent
 * walks and seeded into the next walk, so every use sees the final size.
 * Constant integer expressions are folded in place into N_INT nodes, so
 * codegen sees literals.  Rules follow bpftrace 0.17.
 *
 * This file is the driver (the walks, seeding, scratch variables,
 * expressions and statements); sema_int.h lists the other parts.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <linux/bpf.h>

#include "ctypes.h"
#include "dwarf.h"
#include "lib/elfsym.h"
#include "kbtf.h"
#include "lexer.h"
#include "program.h"
#include "sema.h"
#include "sema_int.h"

static const struct type *check_incdec(struct sctx *c, struct node *n);
static void check_block(struct sctx *c, struct node *blk);
static void check_stmt(struct sctx *c, struct node *n);

int sema_map_of(const struct node *n)
{
	return n && n->kind == N_MAP && n->aux ? (int)(intptr_t)n->aux - 1 : -1;
}

void sema_type_printer(FILE *out, const struct type *t)
{
	type_print(out, t);
}

/* ---- scratch variables ---- */

/* Whether $name's assignment was itself an error: its uses then say
 * nothing more (one mistake, one error). */
static bool var_failed(const struct sctx *c, const char *name)
{
	for (int i = 0; i < c->nfailed; i++)
		if (!strcmp(c->failed[i], name))
			return true;
	return false;
}

static struct var *var_find(struct sctx *c, const char *name)
{
	for (int i = 0; i < c->nvars; i++)
		if (!strcmp(c->vars[i].name, name))
			return &c->vars[i];
	return NULL;
}

static const struct type *seeded_type(struct sctx *c, const char *name,
				      const struct type *t);

static void var_assign(struct sctx *c, struct node *v, const struct type *t, struct loc loc)
{
	struct var *x = var_find(c, v->name);
	char b1[64], b2[64];

	if ((t->kind == T_RECORD || t->kind == T_ARRAY) && !agg_copyable(t)) {
		err(c, loc, "cannot copy %s (%u bytes) into $%s: at most 1024 bytes are copied; "
		    "keep a pointer to it or read its fields", tname(t, b1, sizeof(b1)), t->size,
		    v->name);
		return;
	} else if (!storable(t) && !agg_copyable(t)) {
		err(c, loc, "cannot assign %s to $%s", tname(t, b1, sizeof(b1)), v->name);
		return;
	}
	if (!x) {
		if (c->nvars == c->cap) {
			c->cap = c->cap ? 2 * c->cap : 8;
			c->vars = realloc(c->vars, c->cap * sizeof(*c->vars));
			if (!c->vars)
				abort();
		}
		x = &c->vars[c->nvars++];
		x->name = v->name;
		x->type = seeded_type(c, v->name, widen_var(t));
	} else if (!unify(x->type, t) || (x->type->kind == T_STR) != (t->kind == T_STR)) {
		err(c, loc, "cannot assign %s to $%s, which holds %s",
		    t->kind == T_STR ? "string" : tname(t, b1, sizeof(b1)), v->name,
		    tname(x->type, b2, sizeof(b2)));
		return;
	} else {
		/* A longer string widens the variable; the next walk gives
		 * every earlier use the wider type too. */
		x->type = widen_var(unify_var(x->type, t));
	}
	set_type(v, x->type);
}

/* The type the walk before ended $name with, joined with this first
 * assignment's, so that no assignment of the probe is cut. */
static const struct type *seeded_type(struct sctx *c, const char *name, const struct type *t)
{
	const struct var_seed *sd = c->seed;

	for (int i = 0; sd && i < sd->n; i++) {
		const struct type *u;

		if (strcmp(sd->v[i].name, name))
			continue;
		u = unify_var(sd->v[i].type, t);
		return u && (u->kind == T_STR) == (t->kind == T_STR) ? widen_var(u) : t;
	}
	return t;
}

/* Keeps the variables the current probe ended its walk with as the seed
 * of its next walk, noting whether any type changed. */
static void var_save_seed(struct sctx *c)
{
	struct var_seed *sd = c->seed;
	bool changed = sd->n != c->nvars;

	for (int i = 0; !changed && i < c->nvars; i++)
		changed = strcmp(sd->v[i].name, c->vars[i].name) ||
			  !type_equal(sd->v[i].type, c->vars[i].type);
	sd->changed = changed;
	if (!changed)
		return;
	free(sd->v);
	sd->v = malloc((size_t)(c->nvars ? c->nvars : 1) * sizeof(*sd->v));
	if (!sd->v)
		abort();
	memcpy(sd->v, c->vars, (size_t)c->nvars * sizeof(*sd->v));
	sd->n = c->nvars;
}

/* ---- expressions and statements ---- */

/* sizeof(name) where name is no identifier of the language but a type
 * from a header, DWARF or the kernel's BTF: the parser knows only the
 * script's own typedefs, so it took the name for an expression. */
static const struct type *sizeof_name(struct sctx *c, struct node *a)
{
	bool quiet = c->quiet;
	int errors = c->errors;
	const struct type *t;

	if (a->kind != N_IDENT)
		return NULL;
	c->quiet = true;
	t = check_ident(c, a);
	c->quiet = quiet;
	c->errors = errors;
	return t ? NULL : program_type(c, a->name);
}

/* The alignment a value has in bpftrace 0.17's tuples (LLVM's natural
 * layout): an integer's or pointer's own size, a string's 1, an array's
 * element's, a record's widest member's. */
static uint32_t bt_align(const struct type *t, int depth)
{
	uint32_t a = 1;

	switch (t->kind) {
	case T_STR:
		return 1;
	case T_ARRAY:
		return t->elem && depth < 8 ? bt_align(t->elem, depth + 1) : 1;
	case T_RECORD:
	case T_TUPLE:
		type_complete(t);
		for (int i = 0; i < t->nfields && depth < 8; i++) {
			uint32_t f = bt_align(t->fields[i].type, depth + 1);

			a = f > a ? f : a;
		}
		return a;
	default:
		return t->size && t->size < 8 && !(t->size & (t->size - 1)) ? t->size : 8;
	}
}

/* sizeof of a tuple as bpftrace 0.17 lays it out (each element at its
 * natural alignment); perf-run stores each element in 8-byte slots, which
 * no script sees but through sizeof. */
static uint32_t bt_tuple_size(const struct type *t)
{
	uint32_t off = 0, max = 1;

	for (int i = 0; i < t->nfields; i++) {
		const struct type *e = t->fields[i].type;
		uint32_t a = bt_align(e, 0);

		off = (off + a - 1) / a * a;
		/* a str() of a char array holds one byte more than bpftrace's */
		off += e->kind == T_TUPLE ? bt_tuple_size(e) : e->size - e->str_more;
		max = a > max ? a : max;
	}
	return (off + max - 1) / max * max;
}

/* unroll($N): the parameter's value, 1 to 100, as bpftrace 0.17 takes it.
 * The node stays a N_POSITIONAL (each walk reads it again). */
static bool check_unroll_count(struct sctx *c, struct node *n)
{
	const char *v = sema_param(c->s, n->a);
	char *end = NULL;
	long long i = *v ? strtoll(v, &end, 0) : 0;

	if (!*v || *end || i < 1 || i > 100) {
		err(c, n->a->loc, "unroll count must be an integer from 1 to 100; $%llu is '%s'",
		    (unsigned long long)n->a->ival, v);
		return false;
	}
	n->ival = (uint64_t)i;
	return true;
}

static const struct type *check_sizeof(struct sctx *c, struct node *n)
{
	const struct type *t;

	if (n->a->kind == N_TYPENAME) {
		t = n->a->ival ? type_ptr(type_void(), true) : cast_type(c, n->a);
		if (!t) {
			err(c, n->a->loc, "unknown type '%s'", n->a->name);
			return NULL;
		}
	} else if (!(t = sizeof_name(c, n->a))) {
		if (!(t = check_value(c, n->a)))
			return NULL;
		if (n->a->kind == N_IDENT && type_is_int(t))
			t = widen(t); /* bpftrace 0.17's integer builtins are 64-bit: sizeof(pid) is 8 */
	}
	type_complete(t);
	fold_to_int(n, t->kind == T_TUPLE ? bt_tuple_size(t) : t->size);
	return type_int(8, true);
}

static const struct type *check_expr_inner(struct sctx *c, struct node *n)
{
	struct var *x;

	switch (n->kind) {
	case N_INT:
		return type_int(8, true);
	case N_STR:
		return type_str(n->len + 1);
	case N_IDENT:
		return check_ident(c, n);
	case N_POSITIONAL:
		return check_positional(c, n);
	case N_VAR:
		x = var_find(c, n->name);
		if (!x) {
			if (!var_failed(c, n->name))
				err(c, n->loc, "$%s is used before it is assigned", n->name);
			return NULL;
		}
		return x->type;
	case N_MAP:
		return check_map_read(c, n);
	case N_CALL:
		return check_call(c, n);
	case N_BINOP:
		return check_binop(c, n);
	case N_UNOP:
		return check_unop(c, n);
	case N_TERNARY:
		return check_ternary(c, n);
	case N_FIELD:
		return check_field(c, n);
	case N_INDEX:
		return check_index(c, n);
	case N_TUPLE:
		return check_tuple(c, n);
	case N_STMTEXPR:
		for (struct node *s = n->list; s; s = s->next)
			check_stmt(c, s);
		return check_value(c, n->a);
	case N_BLOCK:
		err(c, n->loc, "this block has no value: a block's value is its last expression, "
		    "written without ';' before the '}'");
		return NULL;
	case N_CAST:
		return check_cast(c, n);
	case N_SIZEOF:
		return check_sizeof(c, n);
	case N_INCDEC:
		return check_incdec(c, n);
	case N_ASSIGN:
		err(c, n->loc, "an assignment is a statement, not a value");
		return NULL;
	default:
		err(c, n->loc, "%s is not supported here", ast_kind_name(n->kind));
		return NULL;
	}
}

const struct type *check_expr(struct sctx *c, struct node *n)
{
	const struct type *t = check_expr_inner(c, n);

	set_type(n, t);
	return t;
}

const struct type *check_value(struct sctx *c, struct node *n)
{
	const struct type *t = check_expr(c, n);

	if (t && t->kind == T_VOID) {
		if (n->kind == N_CALL)
			err(c, n->loc, "%s() returns no value", n->name);
		else
			err(c, n->loc, "this %s has no value: its arms return no value",
			    n->kind == N_TERNARY ? "?:" : "expression");
		return NULL;
	}
	return t;
}

static void check_assign(struct sctx *c, struct node *n)
{
	struct node *lv = n->a, *rv = n->b;
	const struct type *t;
	enum agg_kind k = rv && rv->kind == N_CALL ? agg_of(rv->name) : AGG_NONE;

	if (lv->kind != N_MAP && lv->kind != N_VAR) {
		err(c, lv->loc, "only maps and $variables can be assigned");
		return;
	}
	if (k != AGG_NONE) {
		if (lv->kind != N_MAP || n->op) {
			err(c, rv->loc, "%s() must be assigned to a map: @x = %s(...)", rv->name,
			    rv->name);
			return;
		}
		t = check_agg(c, rv, k);
		set_type(rv, t);
	} else if (n->op) {
		const struct type *l = check_expr(c, lv);

		t = check_value(c, rv);
		if (!l || !t)
			return;
		if (l->kind == T_PTR && type_is_int(t) && (n->op == '+' || n->op == '-')) {
			t = l; /* $p += n: scaled by the pointee's size, as bpftrace does */
		} else if (!type_is_int(l) || !type_is_int(t)) {
			err(c, n->loc, "compound assignment needs integers");
			return;
		}
		if ((n->op == '/' || n->op == '%') && rv->kind == N_INT && rv->ival == 0) {
			err(c, rv->loc, "%s by zero", n->op == '/' ? "division" : "remainder");
			return;
		}
		if (l->kind == T_INT && lv->kind == N_VAR)
			t = l;   /* $x op= e keeps $x's width, as C does */
		else if (l->kind != T_PTR)
			t = arith_type(l, t);
	} else {
		t = check_value(c, rv);
		if (t && (t->kind == T_RECORD || t->kind == T_ARRAY) && !agg_source(c, rv)) {
			char b1[64];

			err(c, rv->loc, "%s cannot be copied: read its fields",
			    tname(t, b1, sizeof(b1)));
			return;
		}
	}
	if (!t && lv->kind == N_VAR && !var_find(c, lv->name) && c->nfailed < 32)
		c->failed[c->nfailed++] = lv->name;
	if (!t)
		return;
	if (lv->kind == N_VAR) {
		var_assign(c, lv, t, n->loc);
		return;
	}
	int mi = map_get(c, lv);

	map_keys(c, lv, mi);
	map_assign(c, lv, mi, t, n->loc);
	set_type(lv, c->s->maps[mi].value);
	set_type(n, t);
}

/* Also the type of x++ used as a value (bpftrace 0.17 allows it). */
static const struct type *check_incdec(struct sctx *c, struct node *n)
{
	struct node *lv = n->a;

	if (lv->kind == N_VAR) {
		struct var *x = var_find(c, lv->name);

		if (!x) {
			if (!var_failed(c, lv->name))
				err(c, lv->loc, "$%s is used before it is assigned", lv->name);
			return NULL;
		}
		if (!type_is_int(x->type) && x->type->kind != T_PTR) {
			err(c, n->loc, "++ and -- need an integer or a pointer");
			return NULL;
		}
		set_type(lv, x->type);
		if (x->type->kind == T_PTR || x->type->kind == T_INT)
			return x->type; /* a pointer steps by the pointee's size */
		return type_int(8, x->type->is_signed);
	}
	if (lv->kind != N_MAP) {
		err(c, lv->loc, "only maps and $variables can be incremented");
		return NULL;
	}
	int mi = map_get(c, lv);
	const struct type *mv = c->s->maps[mi].value;

	map_keys(c, lv, mi);
	if (mv && mv->kind == T_PTR) {
		set_type(lv, mv);
		return mv; /* @p++ steps by the pointee's size */
	}
	map_assign(c, lv, mi, type_int(8, true), n->loc);
	set_type(lv, c->s->maps[mi].value);
	return type_int(8, true); /* map_assign reported a map of another kind */
}

static void check_cond(struct sctx *c, struct node *e, const char *what)
{
	const struct type *t = check_expr(c, e);

	if (t && !type_is_int(t) && t->kind != T_PTR)
		err(c, e->loc, "%s must be an integer or a comparison", what);
}

/*
 * for ($kv : @m) (newer bpftrace): $kv is (key, value), the key a tuple
 * itself when the map has several; the body is a callback of
 * bpf_for_each_map_elem() (cg_stmt.c).
 */
static void check_formap(struct sctx *c, struct node *n)
{
	struct node *m = n->c;
	int mi = map_get(c, m);
	const struct sema_map *sm = &c->s->maps[mi];
	const struct type *el[2];

	if (!sm->value || !sm->key_set) {
		if (!c->quiet)
			err(c, m->loc, "@%s is never assigned, so for cannot read it", m->name);
		return;
	}
	if (!sm->key) {
		err(c, m->loc, "@%s has no keys; for ($kv : @m) needs a map with keys", m->name);
		return;
	}
	if (sm->value->kind == T_AGG) {
		err(c, m->loc, "for cannot read @%s: a map of %s() holds one value per CPU; "
		    "assign the values to a map of integers", m->name, agg_name(sm->value->agg));
		return;
	}
	el[0] = sm->key->nfields == 1 ? sm->key->fields[0].type : sm->key;
	el[1] = sm->value;
	var_assign(c, n->a, type_tuple(el, 2), n->loc);
	c->loop_depth++;
	c->formap_depth++;
	check_block(c, n->b);
	c->formap_depth--;
	c->loop_depth--;
}

static void check_stmt(struct sctx *c, struct node *n)
{
	switch (n->kind) {
	case N_EXPRSTMT:
		if (n->a->kind == N_ASSIGN)
			check_assign(c, n->a);
		else if (n->a->kind == N_INCDEC)
			check_incdec(c, n->a);
		else
			check_expr(c, n->a);
		break;
	case N_ASSIGN:
		check_assign(c, n);
		break;
	case N_INCDEC:
		check_incdec(c, n);
		break;
	case N_IF:
		check_cond(c, n->a, "a condition");
		check_block(c, n->b);
		if (n->c) {
			if (n->c->kind == N_IF)
				check_stmt(c, n->c);
			else
				check_block(c, n->c);
		}
		break;
	case N_UNROLL:
		if (n->a && !check_unroll_count(c, n))
			break;
		check_block(c, n->b);
		break;
	case N_WHILE:
		check_cond(c, n->a, "a condition");
		c->loop_depth++;
		check_block(c, n->b);
		c->loop_depth--;
		break;
	case N_BREAK: case N_CONTINUE:
		if (!c->loop_depth)
			err(c, n->loc, "%s outside a loop", n->kind == N_BREAK ? "break" : "continue");
		break;
	case N_RETURN:
		if (c->formap_depth)
			err(c, n->loc, "return inside for ($kv : @map) is not supported; use break");
		break;
	case N_BLOCK:
		check_block(c, n);
		break;
	case N_FORMAP:
		check_formap(c, n);
		break;
	default:
		check_expr(c, n);
	}
}

static void check_block(struct sctx *c, struct node *blk)
{
	for (struct node *s = blk ? blk->list : NULL; s; s = s->next)
		check_stmt(c, s);
}

static void check_probe(struct sctx *c, struct sema_probe *p, struct var_seed *seed)
{
	c->cur = p;
	c->seed = seed;
	c->nvars = 0;
	c->nfailed = 0;
	c->loop_depth = 0;
	c->formap_depth = 0;
	if (p->node->a)
		check_cond(c, p->node->a, "a predicate");
	check_block(c, p->node->b);
	var_save_seed(c);
}

/* One silent walk over every probe; true if a variable's type changed. */
static bool learn_walk(struct sctx *c, struct sema_probe *probes, int nprobes,
		       struct var_seed *seeds)
{
	bool changed = false;

	for (int i = 0; i < nprobes; i++)
		if (probes[i].nprobes) {
			check_probe(c, &probes[i], &seeds[i]);
			changed |= seeds[i].changed;
		}
	return changed;
}

struct idents {
	const char **v;
	int n;
};

/* Every distinct bare identifier of the probes: a macro may name it. */
static void collect_idents(const struct node *x, struct idents *ids)
{
	for (; x; x = x->next) {
		if (x->kind == N_IDENT) {
			int i = 0;

			while (i < ids->n && strcmp(ids->v[i], x->name))
				i++;
			if (i == ids->n) {
				ids->v = realloc(ids->v, (size_t)(ids->n + 1) * sizeof(*ids->v));
				if (!ids->v)
					abort();
				ids->v[ids->n++] = x->name;
			}
		}
		collect_idents(x->a, ids);
		collect_idents(x->b, ids);
		collect_idents(x->c, ids);
		collect_idents(x->list, ids);
	}
}

/* Parses the script's C declarations, if it has any: no other script
 * loads libclang.  Errors are reported by ct_parse. */
static int parse_cdecls(struct sctx *c, const struct node *prog)
{
	struct ct_decl *v = NULL;
	struct idents ids = { 0 };
	int n = 0, r = 0;

	for (const struct node *x = prog ? prog->list : NULL; x; x = x->next) {
		if (x->kind != N_CDECL)
			continue;
		v = realloc(v, (size_t)(n + 1) * sizeof(*v));
		if (!v)
			abort();
		v[n++] = (struct ct_decl){ x->name, x->loc };
	}
	if (n) {
		collect_idents(prog->list, &ids);
		r = ct_parse(v, n, ids.v, ids.n, c->d, &c->ct);
	}
	free(ids.v);
	free(v);
	return r;
}

int sema_check(struct node *prog, struct sema_probe *probes, int nprobes,
	       const struct sema_opts *o, struct diag *d, struct sema *out)
{
	struct sctx c = { .s = out, .o = o, .d = d, .quiet = true };
	struct var_seed *seeds;

	memset(out, 0, sizeof(*out));
	out->params = o->params;
	out->nparams = o->nparams;
	if (cfg_read(prog, &out->cfg, d) < 0)
		return -1;
	c.quiet = false;
	for (struct node *x = prog ? prog->list : NULL; x; x = x->next)
		if (x->kind == N_ASSIGN)
			check_map_decl(&c, x);
	c.quiet = true;
	if (c.errors)
		return -1;
	if (parse_cdecls(&c, prog) < 0)
		return -1;
	seeds = calloc((size_t)(nprobes ? nprobes : 1), sizeof(*seeds));
	if (!seeds)
		abort();
	/* Until variable types settle: a map's type may come from a variable
	 * and a variable's from a map that a later probe writes. */
	for (int walk = 0; walk < 4 && learn_walk(&c, probes, nprobes, seeds); walk++)
		;
	c.quiet = false;
	c.errors = 0;
	for (int i = 0; i < nprobes; i++)
		if (probes[i].nprobes)
			check_probe(&c, &probes[i], &seeds[i]);
	for (int i = 0; i < nprobes; i++)
		free(seeds[i].v);
	free(seeds);
	for (int i = 0; i < out->nmaps && !c.errors; i++)
		if (!out->maps[i].value) {
			err(&c, out->maps[i].loc, "%s is never assigned", out->maps[i].name);
		}
	for (int i = 0; i < out->nmaps && !c.errors; i++)
		check_decl_kind(&c, &out->maps[i]);
	free(c.vars);
	ct_free(c.ct);
	return c.errors ? -1 : 0;
}

void sema_free(struct sema *s)
{
	for (int i = 0; i < s->nmaps; i++)
		free(s->maps[i].name);
	free(s->maps);
	memset(s, 0, sizeof(*s));
}
