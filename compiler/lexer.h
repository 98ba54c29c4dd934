/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lexer.h - script text to tokens.
 *
 * The lexer knows where it is in the program's outline, because attach
 * points are not made of ordinary tokens: at top level (outside braces and
 * predicates) it returns raw attach-point text, C declarations and #include
 * lines as single tokens; inside a predicate or a block, C-like tokens.
 *
 * Errors are not reported here: a bad character or an unterminated string
 * becomes a TOK_ERROR token carrying the message, so the parser reports it
 * once and recovers like from any other unexpected token.
 */
#ifndef PR_LEXER_H
#define PR_LEXER_H

#include <stddef.h>
#include <stdint.h>

#include "lib/diag.h"

/* Single-character tokens use their character value ('+', '{', ...). */
enum tok_kind {
	TOK_EOF = 0,
	TOK_INT = 256,  /* ival */
	TOK_STR,        /* text: decoded bytes, len */
	TOK_IDENT,      /* text */
	TOK_VAR,        /* text: name without '$' */
	TOK_POSITIONAL, /* ival: n of $n; $# has ival 0 and text "#" */
	TOK_MAP,        /* text: name without '@', "" for a bare '@' */
	TOK_ATTACH,     /* text: attach point, quotes removed, trimmed */
	TOK_CDECL,      /* text: a C declaration or #include/#define line, verbatim */
	TOK_PRED,       /* the '/' opening or closing a predicate */
	TOK_ERROR,      /* text: the message */

	TOK_ARROW,      /* -> */
	TOK_INC,        /* ++ */
	TOK_DEC,        /* -- */
	TOK_SHL,        /* << */
	TOK_SHR,        /* >> */
	TOK_LE,         /* <= */
	TOK_GE,         /* >= */
	TOK_EQ,         /* == */
	TOK_NE,         /* != */
	TOK_AND,        /* && */
	TOK_OR,         /* || */
	TOK_ADD_ASSIGN, TOK_SUB_ASSIGN, TOK_MUL_ASSIGN, TOK_DIV_ASSIGN,
	TOK_MOD_ASSIGN, TOK_AND_ASSIGN, TOK_OR_ASSIGN, TOK_XOR_ASSIGN,
	TOK_SHL_ASSIGN, TOK_SHR_ASSIGN,

	/* keywords, inside blocks and predicates only */
	TOK_IF, TOK_ELSE, TOK_UNROLL, TOK_WHILE, TOK_BREAK, TOK_CONTINUE,
	TOK_RETURN, TOK_SIZEOF, TOK_STRUCT, TOK_UNION, TOK_ENUM,
};

struct token {
	int kind;
	struct loc loc;
	char *text;     /* owned; NULL for kinds without text */
	size_t len;     /* bytes in text (strings may hold NULs) */
	uint64_t ival;
	const char *at; /* where the token starts in the source text */
	int bol;        /* first token on its line */
};

/* LEX_DECL: a preamble statement of newer bpftrace, `let @m = hash(N);` or
 * `config = { ... }`, lexed as code up to its ';' or closing '}'. */
enum lex_mode { LEX_TOP, LEX_PRED, LEX_CODE, LEX_DECL };

struct lexer {
	const struct source *src;
	const char *p;          /* next byte */
	const char *line_start; /* start of the line holding p */
	int line;
	enum lex_mode mode;
	int depth;              /* braces in LEX_CODE, parens/brackets in LEX_PRED */
	int last_line;          /* line of the previous token, for bol */
	struct loc end;         /* just after the previous token, for TOK_EOF */
};

void lex_init(struct lexer *lx, const struct source *src);
/* Fills *t with the next token; TOK_EOF at the end, and forever after. */
void lex_next(struct lexer *lx, struct token *t);
/* Lexes the whole source; the array ends with TOK_EOF.  Returns the count
 * (including TOK_EOF) or -1 when out of memory. */
int lex_all(const struct source *src, struct token **out);
void lex_free_tokens(struct token *toks, int n);
/* The operator's spelling for a token kind ("+", "<<=", "->"), or NULL. */
const char *lex_op_str(int kind);
/* For messages: "'+'", "identifier 'pid'", "end of file", ... in buf. */
const char *lex_describe(const struct token *t, char *buf, size_t n);

#endif
