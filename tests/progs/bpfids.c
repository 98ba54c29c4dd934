/* SPDX-License-Identifier: GPL-2.0-only */ /* bpfids: lists the BPF objects the kernel holds, one a line, for tests
 * that compare the kernel's lists before and after killing perf-run:
 *   prog ID NAME
 *   map ID NAME
 *   link ID PROG_ID
 * Walks the ID spaces with BPF_*_GET_NEXT_ID (no bpftool needed). */
#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int sys_bpf(int cmd, union bpf_attr *a)
{
	return (int)syscall(__NR_bpf, cmd, a, sizeof(*a));
}

static int next_id(int cmd, unsigned *id)
{
	union bpf_attr a;
	memset(&a, 0, sizeof(a));
	a.start_id = *id;
	if (sys_bpf(cmd, &a))
		return -1;
	*id = a.next_id;
	return 0;
}

static int fd_of(int cmd, unsigned id, int link)
{
	union bpf_attr a;
	memset(&a, 0, sizeof(a));
	if (link)
		a.link_id = id;
	else
		a.prog_id = id;   /* same place as map_id */
	return sys_bpf(cmd, &a);
}

static int info(int fd, void *buf, unsigned len)
{
	union bpf_attr a;
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = (unsigned)fd;
	a.info.info_len = len;
	a.info.info = (unsigned long)buf;
	return sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a);
}

int main(void)
{
	unsigned id = 0;
	while (!next_id(BPF_PROG_GET_NEXT_ID, &id)) {
		struct bpf_prog_info pi;
		memset(&pi, 0, sizeof(pi));
		int fd = fd_of(BPF_PROG_GET_FD_BY_ID, id, 0);
		if (fd >= 0 && !info(fd, &pi, sizeof(pi)))
			printf("prog %u %s\n", id, pi.name[0] ? pi.name : "-");
		if (fd >= 0)
			close(fd);
	}
	id = 0;
	while (!next_id(BPF_MAP_GET_NEXT_ID, &id)) {
		struct bpf_map_info mi;
		memset(&mi, 0, sizeof(mi));
		int fd = fd_of(BPF_MAP_GET_FD_BY_ID, id, 0);
		if (fd >= 0 && !info(fd, &mi, sizeof(mi)))
			printf("map %u %s\n", id, mi.name[0] ? mi.name : "-");
		if (fd >= 0)
			close(fd);
	}
	id = 0;
	while (!next_id(BPF_LINK_GET_NEXT_ID, &id)) {
		struct bpf_link_info li;
		memset(&li, 0, sizeof(li));
		int fd = fd_of(BPF_LINK_GET_FD_BY_ID, id, 1);
		if (fd >= 0 && !info(fd, &li, sizeof(li)))
			printf("link %u %u\n", id, li.prog_id);
		if (fd >= 0)
			close(fd);
	}
	return errno == ENOENT ? 0 : 1;
}
