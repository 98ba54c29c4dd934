/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * kmulti.c - kprobe wildcards: which functions, and one kprobe_multi link.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "kmulti.h"

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

static FILE *km_open_first(const char *const *paths, size_t n)
{
	FILE *f = NULL;

	for (size_t i = 0; !f && i < n; i++)
		f = fopen(paths[i], "re");
	return f;
}

/* Adds the names matching pat from f, whose lines have the name as
 * word `word` (0-based; kallsyms: only t/T symbols). */
static int km_read(FILE *f, const char *pat, int word, struct km_list *out)
{
	char line[512], a[256], b[256], c[256];
	int rc = 0;

	while (!rc && fgets(line, sizeof(line), f)) {
		int k = sscanf(line, "%255s %255s %255s", a, b, c);
		const char *name = word == 0 ? a : word == 1 ? b : c;

		if (k <= word)
			continue;
		if (word == 2 && strcmp(b, "t") && strcmp(b, "T"))
			continue;
		if (!fnmatch(pat, name, 0))
			rc = km_push(out, name);
	}
	return rc;
}

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

/* The kallsyms text symbols matching pat that ok lacks go to skipped. */
static int km_untraceable(const char *pat, const struct km_list *ok, struct km_list *skipped)
{
	struct km_list all = { 0 };
	FILE *f = fopen("/proc/kallsyms", "re");
	int rc = f ? km_read(f, pat, 2, &all) : 0;

	if (f)
		fclose(f);
	km_uniq(&all);
	for (int i = 0; !rc && i < all.n; i++)
		if (!km_has(ok, all.v[i]) && !km_has(skipped, all.v[i]))
			rc = km_push(skipped, all.v[i]);
	km_list_free(&all);
	return rc;
}

int km_match(const char *pat, struct km_funcs *out)
{
	struct km_list ok = { 0 }, bad = { 0 }, skipped = { 0 };
	FILE *f = km_open_first(km_filter_paths, 2);
	int rc;

	memset(out, 0, sizeof(*out));
	if (!f) {
		/* no tracefs: kallsyms is all there is to go by */
		if (!(f = fopen("/proc/kallsyms", "re")))
			return -errno;
		rc = km_read(f, pat, 2, &ok);
		fclose(f);
		km_uniq(&ok);
		goto out;
	}
	rc = km_read(f, pat, 0, &ok);
	fclose(f);
	km_uniq(&ok);
	if (!rc && (f = km_open_first(km_blacklist_paths, 1))) {
		rc = km_read(f, pat, 1, &bad);
		fclose(f);
		km_uniq(&bad);
		rc = rc ? rc : km_subtract(&ok, &bad, &skipped);
	}
	km_uniq(&skipped);
	rc = rc ? rc : km_untraceable(pat, &ok, &skipped);
	km_uniq(&skipped);
out:
	km_list_free(&bad);
	if (rc) {
		km_list_free(&ok);
		km_list_free(&skipped);
		return rc;
	}
	*out = (struct km_funcs){ ok.v, ok.n, skipped.v, skipped.n };
	return 0;
}

void km_funcs_free(struct km_funcs *f)
{
	struct km_list a = { f->names, f->n, f->n }, b = { f->skipped, f->nskipped, f->nskipped };

	km_list_free(&a);
	km_list_free(&b);
	memset(f, 0, sizeof(*f));
}

void km_report_skipped(const struct km_funcs *f, const char *spec, int verbose)
{
	if (!f->nskipped)
		return;
	fprintf(stderr, "perf-run: %s: skipped %d matching function%s that cannot be probed "
		"(notrace, blacklisted or a part of another)%s", spec, f->nskipped,
		f->nskipped == 1 ? "" : "s", verbose ? ":" : "; -v names them");
	for (int i = 0; verbose && i < f->nskipped; i++)
		fprintf(stderr, " %s", f->skipped[i]);
	fputc('\n', stderr);
}

struct bpf_link *km_attach(struct bpf_program *prog, const struct km_funcs *f, bool retprobe)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, o, .syms = (const char **)f->names,
		    .cnt = (size_t)f->n, .retprobe = retprobe);

	return bpf_program__attach_kprobe_multi_opts(prog, NULL, &o);
}
