// SPDX-License-Identifier: GPL-2.0-only
/*
 * cg_replay.c - a syscall entry whose user strings are not paged in yet is
 * run again when the syscall returns.
 *
 * At tracepoint:syscalls:sys_enter_*, a file name the caller passes from a
 * page it has not touched yet (a string constant of a library's .rodata)
 * cannot be read: a tracepoint program may not fault, and this kernel
 * refuses sleepable tracepoint programs.  By the matching sys_exit_* the
 * kernel has copied the argument in, so its page is present.  Hence, for a
 * sys_enter_* probe whose predicate or body calls str() of its arguments:
 *
 *   - first, for every such str() whose operand is a pure function of the
 *     arguments (fields, constants, arithmetic, casts, derefs), the bytes
 *     that tell whether reading it would fault are tried (try_str);
 *   - if one faulted, the trace record (the context, 8 bytes of common
 *     fields skipped: a tracepoint program may not read them) is kept in a
 *     hash by thread, and the hit does nothing else;
 *   - a companion program on the matching sys_exit_* takes the thread's
 *     record out and runs the same predicate and body over the copy.
 *
 * Such an event is printed when the syscall returns, after what the thread
 * printed meanwhile; builtins that are not arguments (nsecs, elapsed...)
 * are the return's.  A read that fails again is counted as today, and so
 * is a kept hit whose syscall has not returned when tracing stops.  Not
 * replayed: execve and execveat (their return is in a new image, where the
 * pointer means something else), exit and exit_group (no return), probes
 * that read ustack or kstack (the copy is not a context), wildcards.
 *
 * Memory read at the return is what it holds then, not what the kernel
 * read at the entry: another thread (or an io_uring worker, or another
 * process through a shared mapping) can rewrite a file name while the call
 * blocks, and a monitor would print a name the call never used.  So a
 * replayed user read is made only when nothing else can have written it:
 * the process's memory had one user at the entry (mm_users == 1: the one
 * thread, which was in the call since) and the address is in a private
 * mapping; otherwise it fails as a fault does (the string is
 * empty, as bpftrace 0.17 prints it) and is counted as refused.  Left: a
 * process with ptrace rights over the traced one (process_vm_writev) can
 * still write it during the call.
 * PERF_RUN_NO_REPLAY=1 in the environment turns it off.
 */
#define _GNU_SOURCE
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "codegen_int.h"
#include "kbtf.h"

#define RP_MAX 4096          /* threads inside one such syscall at once */
#define RP_CTX_MAX 256

static const char *const no_return[] = {
	"sys_enter_execve", "sys_enter_execveat", "sys_enter_exit", "sys_enter_exit_group",
	"sys_enter_rt_sigreturn",
};

/* Does the subtree depend only on the tracepoint's arguments? */
static LLVMValueRef rp_users(struct cg *g);

static bool pure(const struct node *n)
{
	if (!n)
		return true;
	switch (n->kind) {
	case N_INT: case N_STR: case N_TYPENAME: case N_SIZEOF:
		return true;
	case N_IDENT:
		return n->bi == BI_ARGS;
	case N_FIELD: case N_UNOP: case N_CAST:
		return pure(n->a);
	case N_BINOP: case N_INDEX:
		return pure(n->a) && pure(n->b);
	case N_TERNARY:
		return pure(n->a) && pure(n->b) && pure(n->c);
	case N_CALL:
		if (n->bi != BI_STR)
			return false;
		for (const struct node *a = n->list; a; a = a->next)
			if (!pure(a))
				return false;
		return true;
	default:
		return false;
	}
}

static bool is_str_of_args(const struct node *n)
{
	return n->kind == N_CALL && n->bi == BI_STR && n->list &&
	       n->list->type && n->list->type->kind != T_STR &&
	       n->list->type->kind != T_ARRAY && pure(n);
}

static bool reads_stack(const struct node *n)
{
	return (n->kind == N_IDENT || n->kind == N_CALL) &&
	       bi_is(n->bi, BI_STACK);
}

/* Walks every node below n: counts str()s of the arguments into *strs and
 * notes stack reads. */
static void scan(const struct node *n, int *strs, bool *stack)
{
	for (; n; n = n->next) {
		if (is_str_of_args(n))
			(*strs)++;
		if (reads_stack(n))
			*stack = true;
		scan(n->a, strs, stack);
		scan(n->b, strs, stack);
		scan(n->c, strs, stack);
		if (n->kind != N_PROBE)
			scan(n->list, strs, stack);
	}
}

static uint32_t ctx_size(const struct probe *p)
{
	uint32_t end = 0;

	for (int i = 0; p->args && i < p->args->nfields; i++) {
		const struct field *f = &p->args->fields[i];
		uint32_t e = f->offset + (f->type ? f->type->size : 8);

		if (e > end)
			end = e;
	}
	return (end + 7) & ~7u;
}

bool cg_rp_wanted(const struct node *pn, const struct probe *p)
{
	int strs = 0;
	bool stack = false;

	if (getenv("PERF_RUN_NO_REPLAY"))   /* the plain path, for comparisons */
		return false;
	if (p->kind != PK_TRACEPOINT || p->sys_raw || p->tp_raw || p->nsites > 1 ||
	    !p->category || strcmp(p->category, "syscalls") || !p->event ||
	    strncmp(p->event, "sys_enter_", 10))
		return false;
	for (size_t i = 0; i < sizeof(no_return) / sizeof(*no_return); i++)
		if (!strcmp(p->event, no_return[i]))
			return false;
	if (ctx_size(p) <= 8 || ctx_size(p) > RP_CTX_MAX)
		return false;
	scan(pn->a, &strs, &stack);
	scan(pn->b, &strs, &stack);
	return strs && !stack;
}

static LLVMValueRef rp_map(struct cg *g, int idx, const struct probe *p)
{
	char name[32];

	snprintf(name, sizeof(name), "replay%d", idx);
	LLVMValueRef m = LLVMGetNamedGlobal(g->mod, name);
	return m ? m : cg_map_define(g, name, BPF_MAP_TYPE_HASH, RP_MAX, 8, ctx_size(p));
}

static LLVMValueRef tid_key(struct cg *g)
{
	LLVMValueRef key = cg_alloca(g, 8, "rpkey");

	LLVMBuildStore(g->b, cg_pid_tgid(g), key);
	return key;
}

/* One byte at addr, its fault noted in g->rp_flag. */
static void try_byte(struct cg *g, LLVMValueRef addr)
{
	LLVMValueRef buf = cg_alloca(g, 8, "rpbyte");
	LLVMValueRef args[3] = { buf, cg_const(g, 1), LLVMBuildIntToPtr(g->b, addr, g->ptr, "") };

	cg_read(g, H_READ_USER, args);
}

/*
 * Would str() at src of size bytes fault?  Its first byte, and where the
 * size reaches into the next page, that page's first byte: cheaper than
 * reading the string twice (the enter's program took 590 ns a hit here,
 * 420 without the trial).  A string that ends before an unmapped next
 * page is kept and replayed for nothing, which is only slower.
 */
static void try_str(struct cg *g, struct node *n)
{
	LLVMValueRef src = cg_expr(g, n->list);
	uint32_t size = n->type->size;

	if (LLVMGetTypeKind(LLVMTypeOf(src)) == LLVMPointerTypeKind)
		src = LLVMBuildPtrToInt(g->b, src, g->i64, "");
	try_byte(g, src);
	LLVMValueRef next = LLVMBuildAdd(g->b, LLVMBuildOr(g->b, src, cg_const(g, 4095), ""),
					 cg_const(g, 1), "");
	LLVMValueRef last = LLVMBuildAdd(g->b, src, cg_const(g, size ? size - 1 : 0), "");
	LLVMBasicBlockRef done = cg_if(g, LLVMBuildICmp(g->b, LLVMIntUGE, last, next, ""),
				       "rp_cross");
	try_byte(g, next);
	LLVMBuildBr(g->b, done);
	LLVMPositionBuilderAtEnd(g->b, done);
}

/* Tries every str() of the arguments below n, noting faults in g->rp_flag. */
static void try_reads(struct cg *g, struct node *n)
{
	for (; n; n = n->next) {
		if (is_str_of_args(n)) {
			int mark = cg_tmp_mark(g);

			cg_at(g, n);
			try_str(g, n);
			cg_tmp_release(g, mark);
			continue;
		}
		try_reads(g, n->a);
		try_reads(g, n->b);
		try_reads(g, n->c);
		try_reads(g, n->list);
	}
}

void cg_rp_enter(struct cg *g, struct node *pn, int idx)
{
	const struct probe *p = g->probe;
	uint32_t size = ctx_size(p);
	int mark = cg_tmp_mark(g);

	g->rp_flag = cg_alloca(g, 8, "rpflag");
	LLVMBuildStore(g->b, cg_const(g, 0), g->rp_flag);
	try_reads(g, pn->a);
	try_reads(g, pn->b);
	LLVMValueRef faulted = LLVMBuildLoad2(g->b, g->i64, g->rp_flag, "");
	g->rp_flag = NULL;
	LLVMBasicBlockRef run = cg_if(g, faulted, "rp_keep");

	/* The record, its first 8 bytes (common fields) left zero. */
	LLVMValueRef rec = cg_alloca(g, size, "rprec");
	/* the common fields' 8 bytes, which no script reads, keep mm_users */
	LLVMBuildStore(g->b, rp_users(g), rec);
	for (uint32_t off = 8; off < size; off += 8)
		LLVMBuildStore(g->b, cg_ctx_load(g, off, 8), cg_gep(g, rec, off));
	LLVMValueRef args[4] = { rp_map(g, idx, p), tid_key(g), rec, cg_const(g, BPF_ANY) };
	LLVMValueRef rc = cg_helper(g, H_MAP_UPDATE, args, 4);
	/* Kept: the return runs the hit.  No room: it runs now, as before.
	 * A kept hit counts as a failed read until its return takes it out,
	 * so one whose syscall was still running at exit is not lost silently. */
	LLVMBasicBlockRef full = cg_if(g, LLVMBuildICmp(g->b, LLVMIntEQ, rc, cg_const(g, 0), ""),
				       "rp_kept");
	cg_count(g, CG_FAULTS);
	LLVMBuildRet(g->b, LLVMConstInt(g->i32, 0, 0));
	LLVMPositionBuilderAtEnd(g->b, full);
	LLVMBuildBr(g->b, run);
	LLVMPositionBuilderAtEnd(g->b, run);
	cg_tmp_release(g, mark);
}

/* The sys_exit_* event of the enter probe p, for prov_tracepoint. */
static struct probe *exit_probe(struct cg *g, const struct probe *p)
{
	struct probe *x = calloc(1, sizeof(*x));
	/* Not into prog->probes yet: cg_generate walks the sema probes, whose
	 * arrays point into it, and a realloc now would move them. */
	struct probe **v = realloc(g->late, (g->nlate + 1) * sizeof(*v));

	if (!x || !v)
		abort();
	g->late = v;
	v[g->nlate++] = x;
	x->kind = PK_TRACEPOINT;
	x->loc = p->loc;
	x->category = strdup("syscalls");
	if (asprintf(&x->event, "sys_exit_%s", p->event + 10) < 0 ||
	    asprintf(&x->name, "tracepoint:syscalls:%s (replay)", x->event) < 0)
		abort();
	return x;
}

void cg_rp_exit(struct cg *g, struct node *pn, const struct probe *p, int idx)
{
	char name[64], sec[300];
	uint32_t size = ctx_size(p);
	struct probe *x = exit_probe(g, p);

	snprintf(name, sizeof(name), "p%d_replay", idx);
	snprintf(sec, sizeof(sec), "tracepoint/syscalls/%s", x->event);
	struct pr_prog *pp = cg_func_begin(g, name, sec, pn->loc);
	pp->bpf_prog_type = BPF_PROG_TYPE_TRACEPOINT;
	pp->probe = x;
	pp->companion = true;
	g->probe = p;
	g->site = -1;

	LLVMValueRef args[2] = { rp_map(g, idx, p), tid_key(g) };
	LLVMValueRef v = LLVMBuildIntToPtr(g->b, cg_helper(g, H_MAP_LOOKUP, args, 2), g->ptr, "");
	cg_ret0_unless(g, v, true);
	LLVMValueRef rec = cg_alloca(g, size, "rprec");
	cg_memcpy(g, rec, v, size);
	cg_helper(g, H_MAP_DELETE, args, 2);
	cg_counters(g);
	LLVMBuildAtomicRMW(g->b, LLVMAtomicRMWBinOpAdd, cg_gep(g, g->counters, 8 * (uint64_t)CG_FAULTS),
			   cg_const(g, (uint64_t)-1), LLVMAtomicOrderingMonotonic, 0);
	g->ctxarg = rec;
	if (g->s->has_exit)
		cg_skip_after_exit(g);
	g->rp_users = LLVMBuildLoad2(g->b, g->i64, rec, "rp_users");
	cg_probe_body(g, pn);
	g->rp_users = NULL;
	cg_func_end(g);
	g->probe = NULL;
}

#define RP_VM_SHARED 0x8ull  /* include/linux/mm.h VM_SHARED */

/* bpf_find_vma's callback: the mapping's vm_flags into the caller's u64. */
static LLVMValueRef vma_flags_fn(struct cg *g, int off)
{
	static const char *const pn[3] = { "task", "vma", "ctx" };
	LLVMValueRef fn = LLVMGetNamedFunction(g->mod, "pr_rp_vma");
	LLVMMetadataRef sp;

	if (fn)
		return fn;
	fn = cg_callback_fn(g, "pr_rp_vma", 3, pn, &sp);
	LLVMBuilderRef saved = g->b;
	g->b = LLVMCreateBuilderInContext(g->ctx);
	LLVMSetCurrentDebugLocation2(g->b, LLVMDIBuilderCreateDebugLocation(g->ctx, 1, 1, sp, NULL));
	LLVMPositionBuilderAtEnd(g->b, LLVMGetEntryBasicBlock(fn));
	LLVMValueRef a[3] = { LLVMGetParam(fn, 2), cg_const(g, 8),
			      cg_gep(g, LLVMGetParam(fn, 1), (uint64_t)off) };
	cg_helper_raw(g, H_READ_KERNEL, a, 3);
	LLVMBuildRet(g->b, cg_const(g, 0));
	LLVMDisposeBuilder(g->b);
	g->b = saved;
	return fn;
}

/* The current process's mm_users (threads, vfork children, io_uring
 * workers: whatever may write its memory), 0 if the kernel's BTF does not
 * say where it is.  Read at the entry: a thread that rewrites a name and
 * exits before the call returns is gone by the return. */
static LLVMValueRef rp_users(struct cg *g)
{
	int mm = kbtf_field_offset("struct task_struct", "mm"), users = kbtf_field_offset("struct mm_struct", "mm_users");
	LLVMValueRef tmp = cg_alloca(g, 8, "rp_tmp");

	LLVMBuildStore(g->b, cg_const(g, 0), tmp);
	if (mm < 0 || users < 0)
		return cg_const(g, 0);
	LLVMValueRef task = LLVMBuildIntToPtr(g->b, cg_helper(g, H_CURTASK, NULL, 0), g->ptr, "");
	LLVMValueRef r1[3] = { tmp, cg_const(g, 8), cg_gep(g, task, (uint64_t)mm) };
	cg_helper_raw(g, H_READ_KERNEL, r1, 3);
	LLVMValueRef mmp = LLVMBuildIntToPtr(g->b, LLVMBuildLoad2(g->b, g->i64, tmp, ""), g->ptr, "");
	LLVMBuildStore(g->b, cg_const(g, 0), tmp);
	LLVMValueRef r2[3] = { tmp, cg_const(g, 4), cg_gep(g, mmp, (uint64_t)users) };
	cg_helper_raw(g, H_READ_KERNEL, r2, 3);
	return LLVMBuildLoad2(g->b, g->i64, tmp, "");
}

/* 1 if the process's memory had one user at the entry (nothing else could
 * run in it since: its one thread was in the call) and addr is in a
 * private mapping; else 0. */
static LLVMValueRef rp_private(struct cg *g, LLVMValueRef addr)
{
	int flags = kbtf_field_offset("struct vm_area_struct", "vm_flags");
	LLVMValueRef ok = cg_alloca(g, 8, "rp_ok"), tmp = cg_alloca(g, 8, "rp_flags");

	LLVMBuildStore(g->b, cg_const(g, 0), ok);
	if (flags < 0)
		return LLVMBuildLoad2(g->b, g->i64, ok, "");
	LLVMValueRef one = LLVMBuildICmp(g->b, LLVMIntEQ, g->rp_users, cg_const(g, 1), "");
	LLVMBasicBlockRef done = cg_if(g, one, "rp_alone");
	/* no mapping there leaves VM_SHARED: refused */
	LLVMBuildStore(g->b, cg_const(g, RP_VM_SHARED), tmp);
	LLVMValueRef fv[5] = { LLVMBuildIntToPtr(g->b, cg_helper(g, H_CURTASK_BTF, NULL, 0), g->ptr, ""),
			       addr, vma_flags_fn(g, flags), tmp, cg_const(g, 0) };
	cg_helper(g, H_FIND_VMA, fv, 5);
	LLVMValueRef shared = LLVMBuildAnd(g->b, LLVMBuildLoad2(g->b, g->i64, tmp, ""),
					   cg_const(g, RP_VM_SHARED), "");
	LLVMBuildStore(g->b, LLVMBuildZExt(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, shared, cg_const(g, 0), ""),
					   g->i64, ""), ok);
	LLVMBuildBr(g->b, done);
	LLVMPositionBuilderAtEnd(g->b, done);
	return LLVMBuildLoad2(g->b, g->i64, ok, "");
}

LLVMValueRef cg_rp_guard(struct cg *g, LLVMValueRef src)
{
	if (!g->rp_users)
		return src;
	bool isptr = LLVMGetTypeKind(LLVMTypeOf(src)) == LLVMPointerTypeKind;
	LLVMValueRef addr = isptr ? LLVMBuildPtrToInt(g->b, src, g->i64, "") : src;
	LLVMValueRef ok = LLVMBuildICmp(g->b, LLVMIntNE, rp_private(g, addr), cg_const(g, 0), "");
	LLVMBasicBlockRef done = cg_if(g, LLVMBuildNot(g->b, ok, ""), "rp_refused");

	cg_count(g, CG_RP_REFUSED);
	LLVMBuildBr(g->b, done);
	LLVMPositionBuilderAtEnd(g->b, done);
	return LLVMBuildSelect(g->b, ok, src, LLVMConstNull(LLVMTypeOf(src)), "");
}
