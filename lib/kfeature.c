// SPDX-License-Identifier: GPL-2.0-only
/*
 * kfeature.c - kernel feature tests by trivial program loads, see kfeature.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/bpf.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/kfeature.h"

int kfeature_load_trivial(uint32_t prog_type, uint32_t expected_attach, uint32_t prog_flags)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.prog_type = prog_type;
	a.expected_attach_type = expected_attach;
	a.prog_flags = prog_flags;
	a.insns = (uint64_t)(uintptr_t)insns;
	a.insn_cnt = 2;
	a.license = (uint64_t)(uintptr_t)"GPL";
	fd = syscall(__NR_bpf, BPF_PROG_LOAD, &a, sizeof(a));
	return fd < 0 ? -errno : (int)fd;
}

/*
 * A kernel without CONFIG_FPROBE knows the attach type but refuses the
 * link with EOPNOTSUPP before looking at it; one with it checks the count
 * next and refuses zero functions with EINVAL.  Nothing is attached either
 * way.  Older kernels (before 5.18) refuse the program's load.
 */
static bool kfeature_probe_kprobe_multi(void)
{
	int prog = kfeature_load_trivial(BPF_PROG_TYPE_KPROBE, BPF_TRACE_KPROBE_MULTI, 0);
	union bpf_attr a;
	long fd;

	if (prog < 0)
		return false;
	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = (uint32_t)prog;
	a.link_create.attach_type = BPF_TRACE_KPROBE_MULTI;
	fd = syscall(__NR_bpf, BPF_LINK_CREATE, &a, sizeof(a));
	int err = fd < 0 ? errno : 0;
	if (fd >= 0)
		close((int)fd);
	close(prog);
	return err == EINVAL;
}

bool kfeature_kprobe_multi(void)
{
	static int cached = -1;

	if (cached < 0)
		cached = kfeature_probe_kprobe_multi();
	return cached;
}
