// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_unwind.c - the unwind rows of ustack (runtime/unwind.c) for libc
 * and for unwind_o2 (gcc -O2, no frame pointers), checked against what the
 * code does: sorted and merged rows, CFA = rsp + 8 at a function's entry,
 * funcC's 37-long array (CFA = rsp + 0x140 after its sub), funcB's rbp
 * saved at CFA - 48 after its six pushes (objdump of the test program),
 * the .plt expression, and few rules left unknown.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/elfsym.h"
#include "runtime/unwind.h"
#include "unit.h"

static const struct pr_uw_row *row_at(const struct pr_uw_row *r, long n, uint64_t off)
{
	const struct pr_uw_row *best = NULL;

	for (long i = 0; i < n && r[i].off <= off; i++)
		best = &r[i];
	return best;
}

/* File offset of symbol name of path, or 0. */
static uint64_t sym_off(const char *path, const char *name)
{
	struct elfsym *s;
	int n = elfsym_match(path, name, &s);
	uint64_t off = n == 1 ? s[0].offset : 0;

	if (n > 0)
		elfsym_free(s, n);
	return off;
}

static void test_sorted(const char *what, const struct pr_uw_row *r, long n)
{
	int bad = 0;

	for (long i = 1; i < n; i++)
		bad += r[i].off <= r[i - 1].off ||
		       (r[i].rule == r[i - 1].rule && r[i].cfa_off == r[i - 1].cfa_off &&
			r[i].rbp_off == r[i - 1].rbp_off);
	unit_expect(what, n > 0 && !bad);
}

static void test_libc(void)
{
	const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	struct pr_uw_row *r;
	long n = uw_file_rows(libc, &r), unknown = 0, plt = 0;
	uint64_t m = sym_off(libc, "malloc");
	const struct pr_uw_row *at = row_at(r, n, m);

	unit_expect("libc: thousands of rows", n > 5000);
	test_sorted("libc: rows sorted by offset, equal neighbours merged", r, n);
	unit_expect("libc: malloc's entry is CFA = rsp + 8, rbp unchanged",
		    m && at && at->rule == (PR_UW_RSP | PR_UW_BP_SAME << 4) && at->cfa_off == 8);
	for (long i = 0; i < n; i++) {
		unknown += (r[i].rule & 15) == PR_UW_UNKNOWN;
		plt += (r[i].rule & 15) == PR_UW_PLT;
	}
	/* an UNKNOWN row ends each FDE that the next does not follow at once */
	unit_expect("libc: rules the unwinder follows, mostly", unknown * 4 < n);
	unit_expect("libc: the .plt expression", plt >= 1);
	free(r);
}

static void test_o2(void)
{
	const char *bin = "tests/progs/unwind_o2";
	struct pr_uw_row *r;
	long n = uw_file_rows(bin, &r);
	uint64_t c = sym_off(bin, "funcC"), b = sym_off(bin, "funcB");
	const struct pr_uw_row *x;

	if (n < 0) {
		printf("SKIP %s not built\n", bin);
		return;
	}
	test_sorted("unwind_o2: rows sorted", r, n);
	x = row_at(r, n, c);
	unit_expect("funcC+0: CFA = rsp + 8", c && x && (x->rule & 15) == PR_UW_RSP && x->cfa_off == 8);
	x = row_at(r, n, c + 0x20);   /* after sub $0x138,%rsp */
	unit_expect("funcC after its sub: CFA = rsp + 0x140",
		    c && x && (x->rule & 15) == PR_UW_RSP && x->cfa_off == 0x140);
	x = row_at(r, n, b + 0x42);   /* at the call, after the pushes and sub */
	unit_expect("funcB at its call: rbp saved at CFA - 48",
		    b && x && x->rule >> 4 == PR_UW_BP_AT && x->rbp_off == -48 &&
		    (x->rule & 15) == PR_UW_RSP);
	free(r);
}

int main(void)
{
	test_libc();
	test_o2();
	return unit_summary();
}
