// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_builtin.c - the builtins' table (compiler/builtin.h) and the printf
 * conversion grammar (lib/fmtspec.h): every row found by its own name
 * and nothing else, argN and sargN by prefix, the flags the passes ask;
 * conversions parsed as sema and the printer read them.
 */
#include <limits.h>
#include <string.h>

#include "compiler/builtin.h"
#include "lib/fmtspec.h"
#include "unit.h"

static void rows(void)
{
	int bad = 0;

	for (int id = BI_NONE + 1; id < BI__COUNT; id++) {
		const struct bi_row *r = bi_row(id);

		if (r->id != (enum bi_id)id || !r->name[0] || r->min_args > r->max_args ||
		    !(r->flags & (BI_IDENT | BI_CALL)))
			bad++;
		if (id != BI_ARGN && id != BI_SARGN && bi_lookup(r->name) != r)
			bad++;
	}
	unit_expect("every row is found by its name, once", bad == 0);
	unit_expect("arg0 is argN", bi_lookup("arg0") == bi_row(BI_ARGN));
	unit_expect("arg5x is argN (its check says no)", bi_lookup("arg5x") == bi_row(BI_ARGN));
	unit_expect("sarg12 is sargN", bi_lookup("sarg12") == bi_row(BI_SARGN));
	unit_expect("args is args", bi_lookup("args") == bi_row(BI_ARGS));
	unit_expect("the names argN and sargN are no builtins",
		    !bi_lookup("argN") && !bi_lookup("sargN"));
	unit_expect("an unknown name", !bi_lookup("pidx") && !bi_lookup("") && !bi_lookup(NULL));
	unit_expect("kstack reads a stack, needs ctx", bi_is(BI_KSTACK, BI_STACK | BI_NEEDS_CTX));
	unit_expect("printf is an action, pid is not", bi_is(BI_PRINTF, BI_ACTION) &&
		    !bi_is(BI_PID, BI_ACTION));
	unit_expect("pid() is pid", bi_is(BI_PID, BI_AS_IDENT) && !bi_is(BI_ARGS, BI_AS_IDENT));
	unit_expect("BI_NONE has no flags", bi_row(BI_NONE)->flags == 0 &&
		    bi_row((enum bi_id)BI__COUNT)->id == BI_NONE);
}

static void spec(const char *name, const char *text, enum fs_status want_st, size_t want_used,
		 int width, int prec, int len, char conv, char rmode, const char *flags)
{
	struct fmt_spec sp;
	enum fs_status st;
	const char *end = text + strlen(text);
	const char *p = fs_parse(text, end, &sp, &st);
	int ok = st == want_st && (size_t)(p - text) == want_used;

	if (ok && st == FS_OK)
		ok = sp.width == width && sp.prec == prec && sp.len == len && sp.conv == conv &&
		     sp.rmode == rmode && !strcmp(sp.flags, flags);
	unit_expect(name, ok);
	if (!ok)
		printf("    got status %d used %zu width %d prec %d len %d conv %c\n", (int)st,
		       (size_t)(p - text), sp.width, sp.prec, sp.len, sp.conv ? sp.conv : '0');
}

static void specs(void)
{
	spec("%d", "d", FS_OK, 0, -1, -1, 0, 'd', 0, "");
	spec("%-08.3lx", "-08.3lx", FS_OK, 6, 8, 3, 'l', 'x', 0, "-0");
	spec("%hhd", "hhd", FS_OK, 2, -1, -1, 'H', 'd', 0, "");
	spec("%hu", "hu", FS_OK, 1, -1, -1, 'h', 'u', 0, "");
	spec("%zu %jd %td %lld: 64 bits", "zu", FS_OK, 1, -1, -1, 'l', 'u', 0, "");
	spec("%.d: precision 0", ".d", FS_OK, 1, -1, 0, 0, 'd', 0, "");
	spec("%rx", "rx", FS_OK, 1, -1, -1, 0, 'r', 'x', "");
	spec("%r then text", "r!", FS_OK, 0, -1, -1, 0, 'r', 0, "");
	spec("%qd: no q", "qd", FS_BAD_CONV, 0, 0, 0, 0, 0, 0, "");
	spec("%y", "y", FS_BAD_CONV, 0, 0, 0, 0, 0, 0, "");
	spec("% at the end", "", FS_BAD_CONV, 0, 0, 0, 0, 0, 0, "");
	spec("%5 at the end", "5", FS_BAD_CONV, 1, 0, 0, 0, 0, 0, "");
	spec("%1.2.3d: one dot", "1.2.3d", FS_BAD_CONV, 3, 0, 0, 0, 0, 0, "");
	spec("%99999999999.5d", "99999999999.5d", FS_TOO_LARGE, 13, 0, 0, 0, 0, 0, "");
	spec("%2147483647d fits", "2147483647d", FS_OK, 10, INT_MAX, -1, 0, 'd', 0, "");
	unit_expect("float conversions", fs_is_float('g') && fs_is_float('E') &&
		    !fs_is_float('d') && !fs_is_float(0));
}

int main(void)
{
	rows();
	specs();
	return unit_summary();
}
