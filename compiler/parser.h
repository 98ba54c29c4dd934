/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * parser.h - tokens to the syntax tree of ast.h, by recursive descent.
 *
 * The tree follows the comments of ast.h.  Statement shapes the header
 * leaves open:
 *   - an assignment statement (`@m[k] = e`, `$x += e`) is an N_ASSIGN directly
 *     in the block's list, and `@m++` / `--$x` as a statement is an N_INCDEC
 *     directly in the list; every other expression statement is an
 *     N_EXPRSTMT around the expression.
 *   - node locations cover the whole construct on its first line (a binary
 *     expression's loc starts at its left operand).
 *
 * Syntax errors are reported through the diag, at most one per statement,
 * and parsing goes on at the next statement or probe.
 */
#ifndef PR_PARSER_H
#define PR_PARSER_H

#include "ast.h"
#include "lib/diag.h"

/* Always returns the N_PROGRAM (possibly with fewer probes than written);
 * d->errors > 0 tells that the script had syntax errors.  NULL only when
 * out of memory. */
struct node *parse_program(const struct source *src, struct diag *d);

/* True for the integer type names a cast may use: "int8".."uint64",
 * "u8".."s64", "int", "unsigned", "char", "short", "long", "bool", "void". */
int parse_is_type_word(const char *name);

#endif
