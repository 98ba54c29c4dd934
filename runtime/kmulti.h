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
#include <stdint.h>
#include <stdio.h>

#include <bpf/libbpf.h>

/* The functions matching a wildcard that can be probed: sorted, each once. */
struct km_funcs {
	char **names;
	int n;
	char **skipped;   /* text symbols matching it that cannot be (see km_match) */
	int nskipped;
	bool blacklist;   /* the kprobe blacklist was read (single kprobes): some
			   * skipped functions may be in it, not only out of ftrace's list */
};

/* What km_match() goes by besides tracefs. */
struct km_from {
	char *const *ksyms;   /* kallsyms' text symbols matching, sorted, each once, */
	int nksyms;           /* if the caller read them already; -1: read here */
	const uint64_t *addrs;   /* each one's address, 0 if unknown or not unique */
	bool kprobes;         /* for one kprobe each: less the kprobe blacklist */
};

/* Matches pat (fnmatch) against the functions the kernel lets fprobes
 * trace (tracefs' available_filter_functions, as bpftrace 0.17 matches
 * its kprobe_multi wildcards), less, for single kprobes (from->kprobes),
 * the kprobe blacklist in debugfs, which ftrace does not consult; the
 * other text symbols of /proc/kallsyms that match (notrace and noinstr
 * code, __init code freed after boot, __pfx_ padding, trampolines) are the
 * skipped ones, with the blacklisted.  Without tracefs, every matching
 * text symbol of kallsyms, none skipped.  Returns 0, or -errno (nothing
 * is allocated). */
int km_match(const char *pat, const struct km_from *from, struct km_funcs *out);

void km_funcs_free(struct km_funcs *f);

/* Adds name to f's functions (kprobe:a,kprobe:b: each name joins the
 * link); km_sort() then sorts them and drops repeats.  Returns 0 or
 * -ENOMEM. */
int km_add(struct km_funcs *f, const char *name);
void km_sort(struct km_funcs *f);

/* Writes to out, comma-separated, the functions of f that ftrace cannot
 * trace (not in available_filter_functions): why a kprobe_multi link of
 * a list of names was refused.  Returns how many, or -errno. */
int km_not_traceable(const struct km_funcs *f, FILE *out);

/* Says on stderr how many functions matching spec were skipped and by
 * which lists (the blacklist only if f->blacklist), with verbose which;
 * nothing if none was. */
void km_report_skipped(const struct km_funcs *f, const char *spec, int verbose);

/* One kprobe_multi link of prog for every function of f (retprobe: at
 * their returns).  By address (the kernel then looks up no name: with
 * names it walks all of kallsyms, and takes one of the functions a name
 * several have): from's where it knows each function's, else every
 * address /proc/kallsyms has for them; by name if that fails.  *count:
 * how many functions it attached.  Returns the link, or NULL with errno
 * set. */
struct bpf_link *km_attach(struct bpf_program *prog, const struct km_funcs *f,
			   const struct km_from *from, bool retprobe, int *count);

#endif
