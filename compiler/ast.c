// SPDX-License-Identifier: GPL-2.0-only
/*
 * ast.c - syntax tree nodes: allocation, freeing and the --dump ast text.
 *
 * The dump is one node per line, indented two spaces per level, children
 * in the order list, a, b, c (so a probe shows its attach points, then its
 * predicate, then its block).  Types are printed through ast_type_printer,
 * which sema sets, so the front end can be linked and tested alone.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "lexer.h"
#include "lib/types.h"

void (*ast_type_printer)(FILE *out, const struct type *t);

struct node *ast_new(enum node_kind kind, struct loc loc)
{
	struct node *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->kind = kind;
	n->loc = loc;
	return n;
}

int ast_count(const struct node *list)
{
	int n = 0;

	for (; list; list = list->next)
		n++;
	return n;
}

static const char *const kind_names[] = {
	[N_INT] = "int", [N_STR] = "str", [N_IDENT] = "ident", [N_VAR] = "var",
	[N_POSITIONAL] = "positional", [N_MAP] = "map", [N_CALL] = "call",
	[N_BINOP] = "binop", [N_UNOP] = "unop", [N_TERNARY] = "ternary",
	[N_FIELD] = "field", [N_INDEX] = "index", [N_CAST] = "cast",
	[N_TYPENAME] = "typename", [N_SIZEOF] = "sizeof", [N_ASSIGN] = "assign",
	[N_INCDEC] = "incdec", [N_EXPRSTMT] = "exprstmt", [N_IF] = "if",
	[N_UNROLL] = "unroll", [N_WHILE] = "while", [N_BREAK] = "break",
	[N_CONTINUE] = "continue", [N_RETURN] = "return", [N_BLOCK] = "block",
	[N_ATTACH] = "attach", [N_PROBE] = "probe", [N_CDECL] = "cdecl",
	[N_PROGRAM] = "program", [N_TUPLE] = "tuple", [N_STMTEXPR] = "stmtexpr", [N_FORMAP] = "formap",
};

const char *ast_kind_name(enum node_kind kind)
{
	if ((unsigned)kind >= sizeof(kind_names) / sizeof(kind_names[0]) || !kind_names[kind])
		return "?";
	return kind_names[kind];
}

static void dump_escaped(FILE *out, const char *s, size_t len)
{
	size_t i;

	fputc('"', out);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (isprint(c))
			fputc(c, out);
		else
			fprintf(out, "\\x%02x", c);
	}
	fputc('"', out);
}

static const char *op_name(int op)
{
	const char *s = lex_op_str(op);

	return s ? s : "?";
}

/* The part of a node's line after its kind name. */
static void dump_detail(FILE *out, const struct node *n)
{
	const char *name = n->name ? n->name : "";
	int i;

	switch (n->kind) {
	case N_INT:
		if (n->type && n->type->kind == T_INT && n->type->is_signed)
			fprintf(out, " %lld", (long long)n->ival);
		else
			fprintf(out, " %llu", (unsigned long long)n->ival);
		break;
	case N_STR:        fputc(' ', out); dump_escaped(out, name, n->len); break;
	case N_IDENT:
	case N_CALL:
	case N_ATTACH:     fprintf(out, " %s", name); break;
	case N_VAR:        fprintf(out, " $%s", name); break;
	case N_MAP:        fprintf(out, " @%s", name); break;
	case N_POSITIONAL:
		if (n->name)
			fprintf(out, " $%s", name);
		else
			fprintf(out, " $%llu", (unsigned long long)n->ival);
		break;
	case N_BINOP:
	case N_UNOP:       fprintf(out, " %s", op_name(n->op)); break;
	case N_FIELD:      fprintf(out, " %s%s", op_name(n->op), name); break;
	case N_ASSIGN:     fprintf(out, " %s=", n->op ? op_name(n->op) : ""); break;
	case N_INCDEC:
		fprintf(out, " %s %s", n->op == '+' ? "++" : "--",
			n->ival ? "prefix" : "postfix");
		break;
	case N_UNROLL:     fprintf(out, " %llu", (unsigned long long)n->ival); break;
	case N_TYPENAME:
		fprintf(out, " %s%s", name, n->ival ? " " : "");
		for (i = 0; i < (int)n->ival; i++)
			fputc('*', out);
		break;
	case N_CDECL:      fputc(' ', out); dump_escaped(out, name, strlen(name)); break;
	default:           break;
	}
}

static void dump(FILE *out, const struct node *n, int depth)
{
	const struct node *c;

	fprintf(out, "%*s%s", depth * 2, "", ast_kind_name(n->kind));
	dump_detail(out, n);
	if (n->type && ast_type_printer) {
		fputs(" :: ", out);
		ast_type_printer(out, n->type);
	}
	fputc('\n', out);
	for (c = n->list; c; c = c->next)
		dump(out, c, depth + 1);
	if (n->a)
		dump(out, n->a, depth + 1);
	if (n->b)
		dump(out, n->b, depth + 1);
	if (n->c)
		dump(out, n->c, depth + 1);
}

void ast_dump(FILE *out, const struct node *n)
{
	if (n)
		dump(out, n, 0);
}

void ast_free(struct node *n)
{
	struct node *c, *next;

	if (!n)
		return;
	for (c = n->list; c; c = next) {
		next = c->next;
		ast_free(c);
	}
	ast_free(n->a);
	ast_free(n->b);
	ast_free(n->c);
	free(n->name);
	free(n);
}
