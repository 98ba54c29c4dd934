// SPDX-License-Identifier: GPL-2.0-only
/*
 * cg_read.c - every read of traced memory goes through cg_read():
 * bpf_probe_read_user, _kernel, their _str forms and bpf_probe_read_str
 * (cg_helper() refuses them; cg_helper_raw() makes the bare call for
 * cg_read and the sleepable arms cg_sleep.c builds for it).  What a read
 * does besides the call is decided in this one place:
 *
 *   - in a uprobe, uretprobe or USDT program that may become sleepable, a
 *     user read is built twice, plain and faulting its pages in, and the
 *     function's end picks one (cg_sleep.c);
 *   - during a sys_enter_* probe's trial reads, a fault sets the flag that
 *     keeps the hit for its sys_exit_* (cg_replay.c);
 *   - in a replay at a syscall's return, a user read is refused where the
 *     memory may have changed since the kernel read it (cg_rp_guard);
 *   - otherwise a fault is counted (CG_FAULTS, cg_maps.c): the helpers
 *     leave zeros, and a value read as 0 is never silent.
 *
 * The one exception is cg_unwind.c's frame walk (its rd()): it builds with
 * its own builder, in bpf_loop callbacks, and a failed read there ends the
 * stack (a zero pc, or a result it tests), which the walk reports rather
 * than a fault to count; it stays the plain read in a sleepable program.
 */
#include "codegen_int.h"

/* During a sys_enter_* probe's trial reads: a failed read sets the flag
 * that keeps the hit for its sys_exit_* (cg_replay.c). */
static void replay_fault(struct cg *g, LLVMValueRef rc)
{
	LLVMBasicBlockRef ok = cg_if(g, LLVMBuildICmp(g->b, LLVMIntSLT, rc, cg_const(g, 0), ""),
				     "rp_fault");

	LLVMBuildStore(g->b, cg_const(g, 1), g->rp_flag);
	LLVMBuildBr(g->b, ok);
	LLVMPositionBuilderAtEnd(g->b, ok);
}

LLVMValueRef cg_read(struct cg *g, int id, LLVMValueRef args[3])
{
	if (id != H_READ_KERNEL && id != H_READ_KERNEL_STR)
		args[2] = cg_rp_guard(g, args[2]);
	LLVMValueRef r = cg_slp_read(g, id, args);

	if (!r)
		r = cg_helper_raw(g, id, args, 3);
	if (g->rp_flag)
		replay_fault(g, r);
	else
		cg_count_fault(g, r);
	return r;
}
