/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tpformat.h - tracepoint fields from tracefs `format` files, as a record
 * type whose field offsets are from the start of the tracepoint context.
 */
#ifndef PR_TPFORMAT_H
#define PR_TPFORMAT_H

#include <stdbool.h>

struct type;

/* The tracefs events directory, mounting tracefs if it is not mounted;
 * NULL if neither /sys/kernel/tracing nor /sys/kernel/debug/tracing works. */
const char *tpf_events_dir(void);
/* Reads CATEGORY/EVENT/format.  The common_* fields are left out, as
 * bpftrace does.  Returns NULL (errno set) if there is no such tracepoint. */
const struct type *tpf_read(const char *category, const char *event);
/* Calls fn for every "category:event" matching the fnmatch patterns. */
int tpf_match(const char *cat_pattern, const char *event_pattern,
	      int (*fn)(const char *category, const char *event, void *arg), void *arg);
/* True if CATEGORY:EVENT is a tracepoint compiled into the kernel (or a
 * module), which BPF also reaches as the raw tracepoint EVENT.  False for
 * the events that are not: syscalls:* (they hang off raw_syscalls),
 * ftrace's own, and dynamic events (kprobes, uprobes, synthetic, eprobes,
 * fprobes, user events: tracefs lists them in dynamic_events). */
bool tpf_is_tracepoint(const char *category, const char *event);

/* Whether a BPF tracepoint program attaches to the event: not ftrace's
 * own events (function, kernel_stack, timerlat...: their formats are
 * ftrace's internals, and the attach fails with ENOENT), not a dynamic
 * event (a perf probe kprobe or uprobe event takes a kprobe program:
 * probe the function itself with kprobe: or uprobe:). */
bool tpf_bpf_attachable(const char *category, const char *event);

#endif
