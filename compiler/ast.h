/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ast.h - the syntax tree the parser builds and every later stage reads.
 *
 * One node struct for every kind, with generic slots (a, b, c, list, next)
 * whose meaning per kind is written beside each kind below.  Sema fills
 * `type`, may hang its own annotations on `aux`, and rewrites nodes in
 * place into simpler ones: constants folded into N_INT, `$1`, `$#` and
 * getopt() into N_INT or N_STR, a call without arguments into N_IDENT, a
 * char array read as str(), a tuple index as a field, curtask paths
 * spelled out, newer bpftrace's names as ours (dw_ustack as ustack).
 * Nothing after sema writes a node.  Nodes are owned by the arena of their program
 * (ast_free releases the whole tree).
 */
#ifndef PR_AST_H
#define PR_AST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/diag.h"

struct type;

enum node_kind {
	/* ---- expressions ---- */
	N_INT,      /* ival: value (always >= 0; unary minus is N_UNOP) */
	N_STR,      /* name: bytes (NUL-terminated), len: length without NUL */
	N_IDENT,    /* name: a bare identifier: pid, comm, arg0, retval, args, func, ... */
	N_VAR,      /* name: scratch variable without '$' ("x" for $x) */
	N_POSITIONAL, /* ival: n for $n (1-based); ival 0 with name "#" is $# */
	N_MAP,      /* name: map name without '@' ("" for @), list: key exprs or NULL */
	N_CALL,     /* name: function, list: arguments */
	N_BINOP,    /* op: TOK_* of the operator, a: left, b: right */
	N_UNOP,     /* op: '-', '!', '~', '*' (deref), '&' (address-of); a: operand */
	N_TERNARY,  /* a: cond, b: then, c: else */
	N_FIELD,    /* a: object, name: member; op: '.' or TOK_ARROW */
	N_INDEX,    /* a: object, b: index */
	N_CAST,     /* a: operand, b: the N_TYPENAME */
	N_TYPENAME, /* name: "uint32", "int", "struct req", "char"...; ival: pointer depth */
	N_SIZEOF,   /* a: expression or N_TYPENAME */
	N_ASSIGN,   /* a: lvalue (N_MAP or N_VAR), b: value; op: 0 for '=', else the
	             * binary operator of a compound assignment ('+' for +=, TOK_SHL for <<=) */
	N_INCDEC,   /* a: lvalue; op: '+' or '-'; ival: 1 if prefix (++x), 0 if postfix (x++) */
	N_TUPLE,    /* list: the elements of (a, "b", c); empty for () */
	N_STMTEXPR, /* { stmts; e } (newer bpftrace's block expression): list: the
	             * statements, a: the value */

	/* ---- statements ---- */
	N_EXPRSTMT, /* a: expression */
	N_IF,       /* a: cond, b: then N_BLOCK, c: else (N_BLOCK, N_IF or NULL) */
	N_UNROLL,   /* ival: count (1..100), b: N_BLOCK */
	N_WHILE,    /* a: cond, b: N_BLOCK (bounded by the verifier) */
	N_FORMAP,   /* for ($kv : @m): a: the N_VAR, b: N_BLOCK, c: the N_MAP (newer bpftrace) */
	N_BREAK,    /* inside while */
	N_CONTINUE, /* inside while */
	N_RETURN,   /* ends this probe hit */
	N_BLOCK,    /* list: statements */

	/* ---- top level ---- */
	N_ATTACH,   /* name: attach point text exactly as written after trimming,
	             * e.g. "uprobe:./app:app.c;acc +=*", "BEGIN", "interval:s:1" */
	N_PROBE,    /* list: N_ATTACH nodes, a: predicate or NULL, b: N_BLOCK */
	N_CDECL,    /* name: the C text of a struct/union/enum/typedef declaration
	             * or of an #include line, verbatim, for libclang */
	N_PROGRAM,  /* list: N_CDECL then N_PROBE nodes, in source order */
};

struct node {
	enum node_kind kind;
	struct loc loc;      /* where the node starts, and its length on that line */
	int op;
	char *name;
	size_t len;
	uint64_t ival;
	struct node *a, *b, *c;
	struct node *list;   /* first element; elements are chained by `next` */
	struct node *next;
	struct type *type;   /* set by sema */
	int bi;              /* N_IDENT, N_CALL: the builtin's enum bi_id (builtin.h), set by sema */
	void *aux;           /* owned by sema / codegen */
};

struct node *ast_new(enum node_kind kind, struct loc loc);
int ast_count(const struct node *list);
const char *ast_kind_name(enum node_kind kind);
/* Writes the tree (with types when sema has run) for --dump ast. */
void ast_dump(FILE *out, const struct node *n);
void ast_free(struct node *n);
/* How ast_dump prints node->type: NULL (types not printed) until sema sets
 * it, so that the front end links without the type module. */
extern void (*ast_type_printer)(FILE *out, const struct type *t);

#endif
