// SPDX-License-Identifier: GPL-2.0-only
/*
 * sysnames.c - syscall numbers by name and names by number, from the C
 * library's headers (the Makefile makes build/gen/sysnums.h) and a short
 * list of newer x86-64 syscalls.
 */
#define _GNU_SOURCE
#include "lib/sysnames.h"

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
#include "sysnums.h"
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
