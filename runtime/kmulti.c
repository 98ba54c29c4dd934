/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * kmulti.c - kprobe wildcards: which functions, and one kprobe_multi link.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "kmulti.h"
#include "lib/kscan.h"

struct km_list {
	char **v;
	int n, cap;
};

static int km_push(struct km_list *l, const char *name)
{
	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 64;
		char **v = realloc(l->v, (size_t)cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	if (!(l->v[l->n] = strdup(name)))
		return -ENOMEM;
	l->n++;
	return 0;
}

static void km_list_free(struct km_list *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int km_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts l and drops repeated names (static functions of the same name). */
static void km_uniq(struct km_list *l)
{
	int k = 0;

	if (l->n)
		qsort(l->v, (size_t)l->n, sizeof(*l->v), km_cmp);
	for (int i = 0; i < l->n; i++) {
		if (k && !strcmp(l->v[k - 1], l->v[i]))
			free(l->v[i]);
		else
			l->v[k++] = l->v[i];
	}
	l->n = k;
}

static bool km_has(const struct km_list *l, const char *name)
{
	return l->n && bsearch(&name, l->v, (size_t)l->n, sizeof(*l->v), km_cmp);
}

struct km_scan {
	struct km_list *out;
	bool text_only;   /* kallsyms: t/T symbols only */
};

static int km_seen(void *ctx, const struct kscan_sym *s)
{
	struct km_scan *k = ctx;

	if (k->text_only && s->type != 't' && s->type != 'T')
		return 0;
	return km_push(k->out, s->name);
}

/* Adds the names matching pat from the first of paths there is, files of
 * format fmt.  Returns -ENOENT if none is there. */
static int km_read(const char *const *paths, size_t n, const char *pat,
		   enum kscan_format fmt, struct km_list *out)
{
	struct km_scan k = { out, fmt == KSCAN_KALLSYMS };
	int rc = -ENOENT;

	for (size_t i = 0; rc == -ENOENT && i < n; i++)
		rc = kscan(paths[i], fmt, pat, km_seen, &k);
	return rc;
}

static const char *const km_kallsyms_path[] = { "/proc/kallsyms" };

static const char *const km_filter_paths[] = {
	"/sys/kernel/tracing/available_filter_functions",
	"/sys/kernel/debug/tracing/available_filter_functions",
};

/* "0xSTART-0xEND\tname": functions kprobes refuse (debugfs only). */
static const char *const km_blacklist_paths[] = {
	"/sys/kernel/debug/kprobes/blacklist",
};

/* Moves the names of ok that bad has to skipped. */
static int km_subtract(struct km_list *ok, const struct km_list *bad, struct km_list *skipped)
{
	int k = 0, rc = 0;

	for (int i = 0; i < ok->n; i++) {
		if (km_has(bad, ok->v[i])) {
			rc = rc ? rc : km_push(skipped, ok->v[i]);
			free(ok->v[i]);
		} else {
			ok->v[k++] = ok->v[i];
		}
	}
	ok->n = k;
	return rc;
}

/* The kallsyms text symbols matching pat that ok lacks go to skipped:
 * from's if the compiler read them, else read here. */
static int km_untraceable(const char *pat, const struct km_from *from,
			  const struct km_list *ok, struct km_list *skipped)
{
	struct km_list all = { 0 };
	char *const *ksyms = from->ksyms;
	int nksyms = from->nksyms, rc = 0;

	if (nksyms < 0) {
		rc = km_read(km_kallsyms_path, 1, pat, KSCAN_KALLSYMS, &all);
		rc = rc == -ENOENT ? 0 : rc;
		km_uniq(&all);
		ksyms = all.v;
		nksyms = all.n;
	}
	for (int i = 0; !rc && i < nksyms; i++)
		if (!km_has(ok, ksyms[i]) && !km_has(skipped, ksyms[i]))
			rc = km_push(skipped, ksyms[i]);
	km_list_free(&all);
	return rc;
}

/* Moves the functions of ok that kprobes refuse to skipped; *read: the
 * blacklist was there to read. */
static int km_blacklisted(const char *pat, struct km_list *ok, struct km_list *skipped,
			  bool *read)
{
	struct km_list bad = { 0 };
	int rc = km_read(km_blacklist_paths, 1, pat, KSCAN_BLACKLIST, &bad);

	km_uniq(&bad);
	*read = !rc;
	if (!rc)
		rc = km_subtract(ok, &bad, skipped);
	km_list_free(&bad);
	return rc == -ENOENT ? 0 : rc;   /* no debugfs: none known */
}

int km_match(const char *pat, const struct km_from *from, struct km_funcs *out)
{
	struct km_list ok = { 0 }, skipped = { 0 };
	int rc = km_read(km_filter_paths, 2, pat, KSCAN_FILTER, &ok);
	bool blacklist = false;

	memset(out, 0, sizeof(*out));
	if (rc == -ENOENT) {
		/* no tracefs: kallsyms is all there is to go by */
		km_list_free(&ok);
		rc = km_read(km_kallsyms_path, 1, pat, KSCAN_KALLSYMS, &ok);
		km_uniq(&ok);
		goto out;
	}
	km_uniq(&ok);
	if (!rc && from->kprobes)
		rc = km_blacklisted(pat, &ok, &skipped, &blacklist);
	km_uniq(&skipped);
	rc = rc ? rc : km_untraceable(pat, from, &ok, &skipped);
	km_uniq(&skipped);
out:
	if (rc) {
		km_list_free(&ok);
		km_list_free(&skipped);
		return rc;
	}
	*out = (struct km_funcs){ ok.v, ok.n, skipped.v, skipped.n, blacklist };
	return 0;
}

void km_funcs_free(struct km_funcs *f)
{
	struct km_list a = { f->names, f->n, f->n }, b = { f->skipped, f->nskipped, f->nskipped };

	km_list_free(&a);
	km_list_free(&b);
	memset(f, 0, sizeof(*f));
}

int km_add(struct km_funcs *f, const char *name)
{
	struct km_list l = { f->names, f->n, f->n };
	int rc = km_push(&l, name);

	f->names = l.v;
	f->n = l.n;
	return rc;
}

void km_sort(struct km_funcs *f)
{
	struct km_list l = { f->names, f->n, f->n };

	km_uniq(&l);
	f->n = l.n;
}

int km_not_traceable(const struct km_funcs *f, FILE *out)
{
	struct km_list ok = { 0 };
	int rc = km_read(km_filter_paths, 2, NULL, KSCAN_FILTER, &ok), n = 0;

	km_uniq(&ok);
	for (int i = 0; !rc && i < f->n; i++)
		if (!km_has(&ok, f->names[i]))
			fprintf(out, "%s%s", n++ ? ", " : "", f->names[i]);
	km_list_free(&ok);
	return rc ? rc : n;
}

#define KM_WHY_KPROBES "that cannot be probed (notrace, blacklisted or a part of another)"
/* What kallsyms lists as text and ftrace's list lacks (6.12: 63,499 of
 * 105,892): __pfx_ padding (49,691), notrace code (trace_event_raw_*,
 * perf_trace_*, __bpf_trace_*), static-call trampolines (__SCT__*),
 * noinstr code, __init code ftrace dropped after boot (vfs_caches_init). */
#define KM_WHY_FTRACE "ftrace cannot trace (not in available_filter_functions: notrace or " \
	"noinstr code, __init code freed after boot, padding or trampolines)"

void km_report_skipped(const struct km_funcs *f, const char *spec, int verbose)
{
	if (!f->nskipped)
		return;
	/* A kprobe_multi link goes through ftrace, which does not read the
	 * kprobe blacklist: only single kprobes skip what it lists. */
	fprintf(stderr, "perf-run: %s: skipped %d matching function%s %s%s", spec, f->nskipped,
		f->nskipped == 1 ? "" : "s", f->blacklist ? KM_WHY_KPROBES : KM_WHY_FTRACE,
		verbose ? ":" : "; -v names them");
	for (int i = 0; verbose && i < f->nskipped; i++)
		fprintf(stderr, " %s", f->skipped[i]);
	fputc('\n', stderr);
}

/* The address of each function of f, from from; NULL if one is unknown. */
static unsigned long *km_addrs(const struct km_funcs *f, const struct km_from *from)
{
	unsigned long *a;

	if (!from || !from->addrs || from->nksyms <= 0 || !(a = calloc((size_t)f->n, sizeof(*a))))
		return NULL;
	for (int i = 0; i < f->n; i++) {
		char *const *k = bsearch(&f->names[i], from->ksyms, (size_t)from->nksyms,
					 sizeof(*from->ksyms), km_cmp);

		if (!k || !(a[i] = (unsigned long)from->addrs[k - from->ksyms])) {
			free(a);
			return NULL;
		}
	}
	return a;
}

static int km_ulong_cmp(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return (x > y) - (x < y);
}

/* ftrace's place of each function it can trace (6.5+). */
static const char *const km_filter_addrs_paths[] = {
	"/sys/kernel/tracing/available_filter_functions_addrs",
	"/sys/kernel/debug/tracing/available_filter_functions_addrs",
};

static int km_every_read(const struct km_funcs *f, struct kscan_hits *h)
{
	int rc = -ENOENT;

	for (size_t i = 0; rc == -ENOENT && i < 2; i++)
		rc = kscan_names(km_filter_addrs_paths[i], KSCAN_FILTER_ADDRS, f->names, f->n, h);
	if (rc == -ENOENT)   /* older kernels: every text symbol's */
		rc = kscan_names(km_kallsyms_path[0], KSCAN_KALLSYMS, f->names, f->n, h);
	return rc;
}

/* The address of every function of f: where several functions have one
 * name (static ones of several units: m_start, three in 6.12's ftrace
 * list), each of them, where the kernel, given the name, takes one.
 * ftrace's addresses where tracefs lists them (only functions it can
 * trace), else kallsyms'.  vmlinux's, or a loaded module's where vmlinux
 * has none, as a kprobe on the name would.  Sorted, each once, *n how
 * many; NULL if a function has no address (kptr_restrict hides them). */
static unsigned long *km_addrs_all(const struct km_funcs *f, size_t *n)
{
	struct kscan_hits h = { 0 };
	bool *vm = calloc((size_t)f->n + 1, sizeof(*vm)), *any = calloc((size_t)f->n + 1, 1);
	unsigned long *a = NULL;
	size_t k = 0;
	int rc = vm && any ? km_every_read(f, &h) : -ENOMEM;

	for (size_t i = 0; !rc && i < h.n; i++) {
		vm[h.of[i]] |= !h.mod[i];
		any[h.of[i]] = true;
	}
	for (int i = 0; !rc && i < f->n; i++)
		rc = any[i] ? 0 : -ENOENT;
	if (!rc && !(a = malloc((h.n ? h.n : 1) * sizeof(*a))))
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < h.n; i++)
		if (!h.mod[i] || !vm[h.of[i]])
			a[k++] = (unsigned long)h.addr[i];
	free(vm);
	free(any);
	kscan_hits_free(&h);
	if (rc) {
		free(a);
		return NULL;
	}
	qsort(a, k, sizeof(*a), km_ulong_cmp);
	*n = 0;
	for (size_t i = 0; i < k; i++)
		if (!*n || a[*n - 1] != a[i])
			a[(*n)++] = a[i];
	return a;
}

struct bpf_link *km_attach(struct bpf_program *prog, const struct km_funcs *f,
			   const struct km_from *from, bool retprobe, int *count)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, o, .syms = (const char **)f->names,
		    .cnt = (size_t)f->n, .retprobe = retprobe);
	size_t n = (size_t)f->n;
	/* the compiler's when each name is one function's, else kallsyms' */
	unsigned long *addrs = km_addrs(f, from);
	struct bpf_link *l = NULL;

	if (!addrs)
		addrs = km_addrs_all(f, &n);
	if (addrs) {
		LIBBPF_OPTS(bpf_kprobe_multi_opts, oa, .addrs = addrs, .cnt = n,
			    .retprobe = retprobe);
		l = bpf_program__attach_kprobe_multi_opts(prog, NULL, &oa);
		free(addrs);
	}
	*count = l ? (int)n : f->n;
	/* by name if an address was refused (the module it was in went) */
	return l ? l : bpf_program__attach_kprobe_multi_opts(prog, NULL, &o);
}
