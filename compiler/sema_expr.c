// SPDX-License-Identifier: GPL-2.0-only
/*
 * sema_expr.c - operators and their constant folding (folded in place into
 * N_INT nodes), ternaries, tuples, struct fields, indexing, casts and map
 * reads.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctypes.h"
#include "dwarf.h"
#include "kbtf.h"
#include "lexer.h"
#include "builtin.h"
#include "sema_int.h"

/* ---- operators ---- */

const struct type *arith_type(const struct type *a, const struct type *b)
{
	bool un = (a->kind == T_INT && !a->is_signed && a->size == 8) ||
		  (b && b->kind == T_INT && !b->is_signed && b->size == 8);

	return type_int(8, !un);
}

/* Turns n into the literal v; its operands are released so that dumps
 * and codegen see a plain literal. */
void fold_to_int(struct node *n, int64_t v)
{
	ast_free(n->a);
	ast_free(n->b);
	n->a = n->b = NULL;
	n->kind = N_INT;
	n->ival = (uint64_t)v;
}

static bool fold_binop(struct node *n)
{
	int64_t x = (int64_t)n->a->ival, y = (int64_t)n->b->ival, r;

	if (n->a->kind != N_INT || n->b->kind != N_INT)
		return false;
	switch (n->op) {
	case '+': r = (int64_t)((uint64_t)x + (uint64_t)y); break;
	case '-': r = (int64_t)((uint64_t)x - (uint64_t)y); break;
	case '*': r = (int64_t)((uint64_t)x * (uint64_t)y); break;
	case '/': if (!y || (x == INT64_MIN && y == -1)) return false; r = x / y; break;
	case '%': if (!y || (x == INT64_MIN && y == -1)) return false; r = x % y; break;
	case '&': r = x & y; break;
	case '|': r = x | y; break;
	case '^': r = x ^ y; break;
	case TOK_SHL: r = (int64_t)((uint64_t)x << (y & 63)); break;
	case TOK_SHR: r = x >> (y & 63); break;
	case '<': r = x < y; break;
	case '>': r = x > y; break;
	case TOK_LE: r = x <= y; break;
	case TOK_GE: r = x >= y; break;
	case TOK_EQ: r = x == y; break;
	case TOK_NE: r = x != y; break;
	case TOK_AND: r = x && y; break;
	case TOK_OR: r = x || y; break;
	default: return false;
	}
	fold_to_int(n, r);
	return true;
}

static bool is_cmp(int op)
{
	return op == '<' || op == '>' || op == TOK_LE || op == TOK_GE ||
	       op == TOK_EQ || op == TOK_NE;
}

static bool is_buf(const struct type *t)
{
	return t->kind == T_UFMT && t->ufmt == UF_BUF;
}

/* $a == $b of two arrays (bpftrace 0.17): the same length and integer
 * element size, compared byte by byte (codegen's bytes_eq). */
static const struct type *check_array_eq(struct sctx *c, struct node *n, const struct type *a,
					 const struct type *b)
{
	char b1[64], b2[64];

	if (a->count != b->count || !a->elem || !b->elem || !type_is_int(a->elem) ||
	    !type_is_int(b->elem) || a->elem->size != b->elem->size || !a->size) {
		err(c, n->loc, "only integer arrays of the same length and element size compare, "
		    "not %s with %s", tname(a, b1, sizeof(b1)), tname(b, b2, sizeof(b2)));
		return NULL;
	}
	if (is_tp_field(c, n->a) || is_tp_field(c, n->b)) {
		err(c, n->loc, "copy the tracepoint's array into a variable first ($a = args.f) "
		    "to compare it");
		return NULL;
	}
	return type_bool();
}

const struct type *check_binop(struct sctx *c, struct node *n)
{
	const struct type *a = check_expr(c, n->a), *b = check_expr(c, n->b);
	char b1[64], b2[64];

	if (!a || !b)
		return NULL;
	if ((a->kind == T_STR || b->kind == T_STR) && (n->op == TOK_EQ || n->op == TOK_NE)) {
		/* a char[] field beside a string compares as one (curtask->comm == "sh") */
		a = array_as_str(c, n->a, a);
		b = array_as_str(c, n->b, b);
		if (!a || !b)
			return NULL;
	}
	if (a->kind == T_STR && b->kind == T_STR && (n->op == TOK_EQ || n->op == TOK_NE))
		return type_bool();
	if (a->kind == T_TUPLE && b->kind == T_TUPLE && (n->op == TOK_EQ || n->op == TOK_NE)) {
		const struct type *u = unify(a, b);

		if (!u) {
			err(c, n->loc, "cannot compare %s with %s", tname(a, b1, sizeof(b1)),
			    tname(b, b2, sizeof(b2)));
			return NULL;
		}
		return type_bool();
	}
	if (a->kind == T_ARRAY && b->kind == T_ARRAY && (n->op == TOK_EQ || n->op == TOK_NE))
		return check_array_eq(c, n, a, b);
	if (is_buf(a) && is_buf(b) && (n->op == TOK_EQ || n->op == TOK_NE))
		return type_bool();   /* the same length and bytes (bpftrace 0.17 aborts) */
	if (n->op == TOK_AND || n->op == TOK_OR) {
		if ((!type_is_int(a) && a->kind != T_PTR) || (!type_is_int(b) && b->kind != T_PTR)) {
			err(c, n->loc, "operands of %s must be integers", n->op == TOK_AND ? "&&" : "||");
			return NULL;
		}
		if (fold_binop(n))
			return type_int(8, true);
		return type_bool();
	}
	if (a->kind == T_PTR && type_is_int(b) && (n->op == '+' || n->op == '-'))
		return a;
	if (b->kind == T_PTR && type_is_int(a) && n->op == '+')
		return b; /* 2 + $p: scaled as $p + 2 */
	if (!type_is_int(a) && a->kind != T_PTR && a->kind != T_KSYM) {
		err(c, n->a->loc, "operand is %s, an integer is needed", tname(a, b1, sizeof(b1)));
		return NULL;
	}
	if (!type_is_int(b) && b->kind != T_PTR && b->kind != T_KSYM) {
		err(c, n->b->loc, "operand is %s, an integer is needed", tname(b, b2, sizeof(b2)));
		return NULL;
	}
	if ((n->op == '/' || n->op == '%') && n->b->kind == N_INT && n->b->ival == 0) {
		err(c, n->b->loc, "%s by zero", n->op == '/' ? "division" : "remainder");
		return NULL;
	}
	if (fold_binop(n))
		return type_int(8, true);
	if (is_cmp(n->op))
		return type_bool();
	return arith_type(a, b);
}

/* An expression naming traced-program memory (a DWARF variable, a field
 * or element of one, a dereference). */
bool is_place(const struct node *n)
{
	return (n->kind == N_FIELD && n->a->type && (n->a->type->kind == T_ARGS ||
		 n->a->type->kind == T_RECORD || n->a->type->kind == T_PTR)) ||
	       n->kind == N_INDEX || (n->kind == N_UNOP && n->op == '*');
}

static bool is_bitfield(const struct node *n)
{
	const struct type *r = n->kind == N_FIELD ? n->a->type : NULL;
	const struct field *f;

	if (r && r->kind == T_PTR)
		r = r->elem;
	f = r && r->kind == T_RECORD ? type_field(r, n->name) : NULL;
	return f && f->bit_size;
}

bool sema_place_is_user(const struct node *n)
{
	for (;;) {
		const struct type *a;

		if (n->kind != N_FIELD && n->kind != N_INDEX && !(n->kind == N_UNOP && n->op == '*'))
			return true;
		a = n->a->type;
		if (a && a == sema_kdwarf_args_type())
			return false;   /* a kernel variable at a kprobe on a source line */
		if (!a || a->kind == T_ARGS)
			return true;
		if (a->kind == T_PTR)
			return a->is_user;
		/* A record or array in a probe's context (tracepoint, raw
		 * tracepoint): kernel memory. */
		if (n->a->kind == N_IDENT)
			return false;
		n = n->a;
	}
}

/* A pointer read from memory points into that memory's address space:
 * the C and DWARF types say nothing of it, the place it is read from does. */
static const struct type *in_space(const struct node *n, const struct type *t)
{
	bool user;

	if (!t || t->kind != T_PTR || n->a->kind == N_IDENT)
		return t;
	user = sema_place_is_user(n);
	return t->is_user == user ? t : type_ptr(t->elem, user);
}

const struct type *check_unop(struct sctx *c, struct node *n)
{
	const struct type *a = check_expr(c, n->a);
	char b1[64];

	if (!a)
		return NULL;
	if (n->op == '*') {
		if (a->kind != T_PTR || !a->elem || a->elem->kind == T_VOID) {
			err(c, n->loc, "cannot dereference %s", tname(a, b1, sizeof(b1)));
			return NULL;
		}
		return in_space(n, a->elem);
	}
	if (n->op == '&') {
		if (is_bitfield(n->a)) {
			err(c, n->loc, "cannot take the address of bitfield '%s'", n->a->name);
			return NULL;
		}
		if (!is_place(n->a)) {
			err(c, n->loc, "cannot take the address of this expression");
			return NULL;
		}
		return type_ptr(a, sema_place_is_user(n->a));
	}
	if (n->op == '!' && a->kind == T_PTR)
		return type_bool();   /* newer bpftrace: a pointer is true when not null */
	if (!type_is_int(a)) {
		err(c, n->loc, "operand of '%c' is %s, an integer is needed", n->op,
		    tname(a, b1, sizeof(b1)));
		return NULL;
	}
	if (n->a->kind == N_INT) {
		int64_t v = (int64_t)n->a->ival;

		fold_to_int(n, n->op == '-' ? (int64_t)(0 - (uint64_t)v) : n->op == '!' ? !v : ~v);
		return type_int(8, true);
	}
	if (n->op == '!')
		return type_bool();
	return arith_type(a, NULL);
}

const struct type *check_ternary(struct sctx *c, struct node *n)
{
	const struct type *k = check_expr(c, n->a);
	const struct type *a = check_expr(c, n->b), *b = check_expr(c, n->c);
	const struct type *u;

	if (!k || !a || !b)
		return NULL;
	if (!type_is_int(k) && k->kind != T_PTR) {
		err(c, n->a->loc, "condition must be an integer");
		return NULL;
	}
	if (type_is_int(a) && type_is_int(b))
		return arith_type(a, b);
	/* bpftrace runs "c ? printf(..) : printf(..);" as a statement; as a
	 * value it is refused by check_value like any void call. */
	if (a->kind == T_VOID && b->kind == T_VOID)
		return a;
	if (a->kind == T_RECORD || a->kind == T_ARRAY || a->kind == T_ARGS) {
		/* The arms are values; a struct or array is not copied. */
		err(c, n->b->loc, "an arm of ?: cannot be %s; use a pointer, a field or an element",
		    tname(a, (char[64]){ 0 }, 64));
		return NULL;
	}
	u = unify(a, b);
	if (!u || (a->kind != b->kind)) {
		err(c, n->loc, "both arms of ?: must be of the same kind");
		return NULL;
	}
	return u;
}

/* (a, "b", c): each element as a map value would hold it (integers 8
 * bytes, strings their size), at 8-byte aligned offsets. */
const struct type *check_tuple(struct sctx *c, struct node *n)
{
	const struct type *el[16];
	int cnt = 0;
	char b1[64];

	for (struct node *e = n->list; e; e = e->next) {
		const struct type *t = check_value(c, e);

		if (!t)
			return NULL;
		const struct type *arr = t;

		t = array_as_str(c, e, t);
		if (t && arr->kind == T_ARRAY && t->kind == T_STR && t->size == arr->size + 1)
			/* a char[N] is held as N bytes, as bpftrace holds it: a
			 * string of all N chars prints them all (no NUL needed) */
			t = type_str(arr->size);
		if (!storable(t) && !(agg_copyable(t) && agg_source(c, e))) {
			err(c, e->loc, "a tuple cannot hold %s", tname(t, b1, sizeof(b1)));
			return NULL;
		}
		if (cnt == 16) {
			err(c, e->loc, "a tuple has at most 16 elements");
			return NULL;
		}
		el[cnt++] = widen(t);
	}
	return type_tuple(el, cnt);
}

/* $t.N: element N of a tuple. */
static const struct type *tuple_elem(struct sctx *c, struct node *n, const struct type *a)
{
	char *end;
	unsigned long i = strtoul(n->name, &end, 10);
	char b1[64];

	if (*end || !*n->name) {
		err(c, n->loc, "%s has no field '%s'; its elements are .0 to .%d",
		    tname(a, b1, sizeof(b1)), n->name, a->nfields - 1);
		return NULL;
	}
	if (i >= (unsigned long)a->nfields) {
		err(c, n->loc, "%s has no element %lu", tname(a, b1, sizeof(b1)), i);
		return NULL;
	}
	if (a->fields[i].type->kind == T_RECORD || a->fields[i].type->kind == T_ARRAY) {
		/* its bytes are in the tuple, not at an address a field read takes */
		err(c, n->loc, "element %lu of %s is %s, which a tuple holds only to print or "
		    "store whole", i, tname(a, b1, sizeof(b1)),
		    tname(a->fields[i].type, (char[64]){ 0 }, 64));
		return NULL;
	}
	return a->fields[i].type;
}

/* Probes whose args differ per probe, read by name in each. */
static bool shares_args(const struct probe *p)
{
	return p->kind == PK_TRACEPOINT || p->kind == PK_FENTRY || p->kind == PK_FEXIT ||
	       p->kind == PK_KPROBE;
}

const struct type *check_field(struct sctx *c, struct node *n)
{
	const struct type *a = check_expr(c, n->a);
	const struct field *f;
	char b1[64];

	if (!a)
		return NULL;
	if (a->kind == T_TUPLE && n->op == '.')
		return tuple_elem(c, n, a);
	if (a->kind == T_ARGS && !a->fields)
		return check_dwarf_var(c, n);
	if (a->kind == T_PTR && a->elem && a->elem->kind == T_RECORD)
		a = a->elem;
	if (a->kind != T_RECORD && a->kind != T_ARGS) {
		err(c, n->loc, "%s has no fields", tname(a, b1, sizeof(b1)));
		return NULL;
	}
	f = type_field(a, n->name);
	if (!f) {
		/* only args itself is "args": curtask, a $var or a cast say their type */
		bool args = n->a->kind == N_IDENT && n->a->bi == BI_ARGS;
		err(c, n->loc, "%s has no field '%s'", args ? "args" : tname(a, b1, sizeof(b1)),
		    n->name);
		return NULL;
	}
	/* A body shared by several tracepoints reads each one's own layout;
	 * one shared by several kernel functions (kfunc:vfs_*, a kprobe
	 * list) each one's parameter of that name, which all must have with
	 * the same type, wherever it is in their list. */
	for (int i = 1; i < c->cur->nprobes && n->a->kind == N_IDENT &&
	     n->a->type->kind != T_PTR && shares_args(c->cur->probes[0]); i++) {
		const struct probe *pi = c->cur->probes[i];
		const struct field *g = type_field(pi->args, n->name);

		if ((!g || !type_equal(g->type, f->type)) && pi->kind == PK_TRACEPOINT) {
			err(c, n->loc, "field '%s' differs between the probes of this body", n->name);
			return NULL;
		}
		if (!g || !type_equal(g->type, f->type)) {
			err(c, n->loc, "args.%s: %s has no parameter '%s' of type %s, as %s has; a body "
			    "shared by several functions reads only the parameters all of them have, "
			    "by name and type", n->name, pi->name, n->name,
			    tname(f->type, b1, sizeof(b1)), c->cur->probes[0]->name);
			return NULL;
		}
	}
	/* Bitfields of traced-program memory are read by cg_place_value;
	 * those of probe contexts (tracepoint records) are not. */
	if (f->bit_size && n->a->kind == N_IDENT && n->a->type->kind != T_PTR) {
		err(c, n->loc, "bitfield '%s' cannot be read yet", n->name);
		return NULL;
	}
	return in_space(n, f->type);
}

bool is_tp_field(struct sctx *c, const struct node *n)
{
	return n->kind == N_FIELD && n->a->kind == N_IDENT && n->a->type->kind != T_PTR &&
	       (c->cur->probes[0]->kind == PK_TRACEPOINT || c->cur->probes[0]->kind == PK_RAWTP ||
		c->cur->probes[0]->kind == PK_FENTRY || c->cur->probes[0]->kind == PK_FEXIT ||
		c->cur->probes[0]->kind == PK_KPROBE);
}

/* A char array in memory where a value is wanted (a printf argument, a
 * map key) is its string, as in bpftrace: `printf("%s", curtask->comm)`.
 * Rewrites n into str(n) and types that. */
const struct type *array_as_str(struct sctx *c, struct node *n, const struct type *t)
{
	struct node *inner;

	if (!t || t->kind != T_ARRAY || !t->elem || !t->elem->is_char || !is_place(n) ||
	    is_tp_field(c, n) || !(inner = ast_new(n->kind, n->loc)))
		return t;
	*inner = *n;
	inner->next = NULL;
	n->kind = N_CALL;
	n->name = strdup("str");
	n->list = inner;
	n->a = n->b = n->c = NULL;
	n->op = 0;
	n->aux = NULL;
	if (!n->name)
		abort();
	return check_expr(c, n);
}

/* A constant index past an array's end (or below 0); an array of no
 * declared length (a flexible member) has no bound to check. */
static bool index_outside(const struct type *a, const struct node *i)
{
	return a->kind == T_ARRAY && a->count && i->kind == N_INT &&
	       ((int64_t)i->ival < 0 || i->ival >= a->count);
}

const struct type *check_index(struct sctx *c, struct node *n)
{
	const struct type *a = check_expr(c, n->a), *i = check_expr(c, n->b);

	if (!a || !i)
		return NULL;
	if (a->kind == T_STR && type_is_int(i)) {
		/* $s[i] (newer bpftrace): the byte, 0 past the buffer's end */
		if (n->b->kind == N_INT && n->b->ival >= a->size) {
			err(c, n->b->loc, "index %llu is past the end of %s",
			    (unsigned long long)n->b->ival, tname(a, (char[64]){ 0 }, 64));
			return NULL;
		}
		return type_int(1, true);
	}
	if (a->kind == T_TUPLE) {
		/* $t[1] (newer bpftrace): a constant index is $t.1 */
		if (n->b->kind != N_INT) {
			err(c, n->b->loc, "a tuple's index must be a constant");
			return NULL;
		}
		n->kind = N_FIELD;
		n->op = '.';
		if (asprintf(&n->name, "%llu", (unsigned long long)n->b->ival) < 0)
			abort();
		ast_free(n->b);
		n->b = NULL;
		return tuple_elem(c, n, a);
	}
	if (a->kind == T_PTR && a->elem && a->elem->kind != T_VOID && type_is_int(i))
		return in_space(n, a->elem);
	if (index_outside(a, n->b)) {
		/* refused as bpftrace 0.17 refuses it */
		err(c, n->loc, "the index %lld is out of bounds for %s",
		    (long long)n->b->ival, tname(a, (char[64]){ 0 }, 64));
		return NULL;
	}
	if (a->kind == T_ARRAY && !is_tp_field(c, n->a) && type_is_int(i))
		return in_space(n, a->elem);
	if (a->kind != T_ARRAY || !type_is_int(a->elem) || n->b->kind != N_INT ||
	    n->b->ival >= a->count) {
		err(c, n->loc, "only constant indexes into integer arrays within bounds are supported");
		return NULL;
	}
	return a->elem;
}

/* Does this body run in the kernel's address space (pointers it casts
 * point into the kernel)? */
static bool kernel_body(struct sctx *c)
{
	return c->cur && !probe_is(c, K(PK_UPROBE) | K(PK_URETPROBE) | K(PK_USDT));
}

/* A type by its C name: the script's own C declarations first (as in
 * bpftrace), then the DWARF of the first uprobe binary of the body that
 * defines it, then at kernel probes the kernel's BTF.  Each source of
 * program types is one lookup here, tried in turn. */
const struct type *program_type(struct sctx *c, const char *name)
{
	char why[256];
	const struct type *ct = ct_type(c->ct, name);

	if (ct)
		return ct;
	if (kernel_body(c))
		return kbtf_type(name);
	for (int i = 0; c->cur && i < c->cur->nprobes; i++) {
		struct probe *p = c->cur->probes[i];
		const struct type *t = NULL;

		if ((p->kind == PK_UPROBE || p->kind == PK_URETPROBE) && p->path)
			t = dw_find_type(p->path, name, why, sizeof(why));
		if (t)
			return t;
	}
	return NULL;
}

/* A cast's N_TYPENAME: script integer names, then the program's types;
 * ival is the pointer depth. */
const struct type *cast_type(struct sctx *c, const struct node *tn)
{
	const struct type *t = type_by_name(tn->name);

	if (!t && !strcmp(tn->name, "void") && tn->ival)
		t = type_void();
	if (!t)
		t = program_type(c, tn->name);
	for (uint64_t i = 0; t && i < tn->ival; i++)
		t = type_ptr(t, !kernel_body(c));
	return t;
}

const struct type *check_cast(struct sctx *c, struct node *n)
{
	const struct type *a = check_expr(c, n->a);
	const struct type *t = cast_type(c, n->b);

	if (!a)
		return NULL;
	if (!t) {
		err(c, n->b->loc, "unknown type '%s': not a script type, and %s", n->b->name,
		    kernel_body(c) ? "the kernel's BTF does not define it" :
		    c->ct ? "neither the script's C declarations nor the DWARF of the probed "
			    "binary define it" : "the DWARF of the probed binary does not define it");
		return NULL;
	}
	if (!type_is_int(a) && a->kind != T_PTR) {
		err(c, n->loc, "only integers and pointers can be cast");
		return NULL;
	}
	if (!type_is_int(t) && t->kind != T_PTR) {
		err(c, n->b->loc, "cannot cast to '%s'; cast to a pointer to it", n->b->name);
		return NULL;
	}
	/* (bool)x is x != 0 (newer bpftrace's bool), not x's low byte */
	if (!strcmp(n->b->name, "bool") && !n->b->ival)
		t = type_truth();
	set_type(n->b, t);
	return t;
}

const struct type *check_map_read(struct sctx *c, struct node *n)
{
	int mi = map_get(c, n);
	struct sema_map *sm;

	map_keys(c, n, mi);
	sm = &c->s->maps[mi];
	if (!sm->value) {
		if (!c->quiet)
			err(c, n->loc, "@%s is read but never assigned", n->name);
		return type_int(8, true);
	}
	if (sm->value->kind == T_AGG) {
		err(c, n->loc, "@%s holds %s(), which cannot be read in an expression",
		    n->name, agg_name(sm->value->agg));
		return NULL;
	}
	return sm->value;
}
