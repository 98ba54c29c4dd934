// SPDX-License-Identifier: GPL-2.0-only
/*
 * fmtspec.c - one printf conversion parsed (the grammar is in fmtspec.h).
 * Relies on nothing but libc: runtime/format.c links it as sema does.
 */
#include <limits.h>
#include <string.h>

#include "lib/fmtspec.h"

/* Digits at S (up to END) as a number; *too_large if it passes INT_MAX. */
static const char *fs_number(const char *s, const char *end, int *out, bool *too_large)
{
	long long v = 0;

	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		if (v <= INT_MAX)
			v = v * 10 + (*s - '0');
		if (v > INT_MAX)
			*too_large = true;
	}
	*out = v > INT_MAX ? INT_MAX : (int)v;
	return s;
}

const char *fs_parse(const char *s, const char *end, struct fmt_spec *sp,
		     enum fs_status *st)
{
	bool too_large = false;
	int nf = 0;

	memset(sp, 0, sizeof(*sp));
	sp->width = sp->prec = -1;
	while (s < end && *s && strchr("-+ #0", *s)) {
		if (nf < 6)
			sp->flags[nf++] = *s;
		s++;
	}
	if (s < end && *s >= '1' && *s <= '9')
		s = fs_number(s, end, &sp->width, &too_large);
	if (s < end && *s == '.')
		s = fs_number(s + 1, end, &sp->prec, &too_large);
	if (too_large) {   /* printf's int would wrap */
		*st = FS_TOO_LARGE;
		return s;
	}
	for (; s < end && *s && strchr("hlzjt", *s); s++)
		sp->len = *s != 'h' ? 'l' : sp->len == 'h' ? 'H' : 'h';
	sp->conv = s < end ? *s : 0;
	if (!sp->conv || !strchr("diuxXocsprfFeEgG", sp->conv)) {
		*st = FS_BAD_CONV;
		return s;
	}
	if (sp->conv == 'r' && s + 1 < end && (s[1] == 'x' || s[1] == 'h'))
		sp->rmode = *++s;
	*st = FS_OK;
	return s;
}

bool fs_is_float(char conv)
{
	return conv && strchr("fFeEgG", conv);
}
