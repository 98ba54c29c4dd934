// SPDX-License-Identifier: GPL-2.0-only
/*
 * diag.c - error and warning reports that point into the script.
 *
 * Every message has the same shape (see diag.h): a "NAME:LINE:COL:" prefix,
 * the source line, and a caret line.  The caret line copies tabs from the
 * source so the caret stays under the right byte on any tab width.
 */
#define _GNU_SOURCE
#include <string.h>

#include "lib/diag.h"

void diag_init(struct diag *d, const struct source *src, FILE *out)
{
	d->src = src;
	d->out = out ? out : stderr;
	d->errors = 0;
	d->warnings = 0;
}

const char *diag_line(const struct source *src, int line, int *len)
{
	const char *p = src && src->text ? src->text : "";
	int n;

	if (line < 1) {
		*len = 0;
		return NULL;
	}
	for (n = 1; n < line; n++) {
		p = strchr(p, '\n');
		if (!p) {
			*len = 0;
			return NULL;
		}
		p++;
	}
	/* the lexer skips a UTF-8 byte order mark: columns count after it */
	if (line == 1 && !strncmp(p, "\xef\xbb\xbf", 3))
		p += 3;
	*len = (int)strcspn(p, "\n");
	/* A CRLF script must not print the CR, which would move the caret. */
	if (*len > 0 && p[*len - 1] == '\r')
		(*len)--;
	return p;
}

/* A UTF-8 continuation byte takes no column of its own on the screen. */
static int continues(const char *text, int linelen, int i)
{
	return i < linelen && ((unsigned char)text[i] & 0xc0) == 0x80;
}

static void print_caret(FILE *out, const char *text, int linelen, struct loc loc)
{
	int i, len = loc.len < 1 ? 1 : loc.len;

	for (i = 0; i < loc.col - 1; i++)
		if (!continues(text, linelen, i))
			fputc(i < linelen && text[i] == '\t' ? '\t' : ' ', out);
	fputc('^', out);
	/* Underline no further than the line: a span may run onto later lines. */
	for (i = 1; i < len && loc.col - 1 + i < linelen; i++)
		if (!continues(text, linelen, loc.col - 1 + i))
			fputc('~', out);
	fputc('\n', out);
}

static void report(struct diag *d, const char *kind, struct loc loc,
		   const char *fmt, va_list ap)
{
	const char *name = d->src && d->src->name ? d->src->name : "-e";
	const char *text;
	int len;

	if (loc.line <= 0) {
		fprintf(d->out, "%s: %s: ", name, kind);
		vfprintf(d->out, fmt, ap);
		fputc('\n', d->out);
		return;
	}
	fprintf(d->out, "%s:%d:%d: %s: ", name, loc.line, loc.col, kind);
	vfprintf(d->out, fmt, ap);
	fputc('\n', d->out);
	text = diag_line(d->src, loc.line, &len);
	if (!text)
		return;
	fprintf(d->out, "%.*s\n", len, text);
	print_caret(d->out, text, len, loc);
}

void diag_verror(struct diag *d, struct loc loc, const char *fmt, va_list ap)
{
	d->errors++;
	report(d, "error", loc, fmt, ap);
}

void diag_error(struct diag *d, struct loc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_verror(d, loc, fmt, ap);
	va_end(ap);
}

void diag_warn(struct diag *d, struct loc loc, const char *fmt, ...)
{
	va_list ap;

	d->warnings++;
	va_start(ap, fmt);
	report(d, "warning", loc, fmt, ap);
	va_end(ap);
}

void diag_note(struct diag *d, const char *fmt, ...)
{
	va_list ap;

	fputs("  note: ", d->out);
	va_start(ap, fmt);
	vfprintf(d->out, fmt, ap);
	va_end(ap);
	fputc('\n', d->out);
}
