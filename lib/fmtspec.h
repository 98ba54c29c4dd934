/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fmtspec.h - the grammar of one printf conversion, shared by the checker
 * (sema_call.c, check_format) and the printer (runtime/format.c), so the
 * formats one accepts are the formats the other reads.
 *
 *   '%' flags* width? ('.' precision?)? length* conversion
 *   flags "-+ #0", length "hh" "h" "l" "ll" "z" "j" "t", conversion one of
 *   "diuxXocsprfFeEgG"; "%r" may be followed by 'x' or 'h' (buf() as hex).
 */
#ifndef PR_FMTSPEC_H
#define PR_FMTSPEC_H

#include <stdbool.h>

/* One parsed conversion: "%-08.3lx" -> flags "-0", width 8, prec 3, 'x'. */
struct fmt_spec {
	char flags[8];
	int width, prec;   /* -1 if absent */
	int len;           /* 0 none, 'H' hh, 'h', 'l' (l, ll, j, z, t: 64 bits) */
	char conv;         /* 0 if the format ended first */
	char rmode;        /* %r: 0, %rx: 'x', %rh: 'h' */
};

enum fs_status {
	FS_OK,
	FS_TOO_LARGE,      /* a width or precision larger than INT_MAX */
	FS_BAD_CONV,       /* no conversion of the list, or none before END */
};

/* Parses the conversion whose text starts at S, after its '%' (which is not
 * "%%"), up to END.  Returns where it stopped: its last character if FS_OK
 * (the conversion, or %r's mode), else the end of the number (FS_TOO_LARGE)
 * or the character that is no conversion (FS_BAD_CONV, maybe END). */
const char *fs_parse(const char *s, const char *end, struct fmt_spec *sp,
		     enum fs_status *st);

/* A conversion of floating point: f F e E g G. */
bool fs_is_float(char conv);

#endif
