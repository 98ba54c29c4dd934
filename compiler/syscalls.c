/*
 * syscalls.c - syscall numbers of the syscalls:* events, and the split of
 * a wildcard into one raw_syscalls program plus the perf events left over.
 */
#define _GNU_SOURCE
#include "syscalls.h"

#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

struct sys_name {
	const char *name;
	int nr;
};

/* { "name", SYS_name } for every SYS_ macro of <sys/syscall.h>, sorted by
 * name (made by the Makefile). */
static const struct sys_name from_headers[] = {
#include "sysnames.h"
};

/* Events named after the function (SYSCALL_DEFINE) rather than the
 * syscall, and syscalls newer than Debian 12's headers.  Each number was
 * checked against the __syscall_nr the kernel's own event records. */
static const struct sys_name extra[] = {
#if defined(__x86_64__)
	{ "newstat", SYS_stat }, { "newfstat", SYS_fstat }, { "newlstat", SYS_lstat },
	{ "newuname", SYS_uname }, { "umount", SYS_umount2 }, { "sendfile64", SYS_sendfile },
	{ "uretprobe", 335 }, { "uprobe", 336 }, { "cachestat", 451 }, { "fchmodat2", 452 },
	{ "map_shadow_stack", 453 }, { "futex_wake", 454 }, { "futex_wait", 455 },
	{ "futex_requeue", 456 }, { "statmount", 457 }, { "listmount", 458 },
	{ "lsm_get_self_attr", 459 }, { "lsm_set_self_attr", 460 },
	{ "lsm_list_modules", 461 }, { "mseal", 462 }, { "setxattrat", 463 },
	{ "getxattrat", 464 }, { "listxattrat", 465 }, { "removexattrat", 466 },
	{ "open_tree_attr", 467 }, { "file_getattr", 468 }, { "file_setattr", 469 },
#endif
	{ NULL, -1 },
};

static int by_name(const void *k, const void *e)
{
	return strcmp(k, ((const struct sys_name *)e)->name);
}

int sys_nr(const char *name)
{
	const struct sys_name *s = bsearch(name, from_headers,
					   sizeof(from_headers) / sizeof(from_headers[0]),
					   sizeof(from_headers[0]), by_name);

	if (s)
		return s->nr;
	for (s = extra; s->name; s++)
		if (!strcmp(s->name, name))
			return s->nr;
	return -1;
}

const char *sys_name(int nr)
{
	for (size_t i = 0; i < sizeof(from_headers) / sizeof(from_headers[0]); i++)
		if (from_headers[i].nr == nr)
			return from_headers[i].name;
	/* syscalls newer than the headers; the aliases in extra (newstat)
	 * have their header name, found above */
	for (const struct sys_name *s = extra; s->name; s++)
		if (s->nr == nr)
			return s->name;
	return NULL;
}

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
