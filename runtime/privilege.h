/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * privilege.h - whether this process may trace: loading BPF programs needs
 * CAP_BPF, attaching them to perf events (uprobes, tracepoints, profile)
 * CAP_PERFMON; CAP_SYS_ADMIN (what root has) stands for both.
 */
#ifndef PR_PRIVILEGE_H
#define PR_PRIVILEGE_H

/* NULL if tracing is allowed, else what is missing, as the end of a
 * sentence: "CAP_BPF and CAP_PERFMON" or one of them. */
const char *priv_missing(void);

#endif
