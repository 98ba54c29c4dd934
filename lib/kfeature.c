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
