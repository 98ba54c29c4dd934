/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sema_int.h - what the type checker's files share: the walk's context
 * (struct sctx), its error and type helpers, and the functions one part
 * calls in another.
 *
 *   sema.c       the driver: the two walks, seeding, scratch variables,
 *                expressions and statements, assignments
 *   sema_map.c   map typing (keys, values, unify) and map declarations
 *   sema_ctx.c   builtin identifiers and probe context (argN, retval,
 *                args, DWARF variables, USDT arguments, refusals)
 *   sema_expr.c  operators, constant folding, fields, index, casts
 *   sema_call.c  builtin functions (the table's check hooks)
 *
 * Nothing outside these files includes it; sema.h is the interface.
 */
#ifndef PR_SEMA_INT_H
#define PR_SEMA_INT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "ast.h"
#include "builtin.h"
#include "lib/diag.h"
#include "program.h"
#include "sema.h"
#include "lib/types.h"

struct var {
	const char *name;
	const struct type *type;
};

/* The variables one probe ended a walk with: the types the next walk
 * gives them at their first assignment. */
struct var_seed {
	struct var *v;
	int n;
	bool changed;             /* some type differs from the walk before */
};

struct sctx {
	struct sema *s;
	const struct sema_opts *o;
	struct diag *d;
	bool quiet;               /* first walk: learn map types, report nothing */
	struct sema_probe *cur;
	struct var *vars;
	int nvars, cap;
	const char *failed[32];   /* $vars whose assignment was an error (this probe) */
	int nfailed;
	struct var_seed *seed;    /* the current probe's, from the walk before */
	int loop_depth;
	int formap_depth;         /* inside for ($kv : @m): a callback without the probe's ctx */
	int errors;
	struct ct_unit *ct;       /* the script's C declarations, NULL if none */
};

#define K(x) (1u << (x))

/* ast.h keeps types non-const; they are never written through a node. */
static inline void set_type(struct node *n, const struct type *t)
{
	type_complete_value(t);
	n->type = (struct type *)t;
}

static inline void err(struct sctx *c, struct loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static inline void verr(struct sctx *c, struct loc loc, const char *fmt, va_list ap)
{
	c->errors++;
	if (!c->quiet)
		diag_verror(c->d, loc, fmt, ap);
}

static inline void err(struct sctx *c, struct loc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verr(c, loc, fmt, ap);
	va_end(ap);
}

static inline const char *tname(const struct type *t, char *buf, size_t n)
{
	return type_str_name(t, buf, n);
}

/* A check hook of builtin.h's table: the type of n, NULL after an error. */
typedef const struct type *(*bi_check_fn)(struct sctx *c, struct node *n);

/* Every hook the table names (sema_ctx.c, sema_call.c, sema_addr.c). */
#define BI_PROTO(id, name, min, max, flags, ident, call) \
	const struct type *ident(struct sctx *c, struct node *n); \
	const struct type *call(struct sctx *c, struct node *n);
BI_TABLE(BI_PROTO)
#undef BI_PROTO

/* sema.c: the driver: any expression, a value (an expression that must yield one) */
const struct type *check_expr(struct sctx *c, struct node *n);
/* Every site of every probe of the body is at a kernel source line, with
 * the kernel's DWARF view (kprobe:FUNC:LINE). */
bool kernel_dwarf_sites(const struct sctx *c);
const struct type *check_value(struct sctx *c, struct node *n);

/* sema_map.c: map typing */
int map_get(struct sctx *c, struct node *m);
const struct type *widen(const struct type *t);
const struct type *widen_var(const struct type *t);
const struct type *unify_var(const struct type *a, const struct type *b);
bool storable(const struct type *t);
bool agg_copyable(const struct type *t);
bool agg_source(struct sctx *c, const struct node *n);
const struct type *unify(const struct type *a, const struct type *b);
void map_keys(struct sctx *c, struct node *m, int mi);
void map_assign(struct sctx *c, struct node *m, int mi, const struct type *v,
		struct loc loc);
void check_map_decl(struct sctx *c, struct node *n);
void check_decl_kind(struct sctx *c, const struct sema_map *sm);

/* sema_ctx.c: builtin identifiers and probe context (and the identifiers'
 * check hooks) */
bool probe_is(struct sctx *c, unsigned kinds);
const struct type *check_dwarf_var(struct sctx *c, struct node *n);
bool ctx_refused(struct sctx *c, struct node *n);
bool elf32_refused(struct sctx *c, struct node *n);
const struct type *check_ident(struct sctx *c, struct node *n);
const struct type *check_positional(struct sctx *c, struct node *n);

/* sema_expr.c: operators, folding, fields, casts */
const struct type *arith_type(const struct type *a, const struct type *b);
void fold_to_int(struct node *n, int64_t v);
const struct type *check_binop(struct sctx *c, struct node *n);
bool is_place(const struct node *n);
const struct type *check_unop(struct sctx *c, struct node *n);
const struct type *check_ternary(struct sctx *c, struct node *n);
const struct type *check_tuple(struct sctx *c, struct node *n);
const struct type *check_field(struct sctx *c, struct node *n);
bool is_tp_field(struct sctx *c, const struct node *n);
/* A positional parameter's text that is a number (strtoll, base 0). */
bool is_number(const char *s);
/* str($N), str($N + k), str($N, len): the parameter as a string literal. */
bool param_as_str(struct sctx *c, struct node *n);
const struct type *array_as_str(struct sctx *c, struct node *n, const struct type *t);
const struct type *check_index(struct sctx *c, struct node *n);
const struct type *program_type(struct sctx *c, const char *name);
const struct type *cast_type(struct sctx *c, const struct node *tn);
const struct type *check_cast(struct sctx *c, struct node *n);
const struct type *check_map_read(struct sctx *c, struct node *n);

/* sema_call.c: builtin functions: argument helpers, the dispatch, the
 * hooks by id */
bi_check_fn sema_ident_hook(int id);
bool str_literal(struct sctx *c, struct node *a, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
bool need_args(struct sctx *c, struct node *n, int min, int max);
bool bi_args(struct sctx *c, struct node *n);
struct node *arg(struct node *n, int i);
bool int_arg(struct sctx *c, struct node *n, int i);
bool const_arg(struct sctx *c, struct node *n, int i, int64_t *v);
const struct type *check_agg(struct sctx *c, struct node *n, enum agg_kind k);
enum agg_kind agg_of(const char *name);
const struct type *check_call(struct sctx *c, struct node *n);

/* sema_addr.c: builtin functions on memory, addresses and the task: all
 * of them check hooks, declared above */

#endif
