// SPDX-License-Identifier: GPL-2.0-only
/*
 * kplace.c - kernel functions whose name other symbols share, named as a
 * kprobe can name them (see kplace.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kplace.h"
#include "kscan.h"

/* One line of kallsyms. */
struct kp_sym {
	uint64_t addr;
	char *name;
	const char *mod;   /* interned (kp_syms.mods), NULL for vmlinux */
	bool text;
};

struct kp_syms {
	struct kp_sym *s;
	int n, cap;
	char **mods;       /* each module's name once */
	int nmods;
};

/* Modules' lines come together, so the last one is nearly always it. */
static const char *kp_intern(struct kp_syms *k, const char *mod)
{
	if (!mod)
		return NULL;
	for (int i = k->nmods - 1; i >= 0; i--)
		if (!strcmp(k->mods[i], mod))
			return k->mods[i];
	char **m = realloc(k->mods, (size_t)(k->nmods + 1) * sizeof(*m));
	if (!m)
		return NULL;
	k->mods = m;
	return (k->mods[k->nmods++] = strdup(mod));
}

static int kp_add(void *ctx, const struct kscan_sym *s)
{
	struct kp_syms *k = ctx;

	if (k->n == k->cap) {
		int cap = k->cap ? 2 * k->cap : 1 << 16;
		struct kp_sym *n = realloc(k->s, (size_t)cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		k->s = n;
		k->cap = cap;
	}
	struct kp_sym *e = &k->s[k->n];
	*e = (struct kp_sym){ .addr = s->addr, .name = strdup(s->name),
			      .mod = kp_intern(k, s->mod),
			      .text = s->type == 't' || s->type == 'T' };
	if (!e->name || (s->mod && !e->mod)) {
		free(e->name);
		return -ENOMEM;
	}
	k->n++;
	return 0;
}

static void kp_syms_free(struct kp_syms *k)
{
	for (int i = 0; i < k->n; i++)
		free(k->s[i].name);
	for (int i = 0; i < k->nmods; i++)
		free(k->mods[i]);
	free(k->s);
	free(k->mods);
}

/* Orders pointers to symbols by name, then object (interned pointers). */
static int kp_by_name(const void *a, const void *b)
{
	const struct kp_sym *x = *(struct kp_sym *const *)a, *y = *(struct kp_sym *const *)b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return (x->mod > y->mod) - (x->mod < y->mod);
}

static int kp_by_addr(const void *a, const void *b)
{
	const struct kp_sym *x = *(struct kp_sym *const *)a, *y = *(struct kp_sym *const *)b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* How many symbols the kernel counts for a kprobe naming s: vmlinux and
 * every module for a vmlinux symbol ("NAME"), its module's alone for a
 * module's ("MOD:NAME").  names: every symbol, sorted by kp_by_name. */
static int kp_count(struct kp_sym **names, int n, const struct kp_sym *s)
{
	int lo = 0, hi = n, c = 0;

	while (lo < hi) {   /* the first of s's name */
		int mid = (lo + hi) / 2;
		if (strcmp(names[mid]->name, s->name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (int i = lo; i < n && !strcmp(names[i]->name, s->name); i++)
		c += !s->mod || names[i]->mod == s->mod;
	return c;
}

/* The text symbols of one object (mod, NULL: vmlinux), sorted by address. */
static int kp_object(const struct kp_syms *k, const char *mod, struct kp_sym ***out)
{
	struct kp_sym **o = malloc((size_t)(k->n ? k->n : 1) * sizeof(*o));
	int n = 0;

	if (!o)
		return -ENOMEM;
	for (int i = 0; i < k->n; i++)
		if (k->s[i].text && k->s[i].mod == mod)
			o[n++] = &k->s[i];
	qsort(o, (size_t)n, sizeof(*o), kp_by_addr);
	*out = o;
	return n;
}

/* Names the place addr of object mod from the nearest text symbol at or
 * before it whose name is its own. */
static int kp_name(struct kp_sym **names, int nnames, struct kp_sym **obj, int nobj,
		   const char *mod, uint64_t addr, struct kplace *p)
{
	int i = nobj - 1;

	while (i >= 0 && obj[i]->addr > addr)
		i--;
	for (; i >= 0; i--)
		if (kp_count(names, nnames, obj[i]) == 1)
			break;
	if (i < 0)
		return -ESRCH;
	p->addr = addr;
	p->off = addr - obj[i]->addr;
	if (mod ? asprintf(&p->sym, "%s:%s", mod, obj[i]->name) < 0
		: !(p->sym = strdup(obj[i]->name)))
		return -ENOMEM;
	return 0;
}

/* Whether s is one of func's functions: its name, in vmlinux or in
 * module mod; any module's if anymod. */
static bool kp_target(const struct kp_sym *s, const char *mod, const char *name, bool anymod)
{
	if (!s->text || strcmp(s->name, name))
		return false;
	if (anymod)
		return s->mod != NULL;
	return mod ? s->mod && !strcmp(s->mod, mod) : !s->mod;
}

static int kp_place_by_addr(const void *a, const void *b)
{
	const struct kplace *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* Writes to p the places of func's functions (kp_target) + off; returns
 * how many, or -errno (those written stay for the caller to free). */
static int kp_scan(const struct kp_syms *k, struct kp_sym **names, const char *mod,
		   const char *name, bool anymod, uint64_t off, struct kplace *p, int *np)
{
	struct kp_sym **obj = NULL;
	const char *objmod = NULL;
	int nobj = -1, rc = 0;

	for (int i = 0; i < k->n && !rc; i++) {
		const struct kp_sym *s = &k->s[i];
		if (!kp_target(s, mod, name, anymod))
			continue;
		if (!s->addr) {
			rc = -EPERM;
			break;
		}
		if (nobj < 0 || s->mod != objmod) {   /* another object's symbols */
			free(obj);
			if ((nobj = kp_object(k, s->mod, &obj)) < 0) {
				rc = nobj;
				obj = NULL;
				break;
			}
			objmod = s->mod;
		}
		if (!(rc = kp_name(names, k->n, obj, nobj, s->mod, s->addr + off, &p[*np])))
			(*np)++;
	}
	free(obj);
	return rc;
}

static int kp_places(const struct kp_syms *k, const char *mod, const char *name,
		     uint64_t off, struct kplace **out)
{
	size_t n = (size_t)(k->n ? k->n : 1);
	struct kp_sym **names = malloc(n * sizeof(*names));
	struct kplace *p = calloc(n, sizeof(*p));
	int np = 0, rc = -ENOMEM;

	if (names && p) {
		for (int i = 0; i < k->n; i++)
			names[i] = &k->s[i];
		qsort(names, (size_t)k->n, sizeof(*names), kp_by_name);
		rc = kp_scan(k, names, mod, name, false, off, p, &np);
		if (!rc && !np && !mod)   /* not vmlinux's: a loaded module's */
			rc = kp_scan(k, names, NULL, name, true, off, p, &np);
	}
	free(names);
	if (rc) {
		kplace_free(p, np);
		return rc;
	}
	qsort(p, (size_t)np, sizeof(*p), kp_place_by_addr);
	*out = p;
	return np;
}

int kplace_find(const char *path, const char *func, uint64_t off, struct kplace **out)
{
	struct kp_syms k = { 0 };
	const char *colon = strchr(func, ':');
	char *mod = colon ? strndup(func, (size_t)(colon - func)) : NULL;
	int rc = colon && !mod ? -ENOMEM : kscan(path, KSCAN_KALLSYMS, NULL, kp_add, &k);

	*out = NULL;
	if (!rc)
		rc = kp_places(&k, mod, colon ? colon + 1 : func, off, out);
	kp_syms_free(&k);
	free(mod);
	return rc;
}

void kplace_free(struct kplace *p, int n)
{
	for (int i = 0; p && i < n; i++)
		free(p[i].sym);
	free(p);
}
