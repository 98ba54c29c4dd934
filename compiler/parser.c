// SPDX-License-Identifier: GPL-2.0-only
/*
 * parser.c - recursive descent over the token array from lex_all().
 *
 * Every parse function returns a node, or NULL after reporting exactly one
 * error; callers pass the NULL up without reporting again, and only the
 * statement and probe loops recover (skip to the next ';', '}' or probe).
 * That keeps one error per statement however deep the mistake sits.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctypes.h"
#include "lexer.h"
#include "parser.h"

struct parser {
	struct token *t;
	int n;
	int i;                /* index of the current token */
	struct diag *d;
	int last_err;         /* token index of the last error, to say it once */
	int eof_quiet;        /* recovery ran into EOF: its errors are said */
	int depth;            /* nested expressions and blocks being parsed */
	int ops;              /* operator nodes in the current statement */
	struct node *prog;    /* the program so far: its C declarations name types */
	int in_pred;          /* parsing a predicate: a '{' there is the probe's body */
};

/* Later stages walk the tree recursively: these bounds keep any tree they
 * get shallow enough for the stack, far above what a real script needs. */
#define MAX_DEPTH 100
#define MAX_OPS 1000

static const char *const type_words[] = {
	"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
	"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
	"int", "unsigned", "signed", "char", "short", "long", "bool", "void",
};

int parse_is_type_word(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(type_words) / sizeof(type_words[0]); i++)
		if (!strcmp(name, type_words[i]))
			return 1;
	return 0;
}

static struct token *peek(struct parser *p)
{
	return &p->t[p->i];
}

static struct token *peek_at(struct parser *p, int k)
{
	return &p->t[p->i + k < p->n ? p->i + k : p->n - 1];
}

static int at(struct parser *p, int kind)
{
	return peek(p)->kind == kind;
}

static struct token *next(struct parser *p)
{
	struct token *t = peek(p);

	if (t->kind != TOK_EOF)
		p->i++;
	return t;
}

static int accept(struct parser *p, int kind)
{
	if (!at(p, kind))
		return 0;
	next(p);
	return 1;
}

static void error_tok(struct parser *p, int idx, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Reports at token idx, once; a lexer error token says what is wrong with
 * itself better than what the parser expected there. */
static void error_tok(struct parser *p, int idx, const char *fmt, ...)
{
	struct token *t = &p->t[idx];
	va_list ap;

	if (idx == p->last_err || (t->kind == TOK_EOF && p->eof_quiet))
		return;
	p->last_err = idx;
	if (t->kind == TOK_ERROR) {
		diag_error(p->d, t->loc, "%s", t->text);
		return;
	}
	va_start(ap, fmt);
	diag_verror(p->d, t->loc, fmt, ap);
	va_end(ap);
}

/* Reports about a node already parsed (not about the token at hand). */
static void error_node(struct parser *p, const struct node *n, const char *msg)
{
	p->last_err = p->i;
	diag_error(p->d, n->loc, "%s", msg);
}

#define error_here(p, ...) error_tok((p), (p)->i, __VA_ARGS__)

/* Counts one more operator node (or nesting level with nest = 1); -1 after
 * reporting when the statement goes past the bounds above. */
static int grow(struct parser *p, int nest)
{
	if (nest ? ++p->depth > MAX_DEPTH : ++p->ops > MAX_OPS) {
		error_here(p, nest ? "nested more than %d levels deep" :
			   "more than %d operators in one statement", nest ? MAX_DEPTH : MAX_OPS);
		return -1;
	}
	return 0;
}

static int expect(struct parser *p, int kind, const char *msg)
{
	if (accept(p, kind))
		return 0;
	error_here(p, "%s", msg);
	return -1;
}

/* Widens n's loc to the end of the last token taken, on n's first line. */
static struct node *finish(struct parser *p, struct node *n)
{
	const struct token *last = &p->t[p->i > 0 ? p->i - 1 : 0];
	int len;

	if (last->loc.line == n->loc.line) {
		len = last->loc.col + last->loc.len - n->loc.col;
	} else {
		diag_line(p->d->src, n->loc.line, &len);
		len = len - n->loc.col + 1;
	}
	if (len > n->loc.len)
		n->loc.len = len;
	return n;
}

static struct node *mk(enum node_kind kind, struct loc loc)
{
	struct node *n = ast_new(kind, loc);

	if (!n)
		abort();
	return n;
}

/* Moves a token's text into a node. */
static char *take_text(struct token *t)
{
	char *s = t->text;

	t->text = NULL;
	return s ? s : strdup("");
}

static void append(struct node **list, struct node *n)
{
	while (*list)
		list = &(*list)->next;
	*list = n;
}

static void free_list(struct node *l)
{
	while (l) {
		struct node *nx = l->next;

		ast_free(l);
		l = nx;
	}
}

/* ---- expressions ---- */

static struct node *parse_expr(struct parser *p);
static struct node *parse_unary(struct parser *p);

/* '*'s then ')' at p->i + k: after "(name", only a pointer type fits, so
 * `(pid_t *)x` is a cast even where pid_t comes from a header or BTF. */
static int stars_close(struct parser *p, int k)
{
	if (peek_at(p, k)->kind != '*')
		return 0;
	while (peek_at(p, k)->kind == '*')
		k++;
	return peek_at(p, k)->kind == ')';
}

/* Is `name` a typedef that a C declaration of the script made? */
static int is_typedef(struct parser *p, const char *name)
{
	char buf[128];

	for (struct node *x = p->prog ? p->prog->list : NULL; x; x = x->next)
		if (x->kind == N_CDECL && ct_typedef_name(x->name, buf, sizeof(buf)) &&
		    !strcmp(buf, name))
			return 1;
	return 0;
}

/* Number of tokens a type name takes at p->i + k ("struct req", "unsigned
 * long", "u32"), 0 if none starts there; '*'s are not counted. */
static int type_tokens(struct parser *p, int k)
{
	int kind = peek_at(p, k)->kind, n = 0;

	if (kind == TOK_STRUCT || kind == TOK_UNION || kind == TOK_ENUM)
		return peek_at(p, k + 1)->kind == TOK_IDENT ? 2 : 0;
	while (peek_at(p, k + n)->kind == TOK_IDENT &&
	       parse_is_type_word(peek_at(p, k + n)->text))
		n++;
	if (n == 0 && kind == TOK_IDENT && (is_typedef(p, peek_at(p, k)->text) ||
					     stars_close(p, k + 1)))
		n = 1;
	return n;
}

/* Is this '(' the start of a cast: '(' type '*'... ')' ? */
static int at_cast(struct parser *p)
{
	int n = type_tokens(p, 1), k;

	if (!at(p, '(') || n == 0)
		return 0;
	for (k = 1 + n; peek_at(p, k)->kind == '*'; k++)
		;
	return peek_at(p, k)->kind == ')';
}

/* '(' intN ')' or '(' uintN ')' of a width that is no type ("(uint128)5"
 * read as a parenthesised name then a stray number: "expected ';'"). */
static int at_bad_int_cast(struct parser *p)
{
	const char *w = peek_at(p, 1)->text;

	if (!at(p, '(') || peek_at(p, 1)->kind != TOK_IDENT || peek_at(p, 2)->kind != ')' || !w)
		return 0;
	w += *w == 'u';
	return !strncmp(w, "int", 3) && w[3] && strspn(w + 3, "0123456789") == strlen(w + 3);
}

/* A type name (caller checked type_tokens): N_TYPENAME. */
static struct node *parse_typename(struct parser *p)
{
	struct node *n = mk(N_TYPENAME, peek(p)->loc);
	int count = type_tokens(p, 0), i;
	size_t len = 0;
	char buf[256];

	buf[0] = '\0';
	for (i = 0; i < count; i++) {
		struct token *t = next(p);
		const char *w = t->text ? t->text : lex_op_str(t->kind);

		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? " " : "", w);
		if (len >= sizeof(buf))
			len = sizeof(buf) - 1;
	}
	while (accept(p, '*'))
		n->ival++;
	n->name = strdup(buf);
	return finish(p, n);
}

static struct node *parse_cast(struct parser *p)
{
	struct node *n = mk(N_CAST, peek(p)->loc), *tn;

	next(p);
	tn = parse_typename(p);
	next(p); /* ')', checked by at_cast */
	n->b = tn;
	n->a = grow(p, 0) < 0 ? NULL : parse_unary(p);
	if (!n->a) {
		ast_free(n);
		return NULL;
	}
	return finish(p, n);
}

static struct node *parse_sizeof(struct parser *p)
{
	struct node *n = mk(N_SIZEOF, next(p)->loc);

	if (at(p, '(') && type_tokens(p, 1)) {
		next(p);
		n->a = parse_typename(p);
		if (expect(p, ')', "expected ')'") < 0) {
			ast_free(n);
			return NULL;
		}
	} else {
		n->a = grow(p, 0) < 0 ? NULL : parse_unary(p);
	}
	if (!n->a) {
		ast_free(n);
		return NULL;
	}
	return finish(p, n);
}

/* expr { ',' expr } up to `close`; the list, or NULL with *err set. */
static struct node *parse_list(struct parser *p, int close, const char *msg, int *err)
{
	struct node *list = NULL, *e;

	*err = 0;
	if (accept(p, close))
		return NULL;
	do {
		e = parse_expr(p);
		if (!e)
			goto fail;
		append(&list, e);
	} while (accept(p, ','));
	if (expect(p, close, msg) == 0)
		return list;
fail:
	free_list(list);
	*err = 1;
	return NULL;
}

/*
 * offsetof(struct X, a.b) or offsetof(expr, a.b), newer bpftrace: an N_CALL
 * whose list is the N_TYPENAME (or the expression) and an N_STR of the
 * field path.  The caller saw "offsetof" and '('.
 */
static struct node *parse_offsetof(struct parser *p, struct token *t)
{
	struct node *n = mk(N_CALL, t->loc), *path;
	char buf[256];
	size_t len = 0;

	n->name = take_text(t);
	next(p);
	n->list = type_tokens(p, 0) ? parse_typename(p) : parse_expr(p);
	if (!n->list || expect(p, ',', "expected ',' after offsetof's struct") < 0)
		goto fail;
	path = mk(N_STR, peek(p)->loc);
	append(&n->list, path);
	do {
		if (!at(p, TOK_IDENT)) {
			error_here(p, "expected a field name");
			goto fail;
		}
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", len ? "." : "",
					peek(p)->text);
		if (len >= sizeof(buf))
			len = sizeof(buf) - 1;
		next(p);
	} while (accept(p, '.'));
	path->name = strdup(buf);
	path->len = len;
	if (expect(p, ')', "expected ')' after the field") < 0)
		goto fail;
	return finish(p, n);
fail:
	ast_free(n);
	return NULL;
}

static struct node *parse_ident(struct parser *p)
{
	struct token *t = next(p);
	struct node *n;
	int err;

	if (at(p, '(') && !strcmp(t->text, "offsetof"))
		return parse_offsetof(p, t);

	if (!at(p, '(')) {
		n = mk(N_IDENT, t->loc);
		n->name = take_text(t);
		return n;
	}
	n = mk(N_CALL, t->loc);
	n->name = take_text(t);
	next(p);
	n->list = parse_list(p, ')', "expected ')' after arguments", &err);
	if (err) {
		ast_free(n);
		return NULL;
	}
	return finish(p, n);
}

static struct node *parse_map(struct parser *p)
{
	struct token *t = next(p);
	struct node *n = mk(N_MAP, t->loc);
	int err;

	n->name = take_text(t);
	if (!accept(p, '['))
		return n;
	if (at(p, ']')) {
		error_here(p, "expected expression");
		ast_free(n);
		return NULL;
	}
	n->list = parse_list(p, ']', "expected ']'", &err);
	if (err) {
		ast_free(n);
		return NULL;
	}
	/* @m[(a, b)] is @m[a, b] (newer bpftrace: the keys are a tuple). */
	if (n->list && !n->list->next && n->list->kind == N_TUPLE && n->list->list) {
		struct node *t = n->list;

		n->list = t->list;
		t->list = NULL;
		ast_free(t);
	}
	return finish(p, n);
}

/*
 * '(' e ')' is e; '(' e ',' ... ')' a tuple, as are '(' e ',' ')' and
 * '(' ')' (newer bpftrace's one- and zero-element tuples).
 */
static struct node *parse_paren(struct parser *p)
{
	struct node *n, *e;
	struct loc where = next(p)->loc;

	if (at(p, ')')) {
		next(p);
		return mk(N_TUPLE, where);
	}
	e = parse_expr(p);
	if (!e)
		return NULL;
	if (accept(p, ')'))
		return e;
	if (!at(p, ',')) {
		error_here(p, "expected ')'");
		ast_free(e);
		return NULL;
	}
	n = mk(N_TUPLE, where);
	n->list = e;
	while (accept(p, ',') && !at(p, ')')) {
		e = parse_expr(p);
		if (!e) {
			ast_free(n);
			return NULL;
		}
		append(&n->list, e);
	}
	if (expect(p, ')', "expected ')' after the tuple") < 0) {
		ast_free(n);
		return NULL;
	}
	return finish(p, n);
}

static struct node *parse_block(struct parser *p);

/*
 * { stmts; e } (newer bpftrace): an N_STMTEXPR whose value is e, the last
 * statement when no ';' follows it; without one, the N_BLOCK itself (a
 * block as a statement).
 */
static struct node *parse_block_expr(struct parser *p)
{
	struct node *b = parse_block(p), *n, *last, **pp;

	if (p->i < 2 || p->t[p->i - 2].kind == ';' || p->t[p->i - 1].kind != '}' || !b->list)
		return b;
	for (pp = &b->list; (*pp)->next; pp = &(*pp)->next)
		;
	last = *pp;
	if (last->kind != N_EXPRSTMT)
		return b;
	n = mk(N_STMTEXPR, b->loc);
	n->a = last->a;
	last->a = NULL;
	ast_free(last);
	*pp = NULL;
	n->list = b->list;
	b->list = NULL;
	ast_free(b);
	return n;
}

static struct node *parse_primary(struct parser *p)
{
	struct token *t = peek(p);
	struct node *n;

	switch (t->kind) {
	case TOK_INT:
		n = mk(N_INT, next(p)->loc);
		n->ival = t->ival;
		return n;
	case TOK_STR:
		n = mk(N_STR, next(p)->loc);
		n->len = t->len;
		n->name = take_text(t);
		return n;
	case TOK_IDENT:
		return parse_ident(p);
	case TOK_VAR:
		n = mk(N_VAR, next(p)->loc);
		n->name = take_text(t);
		return n;
	case TOK_POSITIONAL:
		n = mk(N_POSITIONAL, next(p)->loc);
		n->ival = t->ival;
		if (t->text)
			n->name = take_text(t);
		return n;
	case TOK_MAP:
		return parse_map(p);
	case '(':
		return parse_paren(p);
	case '{':
		if (!p->in_pred)   /* "/ {": the predicate is missing */
			return parse_block_expr(p);
		/* fall through */
	default:
		error_here(p, "expected expression");
		return NULL;
	}
}

static struct node *parse_postfix(struct parser *p)
{
	struct node *e = parse_primary(p), *n;

	while (e) {
		int k = peek(p)->kind;

		if (k == '.' && peek_at(p, 1)->kind == '.')
			return e;   /* the '..' of for ($i : a..b) */
		if ((k == '.' || k == TOK_ARROW || k == '[' || k == TOK_INC || k == TOK_DEC) &&
		    grow(p, 0) < 0) {
			ast_free(e);
			return NULL;
		}
		if (k == '.' || k == TOK_ARROW) {
			n = mk(N_FIELD, e->loc);
			n->op = k;
			n->a = e;
			e = n;
			next(p);
			if (k == '.' && at(p, TOK_INT)) {   /* $t.0: a tuple element */
				if (asprintf(&n->name, "%llu",
					     (unsigned long long)next(p)->ival) < 0)
					abort();
			} else if (!at(p, TOK_IDENT)) {
				error_here(p, "expected field name after '%s'", lex_op_str(k));
				ast_free(e);
				return NULL;
			} else {
				n->name = take_text(next(p));
			}
		} else if (k == '[') {
			n = mk(N_INDEX, e->loc);
			n->a = e;
			e = n;
			next(p);
			n->b = parse_expr(p);
			if (!n->b || expect(p, ']', "expected ']'") < 0) {
				ast_free(e);
				return NULL;
			}
		} else if (k == TOK_INC || k == TOK_DEC) {
			n = mk(N_INCDEC, e->loc);
			n->op = k == TOK_INC ? '+' : '-';
			n->a = e;
			e = n;
			next(p);
		} else {
			return e;
		}
		finish(p, e);
	}
	return NULL;
}

static struct node *parse_unary(struct parser *p)
{
	struct token *t = peek(p);
	struct node *n;

	switch (t->kind) {
	case '-': case '!': case '~': case '*': case '&':
		n = mk(N_UNOP, next(p)->loc);
		n->op = t->kind;
		break;
	case TOK_INC: case TOK_DEC:
		n = mk(N_INCDEC, next(p)->loc);
		n->op = t->kind == TOK_INC ? '+' : '-';
		n->ival = 1;
		break;
	case TOK_SIZEOF:
		return parse_sizeof(p);
	case '(':
		if (at_cast(p))
			return parse_cast(p);
		if (at_bad_int_cast(p)) {
			error_tok(p, p->i + 1, "'%s' is not a type: the integer types are int8, "
				  "int16, int32, int64, uint8, uint16, uint32 and uint64",
				  peek_at(p, 1)->text);
			return NULL;
		}
		return parse_postfix(p);
	default:
		return parse_postfix(p);
	}
	n->a = grow(p, 0) < 0 ? NULL : parse_unary(p);
	if (!n->a) {
		ast_free(n);
		return NULL;
	}
	return finish(p, n);
}

/* Binary operators by precedence, loosest first. */
static const int bin_levels[][5] = {
	{ TOK_OR }, { TOK_AND }, { '|' }, { '^' }, { '&' },
	{ TOK_EQ, TOK_NE }, { '<', TOK_LE, '>', TOK_GE }, { TOK_SHL, TOK_SHR },
	{ '+', '-' }, { '*', '/', '%' },
};
#define NLEVELS ((int)(sizeof(bin_levels) / sizeof(bin_levels[0])))

static int in_level(int level, int kind)
{
	int i;

	for (i = 0; i < 5 && bin_levels[level][i]; i++)
		if (bin_levels[level][i] == kind)
			return 1;
	return 0;
}

static struct node *parse_binary(struct parser *p, int level)
{
	struct node *l, *n;

	if (level == NLEVELS)
		return parse_unary(p);
	l = parse_binary(p, level + 1);
	while (l && in_level(level, peek(p)->kind)) {
		if (grow(p, 0) < 0) {
			ast_free(l);
			return NULL;
		}
		n = mk(N_BINOP, l->loc);
		n->op = next(p)->kind;
		n->a = l;
		n->b = parse_binary(p, level + 1);
		if (!n->b) {
			ast_free(n);
			return NULL;
		}
		l = finish(p, n);
	}
	return l;
}

static struct node *parse_ternary(struct parser *p)
{
	struct node *c = parse_binary(p, 0), *n;

	if (!c || !at(p, '?'))
		return c;
	next(p);
	n = mk(N_TERNARY, c->loc);
	n->a = c;
	n->b = parse_expr(p);
	if (!n->b || expect(p, ':', "expected ':' in conditional expression") < 0) {
		ast_free(n);
		return NULL;
	}
	n->c = parse_expr(p);
	if (!n->c) {
		ast_free(n);
		return NULL;
	}
	return finish(p, n);
}

static struct node *parse_expr(struct parser *p)
{
	struct node *n = grow(p, 1) < 0 ? NULL : parse_ternary(p);

	p->depth--;
	return n;
}

/* ---- statements ---- */

static struct node *parse_block(struct parser *p);
static struct node *parse_stmt(struct parser *p);

/* Skips the rest of a bad statement: through the next ';' or a balanced
 * '{...}', or up to the '}' that closes the enclosing block. */
static void recover_stmt(struct parser *p)
{
	int depth = 0;

	for (;;) {
		int k = peek(p)->kind;

		if (k == TOK_EOF) {
			p->eof_quiet = 1;
			return;
		}
		if (k == '}' && depth == 0)
			return;
		next(p);
		if (k == ';' && depth == 0)
			return;
		if (k == '{')
			depth++;
		else if (k == '}' && --depth == 0)
			return;
	}
}

static int compound_op(int kind)
{
	switch (kind) {
	case '=': return 0;
	case TOK_ADD_ASSIGN: return '+';
	case TOK_SUB_ASSIGN: return '-';
	case TOK_MUL_ASSIGN: return '*';
	case TOK_DIV_ASSIGN: return '/';
	case TOK_MOD_ASSIGN: return '%';
	case TOK_AND_ASSIGN: return '&';
	case TOK_OR_ASSIGN: return '|';
	case TOK_XOR_ASSIGN: return '^';
	case TOK_SHL_ASSIGN: return TOK_SHL;
	case TOK_SHR_ASSIGN: return TOK_SHR;
	default: return -1;
	}
}

/* '(' expr ')' of if and while. */
static struct node *parse_cond(struct parser *p, const char *kw)
{
	struct node *c;

	if (!at(p, '(')) {
		error_here(p, "expected '(' after '%s'", kw);
		return NULL;
	}
	next(p);
	c = parse_expr(p);
	if (c && expect(p, ')', "expected ')' after condition") < 0) {
		ast_free(c);
		return NULL;
	}
	return c;
}

/* The '{...}' of if, while and unroll into n->b; -1 when it is missing. */
static int parse_body(struct parser *p, struct node *n, const char *what)
{
	if (!at(p, '{')) {
		error_here(p, "expected '{' after %s", what);
		return -1;
	}
	n->b = parse_block(p);
	return 0;
}

static struct node *parse_if(struct parser *p)
{
	struct node *n = mk(N_IF, next(p)->loc);

	n->loc.len = 2;
	n->a = parse_cond(p, "if");
	if (!n->a || parse_body(p, n, "if condition") < 0)
		goto fail;
	if (!accept(p, TOK_ELSE))
		return n;
	if (at(p, TOK_IF)) {
		n->c = grow(p, 1) < 0 ? NULL : parse_if(p);
		p->depth--;
		if (!n->c)
			goto fail;
		return n;
	}
	if (!at(p, '{')) {
		error_here(p, "expected '{' after 'else'");
		goto fail;
	}
	n->c = parse_block(p);
	return n;
fail:
	ast_free(n);
	return NULL;
}

static struct node *parse_loop(struct parser *p)
{
	struct token *kw = next(p);
	struct node *n = mk(kw->kind == TOK_WHILE ? N_WHILE : N_UNROLL, kw->loc);
	int idx;

	if (n->kind == N_WHILE) {
		n->a = parse_cond(p, "while");
		if (!n->a || parse_body(p, n, "while condition") < 0) {
			ast_free(n);
			return NULL;
		}
		return n;
	}
	if (expect(p, '(', "expected '(' after 'unroll'") < 0) {
		ast_free(n);
		return NULL;
	}
	idx = p->i;
	if (at(p, TOK_POSITIONAL)) {
		/* unroll($1): sema checks the parameter's value (n->a) */
		n->a = parse_primary(p);
	} else if (!at(p, TOK_INT) || peek(p)->ival < 1 || peek(p)->ival > 100) {
		error_tok(p, idx, "unroll count must be an integer from 1 to 100");
		ast_free(n);
		return NULL;
	} else {
		n->ival = next(p)->ival;
	}
	if (expect(p, ')', "expected ')' after unroll count") < 0) {
		ast_free(n);
		return NULL;
	}
	if (parse_body(p, n, "unroll count") < 0) {
		ast_free(n);
		return NULL;
	}
	return n;
}

static struct node *parse_simple(struct parser *p)
{
	struct node *e = parse_expr(p), *n;
	int op;

	if (!e)
		return NULL;
	if (e->kind == N_BLOCK)
		return e;   /* { ... } as a statement */
	if (at(p, '(')) {
		/* `$f()` or `@m(1)`: a call needs a function's name. */
		error_node(p, e, "only a function can be called, and this is not one");
		ast_free(e);
		return NULL;
	}
	op = compound_op(peek(p)->kind);
	if (op < 0) {
		if (e->kind == N_INCDEC)
			return e;
		n = mk(N_EXPRSTMT, e->loc);
		n->a = e;
		return n;
	}
	if (e->kind != N_MAP && e->kind != N_VAR) {
		error_node(p, e, "only a map or a variable can be assigned to");
		ast_free(e);
		return NULL;
	}
	n = mk(N_ASSIGN, e->loc);
	n->op = op;
	n->a = e;
	next(p);
	n->b = parse_expr(p);
	if (!n->b) {
		ast_free(n);
		return NULL;
	}
	return finish(p, n);
}

/* ---- statements of newer bpftrace: let, for ---- */

static int at_word(struct parser *p, int k, const char *w)
{
	struct token *t = peek_at(p, k);

	return t->kind == TOK_IDENT && !strcmp(t->text, w);
}

/* `let $x = e` is `$x = e`; a bare `let $x` declares nothing perf-run
 * needs (a variable read before it is assigned stays an error). */
static struct node *parse_let(struct parser *p)
{
	next(p);
	if (peek_at(p, 1)->kind == '=')
		return parse_simple(p);
	return mk(N_BLOCK, next(p)->loc);
}

static struct node *var_node(struct loc loc, const char *name)
{
	struct node *v = mk(N_VAR, loc);

	v->name = strdup(name);
	return v;
}

static struct node *assign_node(struct loc loc, int op, struct node *lv, struct node *rv)
{
	struct node *n = mk(N_ASSIGN, loc);

	n->op = op;
	n->a = lv;
	n->b = rv;
	return n;
}

/*
 * for ($i : a..b) { body } runs body with $i = a, a+1, ..., b-1; a and b
 * are read once.  It becomes, with hidden variables no script can name:
 *   { $for.n = a; $for.e = b; while ($for.n < $for.e) { $i = $for.n;
 *     $for.n += 1; { body } } }
 * so that continue (to the while's test) still steps on.
 */
static struct node *for_range(struct parser *p, struct node *var, struct node *from,
			      struct node *to, struct node *body)
{
	struct loc l = var->loc;
	char nv[48], ev[48];
	struct node *blk = mk(N_BLOCK, l), *w = mk(N_WHILE, l), *wb = mk(N_BLOCK, l), *c;

	(void)p;
	snprintf(nv, sizeof(nv), "for.n.%d.%d", l.line, l.col);
	snprintf(ev, sizeof(ev), "for.e.%d.%d", l.line, l.col);
	append(&blk->list, assign_node(from->loc, 0, var_node(l, nv), from));
	append(&blk->list, assign_node(to->loc, 0, var_node(l, ev), to));
	c = mk(N_BINOP, l);
	c->op = '<';
	c->a = var_node(l, nv);
	c->b = var_node(l, ev);
	w->a = c;
	w->b = wb;
	append(&wb->list, assign_node(l, 0, var, var_node(l, nv)));
	c = mk(N_INT, l);
	c->ival = 1;
	append(&wb->list, assign_node(l, '+', var_node(l, nv), c));
	append(&wb->list, body);
	append(&blk->list, w);
	return blk;
}

/* Renames $name to $to in n and below. */
static void rename_var(struct node *n, const char *name, const char *to)
{
	for (; n; n = n->next) {
		if (n->kind == N_VAR && !strcmp(n->name, name)) {
			free(n->name);
			n->name = strdup(to);
			if (!n->name)
				abort();
		}
		rename_var(n->a, name, to);
		rename_var(n->b, name, to);
		rename_var(n->c, name, to);
		rename_var(n->list, name, to);
	}
}

/*
 * for ($kv : @m) { body }: newer bpftrace's loop over a map's elements, an
 * N_FORMAP.  $kv belongs to the loop (bpftrace scopes it so): it is renamed
 * to a hidden variable, so that two loops may give it two types.
 */
static struct node *parse_for_map(struct parser *p, struct node *var)
{
	struct node *n = mk(N_FORMAP, var->loc);
	char hidden[96];

	n->a = var;
	n->c = parse_map(p);
	next(p);
	if (!at(p, '{')) {
		error_here(p, "expected '{' after for (...)");
		ast_free(n);
		return NULL;
	}
	n->b = parse_block(p);
	if (!n->b) {
		ast_free(n);
		return NULL;
	}
	snprintf(hidden, sizeof(hidden), "%s.for.%d.%d", var->name, var->loc.line, var->loc.col);
	rename_var(n->b, var->name, hidden);
	free(var->name);
	var->name = strdup(hidden);
	if (!var->name)
		abort();
	return n;
}

static struct node *parse_for(struct parser *p)
{
	struct node *var = NULL, *from = NULL, *to = NULL;

	next(p);
	if (expect(p, '(', "expected '(' after 'for'") < 0)
		return NULL;
	if (!at(p, TOK_VAR)) {
		error_here(p, "expected a $variable after 'for ('");
		return NULL;
	}
	struct token *vt = next(p);

	var = mk(N_VAR, vt->loc);
	var->name = take_text(vt);
	if (expect(p, ':', "expected ':' after the loop variable") < 0)
		goto fail;
	if (at(p, TOK_MAP) && peek_at(p, 1)->kind == ')')
		return parse_for_map(p, var);
	if (!(from = parse_unary(p)))
		goto fail;
	if (!accept(p, '.') || !accept(p, '.')) {
		error_here(p, "expected '..' between the range's ends");
		goto fail;
	}
	if (!(to = parse_unary(p)) || expect(p, ')', "expected ')' after the range") < 0)
		goto fail;
	if (!at(p, '{')) {
		error_here(p, "expected '{' after for (...)");
		goto fail;
	}
	return for_range(p, var, from, to, parse_block(p));
fail:
	ast_free(var);
	ast_free(from);
	ast_free(to);
	return NULL;
}

static struct node *parse_stmt(struct parser *p)
{
	struct node *n;

	p->ops = 0;
	if (at_word(p, 0, "for") && peek_at(p, 1)->kind == '(' && peek_at(p, 2)->kind == TOK_VAR &&
	    peek_at(p, 3)->kind == ':')
		return parse_for(p);
	if (at_word(p, 0, "let") && peek_at(p, 1)->kind == TOK_VAR) {
		if (!(n = parse_let(p)))
			return NULL;
		goto end;
	}
	switch (peek(p)->kind) {
	case TOK_IF:
		return parse_if(p);
	case TOK_WHILE: case TOK_UNROLL:
		return parse_loop(p);
	case TOK_BREAK:
		n = mk(N_BREAK, next(p)->loc);
		break;
	case TOK_CONTINUE:
		n = mk(N_CONTINUE, next(p)->loc);
		break;
	case TOK_RETURN:
		n = mk(N_RETURN, next(p)->loc);
		break;
	case TOK_ELSE:
		error_here(p, "'else' without an 'if' before it");
		return NULL;
	default:
		n = parse_simple(p);
		if (!n)
			return NULL;
	}
end:
	if (n->kind == N_BLOCK || n->kind == N_STMTEXPR ||
	    (n->kind == N_EXPRSTMT && n->a->kind == N_STMTEXPR))
		return n;   /* a block needs no ';' after its '}' */
	if (!accept(p, ';') && !at(p, '}')) {
		error_here(p, "expected ';' after statement");
		ast_free(n);
		return NULL;
	}
	return n;
}

/* '{' statements '}'; the caller saw the '{'.  Never NULL: errors inside
 * are reported and skipped. */
static struct node *parse_block(struct parser *p)
{
	struct node *b = mk(N_BLOCK, next(p)->loc), *s;

	if (grow(p, 1) < 0) {
		/* Skip the whole block: its '{' is taken, so one '}' is open. */
		p->depth--;
		for (int open = 1; open > 0 && !at(p, TOK_EOF);) {
			int k = next(p)->kind;

			open += (k == '{') - (k == '}');
		}
		return b;
	}
	while (!at(p, '}') && !at(p, TOK_EOF)) {
		if (accept(p, ';'))
			continue;
		s = parse_stmt(p);
		if (s)
			append(&b->list, s);
		else
			recover_stmt(p);
	}
	if (!accept(p, '}'))
		error_here(p, "expected '}' before end of file");
	p->depth--;
	return b;
}

/* ---- top level ---- */

/* An attach point that starts a line and is followed by what follows one. */
static int starts_probe(struct parser *p)
{
	int k = peek_at(p, 1)->kind;

	return at(p, TOK_ATTACH) && peek(p)->bol && (k == '{' || k == ',' || k == TOK_PRED);
}

/* Skips to what looks like the next probe: past a balanced '{...}', or to a
 * declaration or a probe header that starts a line.  depth: braces
 * already open. */
static void recover_top(struct parser *p, int depth)
{
	for (;;) {
		struct token *t = peek(p);

		if (t->kind == TOK_EOF)
			return;
		if (depth == 0 && (t->kind == TOK_CDECL || starts_probe(p)))
			return;
		next(p);
		if (t->kind == '{')
			depth++;
		else if (t->kind == '}' && depth > 0 && --depth == 0)
			return;
	}
}

static struct node *parse_attach(struct parser *p)
{
	struct token *t = next(p);
	struct node *n = mk(N_ATTACH, t->loc);

	n->name = take_text(t);
	n->len = strlen(n->name);
	return n;
}

static struct node *parse_probe(struct parser *p)
{
	struct node *pr = mk(N_PROBE, peek(p)->loc);
	unsigned char c0 = (unsigned char)peek(p)->at[0];

	/* A probe starts with its type (or a path, for a better message from
	 * probe.c); anything else is a statement outside braces or a stray
	 * character. */
	if (!isalnum(c0) && !strchr("\"_./", c0)) {
		if (c0 == '@' || c0 == '$')
			error_here(p, "statements go inside a probe's braces: PROBE { ... }");
		else
			error_here(p, "unexpected '%c'", c0);
		next(p);
		goto fail;
	}
	append(&pr->list, parse_attach(p));
	while (accept(p, ',')) {
		if (!at(p, TOK_ATTACH)) {
			error_here(p, "expected attach point after ','");
			goto fail;
		}
		append(&pr->list, parse_attach(p));
	}
	if (accept(p, TOK_PRED)) {
		p->ops = 0;
		p->in_pred = 1;
		pr->a = parse_expr(p);
		p->in_pred = 0;
		if (!pr->a)
			goto fail;
		if (!at(p, TOK_PRED)) {
			error_here(p, "expected '/' after predicate");
			goto fail;
		}
		next(p);
	}
	if (!at(p, '{')) {
		error_here(p, "expected '{' after probe");
		goto fail;
	}
	pr->b = parse_block(p);
	return pr;
fail:
	ast_free(pr);
	recover_top(p, 0);
	return NULL;
}

/* A script that probes nothing would wait forever for Ctrl-C. */
static int has_probe(const struct node *prog)
{
	for (const struct node *n = prog->list; n; n = n->next)
		if (n->kind == N_PROBE)
			return 1;
	return 0;
}

/*
 * let @m = hash(N); (newer bpftrace's map declaration): an N_ASSIGN of
 * the program whose a is the N_MAP and b the N_CALL of the map's kind.
 */
static struct node *parse_map_decl(struct parser *p)
{
	struct loc where = next(p)->loc;
	struct node *n = mk(N_ASSIGN, where);

	if (!at(p, TOK_MAP)) {
		error_here(p, "expected a map after 'let'");
		goto fail;
	}
	n->a = parse_map(p);
	if (!n->a || expect(p, '=', "expected '=' after the map") < 0)
		goto fail;
	if (n->a->list) {
		error_node(p, n->a, "a map declaration names the map alone, without keys");
		goto fail;
	}
	if (!at(p, TOK_IDENT) || peek_at(p, 1)->kind != '(') {
		error_here(p, "expected the map's type: hash(N), lruhash(N), percpuhash(N) "
			   "or percpulruhash(N)");
		goto fail;
	}
	n->b = parse_ident(p);
	if (!n->b || expect(p, ';', "expected ';' after the map declaration") < 0)
		goto fail;
	return finish(p, n);
fail:
	ast_free(n);
	recover_top(p, 0);
	return NULL;
}

/*
 * config = { name = value; ... } (newer bpftrace): an N_BLOCK of the
 * program holding one N_ASSIGN per setting, a the N_IDENT name, b the
 * value (an integer, a string or a bare word as an N_IDENT).
 */
static struct node *parse_config(struct parser *p)
{
	struct node *n = mk(N_BLOCK, next(p)->loc);

	if (expect(p, '=', "expected '=' after 'config'") < 0 ||
	    expect(p, '{', "expected '{' after 'config ='") < 0)
		goto fail;
	while (!at(p, '}') && !at(p, TOK_EOF)) {
		struct node *a = mk(N_ASSIGN, peek(p)->loc);

		append(&n->list, a);
		if (!at(p, TOK_IDENT)) {
			error_here(p, "expected a config variable's name");
			goto fail;
		}
		a->a = parse_ident(p);
		if (!a->a || expect(p, '=', "expected '=' after the config variable") < 0)
			goto fail;
		if (!(a->b = parse_unary(p)))
			goto fail;
		if (!accept(p, ';') && !at(p, '}')) {
			error_here(p, "expected ';' or '}' after the config value");
			goto fail;
		}
	}
	if (expect(p, '}', "expected '}' at the end of the config block") < 0)
		goto fail;
	return n;
fail:
	ast_free(n);
	recover_top(p, 1);
	return NULL;
}

struct node *parse_program(const struct source *src, struct diag *d)
{
	struct parser p = { .d = d, .last_err = -1 };
	struct node *prog, *n, **tail;
	char what[64];

	p.n = lex_all(src, &p.t);
	if (p.n < 0)
		return NULL;
	prog = mk(N_PROGRAM, (struct loc){ 1, 1, 1 });
	p.prog = prog;
	tail = &prog->list;
	while (!at(&p, TOK_EOF)) {
		struct token *t = peek(&p);

		if (t->kind == TOK_CDECL) {
			n = mk(N_CDECL, t->loc);
			n->name = take_text(next(&p));
			n->len = strlen(n->name);
			*tail = n;
			tail = &n->next;
		} else if (t->kind == TOK_ATTACH) {
			n = parse_probe(&p);
			if (n) {
				*tail = n;
				tail = &n->next;
			}
		} else if (t->kind == TOK_IDENT && (!strcmp(t->text, "let") ||
						     !strcmp(t->text, "config"))) {
			n = !strcmp(t->text, "let") ? parse_map_decl(&p) : parse_config(&p);
			if (n) {
				*tail = n;
				tail = &n->next;
			}
		} else {
			error_here(&p, "unexpected %s", lex_describe(t, what, sizeof(what)));
			recover_top(&p, next(&p)->kind == '{');
		}
	}
	if (!d->errors && !has_probe(prog))
		diag_error(d, (struct loc){ 0, 0, 0 },
			   "the script has no probe; add one, e.g. BEGIN { printf(\"hello\\n\"); }");
	lex_free_tokens(p.t, p.n);
	return prog;
}
