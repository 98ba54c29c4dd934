// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_syscalls.c - syscall numbers of syscalls:* events, and how
 * sys_split() divides a wildcard between one raw_syscalls program and
 * the perf events it cannot stand for.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "compiler/probe.h"
#include "compiler/syscalls.h"
#include "unit.h"

/* A tracepoint probe as parse_tracepoint makes it for a wildcard. */
static struct probe *wildcard(const char *const *events, int n)
{
	struct probe *p = calloc(1, sizeof(*p));

	p->kind = PK_TRACEPOINT;
	p->name = strdup("tracepoint:syscalls:sys_enter_*");
	p->category = strdup("syscalls");
	p->event = strdup("sys_enter_*");
	p->sites = calloc((size_t)n, sizeof(*p->sites));
	for (int i = 0; i < n; i++)
		if (asprintf(&p->sites[p->nsites++].func, "syscalls:%s", events[i]) < 0)
			abort();
	return p;
}

static void test_numbers(void)
{
	unit_expect("openat", sys_nr("openat") == SYS_openat);
	unit_expect("read is 0", sys_nr("read") == SYS_read);
	unit_expect("newstat is stat", sys_nr("newstat") == SYS_stat);
	unit_expect("umount is umount2", sys_nr("umount") == SYS_umount2);
	unit_expect("unknown", sys_nr("no_such_syscall") == -1);
	unit_expect("empty", sys_nr("") == -1);
#if defined(__x86_64__)
	unit_expect("cachestat, newer than the headers", sys_nr("cachestat") == 451);
#endif
}

static void test_split(void)
{
	static const char *const ev[] = {
		"sys_enter_read", "sys_enter_write", "sys_enter_no_such_one", "sys_enter_openat",
		"sys_enter_close", "sys_enter_getppid", "sys_enter_getpgid", "sys_enter_newstat",
		"sys_enter_mmap",
	};
	struct probe *p = wildcard(ev, 9), *raw[2];

	unit_expect("split ok", sys_split(p, raw) == 0);
#if defined(__x86_64__)
	struct probe *r = raw[0];

	unit_expect("enter: raw", r && r->sys_raw == SYS_ENTER && !raw[1]);
	unit_expect("enter: 8 sites", r && r->nsites == 8);
	unit_expect("read is site 0", r && r->nsys > SYS_read && r->sys_site[SYS_read] == 0);
	unit_expect("openat is site 2", r && r->nsys > SYS_openat && r->sys_site[SYS_openat] == 2);
	unit_expect("no site for an absent syscall", r && r->sys_site[SYS_fork] == -1);
	unit_expect("unknown one stays a perf event", p->nsites == 1 && !p->sys_raw);
	unit_expect_str("which is named after its site", p->name,
			"tracepoint:syscalls:sys_enter_no_such_one");
	probe_free(r);
#endif
	probe_free(p);

	/* Fewer than SYS_RAW_MIN events: perf events. */
	static const char *const few[] = { "sys_enter_read", "sys_enter_write" };
	p = wildcard(few, 2);
	unit_expect("few: perf events", sys_split(p, raw) == 0 && !raw[0] && !raw[1] &&
		    p->nsites == 2);
	probe_free(p);

	/* syscalls:*: one raw program for each family, nothing left. */
	static const char *const both[] = {
		"sys_enter_read", "sys_exit_read", "sys_enter_write", "sys_exit_write",
		"sys_enter_close", "sys_exit_close", "sys_enter_mmap", "sys_exit_mmap",
		"sys_enter_openat", "sys_exit_openat", "sys_enter_getppid", "sys_exit_getppid",
		"sys_enter_getpgid", "sys_exit_getpgid", "sys_enter_brk", "sys_exit_brk",
	};
	p = wildcard(both, 16);
	unit_expect("both: ok", sys_split(p, raw) == 0);
#if defined(__x86_64__)
	unit_expect("both: enter raw", raw[0] && raw[0]->sys_raw == SYS_ENTER && raw[0]->nsites == 8);
	unit_expect("both: exit raw", raw[1] && raw[1]->sys_raw == SYS_EXIT && raw[1]->nsites == 8);
	unit_expect("both: none left", p->nsites == 0);
	unit_expect_str("exit site order kept", raw[1] ? raw[1]->sites[1].func : NULL,
			"syscalls:sys_exit_write");
	probe_free(raw[0]);
	probe_free(raw[1]);
#endif
	probe_free(p);
}

int main(void)
{
	test_numbers();
	test_split();
	return unit_summary();
}
