// SPDX-License-Identifier: GPL-2.0-only
/*
 * cg_unwind.c - `ustack` unwound in the kernel through CFI, for code built
 * without frame pointers.  From the user registers (the uprobe's context,
 * else the task's saved pt_regs) a bpf_loop walks up to PR_UW_DEPTH
 * frames: the object of each pc is found in the process's mapping cache
 * (valid while the mm's mmap sequence has not moved), else with
 * bpf_find_vma (its file's device and inode key the objects map, so any
 * process that maps a known object unwinds, not just the traced one),
 * its row by binary search in
 * the rows array (runtime/unwind.c fills both, program.h lays them out),
 * and the caller's pc, sp and rbp are read from the user stack.  An object
 * without rows is walked by its frame pointer; a pc no rule covers ends
 * the stack.  A file-backed object with no entry yet is sent to the
 * runtime once (uw_seen, ring uw_missq), and the stack ends there with a
 * note frame (PR_UW_PC_LOADING); the kernel's signal frame is followed
 * through the saved ucontext.  The pcs, kept in a per-CPU state, are given a stack id by a
 * hash keyed by the frames used (stack_ids), so that equal stacks share an id and
 * @[ustack] still aggregates in the kernel; the runtime prints an id's
 * pcs from the id -> pcs hash as it does the stack map's.
 */
#include <bpf/btf.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "codegen_int.h"
#include "kbtf.h"
#include "lib/objcache.h"
#include "lib/types.h"

/* Helper ids newer than <linux/bpf.h>'s enum is sure to have. */
enum { H_MAP_POP = 88, H_TASK_PT_REGS = 175, H_LOOP = 181 };

/* The per-CPU state (map uw_state), shared by the probe and the callbacks. */
enum {
	S_PC = 0, S_SP = 8, S_BP = 16, S_N = 24, S_BPOK = 32,
	S_OSTART = 40, S_OEND = 48, S_OBASE = 56, S_LO = 64, S_HI = 68, S_HAS = 72,
	S_VSTART = 80, S_VEND = 88, S_VPGOFF = 96, S_DEV = 104, S_INO = 112, S_FOUND = 120,
	S_IPS = 128, S_TMP = S_IPS + PR_UW_DEPTH * 8, S_TGID = S_TMP + 16, S_MM = S_TGID + 8,
	S_STAGE = S_MM + 8, S_SIG = S_STAGE + 32 + 16 * 40, S_DEPTH = S_SIG + 8,
	S_SEQ = S_DEPTH + 8, S_VSEQ = S_SEQ + 8, S_START = S_VSEQ + 8,
	S_BUFBASE = S_START + 8, S_BUFOK = S_BUFBASE + 8, S_BUF = S_BUFOK + 8,
	S_ROW = S_BUF + 1024 + 8, S_SIZE = S_ROW + 8,
};
/* S_HAS: bit 0 the object has rows, bit 1 they are in the chunks
 * (pr_uw_obj.chunked), bits 32-63 its tag. */
#define UW_HAS_CHUNKED 2
/* The first UW_BUF bytes of the user stack, read in one go at the start
 * of a walk (S_BUF, from S_BUFBASE): the frames near the top are read
 * from there rather than by a bpf_probe_read_user each (~40 ns). */
#define UW_BUF 1024
/*
 * The mappings of a process found last (uw_procs, per CPU, by tgid): mm,
 * the next slot to replace, the mm's mmap sequence and the process's start
 * time, then UW_NCACHE copies of the state's 40 bytes from S_OSTART
 * (start, end, base, lo and hi, has).  bpf_find_vma fails with EBUSY when
 * called twice in one interrupt (profile: its mmap unlock is deferred to
 * an irq_work that has not run yet); such a pc is then looked up among the
 * mappings that bpf_find_vma gave before.  Those are only as good as the
 * mm has not changed since: every mmap, munmap or mprotect takes the mmap
 * lock for writing, which moves mm->mm_lock_seq (odd while held, as the
 * kernel's own speculative lookups read it), so the cache is used only
 * while the sequence is even and the one its entries were found under.
 * A tgid reused by a new process (whose mm may sit at the old one's
 * address) differs in its start time.  A kernel without that sequence
 * (before 6.13, or without per-VMA locks) gets no cache: a busy pc ends
 * its stack at the counted note.
 */
#define UW_NCACHE 16
#define UW_PROC_HDR 32
#define UW_PROC_SIZE (UW_PROC_HDR + UW_NCACHE * 40)
#define UW_SEARCH_STEPS 26   /* rows of 2^26: more than any table holds */

/* pt_regs of x86-64 */
enum { R_BP = 32, R_IP = 128, R_SP = 152 };

/* Offsets of the kernel structures bpf_find_vma's callback reads. */
struct uw_offs { int vm_start, vm_end, vm_pgoff, vm_file, f_inode, i_ino, i_sb, s_dev, mm, vm_mm,
		  vdso, mm_seq, leader, start_time, ctime_sec, ctime_nsec; };

/* A function being built: its builder and the block that returns `stop`. */
struct ub {
	struct cg *g;
	LLVMBuilderRef b;
	LLVMValueRef fn;
	LLVMBasicBlockRef stop;
};

/* The inode's change time (its seconds, then its nanoseconds, which
 * 6.13's multigrain timestamps share with a flag): i_ctime_sec and
 * i_ctime_nsec from 6.11, __i_ctime (a timespec64) in 6.6 to 6.10,
 * i_ctime before.  -1 if none: objects are then known by device and
 * inode alone, as before. */
static void uw_ctime_offsets(struct uw_offs *o)
{
	static const char *const ts[] = { "__i_ctime", "i_ctime" };

	o->ctime_sec = kbtf_field_offset("struct inode", "i_ctime_sec");
	o->ctime_nsec = kbtf_field_offset("struct inode", "i_ctime_nsec");
	for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]) && (o->ctime_sec < 0 || o->ctime_nsec < 0);
	     i++) {
		o->ctime_sec = kbtf_field_offset("struct inode", ts[i]);
		o->ctime_nsec = o->ctime_sec < 0 ? -1 : o->ctime_sec + 8;
	}
}

static bool uw_offsets_btf(struct uw_offs *o)
{
	o->vm_start = kbtf_field_offset("struct vm_area_struct", "vm_start");
	o->vm_end = kbtf_field_offset("struct vm_area_struct", "vm_end");
	o->vm_pgoff = kbtf_field_offset("struct vm_area_struct", "vm_pgoff");
	o->vm_file = kbtf_field_offset("struct vm_area_struct", "vm_file");
	o->f_inode = kbtf_field_offset("struct file", "f_inode");
	o->i_ino = kbtf_field_offset("struct inode", "i_ino");
	o->i_sb = kbtf_field_offset("struct inode", "i_sb");
	o->s_dev = kbtf_field_offset("struct super_block", "s_dev");
	uw_ctime_offsets(o);
	o->mm = kbtf_field_offset("struct task_struct", "mm");
	o->vm_mm = kbtf_field_offset("struct vm_area_struct", "vm_mm");
	int ctx = kbtf_field_offset("struct mm_struct", "context"), vd = kbtf_field_offset("mm_context_t", "vdso");
	o->vdso = ctx >= 0 && vd >= 0 ? ctx + vd : -1;
	/* the mapping cache's checks (see UW_PROC_SIZE): mm_lock_seq must be
	 * the seqcount (6.13 on), not the older int that moves only at unlock */
	const struct field *seq = type_field(kbtf_type("struct mm_struct"), "mm_lock_seq");
	o->mm_seq = seq && !seq->bit_size && seq->type && seq->type->kind == T_RECORD &&
		    seq->type->size == 4 ? (int)seq->offset : -1;
	o->leader = kbtf_field_offset("struct task_struct", "group_leader");
	o->start_time = kbtf_field_offset("struct task_struct", "start_time");
	if (o->leader < 0 || o->start_time < 0)
		o->mm_seq = -1;
	return o->vdso >= 0 && o->vm_mm >= 0 && o->mm >= 0 && o->vm_start >= 0 && o->vm_end >= 0 && o->vm_pgoff >= 0 && o->vm_file >= 0 &&
	       o->f_inode >= 0 && o->i_ino >= 0 && o->i_sb >= 0 && o->s_dev >= 0;
}

static LLVMValueRef map_of(struct cg *g, const char *name, int type, uint32_t max,
			   uint32_t ks, uint32_t vs)
{
	LLVMValueRef m = LLVMGetNamedGlobal(g->mod, name);
	return m ? m : cg_map_define(g, name, type, max, ks, vs);
}

static LLVMValueRef state_map(struct cg *g)
{
	return map_of(g, "uw_state", BPF_MAP_TYPE_PERCPU_ARRAY, 1, 4, S_SIZE);
}

static LLVMValueRef rows_map(struct cg *g)
{
	/* sized by the runtime before load (uw_build) */
	return map_of(g, "uw_rows", BPF_MAP_TYPE_ARRAY, 1, 4, sizeof(struct pr_uw_row));
}

/* The chunks of rows the runtime adds while the trace runs
 * (pr_uw_obj.chunked); their template is set before load. */
static LLVMValueRef chunks_map(struct cg *g)
{
	return map_of(g, PR_UW_CHUNKS_MAP, BPF_MAP_TYPE_ARRAY_OF_MAPS, PR_UW_NCHUNKS, 4, 4);
}

static LLVMValueRef objs_map(struct cg *g)
{
	return map_of(g, "uw_objs", BPF_MAP_TYPE_HASH, PR_UW_MAX_OBJS,
		      sizeof(struct pr_uw_key), sizeof(struct pr_uw_obj));
}

static LLVMValueRef K(struct ub *u, uint64_t v)
{
	return LLVMConstInt(u->g->i64, v, 0);
}

static LLVMValueRef call(struct ub *u, int id, LLVMValueRef *a, int n)
{
	LLVMTypeRef at[5];

	for (int i = 0; i < n; i++)
		at[i] = LLVMTypeOf(a[i]);
	return LLVMBuildCall2(u->b, LLVMFunctionType(u->g->i64, at, (unsigned)n, 0),
			      LLVMConstIntToPtr(K(u, (uint64_t)id), u->g->ptr), a, (unsigned)n, "");
}

static LLVMValueRef at(struct ub *u, LLVMValueRef p, uint64_t off)
{
	LLVMValueRef i = K(u, off);
	return LLVMBuildGEP2(u->b, u->g->i8, p, &i, 1, "");
}

static LLVMValueRef ld(struct ub *u, LLVMTypeRef t, LLVMValueRef p, uint64_t off)
{
	LLVMValueRef v = LLVMBuildLoad2(u->b, t, at(u, p, off), "");
	return t == u->g->i64 ? v : LLVMBuildZExt(u->b, v, u->g->i64, "");
}

static LLVMValueRef ld64(struct ub *u, LLVMValueRef p, uint64_t off)
{
	return ld(u, u->g->i64, p, off);
}

static void st64(struct ub *u, LLVMValueRef p, uint64_t off, LLVMValueRef v)
{
	LLVMBuildStore(u->b, v, at(u, p, off));
}

/* Goes on in a new block when c holds, else to u->stop. */
static void need(struct ub *u, LLVMValueRef c)
{
	LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(u->g->ctx, u->fn, "go");
	LLVMBuildCondBr(u->b, c, go, u->stop);
	LLVMPositionBuilderAtEnd(u->b, go);
}

static LLVMValueRef cmp(struct ub *u, LLVMIntPredicate p, LLVMValueRef a, LLVMValueRef b)
{
	return LLVMBuildICmp(u->b, p, a, b, "");
}

/* The map's entry 0 (an array's), or u->stop if absent. */
static LLVMValueRef lookup0(struct ub *u, LLVMValueRef map, LLVMValueRef zero)
{
	LLVMValueRef a[2] = { map, zero };
	LLVMValueRef p = LLVMBuildIntToPtr(u->b, call(u, H_MAP_LOOKUP, a, 2), u->g->ptr, "");
	need(u, LLVMBuildIsNotNull(u->b, p, ""));
	return p;
}

/* Reads n bytes at the user (or kernel) address src into dst; the
 * helper's result (0 or a negative errno).  Not through cg_read(): a
 * failed read ends the walk, it is not a fault to count (cg_read.c). */
static LLVMValueRef rd(struct ub *u, bool user, LLVMValueRef dst, unsigned n, LLVMValueRef src)
{
	LLVMValueRef a[3] = { dst, LLVMConstInt(u->g->i32, n, 0), src };
	return call(u, user ? H_READ_USER : H_READ_KERNEL, a, 3);
}

/* A callback's skeleton: builder at its entry, a stop block returning stop. */
static void cb_begin(struct ub *u, struct cg *g, const char *name, int n,
		     const char *const *pn, uint64_t stop)
{
	LLVMMetadataRef sp;

	u->g = g;
	u->fn = cg_callback_fn(g, name, n, pn, &sp);
	u->b = LLVMCreateBuilderInContext(g->ctx);
	LLVMSetCurrentDebugLocation2(u->b, LLVMDIBuilderCreateDebugLocation(g->ctx, 1, 1, sp, NULL));
	u->stop = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "stop");
	LLVMPositionBuilderAtEnd(u->b, u->stop);
	LLVMBuildRet(u->b, K(u, stop));
	LLVMPositionBuilderAtEnd(u->b, LLVMGetEntryBasicBlock(u->fn));
}

/*
 * Reading the kernel's BTF costs 100-250 ms here, most of a start-up: the
 * offsets are kept in the object cache, keyed by the kernel's build (its
 * release and version strings and the size of its BTF).
 */
static bool uw_offsets(struct uw_offs *o)
{
	struct utsname un;
	struct stat st;
	char key[512];
	void *v = NULL;
	size_t n = 0;

	if (uname(&un) || stat("/sys/kernel/btf/vmlinux", &st))
		return uw_offsets_btf(o);
	snprintf(key, sizeof(key), "perf-run unwind offsets 5\n%s\n%s\n%lld\n", un.release,
		 un.version, (long long)st.st_size);
	if (!objcache_get(key, &v, &n) && n == sizeof(*o)) {
		memcpy(o, v, sizeof(*o));
		free(v);
		return true;
	}
	free(v);
	if (!uw_offsets_btf(o))
		return false;
	objcache_put(key, o, sizeof(*o));
	return true;
}

/* bpf_find_vma and bpf_loop came in 5.17; before, the frame-pointer walk. */
static bool uw_kernel_has_helpers(void)
{
	struct utsname un;
	int major = 0, minor = 0;

	if (uname(&un) || sscanf(un.release, "%d.%d", &major, &minor) != 2)
		return false;
	return major > 5 || (major == 5 && minor >= 17);
}

/* A slot in the function's entry block (where LLVM promotes allocas). */
static LLVMValueRef entry_alloca(struct ub *u, LLVMTypeRef t, const char *name)
{
	LLVMBasicBlockRef e = LLVMGetEntryBasicBlock(u->fn);
	LLVMBuilderRef eb = LLVMCreateBuilderInContext(u->g->ctx);
	LLVMValueRef first = LLVMGetFirstInstruction(e), a;

	if (first)
		LLVMPositionBuilderBefore(eb, first);
	else
		LLVMPositionBuilderAtEnd(eb, e);
	a = LLVMBuildAlloca(eb, t, name);
	LLVMDisposeBuilder(eb);
	return a;
}

static LLVMValueRef zero_key(struct ub *u)
{
	LLVMValueRef k = entry_alloca(u, u->g->i32, "zero");

	LLVMBuildStore(u->b, LLVMConstInt(u->g->i32, 0, 0), k);
	return k;
}

/* The file's change time folded into the key's upper device bits
 * (PR_UW_CTIME_GEN): a file rewritten in place (GNU ld, cp onto it) keeps
 * its device and inode, and would otherwise be unwound with the rows of
 * what it held before. */
static void ctime_gen(struct ub *u, LLVMValueRef s, LLVMValueRef inode, const struct uw_offs *o)
{
	LLVMValueRef tmp = at(u, s, S_TMP);

	st64(u, s, S_TMP, K(u, 0));
	rd(u, false, tmp, 8, at(u, inode, (uint64_t)o->ctime_sec));
	LLVMValueRef sec = LLVMBuildTrunc(u->b, ld64(u, s, S_TMP), u->g->i32, "");
	st64(u, s, S_TMP, K(u, 0));
	rd(u, false, tmp, 4, at(u, inode, (uint64_t)o->ctime_nsec));
	LLVMValueRef nsec = LLVMBuildTrunc(u->b, ld64(u, s, S_TMP), u->g->i32, "");
	LLVMValueRef gen = LLVMBuildAdd(u->b,
		LLVMBuildMul(u->b, sec, LLVMConstInt(u->g->i32, PR_UW_CTIME_MUL, 0), ""),
		LLVMBuildAnd(u->b, nsec, LLVMConstInt(u->g->i32, PR_UW_NSEC_MASK, 0), ""), "");
	LLVMValueRef dev = LLVMBuildOr(u->b, ld64(u, s, S_DEV),
		LLVMBuildShl(u->b, LLVMBuildZExt(u->b, gen, u->g->i64, ""), K(u, 32), ""), "");
	st64(u, s, S_DEV, dev);
	st64(u, s, S_TMP, K(u, 0));
}

/*
 * bpf_find_vma's callback (task, vma, ctx): the mapping's start, end and
 * file offset, and its file's device and inode, into the state.
 */
static LLVMValueRef vma_callback(struct cg *g, const struct uw_offs *o)
{
	static const char *const pn[3] = { "task", "vma", "ctx" };
	struct ub u;
	LLVMValueRef fn = LLVMGetNamedFunction(g->mod, "pr_uw_vma");

	if (fn)
		return fn;
	cb_begin(&u, g, "pr_uw_vma", 3, pn, 0);
	LLVMValueRef s = lookup0(&u, state_map(g), zero_key(&u));
	LLVMValueRef vma = LLVMGetParam(u.fn, 1);
	LLVMValueRef tmp = at(&u, s, S_TMP);

	rd(&u, false, at(&u, s, S_VSTART), 8, at(&u, vma, (uint64_t)o->vm_start));
	rd(&u, false, at(&u, s, S_VEND), 8, at(&u, vma, (uint64_t)o->vm_end));
	rd(&u, false, at(&u, s, S_VPGOFF), 8, at(&u, vma, (uint64_t)o->vm_pgoff));
	st64(&u, s, S_DEV, K(&u, 0));
	st64(&u, s, S_INO, K(&u, 0));
	st64(&u, s, S_TMP, K(&u, 0));
	/* found; without a file (the vDSO, JIT code) it has no rows: its
	 * frame pointer is followed, as bpf_get_stackid would */
	st64(&u, s, S_FOUND, K(&u, 1));
	if (o->mm_seq >= 0) {
		/* the mm's sequence, stable while bpf_find_vma holds its lock:
		 * what a cached copy of this mapping is valid under */
		st64(&u, s, S_VSEQ, K(&u, 1));
		rd(&u, false, tmp, 8, at(&u, vma, (uint64_t)o->vm_mm));
		rd(&u, false, at(&u, s, S_VSEQ), 4,
		   at(&u, LLVMBuildIntToPtr(u.b, ld64(&u, s, S_TMP), g->ptr, ""), (uint64_t)o->mm_seq));
		st64(&u, s, S_TMP, K(&u, 0));
	}
	rd(&u, false, tmp, 8, at(&u, vma, (uint64_t)o->vm_file));
	LLVMValueRef file = LLVMBuildIntToPtr(u.b, ld64(&u, s, S_TMP), g->ptr, "");
	LLVMBasicBlockRef anon = LLVMAppendBasicBlockInContext(g->ctx, u.fn, "anon");
	LLVMBasicBlockRef named = LLVMAppendBasicBlockInContext(g->ctx, u.fn, "file");
	LLVMBuildCondBr(u.b, LLVMBuildIsNull(u.b, file, ""), anon, named);
	/* the vDSO is the mapping that starts at mm->context.vdso */
	LLVMPositionBuilderAtEnd(u.b, anon);
	rd(&u, false, tmp, 8, at(&u, vma, (uint64_t)o->vm_mm));
	LLVMValueRef mm = LLVMBuildIntToPtr(u.b, ld64(&u, s, S_TMP), g->ptr, "");
	st64(&u, s, S_TMP, K(&u, 0));
	rd(&u, false, tmp, 8, at(&u, mm, (uint64_t)o->vdso));
	need(&u, cmp(&u, LLVMIntEQ, ld64(&u, s, S_TMP), ld64(&u, s, S_VSTART)));
	st64(&u, s, S_DEV, K(&u, PR_UW_VDSO_DEV));
	st64(&u, s, S_INO, K(&u, PR_UW_VDSO_INO));
	LLVMBuildBr(u.b, u.stop);
	LLVMPositionBuilderAtEnd(u.b, named);
	rd(&u, false, tmp, 8, at(&u, file, (uint64_t)o->f_inode));
	LLVMValueRef inode = LLVMBuildIntToPtr(u.b, ld64(&u, s, S_TMP), g->ptr, "");
	rd(&u, false, at(&u, s, S_INO), 8, at(&u, inode, (uint64_t)o->i_ino));
	rd(&u, false, tmp, 8, at(&u, inode, (uint64_t)o->i_sb));
	LLVMValueRef sb = LLVMBuildIntToPtr(u.b, ld64(&u, s, S_TMP), g->ptr, "");
	rd(&u, false, at(&u, s, S_DEV), 4, at(&u, sb, (uint64_t)o->s_dev));
	if (o->ctime_sec >= 0)
		ctime_gen(&u, s, inode, o);
	LLVMBuildRet(u.b, K(&u, 0));
	LLVMDisposeBuilder(u.b);
	return u.fn;
}

static LLVMValueRef procs_map(struct cg *g)
{
	return map_of(g, "uw_procs", BPF_MAP_TYPE_LRU_PERCPU_HASH, 128, 8, UW_PROC_SIZE);
}

/* A volatile load of a t at p + off (zero-extended to 64 bits unless a pointer). */
static LLVMValueRef vload(struct ub *u, LLVMTypeRef t, LLVMValueRef p, uint64_t off)
{
	LLVMValueRef v = LLVMBuildLoad2(u->b, t, at(u, p, off), "");

	LLVMSetVolatile(v, 1);
	return t == u->g->ptr || t == u->g->i64 ? v : LLVMBuildZExt(u->b, v, u->g->i64, "");
}

/* The process's identity for its mapping cache, into the state once a
 * stack: tgid, mm, the mm's sequence now (odd if its mappings are being
 * changed) and the process's start time (see UW_PROC_SIZE). */
static void proc_ident(struct ub *u, LLVMValueRef s, const struct uw_offs *o)
{
	struct cg *g = u->g;
	LLVMValueRef task = LLVMBuildIntToPtr(u->b, call(u, H_CURTASK_BTF, NULL, 0), g->ptr, "");

	/* plain loads: the task from bpf_get_current_task_btf is typed by
	 * the kernel's BTF, so the verifier checks them against it and makes
	 * them fault-safe (a kernel thread's NULL mm reads 0); four
	 * bpf_probe_read_kernel calls cost ~100 ns a stack */
	st64(u, s, S_TGID, LLVMBuildLShr(u->b, call(u, H_PID_TGID, NULL, 0), K(u, 32), ""));
	LLVMValueRef mm = vload(u, g->ptr, task, (uint64_t)o->mm);
	st64(u, s, S_MM, LLVMBuildPtrToInt(u->b, mm, g->i64, ""));
	st64(u, s, S_SEQ, vload(u, g->i32, mm, (uint64_t)o->mm_seq));
	LLVMValueRef leader = vload(u, g->ptr, task, (uint64_t)o->leader);
	st64(u, s, S_START, vload(u, g->i64, leader, (uint64_t)o->start_time));
}

/* This process's cached mappings (created if absent when `create`);
 * stops if there are none. */
static LLVMValueRef proc_cache(struct ub *u, LLVMValueRef s, bool create)
{
	struct cg *g = u->g;
	LLVMValueRef ka[2] = { procs_map(g), at(u, s, S_TGID) };
	LLVMValueRef p = LLVMBuildIntToPtr(u->b, call(u, H_MAP_LOOKUP, ka, 2), g->ptr, "");
	if (create) {
		LLVMBasicBlockRef mk = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "mkproc");
		LLVMBasicBlockRef have = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "proc");
		LLVMBuildCondBr(u->b, LLVMBuildIsNull(u->b, p, ""), mk, have);
		LLVMPositionBuilderAtEnd(u->b, mk);
		for (unsigned i = 0; i < UW_PROC_SIZE; i += 8)
			st64(u, s, S_STAGE + i, K(u, 0));
		LLVMValueRef ua[4] = { procs_map(g), at(u, s, S_TGID), at(u, s, S_STAGE),
				       K(u, BPF_NOEXIST) };
		call(u, H_MAP_UPDATE, ua, 4);
		LLVMBuildBr(u->b, have);
		LLVMPositionBuilderAtEnd(u->b, have);
		p = LLVMBuildIntToPtr(u->b, call(u, H_MAP_LOOKUP, ka, 2), g->ptr, "");
	}
	need(u, LLVMBuildIsNotNull(u->b, p, ""));
	return p;
}

/* Copies n bytes (a multiple of 8) from src + so to dst + do. */
static void copy64(struct ub *u, LLVMValueRef dst, uint64_t doff, LLVMValueRef src, uint64_t soff,
		   unsigned n)
{
	for (unsigned i = 0; i < n; i += 8)
		st64(u, dst, doff + i, ld64(u, src, soff + i));
}

/* After bpf_find_vma found the mapping now in the state: into this
 * process's cache, emptied first if the mm or its sequence has changed
 * since the cache was filled (an exec, an mmap, a munmap) or the tgid is
 * another process's. */
static void cache_put(struct ub *u, LLVMValueRef s, LLVMBasicBlockRef done)
{
	struct cg *g = u->g;
	LLVMBasicBlockRef saved = u->stop;

	u->stop = done;   /* no cache: unwinding goes on without it */
	LLVMValueRef p = proc_cache(u, s, true);
	LLVMBasicBlockRef reset = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "newmm");
	LLVMBasicBlockRef put = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "put");
	LLVMValueRef mm = ld64(u, s, S_MM), seq = ld64(u, s, S_VSEQ), start = ld64(u, s, S_START);
	need(u, cmp(u, LLVMIntEQ, LLVMBuildAnd(u->b, seq, K(u, 1), ""), K(u, 0)));
	LLVMValueRef same = LLVMBuildAnd(u->b, cmp(u, LLVMIntEQ, ld64(u, p, 0), mm),
		LLVMBuildAnd(u->b, cmp(u, LLVMIntEQ, ld64(u, p, 16), seq),
			     cmp(u, LLVMIntEQ, ld64(u, p, 24), start), ""), "");
	LLVMBuildCondBr(u->b, same, put, reset);
	LLVMPositionBuilderAtEnd(u->b, reset);
	st64(u, p, 0, mm);
	st64(u, p, 16, seq);
	st64(u, p, 24, start);
	for (unsigned i = 0; i < UW_NCACHE; i++)
		st64(u, p, UW_PROC_HDR + 40 * i + 8, K(u, 0));   /* end 0: no pc in it */
	LLVMBuildBr(u->b, put);
	LLVMPositionBuilderAtEnd(u->b, put);
	LLVMValueRef n = ld64(u, p, 8);
	st64(u, p, 8, LLVMBuildAdd(u->b, n, K(u, 1), ""));
	LLVMValueRef off = LLVMBuildAdd(u->b, K(u, UW_PROC_HDR), LLVMBuildMul(u->b,
		LLVMBuildAnd(u->b, n, K(u, UW_NCACHE - 1), ""), K(u, 40), ""), "");
	LLVMValueRef e = LLVMBuildGEP2(u->b, g->i8, p, &off, 1, "");
	copy64(u, e, 0, s, S_OSTART, 40);
	LLVMBuildBr(u->b, done);
	u->stop = saved;
}

/* q's mapping from this process's cache into the state, then to done;
 * to miss if it has none. */
static void cache_get(struct ub *u, LLVMValueRef s, LLVMValueRef q, LLVMBasicBlockRef done,
		      LLVMBasicBlockRef miss)
{
	struct cg *g = u->g;
	LLVMBasicBlockRef saved = u->stop;

	u->stop = miss;
	LLVMValueRef p = proc_cache(u, s, false);
	LLVMValueRef i = entry_alloca(u, g->i64, "ci");
	LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "cache");
	LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "cache_ent");
	LLVMBasicBlockRef hit = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "cache_hit");
	LLVMBasicBlockRef step = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "cache_next");

	/* filled for this mm and process, with no mapping changed since */
	LLVMValueRef seq = ld64(u, s, S_SEQ);
	need(u, LLVMBuildAnd(u->b, cmp(u, LLVMIntEQ, ld64(u, p, 0), ld64(u, s, S_MM)),
		LLVMBuildAnd(u->b, cmp(u, LLVMIntEQ, ld64(u, p, 24), ld64(u, s, S_START)),
			LLVMBuildAnd(u->b, cmp(u, LLVMIntEQ, ld64(u, p, 16), seq),
				     cmp(u, LLVMIntEQ, LLVMBuildAnd(u->b, seq, K(u, 1), ""), K(u, 0)),
				     ""), ""), ""));
	LLVMBuildStore(u->b, K(u, 0), i);
	LLVMBuildBr(u->b, head);
	LLVMPositionBuilderAtEnd(u->b, head);
	LLVMValueRef iv = LLVMBuildLoad2(u->b, g->i64, i, "");
	LLVMBuildCondBr(u->b, cmp(u, LLVMIntULT, iv, K(u, UW_NCACHE)), body, u->stop);
	LLVMPositionBuilderAtEnd(u->b, body);
	LLVMValueRef off = LLVMBuildAdd(u->b, K(u, UW_PROC_HDR), LLVMBuildMul(u->b, iv, K(u, 40), ""), "");
	LLVMValueRef e = LLVMBuildGEP2(u->b, g->i8, p, &off, 1, "");
	LLVMValueRef in = LLVMBuildAnd(u->b, cmp(u, LLVMIntUGE, q, ld64(u, e, 0)),
				       cmp(u, LLVMIntULT, q, ld64(u, e, 8)), "");
	LLVMBuildCondBr(u->b, in, hit, step);
	LLVMPositionBuilderAtEnd(u->b, step);
	LLVMBuildStore(u->b, LLVMBuildAdd(u->b, iv, K(u, 1), ""), i);
	LLVMBuildBr(u->b, head);
	LLVMPositionBuilderAtEnd(u->b, hit);
	copy64(u, s, S_OSTART, e, 0, 40);
	LLVMBuildBr(u->b, done);
	u->stop = saved;
}

/* Ends the stack with the note frame pc (PR_UW_PC_*), counted in
 * uw_notes[note]. */
static void note_stop(struct ub *u, LLVMValueRef s, uint64_t pc, unsigned note)
{
	struct cg *g = u->g;
	LLVMValueRef n = ld64(u, s, S_N), key = entry_alloca(u, g->i32, "note");

	/* not past ustack(n)'s n frames: the note would make another key */
	need(u, LLVMBuildAnd(u->b, cmp(u, LLVMIntULT, n, K(u, PR_UW_DEPTH)),
			     cmp(u, LLVMIntULT, n, ld64(u, s, S_DEPTH)), ""));
	LLVMValueRef slot = LLVMBuildAdd(u->b, K(u, S_IPS), LLVMBuildShl(u->b, n, K(u, 3), ""), "");
	LLVMBuildStore(u->b, K(u, pc), LLVMBuildGEP2(u->b, g->i8, s, &slot, 1, ""));
	st64(u, s, S_N, LLVMBuildAdd(u->b, n, K(u, 1), ""));
	LLVMBuildStore(u->b, LLVMConstInt(g->i32, note, 0), key);
	LLVMValueRef la[2] = { map_of(g, "uw_notes", BPF_MAP_TYPE_ARRAY, PR_UW_NNOTES, 4, 8), key };
	LLVMValueRef p = LLVMBuildIntToPtr(u->b, call(u, H_MAP_LOOKUP, la, 2), g->ptr, "");
	need(u, LLVMBuildIsNotNull(u->b, p, ""));
	LLVMBuildAtomicRMW(u->b, LLVMAtomicRMWBinOpAdd, p, K(u, 1), LLVMAtomicOrderingMonotonic, 0);
	LLVMBuildBr(u->b, u->stop);
}

/* The object in the state (S_DEV, S_INO, S_V*) has no entry: sent once
 * (uw_seen keeps it until the runtime has loaded it) through uw_missq. */
static void report_miss(struct ub *u, LLVMValueRef s)
{
	struct cg *g = u->g;
	LLVMValueRef seen = map_of(g, "uw_seen", BPF_MAP_TYPE_HASH, 1024,
				   sizeof(struct pr_uw_key), 8);
	LLVMValueRef ring = map_of(g, "uw_missq", BPF_MAP_TYPE_RINGBUF, 1u << 16, 0, 0);
	LLVMBasicBlockRef send = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "miss_send");
	LLVMBasicBlockRef unsent = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "miss_unsent");
	LLVMBasicBlockRef out = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "miss_done");

	st64(u, s, S_TMP, K(u, 1));
	LLVMValueRef ua[4] = { seen, at(u, s, S_DEV), at(u, s, S_TMP), K(u, BPF_NOEXIST) };
	LLVMBuildCondBr(u->b, cmp(u, LLVMIntEQ, call(u, H_MAP_UPDATE, ua, 4), K(u, 0)), send, out);
	LLVMPositionBuilderAtEnd(u->b, send);
	st64(u, s, S_STAGE, ld64(u, s, S_DEV));
	st64(u, s, S_STAGE + 8, ld64(u, s, S_INO));
	st64(u, s, S_STAGE + 16, LLVMBuildLShr(u->b, call(u, H_PID_TGID, NULL, 0), K(u, 32), ""));
	st64(u, s, S_STAGE + 24, ld64(u, s, S_VSTART));
	st64(u, s, S_STAGE + 32, ld64(u, s, S_VEND));
	st64(u, s, S_STAGE + 40, ld64(u, s, S_VPGOFF));
	LLVMValueRef ra[4] = { ring, at(u, s, S_STAGE), K(u, sizeof(struct pr_uw_miss)), K(u, 0) };
	LLVMBuildCondBr(u->b, cmp(u, LLVMIntEQ, call(u, H_RINGBUF_OUTPUT, ra, 4), K(u, 0)), out,
			unsent);
	LLVMPositionBuilderAtEnd(u->b, unsent);   /* the ring is full: asked again later */
	LLVMValueRef da[2] = { seen, at(u, s, S_DEV) };
	call(u, H_MAP_DELETE, da, 2);
	LLVMBuildBr(u->b, out);
	LLVMPositionBuilderAtEnd(u->b, out);
}

/* The object of pc q, unless q is in the one found last: its mapping
 * (bpf_find_vma) and its rows.  Stops where nothing is mapped. */
static void find_object(struct ub *u, LLVMValueRef s, LLVMValueRef q, LLVMValueRef zk,
			const struct uw_offs *o)
{
	struct cg *g = u->g;
	LLVMBasicBlockRef look = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "find");
	LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "found");
	LLVMValueRef in = LLVMBuildAnd(u->b, cmp(u, LLVMIntUGE, q, ld64(u, s, S_OSTART)),
				       cmp(u, LLVMIntULT, q, ld64(u, s, S_OEND)), "");

	LLVMBuildCondBr(u->b, in, done, look);
	LLVMPositionBuilderAtEnd(u->b, look);
	LLVMValueRef task = LLVMBuildIntToPtr(u->b, call(u, H_CURTASK_BTF, NULL, 0), g->ptr, "");
	/* the cache first: in an interrupt, bpf_find_vma runs once; in a
	 * uprobe it costs more than the cache (~250 ns a frame) */
	bool cache = o->mm_seq >= 0;
	if (cache) {
		LLVMBasicBlockRef vma = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "find_vma");
		cache_get(u, s, q, done, vma);
		LLVMPositionBuilderAtEnd(u->b, vma);
	}
	st64(u, s, S_FOUND, K(u, 0));
	LLVMValueRef a[5] = { task, q, vma_callback(g, o), zk, K(u, 0) };
	LLVMValueRef rc = call(u, H_FIND_VMA, a, 5);
	LLVMBasicBlockRef busy = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "vma_busy");
	LLVMBasicBlockRef got = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "vma");
	LLVMBasicBlockRef nf = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "vma_none");
	LLVMBuildCondBr(u->b, cmp(u, LLVMIntNE, ld64(u, s, S_FOUND), K(u, 0)), got, nf);
	LLVMPositionBuilderAtEnd(u->b, nf);
	/* -EBUSY: not run; anything else (no mapping there) ends the stack */
	LLVMBuildCondBr(u->b, cmp(u, LLVMIntEQ, rc, K(u, (uint64_t)-16)), busy, u->stop);
	LLVMPositionBuilderAtEnd(u->b, busy);
	LLVMBasicBlockRef uncached = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "uncached");
	if (cache)
		cache_get(u, s, q, done, uncached);
	else
		LLVMBuildBr(u->b, uncached);
	LLVMPositionBuilderAtEnd(u->b, uncached);
	note_stop(u, s, PR_UW_PC_BUSY, PR_UW_NOTE_BUSY);
	LLVMPositionBuilderAtEnd(u->b, got);
	st64(u, s, S_OSTART, ld64(u, s, S_VSTART));
	st64(u, s, S_OEND, ld64(u, s, S_VEND));
	st64(u, s, S_OBASE, LLVMBuildSub(u->b, ld64(u, s, S_VSTART),
					 LLVMBuildShl(u->b, ld64(u, s, S_VPGOFF), K(u, 12), ""), ""));
	LLVMValueRef la[2] = { objs_map(g), at(u, s, S_DEV) };
	LLVMValueRef ob = LLVMBuildIntToPtr(u->b, call(u, H_MAP_LOOKUP, la, 2), g->ptr, "");
	LLVMBasicBlockRef has = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "known");
	LLVMBasicBlockRef none = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "unknown");
	LLVMBasicBlockRef keep = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "keep");
	LLVMBuildCondBr(u->b, LLVMBuildIsNotNull(u->b, ob, ""), has, none);
	LLVMPositionBuilderAtEnd(u->b, has);
	LLVMValueRef lo = ld(u, g->i32, ob, 0), hi = ld(u, g->i32, ob, 4);
	LLVMBasicBlockRef fits = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "fits");
	LLVMBasicBlockRef noroom = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "noroom");
	LLVMBuildCondBr(u->b, cmp(u, LLVMIntUGT, lo, hi), noroom, fits);
	LLVMPositionBuilderAtEnd(u->b, noroom);
	note_stop(u, s, PR_UW_PC_NOROOM, PR_UW_NOTE_NOROOM);
	LLVMPositionBuilderAtEnd(u->b, fits);
	LLVMBuildStore(u->b, LLVMBuildLoad2(u->b, g->i64, ob, ""), at(u, s, S_LO)); /* lo, hi */
	/* lo == hi: an object without CFI, walked by its frame pointer; the
	 * object's tag above (pr_uw_tag) */
	LLVMValueRef tag = LLVMBuildZExt(u->b, ld(u, g->i32, ob, 8), g->i64, "");
	LLVMValueRef chunked = LLVMBuildSelect(u->b, cmp(u, LLVMIntNE, ld(u, g->i32, ob, 12), K(u, 0)),
					       K(u, UW_HAS_CHUNKED), K(u, 0), "");
	LLVMValueRef rows = LLVMBuildOr(u->b, LLVMBuildZExt(u->b, cmp(u, LLVMIntUGT, hi, lo), g->i64, ""),
					chunked, "");
	st64(u, s, S_HAS, LLVMBuildOr(u->b, rows, LLVMBuildShl(u->b, tag, K(u, 32), ""), ""));
	LLVMBuildBr(u->b, keep);
	LLVMPositionBuilderAtEnd(u->b, none);
	/* a file the runtime has not read yet: asked for, and this stack ends
	 * with a note; anonymous memory (JIT code) has no rows to ask for */
	LLVMValueRef dev = ld64(u, s, S_DEV), ino = ld64(u, s, S_INO);
	LLVMValueRef vdso = LLVMBuildAnd(u->b, cmp(u, LLVMIntEQ, dev, K(u, PR_UW_VDSO_DEV)),
					 cmp(u, LLVMIntEQ, ino, K(u, PR_UW_VDSO_INO)), "");
	LLVMBasicBlockRef miss = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "miss");
	LLVMBasicBlockRef anon = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "anon");
	LLVMBuildCondBr(u->b, LLVMBuildAnd(u->b, cmp(u, LLVMIntNE, ino, K(u, 0)),
					   LLVMBuildNot(u->b, vdso, ""), ""), miss, anon);
	LLVMPositionBuilderAtEnd(u->b, miss);
	report_miss(u, s);
	note_stop(u, s, PR_UW_PC_LOADING, PR_UW_NOTE_LOADING);
	LLVMPositionBuilderAtEnd(u->b, anon);
	st64(u, s, S_HAS, K(u, 0));
	LLVMBuildBr(u->b, keep);
	LLVMPositionBuilderAtEnd(u->b, keep);
	if (cache)
		cache_put(u, s, done);
	else
		LLVMBuildBr(u->b, done);
	LLVMPositionBuilderAtEnd(u->b, done);
}

/* Row i (i64) of uw_rows, or of the chunks; stops if it is not there. */
static LLVMValueRef row_at(struct ub *u, LLVMValueRef key, LLVMValueRef i, bool chunked)
{
	struct cg *g = u->g;

	if (!chunked) {
		LLVMBuildStore(u->b, LLVMBuildTrunc(u->b, i, g->i32, ""), key);
		return lookup0(u, rows_map(g), key);
	}
	LLVMBuildStore(u->b, LLVMBuildTrunc(u->b, LLVMBuildLShr(u->b, i, K(u, PR_UW_CHUNK_SHIFT), ""),
					    g->i32, ""), key);
	LLVMValueRef chunk = lookup0(u, chunks_map(g), key);
	LLVMBuildStore(u->b, LLVMBuildTrunc(u->b, LLVMBuildAnd(u->b, i, K(u, PR_UW_CHUNK_ROWS - 1), ""),
					    g->i32, ""), key);
	return lookup0(u, chunk, key);
}

/* The row of file offset rel in rows [lo, hi) of uw_rows or of the
 * chunks: the last whose off <= rel, by binary search (bounded); stops
 * if there is none. */
static LLVMValueRef find_row(struct ub *u, LLVMValueRef s, LLVMValueRef rel, bool chunked)
{
	struct cg *g = u->g;
	LLVMValueRef l = entry_alloca(u, g->i64, "l"), h = entry_alloca(u, g->i64, "h");
	LLVMValueRef k = entry_alloca(u, g->i64, "k"), key = entry_alloca(u, g->i32, "m");
	LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "bs");
	LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "bs_step");
	LLVMBasicBlockRef out = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "bs_done");

	LLVMBuildStore(u->b, ld(u, g->i32, s, S_LO), l);
	LLVMBuildStore(u->b, ld(u, g->i32, s, S_HI), h);
	LLVMBuildStore(u->b, K(u, 0), k);
	LLVMBuildBr(u->b, head);
	LLVMPositionBuilderAtEnd(u->b, head);
	LLVMValueRef lv = LLVMBuildLoad2(u->b, g->i64, l, ""), hv = LLVMBuildLoad2(u->b, g->i64, h, "");
	LLVMValueRef kv = LLVMBuildLoad2(u->b, g->i64, k, "");
	LLVMValueRef more = LLVMBuildAnd(u->b, cmp(u, LLVMIntUGT, LLVMBuildSub(u->b, hv, lv, ""), K(u, 1)),
					 cmp(u, LLVMIntULT, kv, K(u, UW_SEARCH_STEPS)), "");
	LLVMBuildCondBr(u->b, more, body, out);
	LLVMPositionBuilderAtEnd(u->b, body);
	LLVMBuildStore(u->b, LLVMBuildAdd(u->b, kv, K(u, 1), ""), k);
	LLVMValueRef m = LLVMBuildLShr(u->b, LLVMBuildAdd(u->b, lv, hv, ""), K(u, 1), "");
	LLVMValueRef row = row_at(u, key, m, chunked);
	LLVMValueRef le = cmp(u, LLVMIntULE, ld(u, g->i32, row, 0), rel);
	LLVMBuildStore(u->b, LLVMBuildSelect(u->b, le, m, lv, ""), l);
	LLVMBuildStore(u->b, LLVMBuildSelect(u->b, le, hv, m, ""), h);
	LLVMBuildBr(u->b, head);
	LLVMPositionBuilderAtEnd(u->b, out);
	row = row_at(u, key, LLVMBuildLoad2(u->b, g->i64, l, ""), chunked);
	need(u, cmp(u, LLVMIntULE, ld(u, g->i32, row, 0), rel));
	return row;
}

/*
 * The row of file offset rel in the current object's rows, copied to the
 * state (S_ROW).  The start's rows are in uw_rows; an object met later
 * may be in the chunks the runtime adds, where each step of the search
 * looks its chunk up in the array of maps first.  Every lookup of both is
 * inlined by the verifier (arrays of a size it knows: the chunks are all
 * alike), where a helper call costs ~25 ns here (a search of 17 steps in
 * maps of different sizes added ~450 ns a frame).  The copy joins both
 * paths into one state.
 */
static LLVMValueRef object_row(struct ub *u, LLVMValueRef s, LLVMValueRef rel)
{
	struct cg *g = u->g;
	LLVMValueRef chunked = LLVMBuildAnd(u->b, ld64(u, s, S_HAS), K(u, UW_HAS_CHUNKED), "");
	LLVMBasicBlockRef first = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "rows_start");
	LLVMBasicBlockRef added = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "rows_chunked");
	LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "row");

	LLVMBuildCondBr(u->b, cmp(u, LLVMIntEQ, chunked, K(u, 0)), first, added);
	LLVMPositionBuilderAtEnd(u->b, first);
	st64(u, s, S_ROW, LLVMBuildLoad2(u->b, g->i64, find_row(u, s, rel, false), ""));
	LLVMBuildBr(u->b, done);
	LLVMPositionBuilderAtEnd(u->b, added);
	st64(u, s, S_ROW, LLVMBuildLoad2(u->b, g->i64, find_row(u, s, rel, true), ""));
	LLVMBuildBr(u->b, done);
	LLVMPositionBuilderAtEnd(u->b, done);
	return at(u, s, S_ROW);
}

/* Reads the u64 at user address a into the state's slot off, from the
 * copy of the stack's top if it is there; 0, or the helper's error. */
static LLVMValueRef uread(struct ub *u, LLVMValueRef s, uint64_t off, LLVMValueRef a)
{
	struct cg *g = u->g;
	LLVMValueRef d = LLVMBuildSub(u->b, a, ld64(u, s, S_BUFBASE), "");
	LLVMValueRef in = LLVMBuildAnd(u->b, cmp(u, LLVMIntNE, ld64(u, s, S_BUFOK), K(u, 0)),
				       cmp(u, LLVMIntULE, d, K(u, UW_BUF - 8)), "");
	LLVMBasicBlockRef buf = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "ubuf");
	LLVMBasicBlockRef mem = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "umem");
	LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "uread");

	LLVMBuildCondBr(u->b, in, buf, mem);
	LLVMPositionBuilderAtEnd(u->b, buf);
	/* masked, for the verifier's bounds (S_BUF has 8 bytes of slack) */
	LLVMValueRef i = LLVMBuildAdd(u->b, K(u, S_BUF), LLVMBuildAnd(u->b, d, K(u, UW_BUF - 1), ""), "");
	LLVMValueRef v = LLVMBuildLoad2(u->b, g->i64, LLVMBuildGEP2(u->b, g->i8, s, &i, 1, ""), "");
	LLVMSetAlignment(v, 8);   /* x86 loads unaligned words alike */
	st64(u, s, off, v);
	LLVMBuildBr(u->b, done);
	LLVMPositionBuilderAtEnd(u->b, mem);
	LLVMValueRef rc = rd(u, true, at(u, s, off), 8, LLVMBuildIntToPtr(u->b, a, g->ptr, ""));
	LLVMBasicBlockRef mem_end = LLVMGetInsertBlock(u->b);
	LLVMBuildBr(u->b, done);
	LLVMPositionBuilderAtEnd(u->b, done);
	LLVMValueRef phi = LLVMBuildPhi(u->b, g->i64, "urc");
	LLVMValueRef iv[2] = { K(u, 0), rc };
	LLVMBasicBlockRef ib[2] = { buf, mem_end };
	LLVMAddIncoming(phi, iv, ib, 2);
	return phi;
}

/* Reads the u64 at user address a into the state's slot off; stops on a fault. */
static void read_slot(struct ub *u, LLVMValueRef s, uint64_t off, LLVMValueRef a)
{
	need(u, cmp(u, LLVMIntEQ, uread(u, s, off, a), K(u, 0)));
}

/* The caller by the row's rule: next pc into S_TMP, returns the CFA. */
static LLVMValueRef cfi_step(struct ub *u, LLVMValueRef s, LLVMValueRef row, LLVMValueRef pc)
{
	struct cg *g = u->g;
	LLVMValueRef rule = ld(u, g->i8, row, 7), cr = LLVMBuildAnd(u->b, rule, K(u, 15), "");
	LLVMValueRef br = LLVMBuildLShr(u->b, rule, K(u, 4), "");
	LLVMValueRef off = LLVMBuildSExt(u->b, LLVMBuildLoad2(u->b, g->i16, at(u, row, 4), ""), g->i64, "");
	LLVMValueRef boff = LLVMBuildSExt(u->b, LLVMBuildLoad2(u->b, g->i8, at(u, row, 6), ""), g->i64, "");
	LLVMValueRef sp = ld64(u, s, S_SP), bp = ld64(u, s, S_BP);
	LLVMValueRef isbp = cmp(u, LLVMIntEQ, cr, K(u, PR_UW_RBP));

	need(u, LLVMBuildOr(u->b, LLVMBuildOr(u->b, cmp(u, LLVMIntEQ, cr, K(u, PR_UW_RSP)), isbp, ""),
			    cmp(u, LLVMIntEQ, cr, K(u, PR_UW_PLT)), ""));
	/* an rbp-based CFA needs rbp known */
	need(u, LLVMBuildOr(u->b, LLVMBuildNot(u->b, isbp, ""),
			    cmp(u, LLVMIntNE, ld64(u, s, S_BPOK), K(u, 0)), ""));
	LLVMValueRef plt = LLVMBuildSelect(u->b,
		LLVMBuildAnd(u->b, cmp(u, LLVMIntEQ, cr, K(u, PR_UW_PLT)),
			     cmp(u, LLVMIntUGE, LLVMBuildAnd(u->b, pc, K(u, 15), ""), boff), ""),
		K(u, 8), K(u, 0), "");
	LLVMValueRef cfa = LLVMBuildAdd(u->b, LLVMBuildAdd(u->b, LLVMBuildSelect(u->b, isbp, bp, sp, ""),
							   off, ""), plt, "");
	read_slot(u, s, S_TMP, LLVMBuildSub(u->b, cfa, K(u, 8), ""));
	/* rbp: read at CFA + off, kept, or unknown from here */
	LLVMBasicBlockRef rdbp = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "rbp_at");
	LLVMBasicBlockRef other = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "rbp_other");
	LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(g->ctx, u->fn, "rbp_done");
	LLVMBuildCondBr(u->b, cmp(u, LLVMIntEQ, br, K(u, PR_UW_BP_AT)), rdbp, other);
	LLVMPositionBuilderAtEnd(u->b, rdbp);
	LLVMValueRef r = uread(u, s, S_BP, LLVMBuildAdd(u->b, cfa, boff, ""));
	st64(u, s, S_BPOK, LLVMBuildZExt(u->b, cmp(u, LLVMIntEQ, r, K(u, 0)), g->i64, ""));
	LLVMBuildBr(u->b, done);
	LLVMPositionBuilderAtEnd(u->b, other);
	LLVMValueRef undef = cmp(u, LLVMIntEQ, br, K(u, PR_UW_BP_UNDEF));
	st64(u, s, S_BPOK, LLVMBuildSelect(u->b, undef, K(u, 0), ld64(u, s, S_BPOK), ""));
	LLVMBuildBr(u->b, done);
	LLVMPositionBuilderAtEnd(u->b, done);
	return cfa;
}

/* The kernel's signal frame (__restore_rt): sp points at the ucontext;
 * the interrupted code's rip, rsp and rbp are read from it. */
static LLVMValueRef sig_step(struct ub *u, LLVMValueRef s, LLVMValueRef sp)
{
	read_slot(u, s, S_TMP, LLVMBuildAdd(u->b, sp, K(u, PR_UW_SIG_RIP), ""));
	read_slot(u, s, S_TMP + 8, LLVMBuildAdd(u->b, sp, K(u, PR_UW_SIG_RSP), ""));
	read_slot(u, s, S_BP, LLVMBuildAdd(u->b, sp, K(u, PR_UW_SIG_RBP), ""));
	st64(u, s, S_BPOK, K(u, 1));
	st64(u, s, S_SIG, K(u, 1));
	return ld64(u, s, S_TMP + 8);
}

/* An object without rows: its frame pointer chain. */
static LLVMValueRef fp_step(struct ub *u, LLVMValueRef s)
{
	LLVMValueRef bp = ld64(u, s, S_BP);

	need(u, LLVMBuildAnd(u->b, cmp(u, LLVMIntNE, ld64(u, s, S_BPOK), K(u, 0)),
			     cmp(u, LLVMIntNE, bp, K(u, 0)), ""));
	read_slot(u, s, S_TMP, LLVMBuildAdd(u->b, bp, K(u, 8), ""));
	read_slot(u, s, S_BP, bp);
	return LLVMBuildAdd(u->b, bp, K(u, 16), "");
}

/*
 * bpf_loop's callback (index, ctx): records this frame's pc, then finds
 * the caller's; returns 1 (stop) where it cannot.  A return address is
 * looked up at pc - 1, inside the call.
 */
static LLVMValueRef frame_callback(struct cg *g, const struct uw_offs *o)
{
	static const char *const pn[2] = { "index", "ctx" };
	const char *name = "pr_uw_frame";
	struct ub u;
	LLVMValueRef fn = LLVMGetNamedFunction(g->mod, name);

	if (fn)
		return fn;
	cb_begin(&u, g, name, 2, pn, 1);
	LLVMValueRef zk = zero_key(&u);
	LLVMValueRef s = lookup0(&u, state_map(g), zk);
	LLVMValueRef pc = ld64(&u, s, S_PC), n = ld64(&u, s, S_N);

	need(&u, LLVMBuildAnd(u.b, cmp(&u, LLVMIntNE, pc, K(&u, 0)),
			      cmp(&u, LLVMIntULT, n, K(&u, PR_UW_DEPTH)), ""));
	LLVMValueRef slot = LLVMBuildAdd(u.b, K(&u, S_IPS), LLVMBuildShl(u.b, n, K(&u, 3), ""), "");
	LLVMBuildStore(u.b, pc, LLVMBuildGEP2(u.b, g->i8, s, &slot, 1, ""));
	st64(&u, s, S_N, LLVMBuildAdd(u.b, n, K(&u, 1), ""));
	/* the pc a signal interrupted is not a return address */
	LLVMValueRef after_sig = cmp(&u, LLVMIntNE, ld64(&u, s, S_SIG), K(&u, 0));
	LLVMValueRef q = LLVMBuildSub(u.b, pc, LLVMBuildZExt(u.b,
		LLVMBuildAnd(u.b, cmp(&u, LLVMIntNE, n, K(&u, 0)), LLVMBuildNot(u.b, after_sig, ""), ""),
		g->i64, ""), "");
	st64(&u, s, S_SIG, K(&u, 0));
	find_object(&u, s, q, zk, o);
	/* the frame's pc tagged with its object's number */
	LLVMValueRef tag = LLVMBuildLShr(u.b, ld64(&u, s, S_HAS), K(&u, 32), "");
	LLVMBuildStore(u.b, LLVMBuildOr(u.b, pc, LLVMBuildShl(u.b, tag, K(&u, PR_UW_TAG_SHIFT), ""), ""),
		       LLVMBuildGEP2(u.b, g->i8, s, &slot, 1, ""));
	LLVMBasicBlockRef cfi = LLVMAppendBasicBlockInContext(g->ctx, u.fn, "cfi");
	LLVMBasicBlockRef rule = LLVMAppendBasicBlockInContext(g->ctx, u.fn, "rule");
	LLVMBasicBlockRef sig = LLVMAppendBasicBlockInContext(g->ctx, u.fn, "sigframe");
	LLVMBasicBlockRef fp = LLVMAppendBasicBlockInContext(g->ctx, u.fn, "fp");
	LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(g->ctx, u.fn, "next");
	LLVMValueRef sp0 = ld64(&u, s, S_SP);
	LLVMBuildCondBr(u.b, cmp(&u, LLVMIntNE, LLVMBuildAnd(u.b, ld64(&u, s, S_HAS), K(&u, 1), ""),
				 K(&u, 0)), cfi, fp);
	LLVMPositionBuilderAtEnd(u.b, cfi);
	LLVMValueRef row = object_row(&u, s, LLVMBuildSub(u.b, q, ld64(&u, s, S_OBASE), ""));
	LLVMValueRef cr = LLVMBuildAnd(u.b, ld(&u, g->i8, row, 7), K(&u, 15), "");
	LLVMBuildCondBr(u.b, cmp(&u, LLVMIntEQ, cr, K(&u, PR_UW_SIG)), sig, rule);
	LLVMPositionBuilderAtEnd(u.b, rule);
	LLVMValueRef c1 = cfi_step(&u, s, row, pc);
	LLVMBasicBlockRef cfi_end = LLVMGetInsertBlock(u.b);
	LLVMBuildBr(u.b, next);
	LLVMPositionBuilderAtEnd(u.b, sig);
	LLVMValueRef c3 = sig_step(&u, s, sp0);
	LLVMBasicBlockRef sig_end = LLVMGetInsertBlock(u.b);
	LLVMBuildBr(u.b, next);
	LLVMPositionBuilderAtEnd(u.b, fp);
	LLVMValueRef c2 = fp_step(&u, s);
	LLVMBasicBlockRef fp_end = LLVMGetInsertBlock(u.b);
	LLVMBuildBr(u.b, next);
	LLVMPositionBuilderAtEnd(u.b, next);
	LLVMValueRef cfa = LLVMBuildPhi(u.b, g->i64, "cfa");
	LLVMTypeRef i1 = LLVMInt1TypeInContext(g->ctx);
	LLVMValueRef anywhere = LLVMBuildPhi(u.b, i1, "anywhere");
	LLVMValueRef iv[3] = { c1, c2, c3 };
	LLVMValueRef av[3] = { LLVMConstInt(i1, 0, 0), LLVMConstInt(i1, 0, 0), LLVMConstInt(i1, 1, 0) };
	LLVMBasicBlockRef ib[3] = { cfi_end, fp_end, sig_end };
	LLVMAddIncoming(cfa, iv, ib, 3);
	LLVMAddIncoming(anywhere, av, ib, 3);
	/* the stack grows down: a caller's frame is above; anything else is
	 * a wrong rule or a corrupt stack, and ends it.  A signal can have
	 * come on another stack (sigaltstack): the interrupted sp is anywhere
	 * but 0. */
	need(&u, LLVMBuildOr(u.b, LLVMBuildAnd(u.b, anywhere, cmp(&u, LLVMIntNE, cfa, K(&u, 0)), ""),
			     cmp(&u, LLVMIntUGT, cfa, sp0), ""));
	st64(&u, s, S_SP, cfa);
	st64(&u, s, S_PC, ld64(&u, s, S_TMP));
	LLVMBuildRet(u.b, K(&u, 0));
	LLVMDisposeBuilder(u.b);
	return u.fn;
}

/* Loads the user registers into the state: the uprobe's context, else the
 * registers the task entered the kernel with. */
static void load_regs(struct cg *g, struct ub *u, LLVMValueRef s)
{
	enum probe_kind k = g->probe->kind;

	if (k == PK_UPROBE || k == PK_URETPROBE || k == PK_USDT) {
		st64(u, s, S_PC, cg_ctx_load(g, R_IP, 8));
		st64(u, s, S_SP, cg_ctx_load(g, R_SP, 8));
		st64(u, s, S_BP, cg_ctx_load(g, R_BP, 8));
		return;
	}
	LLVMValueRef task = LLVMBuildIntToPtr(u->b, call(u, H_CURTASK_BTF, NULL, 0), g->ptr, "");
	LLVMValueRef regs = LLVMBuildIntToPtr(u->b, call(u, H_TASK_PT_REGS, &task, 1), g->ptr, "");
	st64(u, s, S_PC, K(u, 0));
	rd(u, false, at(u, s, S_PC), 8, at(u, regs, R_IP));
	rd(u, false, at(u, s, S_SP), 8, at(u, regs, R_SP));
	rd(u, false, at(u, s, S_BP), 8, at(u, regs, R_BP));
}

/* Branches to a new block when c holds, else to `no`; returns the new block's builder position. */
static void when(struct cg *g, LLVMValueRef c, LLVMBasicBlockRef no)
{
	LLVMBasicBlockRef yes = cg_block(g, "uw");

	LLVMBuildCondBr(g->b, c, yes, no);
	LLVMPositionBuilderAtEnd(g->b, yes);
}

/* The id of the pcs in the state into *res: the known one (its entry's
 * last use set to now), else one the runtime gave back (uw_freeids), else
 * a new one from the counter uw_next; stored in both hashes (a stack that
 * another CPU stored first keeps that CPU's id).  PR_UW_ID_FULL when the
 * ids are used up or a map refuses the entry (counted as a dropped
 * update); branches to done.  The runtime reclaims an id whose stack was
 * not met for a while and that no map holds (runtime/stackids.c). */
static void stack_id(struct cg *g, struct ub *u, LLVMValueRef s, LLVMValueRef ids,
		     LLVMValueRef res, LLVMBasicBlockRef done)
{
	LLVMValueRef stacks = map_of(g, "uw_stacks", BPF_MAP_TYPE_HASH, PR_UW_MAX_STACKS, 4,
				     PR_UW_DEPTH * 8);
	LLVMValueRef next = map_of(g, "uw_next", BPF_MAP_TYPE_ARRAY, 1, 4, 8);
	LLVMValueRef freeq = map_of(g, PR_UW_FREE_MAP, BPF_MAP_TYPE_QUEUE, PR_UW_MAX_STACKS, 0, 4);
	LLVMValueRef key = cg_alloca(g, 4, "id"), ent = cg_alloca(g, 8, "ident"), ips = at(u, s, S_IPS);
	LLVMValueRef la[2] = { ids, ips };
	LLVMValueRef idp = LLVMBuildIntToPtr(g->b, call(u, H_MAP_LOOKUP, la, 2), g->ptr, "");
	LLVMValueRef now = LLVMBuildTrunc(g->b, LLVMBuildLShr(g->b, call(u, H_KTIME, NULL, 0),
				K(u, PR_UW_TICK_SHIFT), ""), g->i32, "");
	LLVMBasicBlockRef fresh = cg_block(g, "uw_new"), drop = cg_block(g, "uw_drop");
	LLVMBasicBlockRef have = cg_block(g, "uw_have"), count = cg_block(g, "uw_count");

	when(g, LLVMBuildIsNotNull(g->b, idp, ""), fresh);
	LLVMBuildStore(g->b, ld(u, g->i32, idp, 0), res);
	LLVMBuildStore(g->b, now, at(u, idp, 4));
	LLVMBuildBr(g->b, done);
	LLVMPositionBuilderAtEnd(g->b, fresh);
	LLVMValueRef pa[2] = { freeq, key };
	LLVMBuildCondBr(g->b, cmp(u, LLVMIntEQ, call(u, H_MAP_POP, pa, 2), K(u, 0)), have, count);
	LLVMPositionBuilderAtEnd(g->b, count);
	LLVMBuildStore(g->b, LLVMConstInt(g->i32, 0, 0), key);
	LLVMValueRef na[2] = { next, key };
	LLVMValueRef np = LLVMBuildIntToPtr(g->b, call(u, H_MAP_LOOKUP, na, 2), g->ptr, "");
	when(g, LLVMBuildIsNotNull(g->b, np, ""), done);
	LLVMValueRef nid = LLVMBuildAtomicRMW(g->b, LLVMAtomicRMWBinOpAdd, np, K(u, 1),
					      LLVMAtomicOrderingMonotonic, 0);
	when(g, cmp(u, LLVMIntULT, nid, K(u, PR_UW_MAX_STACKS)), drop);
	LLVMBuildStore(g->b, LLVMBuildTrunc(g->b, nid, g->i32, ""), key);
	LLVMBuildBr(g->b, have);
	LLVMPositionBuilderAtEnd(g->b, have);
	LLVMValueRef id = LLVMBuildLoad2(g->b, g->i32, key, "");
	LLVMValueRef ua[4] = { stacks, key, ips, K(u, BPF_ANY) };
	when(g, cmp(u, LLVMIntEQ, call(u, H_MAP_UPDATE, ua, 4), K(u, 0)), drop);
	LLVMBuildStore(g->b, id, ent);
	LLVMBuildStore(g->b, now, at(u, ent, 4));
	LLVMValueRef ia[4] = { ids, ips, ent, K(u, BPF_NOEXIST) };
	LLVMValueRef ok = cmp(u, LLVMIntEQ, call(u, H_MAP_UPDATE, ia, 4), K(u, 0));
	LLVMBasicBlockRef raced = cg_block(g, "uw_raced");
	LLVMBuildStore(g->b, LLVMBuildZExt(g->b, id, g->i64, ""), res);
	LLVMBuildCondBr(g->b, ok, done, raced);
	LLVMPositionBuilderAtEnd(g->b, raced);   /* this id stays unheld: reclaimed */
	LLVMBuildStore(g->b, K(u, 0xffffffffu), res);
	idp = LLVMBuildIntToPtr(g->b, call(u, H_MAP_LOOKUP, la, 2), g->ptr, "");
	when(g, LLVMBuildIsNotNull(g->b, idp, ""), drop);
	LLVMBuildStore(g->b, ld(u, g->i32, idp, 0), res);
	LLVMBuildBr(g->b, done);
	LLVMPositionBuilderAtEnd(g->b, drop);
	LLVMBuildStore(g->b, K(u, PR_UW_ID_FULL), res);
	cg_count(g, CG_DROPS);
	LLVMBuildBr(g->b, done);
}

/*
 * The id -> stack lookup hashes its whole key, and a key of all 127 pcs
 * cost about 400 ns a hit.  Stacks are keyed by as many slots as the
 * smallest of UW_KEY_CLASSES that holds them, in a hash of that key
 * size: the pcs past the stack's depth are zero (the state's are cleared
 * before each walk), so the key is the stack itself and a stack is always
 * in the same hash; two stacks never share an id, since all ids come from
 * the one counter.
 */
static const unsigned uw_key_classes[] = PR_UW_KEY_CLASSES;

static void stack_ids(struct cg *g, struct ub *u, LLVMValueRef s, LLVMValueRef res,
		      LLVMBasicBlockRef done)
{
	LLVMValueRef n = ld64(u, s, S_N);
	size_t nc = sizeof(uw_key_classes) / sizeof(uw_key_classes[0]);

	for (size_t i = 0; i < nc; i++) {
		unsigned c = uw_key_classes[i];
		char name[32];

		snprintf(name, sizeof(name), c == PR_UW_DEPTH ? "uw_ids" : "uw_ids_%u", c);
		LLVMValueRef ids = map_of(g, name, BPF_MAP_TYPE_HASH, PR_UW_MAX_STACKS, c * 8, 8);
		if (i + 1 == nc) {
			stack_id(g, u, s, ids, res, done);
			break;
		}
		LLVMBasicBlockRef here = cg_block(g, "uw_key"), next = cg_block(g, "uw_key_next");
		LLVMBuildCondBr(g->b, cmp(u, LLVMIntULE, n, K(u, c)), here, next);
		LLVMPositionBuilderAtEnd(g->b, here);
		stack_id(g, u, s, ids, res, done);
		LLVMPositionBuilderAtEnd(g->b, next);
	}
}

LLVMValueRef cg_ustack_cfi(struct cg *g, unsigned frames)
{
	static int have = -1;
	static struct uw_offs o;
	enum probe_kind k = g->probe ? g->probe->kind : PK_BEGIN;

	/* PERF_RUN_USTACK_FP=1: the frame-pointer walk (bpf_get_stackid), to
	 * compare with (tests/bench/ustack.sh) */
	if (have < 0)
		have = !getenv("PERF_RUN_USTACK_FP") && uw_kernel_has_helpers() && uw_offsets(&o);
	if (!have || k == PK_BEGIN || k == PK_END)
		return NULL;
	if (!g->prog->uw_rows_name) {
		g->prog->uw_rows_name = strdup("uw_rows");
		g->prog->uw_objs_name = strdup("uw_objs");
		g->prog->ustack_map_name = strdup("uw_stacks");
		g->prog->uw_ctime = o.ctime_sec >= 0;
	}
	struct ub u = { .g = g, .b = g->b, .fn = g->fn };
	LLVMValueRef res = cg_alloca(g, 8, "ustack"), zk = cg_alloca(g, 4, "zero");
	LLVMBasicBlockRef done = cg_block(g, "uw_done");

	LLVMBuildStore(g->b, K(&u, PR_UW_ID_NONE), res);   /* no stack: a negative id */
	LLVMBuildStore(g->b, LLVMConstInt(g->i32, 0, 0), zk);
	LLVMValueRef la[2] = { state_map(g), zk };
	LLVMValueRef s = LLVMBuildIntToPtr(g->b, call(&u, H_MAP_LOOKUP, la, 2), g->ptr, "");
	when(g, LLVMBuildIsNotNull(g->b, s, ""), done);
	load_regs(g, &u, s);
	st64(&u, s, S_N, K(&u, 0));
	st64(&u, s, S_BPOK, K(&u, 1));
	st64(&u, s, S_SIG, K(&u, 0));
	st64(&u, s, S_OSTART, K(&u, 0));
	st64(&u, s, S_OEND, K(&u, 0));
	cg_memset0(g, at(&u, s, S_IPS), PR_UW_DEPTH * 8);
	if (o.mm_seq >= 0)
		proc_ident(&u, s, &o);
	/* the stack's top in one read; where it ends within UW_BUF bytes
	 * (a thread's stack, its last page), frame by frame */
	st64(&u, s, S_BUFBASE, ld64(&u, s, S_SP));
	st64(&u, s, S_BUFOK, LLVMBuildZExt(g->b, cmp(&u, LLVMIntEQ,
		rd(&u, true, at(&u, s, S_BUF), UW_BUF, LLVMBuildIntToPtr(g->b, ld64(&u, s, S_SP), g->ptr, "")),
		K(&u, 0)), g->i64, ""));
	unsigned depth = frames && frames < PR_UW_DEPTH ? frames : PR_UW_DEPTH;
	st64(&u, s, S_DEPTH, K(&u, depth));
	LLVMValueRef a[4] = { LLVMConstInt(g->i32, depth, 0), frame_callback(g, &o), zk,
			      K(&u, 0) };
	call(&u, H_LOOP, a, 4);
	when(g, cmp(&u, LLVMIntNE, ld64(&u, s, S_N), K(&u, 0)), done);
	stack_ids(g, &u, s, res, done);
	LLVMPositionBuilderAtEnd(g->b, done);
	LLVMValueRef id = LLVMBuildAnd(g->b, LLVMBuildLoad2(g->b, g->i64, res, ""),
				       K(&u, 0xffffffffu), "");
	LLVMValueRef tgid = LLVMBuildLShr(g->b, cg_pid_tgid(g), K(&u, 32), "");
	return LLVMBuildOr(g->b, id, LLVMBuildShl(g->b, tgid, K(&u, 32), ""), "");
}

/*
 * The frame-pointer walk's stack map for stacks of n frames (kstack(n),
 * ustack(n) without CFI): the kernel keeps and hashes only as many frames
 * as the map's value holds, so stacks that differ below frame n share an
 * id, as in bpftrace (a map per depth).  NULL for all frames.
 */
LLVMValueRef cg_stackmap_n(struct cg *g, unsigned frames)
{
	char name[32];

	if (!frames || frames >= PR_UW_DEPTH)
		return NULL;
	g->slp_stack = true;    /* not allowed in a sleepable program */
	snprintf(name, sizeof(name), "stacks_%u", frames);
	return map_of(g, name, BPF_MAP_TYPE_STACK_TRACE, 16384, 4, frames * 8);
}
