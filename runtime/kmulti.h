/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * kmulti.h - the kernel functions a kprobe wildcard attaches to, and one
 * kprobe_multi link for all of them.
 *
 * A kprobe_multi link (5.18+, CONFIG_FPROBE) attaches one loaded program
 * to any number of kernel functions through ftrace in one bpf(2) call, and
 * detaches them all when closed: milliseconds for hundreds of functions,
 * where one kprobe each takes seconds to attach and more to detach.  The
 * program must have been loaded with expected_attach_type
 * BPF_TRACE_KPROBE_MULTI.
 */
#ifndef PR_KMULTI_H
#define PR_KMULTI_H

#include <stdbool.h>
#include <stdio.h>

#include <bpf/libbpf.h>

/* The functions matching a wildcard that can be probed: sorted, each once. */
struct km_funcs {
	char **names;
	int n;
	char **skipped;   /* text symbols matching it that cannot be (see km_match) */
	int nskipped;
};

/* Matches pat (fnmatch) against the functions the kernel lets kprobes and
 * fprobes trace (tracefs' available_filter_functions, less the kprobe
 * blacklist in debugfs), as bpftrace 0.17 matches; the other text symbols
 * of /proc/kallsyms that match (notrace, __kprobes, the .cold parts) are
 * the skipped ones.  Without tracefs, every matching text symbol of
 * kallsyms, none skipped.  Returns 0, or -errno (nothing is allocated). */
int km_match(const char *pat, struct km_funcs *out);

void km_funcs_free(struct km_funcs *f);

/* Says on stderr how many functions matching spec were skipped, and with
 * verbose which; nothing if none was. */
void km_report_skipped(const struct km_funcs *f, const char *spec, int verbose);

/* One kprobe_multi link of prog for every function of f (retprobe: at
 * their returns).  Returns the link, or NULL with errno set. */
struct bpf_link *km_attach(struct bpf_program *prog, const struct km_funcs *f, bool retprobe);

#endif
