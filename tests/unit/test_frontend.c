// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_frontend.c - unit tests of the front end: diag, lexer, parser, ast.
 *
 * Each check parses a snippet and compares the tree (as ast_dump prints it)
 * or the exact diagnostics with the expected text.  Links only
 * compiler/{diag,lexer,parser,ast}.c.
 *
 *   test_frontend             run the checks
 *   test_frontend --parse F   parse file F: diagnostics on stderr, the tree
 *                             on stdout, exit 1 on syntax errors
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/ast.h"
#include "lib/diag.h"
#include "compiler/lexer.h"
#include "compiler/parser.h"
#include "unit.h"

/* Parses text named `name`; returns the dump of what pick() selects and the
 * diagnostics in *errs (both malloc'ed). */
static char *run(const char *name, const char *text, int what, char **errs)
{
	struct source src = { name, text };
	struct diag d;
	char *ebuf = NULL, *obuf = NULL;
	size_t elen = 0, olen = 0;
	FILE *ef = open_memstream(&ebuf, &elen);
	FILE *of = open_memstream(&obuf, &olen);
	struct node *prog, *probe, *s;

	diag_init(&d, &src, ef);
	prog = parse_program(&src, &d);
	probe = prog->list;
	while (probe && probe->kind != N_PROBE)
		probe = probe->next;
	if (what == 0)
		ast_dump(of, prog);
	else if (probe && probe->b)
		for (s = probe->b->list; s; s = s->next)
			ast_dump(of, what == 2 && s->kind == N_EXPRSTMT ? s->a : s);
	ast_free(prog);
	fclose(ef);
	fclose(of);
	*errs = ebuf;
	return obuf;
}

enum { WHOLE, STMTS, EXPR };

static void check(const char *name, int what, const char *text, const char *want)
{
	char *errs, *got = run("-e", text, what, &errs);
	char label[256];

	snprintf(label, sizeof(label), "%s (diagnostics)", name);
	unit_expect_str(label, errs, "");
	unit_expect_str(name, got, want);
	free(got);
	free(errs);
}

/* The whole tree. */
static void t_prog(const char *name, const char *text, const char *want)
{
	check(name, WHOLE, text, want);
}

/* The statements of `BEGIN { STMTS }`. */
static void t_stmt(const char *name, const char *stmts, const char *want)
{
	char *text;

	if (asprintf(&text, "BEGIN { %s }", stmts) < 0)
		abort();
	check(name, STMTS, text, want);
	free(text);
}

/* The expression of `BEGIN { EXPR; }`. */
static void t_expr(const char *name, const char *expr, const char *want)
{
	char *text;

	if (asprintf(&text, "BEGIN { %s; }", expr) < 0)
		abort();
	check(name, EXPR, text, want);
	free(text);
}

/* The diagnostics for a bad script named "t.bt". */
static void t_err(const char *name, const char *text, const char *want)
{
	char *errs, *got = run("t.bt", text, WHOLE, &errs);

	unit_expect_str(name, errs, want);
	free(got);
	free(errs);
}

static int parse_file(const char *path)
{
	struct source src = { path, NULL };
	struct diag d;
	struct node *prog;
	size_t len = 0;
	char *text = NULL;
	FILE *f = fopen(path, "r");
	int rc;

	if (!f) {
		perror(path);
		return 2;
	}
	if (getdelim(&text, &len, '\0', f) < 0)
		text = strdup("");
	fclose(f);
	src.text = text;
	diag_init(&d, &src, stderr);
	prog = parse_program(&src, &d);
	ast_dump(stdout, prog);
	ast_free(prog);
	rc = d.errors > 0;
	free(text);
	return rc;
}

/* Parses without checking diagnostics, for direct looks at nodes. */
static struct node *parse_quiet(const char *text, int *errors)
{
	static struct source src;
	struct diag d;
	FILE *null = fopen("/dev/null", "w");
	struct node *prog;

	src.name = "-e";
	src.text = text;
	diag_init(&d, &src, null);
	prog = parse_program(&src, &d);
	fclose(null);
	*errors = d.errors;
	return prog;
}

/* The first statement of the first probe. */
static struct node *first_stmt(struct node *prog)
{
	struct node *pr = prog ? prog->list : NULL;

	while (pr && pr->kind != N_PROBE)
		pr = pr->next;
	return pr && pr->b ? pr->b->list : NULL;
}

static void test_diag(void)
{
	struct source src = { "s.bt", "BEGIN {\n\tprinf(\"x\");\n}\n" };
	struct diag d;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int n;

	diag_init(&d, &src, f);
	diag_error(&d, (struct loc){ 2, 2, 5 }, "unknown function '%s'", "prinf");
	diag_note(&d, "did you mean '%s'?", "printf");
	diag_warn(&d, (struct loc){ 1, 7, 40 }, "long span");
	diag_error(&d, (struct loc){ 0, 0, 0 }, "no probes");
	src.name = "-e";
	diag_error(&d, (struct loc){ 3, 1, 1 }, "one-liner");
	fclose(f);
	unit_expect_str("diag: caret, tab, note, warning, no position, -e", buf,
			"s.bt:2:2: error: unknown function 'prinf'\n"
			"\tprinf(\"x\");\n"
			"\t^~~~~\n"
			"  note: did you mean 'printf'?\n"
			"s.bt:1:7: warning: long span\n"
			"BEGIN {\n"
			"      ^\n"
			"s.bt: error: no probes\n"
			"-e:3:1: error: one-liner\n"
			"}\n"
			"^\n");
	unit_expect("diag: counts errors and warnings", d.errors == 3 && d.warnings == 1);
	unit_expect("diag_line: second line",
		    diag_line(&src, 2, &n) == src.text + 8 && n == 12);
	unit_expect("diag_line: past the end", diag_line(&src, 9, &n) == NULL);
	free(buf);
}

static void test_lexer(void)
{
	static const int want[] = {
		TOK_ATTACH, '{', TOK_ARROW, TOK_INC, TOK_DEC, TOK_ADD_ASSIGN,
		TOK_SHL_ASSIGN, TOK_SHR_ASSIGN, TOK_AND, TOK_OR, '?', ':', TOK_LE,
		TOK_NE, TOK_SHR, '%', TOK_XOR_ASSIGN, TOK_IF, TOK_UNROLL, TOK_INT,
		TOK_INT, TOK_INT, TOK_INT, TOK_STR, TOK_VAR, TOK_POSITIONAL,
		TOK_POSITIONAL, TOK_MAP, TOK_MAP, TOK_IDENT, '}', TOK_EOF,
	};
	struct source src = { "-e", "BEGIN { -> ++ -- += <<= >>= && || ? : <= != >> % ^= "
			      "if unroll 42 0x2A 052 1_000 \"a\\n\\x41\\101\\\\\" "
			      "$x $12 $# @m @ /* c */ pid // end\n}" };
	struct token *t;
	int n = lex_all(&src, &t), i, ok = n == (int)(sizeof(want) / sizeof(want[0]));

	for (i = 0; ok && i < n; i++)
		ok = t[i].kind == want[i];
	unit_expect("lexer: token kinds", ok);
	if (ok) {
		unit_expect("lexer: decimal, hex, octal, separators",
			    t[19].ival == 42 && t[20].ival == 42 && t[21].ival == 42 &&
			    t[22].ival == 1000);
		unit_expect("lexer: string escapes decoded",
			    t[23].len == 5 && !memcmp(t[23].text, "a\nAA\\", 5));
		unit_expect("lexer: $x, $12, $#, @m, @",
			    !strcmp(t[24].text, "x") && t[25].ival == 12 &&
			    t[26].ival == 0 && !strcmp(t[26].text, "#") &&
			    !strcmp(t[27].text, "m") && !strcmp(t[28].text, ""));
		unit_expect("lexer: locations",
			    t[2].loc.line == 1 && t[2].loc.col == 9 && t[2].loc.len == 2 &&
			    t[30].loc.line == 2 && t[30].loc.col == 1);
	}
	lex_free_tokens(t, n);
}

static void test_attach(void)
{
	t_prog("attach: lazy pattern with spaces",
	       "uprobe:./app:app.c;acc +=* { }",
	       "program\n  probe\n    attach uprobe:./app:app.c;acc +=*\n    block\n");
	t_prog("attach: lazy pattern then predicate",
	       "uprobe:./app:app.c;acc +=*   /$1 > 2/ {}",
	       "program\n  probe\n    attach uprobe:./app:app.c;acc +=*\n"
	       "    binop >\n      positional $1\n      int 2\n    block\n");
	t_prog("attach: predicate on the same line",
	       "uprobe:/bin/bash:readline /pid == 1/ {}",
	       "program\n  probe\n    attach uprobe:/bin/bash:readline\n"
	       "    binop ==\n      ident pid\n      int 1\n    block\n");
	t_prog("attach: two with a comma",
	       "u:libc:malloc,ur:libc:malloc {}",
	       "program\n  probe\n    attach u:libc:malloc\n    attach ur:libc:malloc\n"
	       "    block\n");
	t_prog("attach: wildcard tracepoint",
	       "tracepoint:syscalls:sys_enter_* {}",
	       "program\n  probe\n    attach tracepoint:syscalls:sys_enter_*\n    block\n");
	t_prog("attach: %return",
	       "uprobe:./app:handle%return {}",
	       "program\n  probe\n    attach uprobe:./app:handle%return\n    block\n");
	t_prog("attach: func@src:line",
	       "uprobe:./app:func@app.c:3 {}",
	       "program\n  probe\n    attach uprobe:./app:func@app.c:3\n    block\n");
	t_prog("attach: BEGIN,END and BEGIN{} without a space",
	       "BEGIN,END {}\nBEGIN{}",
	       "program\n  probe\n    attach BEGIN\n    attach END\n    block\n"
	       "  probe\n    attach BEGIN\n    block\n");
	t_prog("attach: quoted path, list over lines, predicate on its own line",
	       "uprobe:\"/a b/app\":f,\n  uprobe:./app:g+4\n/arg0/\n{\n}\n",
	       "program\n  probe\n    attach uprobe:/a b/app:f\n    attach uprobe:./app:g+4\n"
	       "    ident arg0\n    block\n");
	t_prog("attach: interval, profile, usdt, one line",
	       "interval:s:1 { } profile:hz:99 { } usdt:./app:prov:name { }",
	       "program\n  probe\n    attach interval:s:1\n    block\n"
	       "  probe\n    attach profile:hz:99\n    block\n"
	       "  probe\n    attach usdt:./app:prov:name\n    block\n");
}

static void test_attach_locs(void)
{
	int errors;
	struct node *prog = parse_quiet("BEGIN {}\n  uprobe:\"/a b\":f , END /1/ {}", &errors);
	struct node *p2 = prog->list->next, *a = p2->list;

	unit_expect("attach loc: quoted text is measured in the source",
		    errors == 0 && a->loc.line == 2 && a->loc.col == 3 && a->loc.len == 15 &&
		    !strcmp(a->name, "uprobe:/a b:f"));
	unit_expect("attach loc: second attach point",
		    a->next && a->next->loc.col == 21 && a->next->loc.len == 3 &&
		    ast_count(p2->list) == 2);
	ast_free(prog);
}

static void test_cdecl(void)
{
	t_prog("cdecl: include, define with continuation, struct, typedef, enum",
	       "#include <linux/sched.h>\n#define X(a) \\\n  (a)\n"
	       "struct req {\n  int len;\n  struct { int x; } in;\n};\n"
	       "typedef unsigned int u32_t;\nenum e { A, B };\nBEGIN {}",
	       "program\n  cdecl \"#include <linux/sched.h>\"\n"
	       "  cdecl \"#define X(a) \\\\\\n  (a)\"\n"
	       "  cdecl \"struct req {\\n  int len;\\n  struct { int x; } in;\\n};\"\n"
	       "  cdecl \"typedef unsigned int u32_t;\"\n"
	       "  cdecl \"enum e { A, B };\"\n"
	       "  probe\n    attach BEGIN\n    block\n");
	t_prog("cdecl: shebang line skipped, comments at top level",
	       "#!/usr/bin/perf-run\n// c\n/* c */ BEGIN {}",
	       "program\n  probe\n    attach BEGIN\n    block\n");
}

static void test_statements(void)
{
	t_stmt("stmt: call, last ';' optional", "printf(\"%d\\n\", pid); exit()",
	       "exprstmt\n  call printf\n    str \"%d\\n\"\n    ident pid\n"
	       "exprstmt\n  call exit\n");
	t_stmt("stmt: map assignment with keys", "@m[comm, pid] = count();",
	       "assign =\n  map @m\n    ident comm\n    ident pid\n  call count\n");
	t_stmt("stmt: bare @ and @[k]", "@ = 1; @[1] = 2;",
	       "assign =\n  map @\n  int 1\nassign =\n  map @\n    int 1\n  int 2\n");
	t_stmt("stmt: compound assignments",
	       "$x += 1; $x -= 1; $x *= 2; $x /= 2; $x %= 3; $x &= 1; $x |= 1; $x ^= 1; "
	       "$x <<= 1; @y >>= 2",
	       "assign +=\n  var $x\n  int 1\nassign -=\n  var $x\n  int 1\n"
	       "assign *=\n  var $x\n  int 2\nassign /=\n  var $x\n  int 2\n"
	       "assign %=\n  var $x\n  int 3\nassign &=\n  var $x\n  int 1\n"
	       "assign |=\n  var $x\n  int 1\nassign ^=\n  var $x\n  int 1\n"
	       "assign <<=\n  var $x\n  int 1\nassign >>=\n  map @y\n  int 2\n");
	t_stmt("stmt: increments and decrements", "@m++; ++$x; @[1]--; --@n;",
	       "incdec ++ postfix\n  map @m\nincdec ++ prefix\n  var $x\n"
	       "incdec -- postfix\n  map @\n    int 1\nincdec -- prefix\n  map @n\n");
	t_stmt("stmt: if / else if / else without ';'",
	       "if ($x) { @a = 1 } else if ($y) { @b = 2; } else { @c = 3; } exit();",
	       "if\n  var $x\n  block\n    assign =\n      map @a\n      int 1\n"
	       "  if\n    var $y\n    block\n      assign =\n        map @b\n        int 2\n"
	       "    block\n      assign =\n        map @c\n        int 3\n"
	       "exprstmt\n  call exit\n");
	t_stmt("stmt: unroll, while, break, continue, return",
	       "unroll (4) { $i++; } while ($i < 9) { if ($i == 5) { break; } continue; } return;",
	       "unroll 4\n  block\n    incdec ++ postfix\n      var $i\n"
	       "while\n  binop <\n    var $i\n    int 9\n  block\n"
	       "    if\n      binop ==\n        var $i\n        int 5\n      block\n        break\n"
	       "    continue\nreturn\n");
	t_stmt("stmt: delete, empty statements", "delete(@m[1, 2]);; ;",
	       "exprstmt\n  call delete\n    map @m\n      int 1\n      int 2\n");
}

static void test_expressions(void)
{
	t_expr("expr: * binds tighter than +", "1 + 2 * 3",
	       "binop +\n  int 1\n  binop *\n    int 2\n    int 3\n");
	t_expr("expr: left associative", "10 - 2 - 3",
	       "binop -\n  binop -\n    int 10\n    int 2\n  int 3\n");
	t_expr("expr: shift, relation, equality", "1 << 2 < 3 == 4",
	       "binop ==\n  binop <\n    binop <<\n      int 1\n      int 2\n    int 3\n  int 4\n");
	t_expr("expr: bit operators then logical", "1 & 2 ^ 3 | 4 && 5 || 6",
	       "binop ||\n  binop &&\n    binop |\n      binop ^\n        binop &\n"
	       "          int 1\n          int 2\n        int 3\n      int 4\n    int 5\n  int 6\n");
	t_expr("expr: >=, <=, !=, >>, %, /", "a >= b <= c != d >> e % f / g",
	       "binop !=\n  binop <=\n    binop >=\n      ident a\n      ident b\n    ident c\n"
	       "  binop >>\n    ident d\n    binop /\n      binop %\n        ident e\n"
	       "        ident f\n      ident g\n");
	t_expr("expr: ternary is right associative", "a ? b : c ? d : e",
	       "ternary\n  ident a\n  ident b\n  ternary\n    ident c\n    ident d\n    ident e\n");
	t_expr("expr: unary operators", "-!~*&$x",
	       "unop -\n  unop !\n    unop ~\n      unop *\n        unop &\n          var $x\n");
	t_expr("expr: args.x and args->x", "args.x + args->y",
	       "binop +\n  field .x\n    ident args\n  field ->y\n    ident args\n");
	t_expr("expr: field chain and index", "args.req->buf[2].c",
	       "field .c\n  index\n    field ->buf\n      field .req\n        ident args\n    int 2\n");
	t_expr("expr: casts to integer, struct pointer, int8 pointer",
	       "(uint32)$a + (struct req *)$p + (int8 **)arg0",
	       "binop +\n  binop +\n    cast\n      var $a\n      typename uint32\n"
	       "    cast\n      var $p\n      typename struct req *\n"
	       "  cast\n    ident arg0\n    typename int8 **\n");
	t_expr("expr: parenthesised names are not casts", "(pid) * (2 + 1)",
	       "binop *\n  ident pid\n  binop +\n    int 2\n    int 1\n");
	t_expr("expr: sizeof type and expression", "sizeof(unsigned long) + sizeof $x",
	       "binop +\n  sizeof\n    typename unsigned long\n  sizeof\n    var $x\n");
	t_expr("expr: integer forms", "0x1F + 017 + 1_000_000 + 0",
	       "binop +\n  binop +\n    binop +\n      int 31\n      int 15\n    int 1000000\n  int 0\n");
	t_expr("expr: string escapes", "\"a\\tb\\\"\\\\\\x41\\101\\0\"",
	       "str \"a\\tb\\\"\\\\AA\\x00\"\n");
	t_expr("expr: positionals and maps", "$1 + $# + @m[$2] + @",
	       "binop +\n  binop +\n    binop +\n      positional $1\n      positional $#\n"
	       "    map @m\n      positional $2\n  map @\n");
	t_expr("expr: call with nested calls", "str(reg(\"sp\"), 8)",
	       "call str\n  call reg\n    str \"sp\"\n  int 8\n");
	t_expr("expr: postfix increment inside an expression", "$x++ + --@y",
	       "binop +\n  incdec ++ postfix\n    var $x\n  incdec -- prefix\n    map @y\n");
	t_expr("expr: division inside a block", "$a / $b", "binop /\n  var $a\n  var $b\n");
	t_prog("expr: division in a predicate needs parentheses",
	       "BEGIN /(pid / 2) > 1/ { }",
	       "program\n  probe\n    attach BEGIN\n    binop >\n      binop /\n"
	       "        ident pid\n        int 2\n      int 1\n    block\n");
}

static void test_nodes(void)
{
	int errors;
	struct node *prog = parse_quiet("BEGIN { $x <<= \"a\\0b\"; }", &errors);
	struct node *s = first_stmt(prog);

	unit_expect("node: <<= is N_ASSIGN with op TOK_SHL, string keeps its NUL",
		    errors == 0 && s && s->kind == N_ASSIGN && s->op == TOK_SHL &&
		    s->b->kind == N_STR && s->b->len == 3 && !memcmp(s->b->name, "a\0b", 4));
	unit_expect("node: statement loc spans the statement",
		    s && s->loc.line == 1 && s->loc.col == 9 && s->loc.len == 13);
	ast_free(prog);

	prog = parse_quiet("BEGIN { ++args->x; }", &errors);
	s = first_stmt(prog);
	unit_expect("node: prefix ++ on a field, '->' op",
		    errors == 0 && s && s->kind == N_INCDEC && s->ival == 1 && s->op == '+' &&
		    s->a->kind == N_FIELD && s->a->op == TOK_ARROW &&
		    !strcmp(s->a->name, "x") && s->a->a->kind == N_IDENT);
	ast_free(prog);

	prog = parse_quiet("BEGIN { unroll(100) { } }", &errors);
	s = first_stmt(prog);
	unit_expect("node: unroll keeps its count",
		    errors == 0 && s && s->kind == N_UNROLL && s->ival == 100 &&
		    s->b && s->b->kind == N_BLOCK);
	ast_free(prog);
	unit_expect("ast: kind names", !strcmp(ast_kind_name(N_PROGRAM), "program") &&
		    !strcmp(ast_kind_name(N_POSITIONAL), "positional"));
}

static void test_errors(void)
{
	t_err("error: missing ';' points at the next token",
	      "BEGIN { printf(\"x\") @x = 1; }",
	      "t.bt:1:21: error: expected ';' after statement\n"
	      "BEGIN { printf(\"x\") @x = 1; }\n"
	      "                    ^~\n");
	t_err("error: unterminated string",
	      "BEGIN { printf(\"x); }\n",
	      "t.bt:1:16: error: unterminated string\n"
	      "BEGIN { printf(\"x); }\n"
	      "               ^\n");
	t_err("error: unknown character",
	      "BEGIN { $x = `ls`; }",
	      "t.bt:1:14: error: unknown character '`'\n"
	      "BEGIN { $x = `ls`; }\n"
	      "             ^\n");
	t_err("error: unexpected '}' at top level, next probe still parsed",
	      "BEGIN { }\n}\nEND { $x = ; }",
	      "t.bt:2:1: error: unexpected '}'\n}\n^\n"
	      "t.bt:3:12: error: expected expression\nEND { $x = ; }\n           ^\n");
	t_err("error: missing '{' after probe",
	      "BEGIN exit(); }\nEND {}",
	      "t.bt:1:7: error: expected '{' after probe\n"
	      "BEGIN exit(); }\n"
	      "      ^~~~~~~~~\n");
	t_err("error: several errors in one run, one per statement",
	      "BEGIN { @x = (1 + ; @y = 2 +; exit() }\n"
	      "END { $x = 0x; $y = 99999999999999999999999; $z = \"\\q\"; if x {} }",
	      "t.bt:1:19: error: expected expression\n"
	      "BEGIN { @x = (1 + ; @y = 2 +; exit() }\n"
	      "                  ^\n"
	      "t.bt:1:29: error: expected expression\n"
	      "BEGIN { @x = (1 + ; @y = 2 +; exit() }\n"
	      "                            ^\n"
	      "t.bt:2:12: error: invalid integer '0x'\n"
	      "END { $x = 0x; $y = 99999999999999999999999; $z = \"\\q\"; if x {} }\n"
	      "           ^~\n"
	      "t.bt:2:21: error: integer '99999999999999999999999' is too large\n"
	      "END { $x = 0x; $y = 99999999999999999999999; $z = \"\\q\"; if x {} }\n"
	      "                    ^~~~~~~~~~~~~~~~~~~~~~~\n"
	      "t.bt:2:52: error: invalid escape sequence in string\n"
	      "END { $x = 0x; $y = 99999999999999999999999; $z = \"\\q\"; if x {} }\n"
	      "                                                   ^~\n"
	      "t.bt:2:60: error: expected '(' after 'if'\n"
	      "END { $x = 0x; $y = 99999999999999999999999; $z = \"\\q\"; if x {} }\n"
	      "                                                           ^\n");
	t_err("error: missing '}' at end of file",
	      "BEGIN { printf(\"hi\");\n",
	      "t.bt:1:22: error: expected '}' before end of file\n"
	      "BEGIN { printf(\"hi\");\n"
	      "                     ^\n");
	t_err("error: predicate without its closing '/'",
	      "BEGIN /pid == 1 { }\nEND {}",
	      "t.bt:1:17: error: expected '/' after predicate\n"
	      "BEGIN /pid == 1 { }\n"
	      "                ^\n");
	t_err("error: comma without an attach point",
	      "BEGIN, { }",
	      "t.bt:1:8: error: expected attach point after ','\n"
	      "BEGIN, { }\n"
	      "       ^\n");
	t_err("error: bad assignment target and unroll count",
	      "BEGIN { 1 = 2; unroll(0) {} args.; }",
	      "t.bt:1:9: error: only a map or a variable can be assigned to\n"
	      "BEGIN { 1 = 2; unroll(0) {} args.; }\n"
	      "        ^\n"
	      "t.bt:1:23: error: unroll count must be an integer from 1 to 100\n"
	      "BEGIN { 1 = 2; unroll(0) {} args.; }\n"
	      "                      ^\n"
	      "t.bt:1:34: error: expected field name after '.'\n"
	      "BEGIN { 1 = 2; unroll(0) {} args.; }\n"
	      "                                 ^\n");
	t_err("error: caret keeps tabs",
	      "BEGIN\t{\t$x =\tfoo(1,)\t}",
	      "t.bt:1:20: error: expected expression\n"
	      "BEGIN\t{\t$x =\tfoo(1,)\t}\n"
	      "     \t \t    \t      ^\n");
	t_err("error: unterminated comment",
	      "BEGIN { } /* no end",
	      "t.bt:1:11: error: unterminated comment\n"
	      "BEGIN { } /* no end\n"
	      "          ^~\n");
	t_err("error: '$' alone, $0, empty map key",
	      "BEGIN { $ = 1; $0 = 2; @x[] = 3; }",
	      "t.bt:1:9: error: expected a variable name after '$'\n"
	      "BEGIN { $ = 1; $0 = 2; @x[] = 3; }\n"
	      "        ^\n"
	      "t.bt:1:16: error: positional parameter must be between $1 and $1000\n"
	      "BEGIN { $ = 1; $0 = 2; @x[] = 3; }\n"
	      "               ^~\n"
	      "t.bt:1:27: error: expected expression\n"
	      "BEGIN { $ = 1; $0 = 2; @x[] = 3; }\n"
	      "                          ^\n");
	t_err("error: block without a probe",
	      "{ exit(); }\nBEGIN { a ? b; }",
	      "t.bt:1:1: error: unexpected '{'\n{ exit(); }\n^\n"
	      "t.bt:2:14: error: expected ':' in conditional expression\n"
	      "BEGIN { a ? b; }\n"
	      "             ^\n");
}

static void test_recovery(void)
{
	int errors;
	struct node *prog;

	t_err("recovery: a probe header on the next line is parsed",
	      "BEGIN\nEND { @x = 1 }",
	      "t.bt:2:1: error: expected '{' after probe\nEND { @x = 1 }\n^~~\n");
	prog = parse_quiet("BEGIN\nEND { @x = 1 }", &errors);
	unit_expect("recovery: the good probe is in the tree",
		    errors == 1 && ast_count(prog->list) == 1 &&
		    !strcmp(prog->list->list->name, "END") && first_stmt(prog)->kind == N_ASSIGN);
	ast_free(prog);
	t_err("recovery: lazy pattern without '{' is one error",
	      "uprobe:./app:app.c;acc +=*\n\t@n = count();\n}\nEND {}",
	      "t.bt:2:2: error: expected '{' after probe\n\t@n = count();\n\t^~\n");
	prog = parse_quiet("BEGIN { a(; b(); c(; }\nEND { d(); }", &errors);
	unit_expect("recovery: statements after a bad one are kept",
		    errors == 2 && ast_count(first_stmt(prog)) == 1 &&
		    ast_count(prog->list) == 2);
	ast_free(prog);
	t_err("recovery: missing '}' is reported once at the end",
	      "BEGIN { if (1) { a(); }\n",
	      "t.bt:1:24: error: expected '}' before end of file\n"
	      "BEGIN { if (1) { a(); }\n                       ^\n");
}

static void run_cases(void)
{
	test_diag();
	test_lexer();
	test_attach();
	test_attach_locs();
	test_cdecl();
	test_statements();
	test_expressions();
	test_nodes();
	test_errors();
	test_recovery();
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--parse"))
		return parse_file(argv[2]);
	run_cases();
	return unit_summary();
}
