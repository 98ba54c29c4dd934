// SPDX-License-Identifier: GPL-2.0-only
/*
 * cg_sleep.c - sleepable uprobe programs, so that reading traced-program
 * memory that is not paged in yet faults it in instead of reading nothing.
 *
 * A BPF program runs with page faults disabled: bpf_probe_read_user() of a
 * page the process has not touched (a fresh mmap, a string constant in a
 * page of .rodata not yet mapped) fails, and the value reads as 0 or "".
 * A sleepable program (BPF_F_SLEEPABLE, which the kernel allows at
 * uprobes) may call bpf_copy_from_user(), which takes the fault.  Which probe body reads
 * user memory is only known once its code is built, so every user read of
 * a uprobe, uretprobe or USDT program is built twice, each arm behind a
 * placeholder condition (a call of pr.slp), and its temporary heap behind
 * a placeholder pointer (pr.heap, cg_ir.c); when the function is complete,
 * cg_slp_end() settles both, and LLVM's passes drop the dead arm.
 *
 * Even where the kernel does not preempt BPF programs (PREEMPT_NONE), a
 * sleepable one may sleep in a fault, and another task may then run the
 * same program on the same CPU (it stays on its CPU, migration is off):
 * the per-CPU heap of temporaries would be overwritten under it.
 * Sleepable programs therefore take their heap from task-local storage
 * (one per thread that hits them, freed with the thread), sized to the
 * largest heap such a program uses.  Its lookup costs about 270 ns a hit
 * here (a str() probe's program: 844 ns against 571 plain), against a
 * uprobe's 6-8 us trap.  The stack
 * map of ustack/kstack is not allowed in sleepable programs: such a probe
 * keeps the plain path, as does every probe of a kernel that refuses a
 * sleepable uprobe program (a load tried once, only when a body reads).
 * PERF_RUN_NO_SLEEPABLE=1 in the environment keeps every probe plain.
 */
#define _GNU_SOURCE
#include <linux/bpf.h>
#include <stdlib.h>
#include <unistd.h>

#include "codegen_int.h"
#include "lib/kfeature.h"

enum {
	H_TASK_STORAGE_GET = 156,
	H_COPY_FROM_USER = 148,
};

#define TASK_STORAGE_CREATE 1   /* BPF_LOCAL_STORAGE_GET_F_CREATE */
#define PAGE 4096u

/* Does this kernel load a sleepable kprobe-type program?  The verifier
 * allows it only for uprobes (attaching elsewhere fails), so a trivial one
 * loading is the feature: perf-event uprobes and uprobe_multi links both
 * run sleepable programs from then on. */
static bool kernel_sleepable_uprobes(void)
{
	static int cached = -1;
	int fd;

	if (cached >= 0)
		return cached;
	if (getenv("PERF_RUN_NO_SLEEPABLE"))   /* the plain path, for comparisons */
		return (cached = 0);
	fd = kfeature_load_trivial(BPF_PROG_TYPE_KPROBE, 0, BPF_F_SLEEPABLE);
	if (fd >= 0)
		close(fd);
	cached = fd >= 0;
	return cached;
}

static void slp_keep(struct cg *g, LLVMValueRef call)
{
	if (g->nslp_marks == g->capslp_marks) {
		g->capslp_marks = g->capslp_marks ? 2 * g->capslp_marks : 8;
		g->slp_marks = realloc(g->slp_marks, g->capslp_marks * sizeof(*g->slp_marks));
		if (!g->slp_marks)
			abort();
	}
	g->slp_marks[g->nslp_marks++] = call;
}

void cg_slp_begin(struct cg *g)
{
	enum probe_kind k = g->probe ? g->probe->kind : PK_BEGIN;

	g->slp_cand = k == PK_UPROBE || k == PK_URETPROBE || k == PK_USDT;
	g->slp_reads = 0;
	g->slp_stack = false;
	g->nslp_marks = 0;
	g->slp_heap_ph = NULL;
	g->heap_hw = 0;
}

static LLVMValueRef to_int(struct cg *g, LLVMValueRef v)
{
	return LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMPointerTypeKind
		? LLVMBuildPtrToInt(g->b, v, g->i64, "") : v;
}

/* bpf_probe_read_user_str() at args, and where it fails, the pages a
 * string of size bytes there can span faulted in (bpf_copy_from_user of
 * their first byte, which fails harmlessly past the mapping) and the read
 * redone.  The fast path is the plain read; one retry, rather than one
 * per page, keeps the code small. */
static LLVMValueRef sleepable_str(struct cg *g, LLVMValueRef *args)
{
	uint64_t size = LLVMIsAConstantInt(args[1]) ? LLVMConstIntGetZExtValue(args[1]) : PAGE;
	LLVMValueRef page = LLVMBuildAnd(g->b, to_int(g, args[2]), cg_const(g, ~(uint64_t)(PAGE - 1)), "");
	LLVMValueRef rc = cg_helper_raw(g, H_READ_USER_STR, args, 3);
	LLVMBasicBlockRef from = LLVMGetInsertBlock(g->b);
	LLVMBasicBlockRef retry = cg_block(g, "str_fault"), done = cg_block(g, "");

	LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, rc, cg_const(g, 0), ""), retry, done);
	LLVMPositionBuilderAtEnd(g->b, retry);
	for (uint64_t k = 0; k < (size + PAGE - 1) / PAGE + 1; k++) {
		LLVMValueRef in[3] = { args[0], LLVMConstInt(LLVMTypeOf(args[1]), 1, 0),
			LLVMBuildIntToPtr(g->b, LLVMBuildAdd(g->b, page, cg_const(g, k * PAGE), ""),
					  g->ptr, "") };
		cg_helper_raw(g, H_COPY_FROM_USER, in, 3);
	}
	LLVMValueRef again = cg_helper_raw(g, H_READ_USER_STR, args, 3);
	LLVMBasicBlockRef retried = LLVMGetInsertBlock(g->b);
	LLVMBuildBr(g->b, done);
	LLVMPositionBuilderAtEnd(g->b, done);
	LLVMValueRef phi = LLVMBuildPhi(g->b, g->i64, "");
	LLVMValueRef vals[2] = { rc, again };
	LLVMBasicBlockRef bbs[2] = { from, retried };
	LLVMAddIncoming(phi, vals, bbs, 2);
	return phi;
}

LLVMValueRef cg_slp_read(struct cg *g, int id, LLVMValueRef *args)
{
	if (!g->slp_cand || (id != H_READ_USER && id != H_READ_USER_STR))
		return NULL;
	g->slp_reads++;
	LLVMValueRef mark = LLVMBuildCall2(g->b, LLVMFunctionType(LLVMInt1TypeInContext(g->ctx),
					   NULL, 0, 0),
					   cg_placeholder(g, "pr.slp", LLVMInt1TypeInContext(g->ctx)),
					   NULL, 0, "");
	LLVMBasicBlockRef slp = cg_block(g, "sleepable"), plain = cg_block(g, "plain");
	LLVMBasicBlockRef join = cg_block(g, "");
	LLVMValueRef vals[2];
	LLVMBasicBlockRef bbs[2];

	slp_keep(g, mark);
	LLVMBuildCondBr(g->b, mark, slp, plain);
	LLVMPositionBuilderAtEnd(g->b, plain);
	vals[0] = cg_helper_raw(g, id, args, 3);
	bbs[0] = LLVMGetInsertBlock(g->b);
	LLVMBuildBr(g->b, join);
	LLVMPositionBuilderAtEnd(g->b, slp);
	vals[1] = id == H_READ_USER ? cg_helper_raw(g, H_COPY_FROM_USER, args, 3)
				    : sleepable_str(g, args);
	bbs[1] = LLVMGetInsertBlock(g->b);
	LLVMBuildBr(g->b, join);
	LLVMPositionBuilderAtEnd(g->b, join);
	LLVMValueRef phi = LLVMBuildPhi(g->b, g->i64, "");
	LLVMAddIncoming(phi, vals, bbs, 2);
	return phi;
}

/* The task-local heap's map; its size is known once every function is
 * built (cg_slp_finish), so until then it is a placeholder global. */
static LLVMValueRef task_heap(struct cg *g)
{
	if (!g->task_heap)
		g->task_heap = LLVMAddGlobal(g->mod, g->i64, "pr.theap");
	if (g->heap_hw > g->task_heap_size)
		g->task_heap_size = g->heap_hw;
	return g->task_heap;
}

/* The heap of this hit, built where its placeholder is (the entry block). */
static void settle_heap(struct cg *g, bool sleepable)
{
	LLVMValueRef ph = g->slp_heap_ph, v;
	LLVMMetadataRef at = LLVMGetCurrentDebugLocation2(g->b);

	LLVMPositionBuilderBefore(g->b, ph);
	LLVMSetCurrentDebugLocation2(g->b, NULL);
	if (sleepable) {
		LLVMValueRef a[4] = { task_heap(g), cg_helper_raw(g, H_CURTASK_BTF, NULL, 0),
				      LLVMConstNull(g->ptr), cg_const(g, TASK_STORAGE_CREATE) };

		a[1] = LLVMBuildIntToPtr(g->b, a[1], g->ptr, "");
		v = LLVMBuildIntToPtr(g->b, cg_helper(g, H_TASK_STORAGE_GET, a, 4), g->ptr, "");
	} else {
		v = cg_percpu_heap_lookup(g);
	}
	LLVMReplaceAllUsesWith(ph, v);
	LLVMInstructionEraseFromParent(ph);
	LLVMSetValueName2(v, "heap", 4);
	LLVMSetCurrentDebugLocation2(g->b, at);
	g->slp_heap_ph = NULL;
	g->heap_ptr = v;
}

bool cg_slp_end(struct cg *g)
{
	bool sleepable = g->slp_cand && g->slp_reads && !g->slp_stack &&
			 kernel_sleepable_uprobes();
	LLVMValueRef c = LLVMConstInt(LLVMInt1TypeInContext(g->ctx), sleepable, 0);

	for (int i = 0; i < g->nslp_marks; i++) {
		LLVMReplaceAllUsesWith(g->slp_marks[i], c);
		LLVMInstructionEraseFromParent(g->slp_marks[i]);
	}
	g->nslp_marks = 0;
	if (g->slp_heap_ph)
		settle_heap(g, sleepable);
	g->slp_cand = false;
	return sleepable;
}

void cg_slp_finish(struct cg *g)
{
	LLVMValueRef m;

	if (!g->task_heap)
		return;
	m = cg_map_define(g, "theap", BPF_MAP_TYPE_TASK_STORAGE, 0, 4,
			  (g->task_heap_size + 7) & ~7u);
	LLVMReplaceAllUsesWith(g->task_heap, m);
	LLVMDeleteGlobal(g->task_heap);
	g->task_heap = NULL;
}
