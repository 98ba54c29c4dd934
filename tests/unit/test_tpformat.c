// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_tpformat.c - which tracefs events are kernel tracepoints, the ones a
 * program without `args` attaches as raw tracepoints: not syscalls:*, not
 * ftrace's own, not a dynamic event.  The dynamic event is a uprobe event
 * this test makes in a group of its own and removes again.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compiler/tpformat.h"
#include "unit.h"

/* Appends line to tracefs file name; 0 on success.  (Not stdio: its "a"
 * mode seeks, which tracefs refuses.) */
static int tracefs_write(const char *name, const char *line)
{
	char path[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/../%s", tpf_events_dir(), name);
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = write(fd, line, strlen(line));
	return close(fd) || n != (ssize_t)strlen(line) ? -1 : 0;
}

int main(void)
{
	char group[64], line[512], exe[256];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int made;

	if (!tpf_events_dir() || n < 0) {
		printf("skip: no tracefs\n");
		return unit_summary();
	}
	exe[n] = 0;
	/* Before the first query: the list of dynamic events is read once. */
	snprintf(group, sizeof(group), "perfrun_unit_%d", (int)getpid());
	snprintf(line, sizeof(line), "p:%s/tp_check %s:0x1000\n", group, exe);
	made = tracefs_write("uprobe_events", line) == 0;

	unit_expect("sched:sched_switch is a tracepoint", tpf_is_tracepoint("sched", "sched_switch"));
	unit_expect("raw_syscalls:sys_enter is a tracepoint",
		    tpf_is_tracepoint("raw_syscalls", "sys_enter"));
	unit_expect("syscalls:sys_enter_write is not",
		    !tpf_is_tracepoint("syscalls", "sys_enter_write"));
	unit_expect("ftrace:print is not", !tpf_is_tracepoint("ftrace", "print"));
	if (made) {
		unit_expect("a uprobe event is not", !tpf_is_tracepoint(group, "tp_check"));
		unit_expect("its name in another group is",
			    tpf_is_tracepoint("perfrun_other_group", "tp_check"));
		snprintf(line, sizeof(line), "-:%s/tp_check\n", group);
		unit_expect("the uprobe event removed", tracefs_write("uprobe_events", line) == 0);
	} else {
		printf("skip: cannot make a uprobe event (not root?)\n");
	}
	return unit_summary();
}
