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
 * fields, a function's parameters where DWARF has them.  With demangle,
 * C++ and Rust functions are listed by their demangled names in quotes
 * (uprobe:./app:"shop::Cart::total() const"), which attach as written,
 * and FUNC patterns also match those names (uprobe:./app:shop::Cart::*);
 * after "cpp:" (uprobe:BIN:cpp:PATTERN, newer bpftrace) only they are.
 * Returns 0, or 1 after printing one error line to stderr. */
int ls_list(FILE *out, const char *pattern, pid_t pid, bool verbose, bool demangle);

/* -L and -V: perf probe -L SPEC and -V SPEC of binary bin (dwarf.h); a C++
 * or Rust function by its demangled name (probe_cxx_name) is listed for
 * -V at each function it names, "Available variables at shop::Cart::add(int)".
 * Returns 0, or -1 with one sentence in err. */
int ls_dwarf(FILE *out, const char *bin, const char *spec, bool lines, char *err, size_t errlen);

#endif
