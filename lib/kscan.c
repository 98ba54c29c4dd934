// SPDX-License-Identifier: GPL-2.0-only
/*
 * kscan.c - fast reading of /proc/kallsyms and tracefs' function lists.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kscan.h"

/* Splits line into at most max blank-separated words, in place. */
static int kscan_words(char *line, char **w, int max)
{
	int n = 0;

	while (n < max) {
		line += strspn(line, " \t\n");
		if (!*line)
			break;
		w[n++] = line;
		line += strcspn(line, " \t\n");
		if (*line)
			*line++ = '\0';
	}
	return n;
}

/* "[mod]" -> "mod", in place; anything else -> NULL. */
static const char *kscan_mod(char *w)
{
	size_t n = w ? strlen(w) : 0;

	if (n < 3 || w[0] != '[' || w[n - 1] != ']')
		return NULL;
	w[n - 1] = '\0';
	return w + 1;
}

static int kscan_line(char *line, enum kscan_format fmt, struct kscan_sym *s)
{
	char *w[4] = { 0 };
	/* words before the module: the name is the last of them */
	int want = fmt == KSCAN_KALLSYMS ? 3 : fmt == KSCAN_BLACKLIST ||
		   fmt == KSCAN_FILTER_ADDRS ? 2 : 1;
	int n = kscan_words(line, w, want + 1);

	if (n < want)
		return -1;
	*s = (struct kscan_sym){ .name = w[want - 1], .mod = kscan_mod(w[want]) };
	if (fmt == KSCAN_KALLSYMS || fmt == KSCAN_FILTER_ADDRS)
		s->addr = strtoull(w[0], NULL, 16);
	if (fmt == KSCAN_KALLSYMS)
		s->type = w[1][0];
	return 0;
}

/* Where the name starts in a raw line, to test the prefix before
 * splitting it: after `skip` words. */
static const char *kscan_name_at(const char *line, int skip)
{
	for (int i = 0; i < skip; i++) {
		line += strspn(line, " \t");
		line += strcspn(line, " \t\n");
	}
	return line + strspn(line, " \t");
}

static int kscan_file(FILE *f, enum kscan_format fmt, const char *pat,
		      int (*fn)(void *ctx, const struct kscan_sym *sym), void *ctx)
{
	static const int skip[] = { [KSCAN_KALLSYMS] = 2, [KSCAN_FILTER] = 0,
				    [KSCAN_BLACKLIST] = 1, [KSCAN_FILTER_ADDRS] = 1 };
	size_t lit = pat ? strcspn(pat, "*?[\\") : 0, cap = 0;
	char *line = NULL;
	int rc = 0;

	while (!rc && getline(&line, &cap, f) > 0) {
		struct kscan_sym s;

		if (lit && strncmp(kscan_name_at(line, skip[fmt]), pat, lit))
			continue;
		if (kscan_line(line, fmt, &s) < 0)
			continue;
		if (pat && fnmatch(pat, s.name, 0))
			continue;
		rc = fn(ctx, &s);
	}
	if (!rc && ferror(f))
		rc = -EIO;
	free(line);
	return rc;
}

int kscan(const char *path, enum kscan_format fmt, const char *pat,
	  int (*fn)(void *ctx, const struct kscan_sym *sym), void *ctx)
{
	/* stdio would read a /proc or tracefs file 1 KiB a call (its
	 * st_blksize), and seq_file gives up to a page: 4x the calls */
	enum { KSCAN_BUF = 1 << 16 };
	char *buf = malloc(KSCAN_BUF);
	FILE *f = buf ? fopen(path, "re") : NULL;
	int rc;

	if (!f) {
		rc = buf ? -errno : -ENOMEM;
		free(buf);
		return rc;
	}
	setvbuf(f, buf, _IOFBF, KSCAN_BUF);
	rc = kscan_file(f, fmt, pat, fn, ctx);
	fclose(f);
	free(buf);
	return rc;
}

struct kscan_find {
	const char *name;
	uint64_t addr;
};

static int kscan_found(void *ctx, const struct kscan_sym *s)
{
	struct kscan_find *f = ctx;

	if (!s->addr || strcmp(s->name, f->name))
		return 0;
	f->addr = s->addr;
	return 1;
}

int kscan_addr(const char *name, uint64_t *addr)
{
	struct kscan_find f = { .name = name };
	/* the name is its own pattern (its whole length the literal prefix),
	 * unless fnmatch would read a character of it as a wildcard */
	const char *pat = name[strcspn(name, "*?[\\")] ? NULL : name;
	int rc = kscan("/proc/kallsyms", KSCAN_KALLSYMS, pat, kscan_found, &f);

	if (rc <= 0)
		return rc < 0 ? rc : -ENOENT;
	*addr = f.addr;
	return 0;
}

struct kscan_names_ctx {
	char *const *names;
	int n;
	struct kscan_hits *h;
};

static int kscan_names_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int kscan_hit(void *arg, const struct kscan_sym *s)
{
	struct kscan_names_ctx *c = arg;
	struct kscan_hits *h = c->h;
	const char *name = s->name;
	char *const *k;

	if ((s->type && s->type != 't' && s->type != 'T') || !s->addr ||
	    !(k = bsearch(&name, c->names, (size_t)c->n, sizeof(*k), kscan_names_cmp)))
		return 0;
	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 256;
		uint64_t *a = realloc(h->addr, cap * sizeof(*a));
		int *of = a ? realloc(h->of, cap * sizeof(*of)) : NULL;
		bool *mod = of ? realloc(h->mod, cap * sizeof(*mod)) : NULL;

		if (a)
			h->addr = a;
		if (of)
			h->of = of;
		if (!mod)
			return -ENOMEM;
		h->mod = mod;
		h->cap = cap;
	}
	h->addr[h->n] = s->addr;
	h->of[h->n] = (int)(k - c->names);
	h->mod[h->n++] = s->mod != NULL;
	return 0;
}

int kscan_names(const char *path, enum kscan_format fmt, char *const *names, int n,
		struct kscan_hits *h)
{
	struct kscan_names_ctx c = { names, n, h };

	return kscan(path, fmt, NULL, kscan_hit, &c);
}

void kscan_hits_free(struct kscan_hits *h)
{
	free(h->addr);
	free(h->of);
	free(h->mod);
	memset(h, 0, sizeof(*h));
}
