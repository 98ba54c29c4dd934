// SPDX-License-Identifier: GPL-2.0-only
/*
 * syscalls.c - the split of
 * a wildcard into one raw_syscalls program plus the perf events left over.
 */
#define _GNU_SOURCE
#include "syscalls.h"

#include <stdlib.h>
#include <string.h>

static const char *const family_prefix[] = { NULL, "syscalls:sys_enter_", "syscalls:sys_exit_" };

/* The syscall number of site i if it is an event of family f, else -1. */
static int site_nr(const struct probe *p, int i, int f)
{
	const char *pre = family_prefix[f];

	if (strncmp(p->sites[i].func, pre, strlen(pre)))
		return -1;
	return sys_nr(p->sites[i].func + strlen(pre));
}

/* An empty probe like p, for some of its sites. */
static struct probe *like(const struct probe *p)
{
	struct probe *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->kind = p->kind;
	r->loc = p->loc;
	r->args = p->args;
	r->spec = p->spec ? strdup(p->spec) : NULL;
	r->name = strdup(p->name);
	r->category = strdup(p->category);
	r->event = strdup(p->event);
	if (!r->name || !r->category || !r->event || (p->spec && !r->spec)) {
		probe_free(r);
		return NULL;
	}
	return r;
}

/* Moves site i of p to the end of r's sites. */
static int move_site(struct probe *p, int i, struct probe *r)
{
	struct probe_site *s = realloc(r->sites, sizeof(*s) * (size_t)(r->nsites + 1));

	if (!s)
		return -1;
	r->sites = s;
	r->sites[r->nsites++] = p->sites[i];
	memmove(&p->sites[i], &p->sites[i + 1], sizeof(*s) * (size_t)(p->nsites - i - 1));
	p->nsites--;
	return 0;
}

/* How many sites are of family f with a known syscall number; *max the largest. */
static int count_family(const struct probe *p, int f, int *max)
{
	int n = 0;

	*max = -1;
	for (int i = 0; i < p->nsites; i++) {
		int nr = site_nr(p, i, f);

		n += nr >= 0;
		*max = nr > *max ? nr : *max;
	}
	return n;
}

/* Moves those sites of p into r, a raw program of family f. */
static int take_family(struct probe *p, int f, int max, struct probe *r)
{
	r->sys_raw = f;
	r->nsys = max + 1;
	r->sys_site = malloc(sizeof(*r->sys_site) * (size_t)r->nsys);
	if (!r->sys_site)
		return -1;
	for (int i = 0; i < r->nsys; i++)
		r->sys_site[i] = -1;
	for (int i = 0; i < p->nsites;) {
		int nr = site_nr(p, i, f);

		/* Unknown, or a second event of the same number: stays in p. */
		if (nr < 0 || r->sys_site[nr] >= 0) {
			i++;
			continue;
		}
		r->sys_site[nr] = (int16_t)r->nsites;
		if (move_site(p, i, r))
			return -1;
	}
	return 0;
}

/* A one-site probe is named after its site, as parse_tracepoint does. */
static int name_single(struct probe *p)
{
	char *n;

	if (p->nsites != 1)
		return 0;
	if (asprintf(&n, "tracepoint:%s", p->sites[0].func) < 0)
		return -1;
	free(p->name);
	p->name = n;
	return 0;
}

int sys_split(struct probe *p, struct probe *raw[2])
{
	raw[0] = raw[1] = NULL;
#if defined(__x86_64__)   /* cg_syscall.c reads x86-64's struct pt_regs */
	if (p->kind != PK_TRACEPOINT)
		return 0;
	for (int f = SYS_ENTER; f <= SYS_EXIT; f++) {
		int max, n = count_family(p, f, &max);
		struct probe *r;

		if (n < SYS_RAW_MIN)
			continue;
		r = raw[f - SYS_ENTER] = like(p);
		if (!r || take_family(p, f, max, r))
			return -1;
	}
	if ((raw[0] || raw[1]) && name_single(p))
		return -1;
#endif
	return 0;
}
