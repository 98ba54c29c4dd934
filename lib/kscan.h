/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kscan.h - fast reading of the kernel's symbol lists: /proc/kallsyms
 * ("ADDR TYPE NAME [MODULE]"), tracefs' available_filter_functions
 * ("NAME [MODULE]") and the kprobe blacklist ("0xSTART-0xEND NAME").
 *
 * A kprobe wildcard reads these lists whole, and kallsyms has ~170,000
 * lines: read with sscanf() through stdio's 1 KiB buffer (st_blksize of a
 * /proc file) that took two seconds of a 6.12 guest under TCG, more than
 * everything else its attach did.  Here lines are split in place, and a
 * name whose start differs from the pattern's literal prefix is rejected
 * before fnmatch().
 */
#ifndef PR_KSCAN_H
#define PR_KSCAN_H

#include <stdbool.h>
#include <stdint.h>

/* One line's fields; pointers into the line, valid during the call. */
struct kscan_sym {
	const char *name;
	const char *mod;   /* "mod" of a trailing "[mod]", else NULL */
	uint64_t addr;     /* kallsyms, filter addrs: its address (0 where
			    * kptr_restrict hides it) */
	char type;         /* kallsyms: its type letter (t/T: text), else 0 */
};

enum kscan_format {
	KSCAN_KALLSYMS,    /* ADDR TYPE NAME [MOD] */
	KSCAN_FILTER,      /* NAME [MOD] (available_filter_functions) */
	KSCAN_BLACKLIST,   /* 0xSTART-0xEND NAME [MOD] */
	KSCAN_FILTER_ADDRS,   /* ADDR NAME [MOD] (available_filter_functions_addrs,
			       * 6.5+: where ftrace patches each function) */
};

/* Calls fn(ctx, sym) for each line of the file at path whose name
 * matches pat (fnmatch without flags; NULL matches every line), in file
 * order, until fn returns non-zero.  Returns that value, 0 at the end, or
 * -errno (-ENOENT: no such file). */
int kscan(const char *path, enum kscan_format fmt, const char *pat,
	  int (*fn)(void *ctx, const struct kscan_sym *sym), void *ctx);

/* The address of the first symbol of /proc/kallsyms named exactly name
 * whose address is not 0 (of any type, in the kernel or a module): 0 and
 * *addr set, -ENOENT if there is none (or kptr_restrict hides them all),
 * or -errno. */
int kscan_addr(const char *name, uint64_t *addr);

/* The text functions of a list (kallsyms' t/T lines, every line of
 * available_filter_functions_addrs) named one of names: each one's
 * address (not 0), its name's index in names, and whether a module's. */
struct kscan_hits {
	uint64_t *addr;
	int *of;
	bool *mod;
	size_t n, cap;
};

/* Fills h from the list at path (names sorted by strcmp, n of them);
 * returns 0 or -errno (-ENOENT: no such file). */
int kscan_names(const char *path, enum kscan_format fmt, char *const *names, int n,
		struct kscan_hits *h);
void kscan_hits_free(struct kscan_hits *h);

#endif
