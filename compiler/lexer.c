// SPDX-License-Identifier: GPL-2.0-only
/*
 * lexer.c - script text to tokens (see lexer.h for the modes).
 *
 * The mode follows the program's outline: LEX_TOP outside everything,
 * LEX_PRED between the slashes of a predicate (where a '/' outside
 * parentheses closes the predicate), LEX_CODE inside a probe's braces.
 * Only the lexer can tell these apart cheaply, because attach-point text
 * such as "uprobe:./app:app.c;acc +=*" is not a sequence of tokens.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "duration.h"
#include "lexer.h"

static const struct {
	int kind;
	const char *s;
} ops[] = {
	/* longest first: the scanner takes the first match */
	{ TOK_SHL_ASSIGN, "<<=" }, { TOK_SHR_ASSIGN, ">>=" },
	{ TOK_ARROW, "->" }, { TOK_INC, "++" }, { TOK_DEC, "--" },
	{ TOK_SHL, "<<" }, { TOK_SHR, ">>" }, { TOK_LE, "<=" }, { TOK_GE, ">=" },
	{ TOK_EQ, "==" }, { TOK_NE, "!=" }, { TOK_AND, "&&" }, { TOK_OR, "||" },
	{ TOK_ADD_ASSIGN, "+=" }, { TOK_SUB_ASSIGN, "-=" }, { TOK_MUL_ASSIGN, "*=" },
	{ TOK_DIV_ASSIGN, "/=" }, { TOK_MOD_ASSIGN, "%=" }, { TOK_AND_ASSIGN, "&=" },
	{ TOK_OR_ASSIGN, "|=" }, { TOK_XOR_ASSIGN, "^=" },
	{ '+', "+" }, { '-', "-" }, { '*', "*" }, { '/', "/" }, { '%', "%" },
	{ '&', "&" }, { '|', "|" }, { '^', "^" }, { '~', "~" }, { '!', "!" },
	{ '<', "<" }, { '>', ">" }, { '=', "=" }, { '?', "?" }, { ':', ":" },
	{ '.', "." }, { ',', "," }, { ';', ";" }, { '(', "(" }, { ')', ")" },
	{ '[', "[" }, { ']', "]" }, { '{', "{" }, { '}', "}" },
};

static const struct {
	int kind;
	const char *s;
} keywords[] = {
	{ TOK_IF, "if" }, { TOK_ELSE, "else" }, { TOK_UNROLL, "unroll" },
	{ TOK_WHILE, "while" }, { TOK_BREAK, "break" }, { TOK_CONTINUE, "continue" },
	{ TOK_RETURN, "return" }, { TOK_SIZEOF, "sizeof" }, { TOK_STRUCT, "struct" },
	{ TOK_UNION, "union" }, { TOK_ENUM, "enum" },
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

const char *lex_op_str(int kind)
{
	size_t i;

	for (i = 0; i < NELEM(ops); i++)
		if (ops[i].kind == kind)
			return ops[i].s;
	for (i = 0; i < NELEM(keywords); i++)
		if (keywords[i].kind == kind)
			return keywords[i].s;
	return NULL;
}

const char *lex_describe(const struct token *t, char *buf, size_t n)
{
	int len = t->loc.len;

	if (t->kind == TOK_EOF) {
		snprintf(buf, n, "end of file");
		return buf;
	}
	if (t->kind == TOK_STR) {
		snprintf(buf, n, "string");
		return buf;
	}
	if (len > 24)
		len = 24;
	snprintf(buf, n, "'%.*s%s'", len, t->at, len < t->loc.len ? "..." : "");
	return buf;
}

void lex_init(struct lexer *lx, const struct source *src)
{
	memset(lx, 0, sizeof(*lx));
	lx->src = src;
	lx->p = src->text;
	lx->line_start = src->text;
	lx->line = 1;
	lx->mode = LEX_TOP;
	lx->end = (struct loc){ 1, 1, 1 };
	/* An editor's UTF-8 byte order mark is not part of the script */
	if (!strncmp(lx->p, "\xef\xbb\xbf", 3))
		lx->p = lx->line_start = lx->p + 3;
	/* A script may be an executable with "#!/usr/bin/perf-run". */
	if (lx->p[0] == '#' && lx->p[1] == '!')
		lx->p += strcspn(lx->p, "\n");
}

static void advance(struct lexer *lx)
{
	if (*lx->p == '\n') {
		lx->line++;
		lx->line_start = lx->p + 1;
	}
	lx->p++;
}

static void advance_n(struct lexer *lx, size_t n)
{
	while (n-- && *lx->p)
		advance(lx);
}

static struct loc here(const struct lexer *lx)
{
	return (struct loc){ lx->line, (int)(lx->p - lx->line_start) + 1, 1 };
}

static void set_text(struct token *t, const char *s, size_t len)
{
	t->text = malloc(len + 1);
	if (!t->text)
		abort();
	memcpy(t->text, s, len);
	t->text[len] = '\0';
	t->len = len;
}

static void set_error(struct token *t, struct loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_error(struct token *t, struct loc loc, const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	t->kind = TOK_ERROR;
	t->loc = loc;
	free(t->text);
	set_text(t, msg, strlen(msg));
}

/* Length of a token that started at `start`, clipped to its first line. */
static int span(const struct lexer *lx, const char *start)
{
	const char *nl = memchr(start, '\n', (size_t)(lx->p - start));
	int len = (int)((nl ? nl : lx->p) - start);

	return len < 1 ? 1 : len;
}

/* Skips white space and comments; an unterminated comment is an error. */
static int skip_blank(struct lexer *lx, struct token *t)
{
	for (;;) {
		const char *p = lx->p;

		if (isspace((unsigned char)*p)) {
			advance(lx);
		} else if (p[0] == '/' && p[1] == '/') {
			advance_n(lx, strcspn(p, "\n"));
		} else if (p[0] == '/' && p[1] == '*') {
			struct loc loc = here(lx);
			const char *end = strstr(p + 2, "*/");

			if (!end) {
				loc.len = 2;
				advance_n(lx, strlen(p));
				set_error(t, loc, "unterminated comment");
				return -1;
			}
			advance_n(lx, (size_t)(end + 2 - p));
		} else {
			return 0;
		}
	}
}

static void lex_hash_line(struct lexer *lx, struct token *t)
{
	const char *start = lx->p;

	/* A #define may go on over backslash-newline. */
	while (*lx->p && !(*lx->p == '\n' && lx->p[-1] != '\\'))
		advance(lx);
	t->kind = TOK_CDECL;
	set_text(t, start, (size_t)(lx->p - start));
}

static void lex_c_decl(struct lexer *lx, struct token *t)
{
	const char *start = lx->p, *close = NULL;
	struct loc loc = here(lx);
	int depth = 0;

	for (; *lx->p; advance(lx)) {
		char c = *lx->p;

		if (c == '{') {
			if (close)
				break;
			depth++;
		} else if (c == '}') {
			if (depth == 0)
				break;
			if (--depth == 0)
				close = lx->p;
		} else if (c == ';' && depth == 0) {
			advance(lx);
			t->kind = TOK_CDECL;
			set_text(t, start, (size_t)(lx->p - start));
			return;
		}
	}
	/* bpftrace accepts "struct X { ... }" with no ';' (most of its tools
	 * are written so): end the declaration at its closing brace and give
	 * libclang the ';' it needs. */
	if (close) {
		size_t len = (size_t)(close + 1 - start);

		lx->p = start;
		lx->line = loc.line;
		lx->line_start = start - (loc.col - 1);
		while (lx->p <= close)
			advance(lx);
		t->kind = TOK_CDECL;
		set_text(t, start, len + 1);
		t->text[len] = ';';
		return;
	}
	set_error(t, loc, depth ? "no '}' closes this declaration" : "expected ';' after declaration");
}

static int word_is(const char *p, const char *w)
{
	size_t n = strlen(w);

	return strncmp(p, w, n) == 0 && isspace((unsigned char)p[n]);
}

/* In a perf-probe lazy pattern (after ';'), white space belongs to the
 * pattern unless a predicate or the end of the line follows. */
static int lazy_stops(const char *p)
{
	if (*p == '{' || *p == '\n' || *p == '\0')
		return 1;
	if (*p != ' ' && *p != '\t')
		return 0;
	p += strspn(p, " \t");
	return *p == '/' || *p == '\n' || *p == '\0';
}

static void lex_attach(struct lexer *lx, struct token *t)
{
	const char *start = lx->p, *end;
	char *buf = malloc(strcspn(start, "\n") + 1);
	size_t n = 0;
	int lazy = 0;

	if (!buf)
		abort();
	while (*lx->p) {
		char c = *lx->p;

		if (c == '"') {
			struct loc q = here(lx);

			advance(lx);
			while (*lx->p && *lx->p != '"' && *lx->p != '\n')
				buf[n++] = *lx->p, advance(lx);
			if (*lx->p != '"') {
				free(buf);
				set_error(t, q, "unterminated string");
				return;
			}
			advance(lx);
			continue;
		}
		if (lazy ? lazy_stops(lx->p) : (isspace((unsigned char)c) || c == ',' || c == '{'))
			break;
		if (c == ';')
			lazy = 1;
		buf[n++] = c;
		advance(lx);
	}
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		n--;
	end = lx->p;
	while (end > start && isspace((unsigned char)end[-1]))
		end--;
	t->kind = TOK_ATTACH;
	t->loc.len = (int)(end - start) ? (int)(end - start) : 1;
	set_text(t, buf, n);
	free(buf);
}

static void lex_unknown(struct lexer *lx, struct token *t)
{
	char ch[8];
	unsigned char c = (unsigned char)*lx->p;
	const char *hint = c == '\'' ? "; strings are written in double quotes" :
			   c == '#' ? "; comments start with // or /*" : "";

	if (isprint(c))
		snprintf(ch, sizeof(ch), "%c", c);
	else
		snprintf(ch, sizeof(ch), "\\x%02x", c);
	set_error(t, here(lx), "unknown character '%s'%s", ch, hint);
	advance(lx);
}

/* `let @m` or `config =` at top level: newer bpftrace's preamble. */
static int starts_decl(const char *p)
{
	const char *q;

	if (!strncmp(p, "let", 3) && isspace((unsigned char)p[3])) {
		q = p + 3;
		while (isspace((unsigned char)*q))
			q++;
		return *q == '@';
	}
	if (!strncmp(p, "config", 6) && (isspace((unsigned char)p[6]) || p[6] == '=')) {
		q = p + 6;
		while (isspace((unsigned char)*q))
			q++;
		return *q == '=';
	}
	return 0;
}

static void lex_code(struct lexer *lx, struct token *t);

static void lex_top(struct lexer *lx, struct token *t)
{
	char c = *lx->p;

	if (starts_decl(lx->p)) {
		lx->mode = LEX_DECL;
		lx->depth = 0;
		lex_code(lx, t);
	} else if (c == '#') {
		lex_hash_line(lx, t);
	} else if (word_is(lx->p, "struct") || word_is(lx->p, "union") ||
		   word_is(lx->p, "enum") || word_is(lx->p, "typedef")) {
		lex_c_decl(lx, t);
	} else if (c == '/') {
		lx->mode = LEX_PRED;
		lx->depth = 0;
		t->kind = TOK_PRED;
		advance(lx);
	} else if (c == '{') {
		lx->mode = LEX_CODE;
		lx->depth = 1;
		t->kind = '{';
		advance(lx);
	} else if (c == ',' || c == '}' || c == ';') {
		t->kind = c;
		advance(lx);
	} else if (isgraph((unsigned char)c)) {
		/* Whatever else is printable here is taken as an attach point, so
		 * a missing '{' is reported as such, not as a stray character. */
		lex_attach(lx, t);
	} else {
		lex_unknown(lx, t);
	}
}

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

/* Length of a decimal digit run as bpftrace 0.17 spells it,
 * [0-9]([0-9_]*[0-9])?: '_' separates digits but never ends the run. */
static size_t dec_run(const char *p, size_t n)
{
	size_t i = 0, last = 0;

	while (i < n && (isdigit((unsigned char)p[i]) || (i > 0 && p[i] == '_'))) {
		if (p[i] != '_')
			last = i + 1;
		i++;
	}
	return last;
}

/* The suffixes 0.17 allows on decimal literals: u, l, ll, ul, ull (any case). */
static int int_suffix(const char *p, size_t n)
{
	static const char *const ok[] = { "", "u", "l", "ll", "ul", "ull" };

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (strlen(ok[i]) == n && !strncasecmp(p, ok[i], n))
			return 1;
	return 0;
}

/* Digits of p[0..n) in base, '_' skipped; 0 when one is no digit of base,
 * -1 on overflow. */
static int digits_value(const char *p, size_t n, unsigned base, uint64_t *v)
{
	*v = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)digit_value(p[i]);

		if (p[i] == '_')
			continue;
		if (d >= base)
			return 0;
		if (*v > (UINT64_MAX - d) / base)
			return -1;
		*v = *v * base + d;
	}
	return 1;
}

/* C[eE]E: bpftrace's integer scientific notation, C one digit and E at
 * most 16, so the value always fits. Returns a message or NULL. */
static const char *exp_value(const char *c, size_t nc, const char *e, size_t ne, uint64_t *v)
{
	uint64_t coef, ex;

	if (digits_value(c, nc, 10, &coef) != 1 || coef > 9)
		return "the coefficient of an integer in scientific notation is one digit, 0-9";
	if (digits_value(e, ne, 10, &ex) != 1 || ex > 16)
		return "the exponent of an integer in scientific notation is at most 16";
	for (*v = coef; ex > 0; ex--)
		*v *= 10;
	return NULL;
}

/* The value of the literal p[0..n) as bpftrace 0.17 reads it: hex 0x..
 * (no '_', no suffix), decimal or octal (leading 0) with '_' between
 * digits, C[eE]E, the last two with a u/l suffix. Returns a message or NULL. */
static const char *int_literal(const char *p, size_t n, uint64_t *v)
{
	size_t i, j;
	int r;

	if (n > 1 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		for (i = 2; i < n && isxdigit((unsigned char)p[i]); i++)
			;
		if (i == 2 || i != n)
			return "";
		r = digits_value(p + 2, n - 2, 16, v);
		return r < 0 ? "too large" : NULL;
	}
	i = dec_run(p, n);
	if (i < n && (p[i] == 'e' || p[i] == 'E') && (j = dec_run(p + i + 1, n - i - 1)) > 0) {
		if (!int_suffix(p + i + 1 + j, n - i - 1 - j))
			return "";
		return exp_value(p, i, p + i + 1, j, v);
	}
	if (!int_suffix(p + i, n - i))
		return "";
	r = digits_value(p, i, p[0] == '0' ? 8 : 10, v);
	return r < 0 ? "too large" : r == 0 ? "" : NULL;
}

/* "5ms": a duration of newer bpftrace, in nanoseconds (duration.h). */
static int lex_duration(struct token *t, const char *s, size_t n, const char *text)
{
	uint64_t ns;

	switch (dur_parse(s, n, &ns)) {
	case DUR_OK:
		t->kind = TOK_INT, t->ival = ns;
		return 1;
	case DUR_TOO_LARGE:
		set_error(t, t->loc, "duration '%s' is too large", text);
		return 1;
	default:
		return 0;
	}
}

static void lex_number(struct lexer *lx, struct token *t)
{
	const char *start = lx->p, *p = lx->p, *why;
	int fraction = 0;
	uint64_t v = 0;
	char text[64];
	/* After a '.', "0.1" is two tuple indexes ($t.0.1), not a fraction. */
	int after_dot = start > lx->line_start && start[-1] == '.';

	/* The whole run of word characters is one literal: bpftrace would read
	 * "1_" as 1 and a name, which no rule accepts either. "1.5" would
	 * otherwise read as a field access on 1. */
	for (; isalnum((unsigned char)*p) || *p == '_' ||
	       (*p == '.' && !after_dot && isdigit((unsigned char)p[1]) &&
		!(start[0] == '0' && (start[1] == 'x' || start[1] == 'X'))); p++)
		if (*p == '.')
			fraction = 1;
	advance_n(lx, (size_t)(p - start));
	t->loc.len = (int)(p - start);
	snprintf(text, sizeof(text), "%.*s", (int)(p - start), start);
	why = fraction ? NULL : int_literal(start, (size_t)(p - start), &v);
	if (why && !*why && lex_duration(t, start, (size_t)(p - start), text))
		return;
	if (fraction)
		set_error(t, t->loc, "'%s' is not an integer; only integers are supported", text);
	else if (why && !*why)
		set_error(t, t->loc, "invalid integer '%s'", text);
	else if (why && !strcmp(why, "too large"))
		set_error(t, t->loc, "integer '%s' is too large", text);
	else if (why)
		set_error(t, t->loc, "invalid integer '%s': %s", text, why);
	else
		t->kind = TOK_INT, t->ival = v;
}

/* Decodes one escape after the backslash at lx->p; returns the byte or -1. */
static int lex_escape(struct lexer *lx)
{
	static const char from[] = "ntrabfv\\\"'?", to[] = "\n\t\r\a\b\f\v\\\"'?";
	const char *e;
	int v = 0, i;

	advance(lx);
	if (*lx->p && (e = strchr(from, *lx->p))) {
		advance(lx);
		return to[e - from];
	}
	if (*lx->p == 'x') {
		advance(lx);
		for (i = 0; i < 2 && isxdigit((unsigned char)*lx->p); i++, advance(lx))
			v = v * 16 + digit_value(*lx->p);
		return i ? v : -1;
	}
	for (i = 0; i < 3 && *lx->p >= '0' && *lx->p <= '7'; i++, advance(lx))
		v = v * 8 + (*lx->p - '0');
	return i && v < 256 ? v : -1;
}

static void lex_string(struct lexer *lx, struct token *t)
{
	const char *start = lx->p;
	char *buf = malloc(strcspn(start, "\n") + 1);
	size_t n = 0;
	struct loc bad = { 0, 0, 0 };

	if (!buf)
		abort();
	advance(lx);
	while (*lx->p && *lx->p != '"' && *lx->p != '\n') {
		if (*lx->p == '\\') {
			struct loc at = here(lx);
			const char *bs = lx->p;
			int c = lex_escape(lx);

			if (c < 0 && !bad.line) {
				bad = at;
				bad.len = (int)(lx->p - bs) < 2 ? 2 : (int)(lx->p - bs);
			}
			buf[n++] = (char)c;
			continue;
		}
		buf[n++] = *lx->p;
		advance(lx);
	}
	if (*lx->p != '"') {
		free(buf);
		set_error(t, t->loc, "unterminated string");
		return;
	}
	advance(lx);
	t->loc.len = (int)(lx->p - start);
	if (bad.line) {
		free(buf);
		set_error(t, bad, "invalid escape sequence in string");
		return;
	}
	t->kind = TOK_STR;
	set_text(t, buf, n);
	free(buf);
}

static size_t ident_len(const char *p)
{
	size_t n = 0;

	if (!isalpha((unsigned char)*p) && *p != '_')
		return 0;
	while (isalnum((unsigned char)p[n]) || p[n] == '_')
		n++;
	return n;
}

static void lex_word(struct lexer *lx, struct token *t)
{
	size_t n = ident_len(lx->p), i;

	t->kind = TOK_IDENT;
	for (i = 0; i < NELEM(keywords); i++)
		if (strlen(keywords[i].s) == n && !strncmp(keywords[i].s, lx->p, n))
			t->kind = keywords[i].kind;
	if (t->kind == TOK_IDENT)
		set_text(t, lx->p, n);
	t->loc.len = (int)n;
	advance_n(lx, n);
}

static void lex_dollar(struct lexer *lx, struct token *t)
{
	const char *p = lx->p + 1;
	size_t n;

	if (*p == '#') {
		t->kind = TOK_POSITIONAL;
		set_text(t, "#", 1);
		n = 2;
	} else if (isdigit((unsigned char)*p)) {
		for (n = 0; isdigit((unsigned char)p[n]); n++)
			if (t->ival <= 1000)
				t->ival = t->ival * 10 + (uint64_t)(p[n] - '0');
		n++;
		t->kind = TOK_POSITIONAL;
		if (t->ival == 0 || t->ival > 1000) {
			t->loc.len = (int)n;
			set_error(t, t->loc, "positional parameter must be between $1 and $1000");
			advance_n(lx, n);
			return;
		}
	} else if ((n = ident_len(p)) > 0) {
		t->kind = TOK_VAR;
		set_text(t, p, n);
		n++;
	} else {
		set_error(t, t->loc, "expected a variable name after '$'");
		advance(lx);
		return;
	}
	t->loc.len = (int)n;
	advance_n(lx, n);
}

static void lex_at(struct lexer *lx, struct token *t)
{
	size_t n = ident_len(lx->p + 1);

	if (isdigit((unsigned char)lx->p[1])) {
		for (n = 1; isalnum((unsigned char)lx->p[n]) || lx->p[n] == '_'; n++)
			;
		t->loc.len = (int)n;
		set_error(t, t->loc, "invalid map name '%.*s'; a map name starts with a letter or '_'",
			  (int)(n < 32 ? n : 32), lx->p);
		advance_n(lx, n);
		return;
	}
	t->kind = TOK_MAP;
	set_text(t, lx->p + 1, n);
	t->loc.len = (int)n + 1;
	advance_n(lx, n + 1);
}

static void lex_op(struct lexer *lx, struct token *t)
{
	size_t i, n;

	for (i = 0; i < NELEM(ops); i++) {
		n = strlen(ops[i].s);
		if (!strncmp(lx->p, ops[i].s, n))
			break;
	}
	if (i == NELEM(ops)) {
		lex_unknown(lx, t);
		return;
	}
	t->kind = ops[i].kind;
	t->loc.len = (int)n;
	advance_n(lx, n);
}

/* Brackets drive the mode: leaving the last brace returns to top level,
 * and in a predicate a '/' outside parentheses closes it. */
static void track_nesting(struct lexer *lx, struct token *t)
{
	int k = t->kind;

	if (lx->mode == LEX_CODE) {
		if (k == '{')
			lx->depth++;
		else if (k == '}' && --lx->depth == 0)
			lx->mode = LEX_TOP;
		return;
	}
	if (k == '(' || k == '[')
		lx->depth++;
	else if ((k == ')' || k == ']') && lx->depth > 0)
		lx->depth--;
	else if (k == '{')
		lx->mode = LEX_CODE, lx->depth = 1;
	else if (k == ';' && lx->mode == LEX_DECL && lx->depth == 0)
		lx->mode = LEX_TOP;
}

/*
 * Inside /.../ a slash is division unless the probe's block follows it, so
 * `/elapsed / 1000 > 5/ {` reads as bpftrace users write it.
 */
static int ends_predicate(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	return *s == '{' || *s == '\0' || *s == '/';
}

static void lex_code(struct lexer *lx, struct token *t)
{
	char c = *lx->p;

	if (lx->mode == LEX_PRED && lx->depth == 0 && c == '/' &&
	    ends_predicate(lx->p + 1)) {
		t->kind = TOK_PRED;
		lx->mode = LEX_TOP;
		advance(lx);
	} else if (isdigit((unsigned char)c)) {
		lex_number(lx, t);
	} else if (isalpha((unsigned char)c) || c == '_') {
		lex_word(lx, t);
	} else if (c == '$') {
		lex_dollar(lx, t);
	} else if (c == '@') {
		lex_at(lx, t);
	} else if (c == '"') {
		lex_string(lx, t);
	} else {
		lex_op(lx, t);
		track_nesting(lx, t);
	}
}

void lex_next(struct lexer *lx, struct token *t)
{
	memset(t, 0, sizeof(*t));
	if (skip_blank(lx, t) == 0) {
		t->loc = here(lx);
		t->at = lx->p;
		if (!*lx->p) {
			t->kind = TOK_EOF;
			t->loc = lx->end;
		} else if (lx->mode == LEX_TOP) {
			lex_top(lx, t);
		} else {
			lex_code(lx, t);
		}
		if (t->kind != TOK_ATTACH && t->kind != TOK_ERROR)
			t->loc.len = span(lx, t->at);
	}
	if (!t->at)
		t->at = lx->p;
	t->bol = t->loc.line > lx->last_line;
	lx->last_line = lx->line;
	if (t->kind != TOK_EOF)
		lx->end = here(lx);
}

int lex_all(const struct source *src, struct token **out)
{
	struct lexer lx;
	struct token *toks = NULL;
	int n = 0, cap = 0;

	lex_init(&lx, src);
	do {
		if (n == cap) {
			struct token *nt;

			cap = cap ? cap * 2 : 64;
			nt = realloc(toks, (size_t)cap * sizeof(*toks));
			if (!nt) {
				lex_free_tokens(toks, n);
				return -1;
			}
			toks = nt;
		}
		lex_next(&lx, &toks[n]);
	} while (toks[n++].kind != TOK_EOF);
	*out = toks;
	return n;
}

void lex_free_tokens(struct token *toks, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(toks[i].text);
	free(toks);
}
