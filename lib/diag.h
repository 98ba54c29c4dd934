/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * diag.h - source positions and error reports that point into the script.
 *
 * Every message a user sees about their script goes through here, so that
 * all of them look alike:
 *
 *   script.txt:3:17: error: unknown function 'prinf'
 *   uprobe:./app:f { prinf("x"); }
 *                    ^~~~~
 *
 * A diag collects messages as the stages run (several per run where the
 * parser can recover) and counts the errors; the driver prints nothing
 * itself.  Messages go to the diag's stream (stderr by default).
 */
#ifndef PR_DIAG_H
#define PR_DIAG_H

#include <stdarg.h>
#include <stdio.h>

struct loc {
	int line;  /* 1-based; 0 means "no position" (whole script) */
	int col;   /* 1-based byte column */
	int len;   /* bytes underlined on that line, at least 1 */
};

struct source {
	const char *name;  /* file name as given, or "-e" for a one-liner */
	const char *text;  /* NUL-terminated script text */
};

struct diag {
	const struct source *src;
	FILE *out;
	int errors;
	int warnings;
};

void diag_init(struct diag *d, const struct source *src, FILE *out);
/* "NAME:LINE:COL: error: MSG", then the line and a caret under loc. */
void diag_error(struct diag *d, struct loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void diag_warn(struct diag *d, struct loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A further line under the last message: "  note: MSG" (no caret). */
void diag_note(struct diag *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void diag_verror(struct diag *d, struct loc loc, const char *fmt, va_list ap);
/* Returns the text of 1-based line `line` (without newline) and its length. */
const char *diag_line(const struct source *src, int line, int *len);

#endif
