/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * uprobe_multi.h - one BPF link for many uprobes of one binary.
 *
 * A uprobe_multi link (kernel 6.6+) attaches one loaded program to any
 * number of file offsets of one file in a single bpf(2) call, and detaches
 * them all when its fd is closed: thousands of probes in milliseconds,
 * where one perf event per probe costs seconds.  The program must have been
 * loaded with expected_attach_type UM_ATTACH_TYPE (set it with
 * bpf_program__set_expected_attach_type() before bpf_object__load()).
 */
#ifndef PR_UPROBE_MULTI_H
#define PR_UPROBE_MULTI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* BPF_TRACE_UPROBE_MULTI: absent from the 6.1 UAPI headers we build with. */
#define UM_ATTACH_TYPE 48
/* BPF_LINK_TYPE_UPROBE_MULTI, as bpf_link_info.type reports it. */
#define UM_LINK_TYPE 12

/* True if the running kernel has uprobe_multi links.  Probes the kernel the
 * first time (loads a trivial program, attaches it to a function of this
 * process, detaches) and caches the answer; never prints anything. */
bool um_supported(void);

/* Attaches prog_fd to offsets[0..cnt) (file offsets, as struct probe_site
 * gives them) of the file at path.  ref_ctr_offsets (USDT semaphores) and
 * cookies (bpf_get_attach_cookie() at each site) may be NULL.  retprobe
 * makes return probes.  pid > 0 limits the probes to that process.
 * Returns the link fd (close() detaches every probe) or -errno. */
int um_attach(int prog_fd, const char *path, const uint64_t *offsets,
	      const uint64_t *ref_ctr_offsets, const uint64_t *cookies,
	      size_t cnt, bool retprobe, pid_t pid);

#endif
