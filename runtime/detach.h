/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * detach.h - releasing the links and fds of many attached programs at once.
 *
 * Dropping a uprobe_multi link or a perf-event BPF link waits for an RCU
 * tasks-trace grace period (uprobe_unregister_sync,
 * perf_event_detach_bpf_prog): 25-60 ms here each.  Waits that overlap
 * share grace periods, so the closes run on threads: 5 uprobe probes exit
 * in 70-110 ms instead of 250-320.  Tracepoints gain nothing: the kernel
 * waits for each one's grace periods inside perf_trace_destroy() with
 * event_mutex held, so they still go one at a time.
 */
#ifndef PR_DETACH_H
#define PR_DETACH_H

#include "provider.h"

/* Destroys every link and closes every fd of atts[0..n), except those of
 * programs that were never set up (no pp) or whose probe is of kind keep
 * (-1: none), and leaves those released with none.  Returns when all are
 * closed. */
void dt_release(struct prov_att *atts, int n, int keep);

#endif
