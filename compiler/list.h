/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * list.h - `perf-run -l [PATTERN]`: the probes this machine offers, one
 * attach point a line, as bpftrace -l prints them.
 */
#ifndef PR_LIST_H
#define PR_LIST_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/* Prints every probe matching pattern (fnmatch; a pattern without a
 * wildcard matches as a substring).  A pattern naming a probe type
 * ("tracepoint:", "kprobe:", "software:" or a short form) lists only that
 * type; uprobe:BIN[:FUNC] and usdt:BIN[:NAME] list a binary's functions
 * and SDT notes (BIN may be left out with pid).  NULL lists tracepoints,
 * software and hardware events and, where the kernel has kprobes, kernel
 * functions; with pid, also the functions and notes of its binary.
 * With verbose (-lv), each probe's arguments follow it: a tracepoint's
 * fields, a function's parameters where DWARF has them.
 * Returns 0, or 1 after printing one error line to stderr. */
int ls_list(FILE *out, const char *pattern, pid_t pid, bool verbose);

#endif
