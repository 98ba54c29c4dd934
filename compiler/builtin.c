// SPDX-License-Identifier: GPL-2.0-only
/*
 * builtin.c - the builtins' table (builtin.h) and its lookup by name.
 * Needs nothing but libc; the check hooks of the table are expanded by
 * sema (sema_call.c), not here.
 */
#include <string.h>

#include "builtin.h"

static const struct bi_row rows[BI__COUNT] = {
	[BI_NONE] = { "", BI_NONE, 0, 0, 0 },
#define BI_ROW(id, nm, min, max, fl, ident, call) [BI_##id] = { nm, BI_##id, min, max, fl },
	BI_TABLE(BI_ROW)
#undef BI_ROW
};

const struct bi_row *bi_lookup(const char *name)
{
	if (!name)
		return NULL;
	if (!strncmp(name, "arg", 3) && name[3] >= '0' && name[3] <= '9')
		return &rows[BI_ARGN];
	if (!strncmp(name, "sarg", 4) && name[4] >= '0' && name[4] <= '9')
		return &rows[BI_SARGN];
	for (int i = BI_NONE + 1; i < BI__COUNT; i++)
		if (i != BI_ARGN && i != BI_SARGN && !strcmp(rows[i].name, name))
			return &rows[i];
	return NULL;
}

const struct bi_row *bi_row(enum bi_id id)
{
	return &rows[id < BI__COUNT ? id : BI_NONE];
}

bool bi_is(enum bi_id id, unsigned flags)
{
	return (bi_row(id)->flags & flags) == flags;
}
