// SPDX-License-Identifier: GPL-2.0-only
/*
 * codegen.c - the code generator's driver: cg_generate() makes one LLVM
 * module per script and one function per attach point in a section libbpf
 * 1.1 recognises (callbacks and companion programs too), with debug
 * locations that become BTF line info; a probe's predicate and body; the
 * programs that the sites of a uprobe or usdt wildcard share where their
 * code is the same (gen_shared).
 *
 * The toolbox is cg_ir.c, the maps and globals cg_maps.c, emission
 * cg_emit.c; expressions are in cg_expr.c, statements, calls and actions
 * in cg_stmt.c, DWARF and USDT variables in cg_dwarf.c (codegen_int.h).
 * A body that reads per-address variables gets one program per site.
 */
#define _GNU_SOURCE
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_int.h"

/* ---- functions ---- */

struct sec_info {
	const char *kind;
	int prog_type;
};

static struct sec_info section_of(const struct probe *p, int idx, char *sec, size_t n)
{
	switch (p->kind) {
	case PK_BEGIN:
		snprintf(sec, n, "raw_tp/begin");
		return (struct sec_info){ "begin", BPF_PROG_TYPE_RAW_TRACEPOINT };
	case PK_END:
		snprintf(sec, n, "raw_tp/end");
		return (struct sec_info){ "end", BPF_PROG_TYPE_RAW_TRACEPOINT };
	case PK_UPROBE: case PK_USDT:
		snprintf(sec, n, "uprobe/p%d", idx);
		return (struct sec_info){ p->kind == PK_USDT ? "usdt" : "uprobe",
					  BPF_PROG_TYPE_KPROBE };
	case PK_URETPROBE:
		snprintf(sec, n, "uretprobe/p%d", idx);
		return (struct sec_info){ "uretprobe", BPF_PROG_TYPE_KPROBE };
	case PK_KPROBE:
		snprintf(sec, n, "kprobe/p%d", idx);
		return (struct sec_info){ "kprobe", BPF_PROG_TYPE_KPROBE };
	case PK_KRETPROBE:
		snprintf(sec, n, "kretprobe/p%d", idx);
		return (struct sec_info){ "kretprobe", BPF_PROG_TYPE_KPROBE };
	case PK_TRACEPOINT:
		if (p->sys_raw) {
			snprintf(sec, n, "raw_tp/%s", p->sys_raw == SYS_ENTER ? "sys_enter" : "sys_exit");
			return (struct sec_info){ "syscalls", BPF_PROG_TYPE_RAW_TRACEPOINT };
		}
		if (p->tp_raw) {
			snprintf(sec, n, "raw_tp/%s", p->event ? p->event : "x");
			return (struct sec_info){ "tracepoint", BPF_PROG_TYPE_RAW_TRACEPOINT };
		}
		snprintf(sec, n, "tracepoint/%s/%s", p->category ? p->category : "x",
			 p->event ? p->event : "x");
		return (struct sec_info){ "tracepoint", BPF_PROG_TYPE_TRACEPOINT };
	case PK_RAWTP:
		snprintf(sec, n, "raw_tp/%s", p->event ? p->event : "x");
		return (struct sec_info){ "rawtracepoint", BPF_PROG_TYPE_RAW_TRACEPOINT };
	case PK_FENTRY: case PK_FEXIT:
		snprintf(sec, n, "%s/%s", p->kind == PK_FENTRY ? "fentry" : "fexit",
			 p->nsites ? p->sites[0].func : "x");
		return (struct sec_info){ p->kind == PK_FENTRY ? "fentry" : "fexit",
					  BPF_PROG_TYPE_TRACING };
	default:
		snprintf(sec, n, "perf_event");
		return (struct sec_info){ probe_kind_name(p->kind), BPF_PROG_TYPE_PERF_EVENT };
	}
}

static LLVMMetadataRef di_subroutine(struct cg *g)
{
	LLVMMetadataRef t[2] = { g->di_int, cg_di_ptr(g, NULL) };

	return LLVMDIBuilderCreateSubroutineType(g->di, g->di_file, t, 2, LLVMDIFlagZero);
}

/*
 * The callback of bpf_for_each_map_elem() that len(@m) passes: adds one to
 * the u64 its ctx points to and returns 0 (go on).  One static function in
 * .text for the object, with BTF (the kernel wants it of every subprogram,
 * each argument named).
 */
LLVMValueRef cg_count_callback(struct cg *g)
{
	static const char *const pn[4] = { "map", "key", "value", "ctx" };
	LLVMTypeRef at[4] = { g->ptr, g->ptr, g->ptr, g->ptr };
	LLVMMetadataRef dt[5] = { g->di_int, cg_di_ptr(g, NULL), cg_di_ptr(g, NULL),
				  cg_di_ptr(g, NULL), cg_di_ptr(g, NULL) };
	LLVMValueRef fn = LLVMGetNamedFunction(g->mod, "pr_count_elem");

	if (fn)
		return fn;
	fn = LLVMAddFunction(g->mod, "pr_count_elem", LLVMFunctionType(g->i64, at, 4, 0));
	LLVMSetLinkage(fn, LLVMInternalLinkage);
	LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
				LLVMCreateStringAttribute(g->ctx, "target-cpu", 10, cg_bpf_cpu(),
							  (unsigned)strlen(cg_bpf_cpu())));
	LLVMMetadataRef st = LLVMDIBuilderCreateSubroutineType(g->di, g->di_file, dt, 5,
								LLVMDIFlagZero);
	LLVMMetadataRef sp = LLVMDIBuilderCreateFunction(g->di, g->di_file, "pr_count_elem", 13,
							 "pr_count_elem", 13, g->di_file, 1, st, 1,
							 1, 1, LLVMDIFlagPrototyped, 1);
	LLVMSetSubprogram(fn, sp);
	for (unsigned i = 0; i < 4; i++)
		LLVMDIBuilderCreateParameterVariable(g->di, sp, pn[i], strlen(pn[i]), i + 1,
						     g->di_file, 1, cg_di_ptr(g, NULL), 1,
						     LLVMDIFlagZero);
	LLVMBuilderRef b = LLVMCreateBuilderInContext(g->ctx);
	LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(g->ctx, fn, "entry"));
	LLVMSetCurrentDebugLocation2(b, LLVMDIBuilderCreateDebugLocation(g->ctx, 1, 1, sp, NULL));
	LLVMValueRef p = LLVMGetParam(fn, 3);
	LLVMValueRef v = LLVMBuildLoad2(b, g->i64, p, "");
	LLVMBuildStore(b, LLVMBuildAdd(b, v, LLVMConstInt(g->i64, 1, 0), ""), p);
	LLVMBuildRet(b, LLVMConstInt(g->i64, 0, 0));
	LLVMDisposeBuilder(b);
	return fn;
}

/* The per-function state a callback sets aside and gives back (struct
 * cg_fnstate): one list, so that saving and restoring cannot disagree. */
#define FN_STATE(X) X(fn) X(ctxarg) X(pid_tgid) X(sys_nr) X(sys_site) X(sys_regs) \
	X(heap_ptr) X(entry) X(start) X(sp) X(vars) X(nvars) X(capvars) X(nloops) \
	X(tmp) X(tmpsize) X(tmpheap) X(ntmp) X(captmp) X(heap_off) X(slp_cand)

static void fn_save(struct cg *g, struct cg_fnstate *st)
{
#define SAVE(f) st->f = g->f;
	FN_STATE(SAVE)
#undef SAVE
	memcpy(st->brk, g->brk, sizeof(st->brk));
	memcpy(st->cont, g->cont, sizeof(st->cont));
	st->at = LLVMGetInsertBlock(g->b);
	st->loc = LLVMGetCurrentDebugLocation2(g->b);
}

/* What every function of the object carries: nounwind (BPF has no
 * unwinding) and the BPF CPU version the object is built for. */
static void fn_attrs(struct cg *g, LLVMValueRef fn)
{
	unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);

	LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
				LLVMCreateEnumAttribute(g->ctx, nounwind, 0));
	LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
				LLVMCreateStringAttribute(g->ctx, "target-cpu", 10, cg_bpf_cpu(),
							  (unsigned)strlen(cg_bpf_cpu())));
}

LLVMValueRef cg_callback_begin(struct cg *g, struct cg_fnstate *st, const char *name,
			       struct loc at)
{
	static const char *const pn[4] = { "map", "key", "value", "ctx" };
	LLVMTypeRef pt[4] = { g->ptr, g->ptr, g->ptr, g->ptr };
	LLVMMetadataRef dt[5] = { g->di_int, cg_di_ptr(g, NULL), cg_di_ptr(g, NULL),
				  cg_di_ptr(g, NULL), cg_di_ptr(g, NULL) };
	int line = at.line > 0 ? at.line : 1;

	fn_save(g, st);
	g->fn = LLVMAddFunction(g->mod, name, LLVMFunctionType(g->i32, pt, 4, 0));
	LLVMSetLinkage(g->fn, LLVMInternalLinkage);
	fn_attrs(g, g->fn);
	g->sp = LLVMDIBuilderCreateFunction(g->di, g->di_file, name, strlen(name), name,
					    strlen(name), g->di_file, line,
					    LLVMDIBuilderCreateSubroutineType(g->di, g->di_file, dt,
									      5, LLVMDIFlagZero),
					    1, 1, line, LLVMDIFlagPrototyped, 1);
	LLVMSetSubprogram(g->fn, g->sp);
	for (unsigned i = 0; i < 4; i++)
		LLVMDIBuilderCreateParameterVariable(g->di, g->sp, pn[i], strlen(pn[i]), i + 1,
						     g->di_file, line, cg_di_ptr(g, NULL), 1,
						     LLVMDIFlagZero);
	g->ctxarg = NULL;
	g->entry = cg_block(g, "entry");
	g->start = cg_block(g, "start");
	LLVMPositionBuilderAtEnd(g->b, g->start);
	LLVMSetCurrentDebugLocation2(g->b, LLVMDIBuilderCreateDebugLocation(g->ctx, line,
				     at.col > 0 ? at.col : 1, g->sp, NULL));
	g->vars = NULL;
	g->nvars = g->capvars = 0;
	g->nloops = 0;
	g->tmp = NULL;
	g->tmpsize = g->tmpheap = NULL;
	g->ntmp = g->captmp = 0;
	g->heap_ptr = NULL;
	g->pid_tgid = NULL;
	g->sys_nr = g->sys_site = g->sys_regs = NULL;
	/* The callback finds the caller's variables in the per-CPU heap
	 * (cg_formap.c): neither function may take the sleepable path's
	 * task-local heap (cg_sleep.c). */
	g->slp_stack = true;
	g->slp_cand = false;
	return g->fn;
}

/* The entry block, whose allocas are now all known, goes on to the body:
 * only once the per-CPU heap was found, if the function uses it. */
static void close_entry(struct cg *g)
{
	LLVMPositionBuilderAtEnd(g->b, g->entry);
	if (g->heap_ptr) {
		LLVMBasicBlockRef none = cg_block(g, "noheap");

		LLVMBuildCondBr(g->b, LLVMBuildIsNotNull(g->b, g->heap_ptr, ""), g->start, none);
		LLVMPositionBuilderAtEnd(g->b, none);
		LLVMBuildRet(g->b, LLVMConstInt(g->i32, 0, 0));
	} else {
		LLVMBuildBr(g->b, g->start);
	}
}

void cg_callback_end(struct cg *g, struct cg_fnstate *st)
{
	/* func_end without the sleepable decision, which is the caller's */
	if (!LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(g->b)))
		LLVMBuildRet(g->b, LLVMConstInt(g->i32, 0, 0));
	close_entry(g);
	free(g->vars);
	free(g->tmp);
	free(g->tmpsize);
	free(g->tmpheap);
#define RESTORE(f) g->f = st->f;
	FN_STATE(RESTORE)
#undef RESTORE
	memcpy(g->brk, st->brk, sizeof(st->brk));
	memcpy(g->cont, st->cont, sizeof(st->cont));
	LLVMPositionBuilderAtEnd(g->b, st->at);
	LLVMSetCurrentDebugLocation2(g->b, st->loc);
}

/*
 * A static function of .text that a helper calls back (bpf_loop,
 * bpf_find_vma: cg_unwind.c): n pointer parameters named pnames, an i64
 * result, nounwind, with the BTF the kernel wants of every subprogram.
 * Returns it with an empty "entry" block; *sp gets its debug scope.
 */
LLVMValueRef cg_callback_fn(struct cg *g, const char *name, int n, const char *const *pnames,
			    LLVMMetadataRef *sp)
{
	LLVMTypeRef at[5];
	LLVMMetadataRef dt[6] = { g->di_int };

	for (int i = 0; i < n && i < 5; i++)
		at[i] = g->ptr, dt[i + 1] = cg_di_ptr(g, NULL);
	LLVMValueRef fn = LLVMAddFunction(g->mod, name, LLVMFunctionType(g->i64, at, (unsigned)n, 0));
	LLVMSetLinkage(fn, LLVMInternalLinkage);
	fn_attrs(g, fn);
	LLVMMetadataRef st = LLVMDIBuilderCreateSubroutineType(g->di, g->di_file, dt,
							       (unsigned)n + 1, LLVMDIFlagZero);
	*sp = LLVMDIBuilderCreateFunction(g->di, g->di_file, name, strlen(name), name,
					  strlen(name), g->di_file, 1, st, 1, 1, 1,
					  LLVMDIFlagPrototyped, 1);
	LLVMSetSubprogram(fn, *sp);
	for (int i = 0; i < n; i++)
		LLVMDIBuilderCreateParameterVariable(g->di, *sp, pnames[i], strlen(pnames[i]),
						     (unsigned)i + 1, g->di_file, 1, cg_di_ptr(g, NULL),
						     1, LLVMDIFlagZero);
	LLVMAppendBasicBlockInContext(g->ctx, fn, "entry");
	return fn;
}

/* Loads from the context must keep a constant offset (the verifier refuses
 * "modified ctx ptr"), yet LLVM merges two loads at different offsets in
 * two branches into one load at a phi of the offsets.  A pointer marked
 * with llvm.preserve.static.offset has its loads kept whole by the BPF
 * back end's own pass. */
static LLVMValueRef static_offsets(struct cg *g, LLVMValueRef ctx)
{
	unsigned id = LLVMLookupIntrinsicID("llvm.preserve.static.offset", 27);
	LLVMValueRef fn = LLVMGetIntrinsicDeclaration(g->mod, id, NULL, 0);
	LLVMTypeRef ft = LLVMFunctionType(g->ptr, &g->ptr, 1, 0);

	return LLVMBuildCall2(g->b, ft, fn, &ctx, 1, "ctx");
}

static void func_begin(struct cg *g, const char *name, const char *sec, struct node *pn)
{
	LLVMTypeRef ft = LLVMFunctionType(g->i32, &g->ptr, 1, 0);
	int line = pn->loc.line > 0 ? pn->loc.line : 1;

	g->fn = LLVMAddFunction(g->mod, name, ft);
	LLVMSetSection(g->fn, sec);
	fn_attrs(g, g->fn);
	g->ctxarg = LLVMGetParam(g->fn, 0);
	LLVMSetValueName2(g->ctxarg, "ctx", 3);
	g->sp = LLVMDIBuilderCreateFunction(g->di, g->di_file, name, strlen(name), name,
					    strlen(name), g->di_file, line, di_subroutine(g), 0, 1,
					    line, LLVMDIFlagPrototyped, 1);
	LLVMSetSubprogram(g->fn, g->sp);
	/* The kernel wants every BTF function argument named; a preserved
	 * parameter variable is where LLVM's BTF writer takes the name from. */
	LLVMDIBuilderCreateParameterVariable(g->di, g->sp, "ctx", 3, 1, g->di_file, line,
					     cg_di_ptr(g, NULL), 1, LLVMDIFlagZero);
	/* Allocas and once-per-hit values go to "entry", which branches to
	 * "start" when the function is complete. */
	g->entry = cg_block(g, "entry");
	g->start = cg_block(g, "start");
	LLVMPositionBuilderAtEnd(g->b, g->entry);
	g->ctxarg = static_offsets(g, g->ctxarg);
	LLVMPositionBuilderAtEnd(g->b, g->start);
	cg_at(g, pn);
	g->nvars = 0;
	g->nloops = 0;
	g->ntmp = 0;
	g->heap_ptr = NULL;
	g->heap_off = 0;
	g->heap_full = false;
	g->pid_tgid = NULL;
	g->sys_nr = g->sys_site = g->sys_regs = NULL;
	cg_slp_begin(g);
}

static void func_end(struct cg *g)
{
	LLVMBasicBlockRef cur = LLVMGetInsertBlock(g->b);

	if (!LLVMGetBasicBlockTerminator(cur))
		LLVMBuildRet(g->b, LLVMConstInt(g->i32, 0, 0));
	g->fn_sleepable = cg_slp_end(g);
	close_entry(g);
	LLVMSetCurrentDebugLocation2(g->b, NULL);
	g->sp = NULL;
}

struct pr_prog *cg_func_begin(struct cg *g, const char *name, const char *sec, struct loc at)
{
	struct node pn = { .kind = N_PROBE, .loc = at };
	struct pr_prog *v = realloc(g->prog->progs, (g->prog->nprogs + 1) * sizeof(*v));

	if (!v)
		abort();
	g->prog->progs = v;
	v = &v[g->prog->nprogs++];
	memset(v, 0, sizeof(*v));
	v->name = strdup(name);
	v->loc = at;
	v->site = -1;
	g->site = -1;
	g->probe = NULL;
	func_begin(g, name, sec, &pn);
	return v;
}

void cg_func_end(struct cg *g)
{
	func_end(g);
}

void cg_ret0_unless(struct cg *g, LLVMValueRef v, bool want)
{
	LLVMBasicBlockRef go = cg_block(g, "go"), stop = cg_block(g, "stop");
	LLVMValueRef c = LLVMBuildICmp(g->b, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "");

	LLVMBuildCondBr(g->b, c, want ? go : stop, want ? stop : go);
	LLVMPositionBuilderAtEnd(g->b, stop);
	LLVMBuildRet(g->b, LLVMConstInt(g->i32, 0, 0));
	LLVMPositionBuilderAtEnd(g->b, go);
}

/* Once exit() has set its flag, a hit does nothing: the runtime detaches
 * the probes only when it has seen the flag, and a probe that fires every
 * millisecond would count on until then. */
void cg_skip_after_exit(struct cg *g)
{
	cg_counters(g);
	cg_ret0_unless(g, LLVMBuildLoad2(g->b, g->i64,
				      cg_gep(g, g->counters, 8 * (uint64_t)CG_EXIT), "exited"),
		    false);
}

void cg_probe_body(struct cg *g, struct node *pn)
{
	if (pn->a) {
		int mark = cg_tmp_mark(g);

		cg_at(g, pn->a);
		LLVMValueRef c = cg_expr(g, pn->a);
		cg_tmp_release(g, mark);
		cg_ret0_unless(g, c, true);
	}
	cg_block_stmts(g, pn->b);
}

/* The site of a program that several share: its attach cookie, which is
 * its index in probe->sites (runtime/prov_uprobe.c), checked so that the
 * tables indexed by it are in bounds for the verifier. */
static void site_cookie(struct cg *g)
{
	g->sys_site = cg_helper(g, H_GET_ATTACH_COOKIE, &g->ctxarg, 1);
	cg_ret0_unless(g, LLVMBuildICmp(g->b, LLVMIntULT, g->sys_site,
					cg_const(g, (uint64_t)g->probe->nsites), ""), true);
}

static int gen_function(struct cg *g, struct node *pn, const struct probe *p, int idx,
			int site)
{
	char name[64], sec[512];
	struct sec_info si = section_of(p, idx, sec, sizeof(sec));
	struct pr_prog *pp = realloc(g->prog->progs, (g->prog->nprogs + 1) * sizeof(*pp));

	if (!pp)
		abort();
	g->prog->progs = pp;
	pp = &pp[g->prog->nprogs];
	memset(pp, 0, sizeof(*pp));

	if (site >= 0) {
		snprintf(name, sizeof(name), "p%d_s%d_%s", idx, site, si.kind);
		snprintf(sec, sizeof(sec), "uprobe/p%d_s%d", idx, site);
	} else {
		snprintf(name, sizeof(name), "p%d_%s", idx, si.kind);
	}
	g->site = site;
	g->pidx = idx;
	for (char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'))
			*c = '_';
	g->probe = p;
	func_begin(g, name, sec, pn);
	if (g->site_cookie)
		site_cookie(g);
	if (p->sys_raw)
		cg_sys_prologue(g);
	if (g->s->has_exit && p->kind != PK_BEGIN && p->kind != PK_END)
		cg_skip_after_exit(g);
	if (g->rp_on)
		cg_rp_enter(g, pn, idx);
	if (site >= 0 && p->sites[site].absent)
		cg_count(g, CG_ABSENT);  /* a variable the body reads is not here */
	else
		cg_probe_body(g, pn);
	func_end(g);
	pp->name = strdup(name);
	pp->bpf_prog_type = si.prog_type;
	pp->probe = p;
	pp->site = site;
	pp->loc = pn->loc;
	pp->sleepable = g->fn_sleepable;
	g->prog->nprogs++;
	return 0;
}

/* ---- programs shared by sites ---- */

/* A function's IR without what differs between otherwise identical ones:
 * its header (name, section) and metadata numbers (the debug locations of
 * each function are in its own scope). */
static char *fn_text(LLVMValueRef fn, uint64_t *hash)
{
	char *ir = LLVMPrintValueToString(fn), *body = strstr(ir, "{\n");
	char *out = malloc(strlen(ir) + 1), *o = out;

	if (!out)
		abort();
	*hash = 14695981039346656037ULL;
	for (const char *c = body ? body : ir; *c; c++) {
		*o++ = *c;
		*hash = (*hash ^ (unsigned char)*c) * 1099511628211ULL;
		if (*c == '!')
			while (c[1] >= '0' && c[1] <= '9')
				c++;
	}
	*o = '\0';
	LLVMDisposeMessage(ir);
	return out;
}

struct cg_group { int prog; uint64_t hash; char *text; };

static void group_add(struct pr_prog *pp, int site)
{
	int *v = realloc(pp->sites, (size_t)(pp->nsites + 1) * sizeof(*v));

	if (!v)
		abort();
	pp->sites = v;
	v[pp->nsites++] = site;
}

/* The sites of a uprobe or usdt wildcard share programs through the attach
 * cookie.  A body that reads only the site's name or address has one
 * program for all of them.  One that reads DWARF or USDT locations is
 * generated for each site, and a site whose code comes out identical to
 * an earlier one's (the same locations read the same way) joins that
 * program instead of having its own: sound for every kind of location,
 * since what is compared is the code itself. */
static void gen_shared(struct cg *g, const struct sema_probe *sp, const struct probe *p,
		       int idx)
{
	struct cg_group *grp;
	int ngrp = 0;

	g->site_cookie = true;
	if (!sp->dwarf_site) {
		gen_function(g, sp->node, p, idx, -1);
		g->site_cookie = false;
		return;
	}
	grp = calloc((size_t)p->nsites, sizeof(*grp));
	if (!grp)
		abort();
	g->act_share_from = g->prog->nactions;
	for (int k = 0; k < p->nsites && !g->errors; k++) {
		g->nsitetab_used = 0;
		gen_function(g, sp->node, p, idx, k);
		struct pr_prog *pp = &g->prog->progs[g->prog->nprogs - 1];
		uint64_t h;
		char *text = fn_text(g->fn, &h);
		int j = 0;

		while (j < ngrp && (grp[j].hash != h || g->prog->progs[grp[j].prog].sleepable !=
				    pp->sleepable || strcmp(grp[j].text, text)))
			j++;
		if (j == ngrp) {
			grp[ngrp++] = (struct cg_group){ g->prog->nprogs - 1, h, text };
			group_add(pp, k);
			continue;
		}
		free(text);
		LLVMDeleteFunction(g->fn);
		g->fn = NULL;
		free(pp->name);
		g->prog->nprogs--;
		group_add(&g->prog->progs[grp[j].prog], k);
	}
	for (int j = 0; j < ngrp; j++)
		free(grp[j].text);
	free(grp);
	cg_sitetab_fill(g, p->nsites);
	g->act_share_from = -1;
	g->site_cookie = false;
}

static bool shared_sites(const struct sema_probe *sp, const struct probe *p)
{
	return sp->per_site && !p->sys_raw && p->nsites > 1 &&
	       (p->kind == PK_UPROBE || p->kind == PK_URETPROBE || p->kind == PK_USDT);
}

static void cg_dispose(struct cg *g)
{
	for (int i = 0; i < g->nentries; i++)
		free(g->entries[i].func);
	free(g->entries);
	free(g->slp_marks);
	free(g->fdelta);
	free(g->vars);
	free(g->maps);
	free(g->tmp);
	free(g->tmpsize);
	free(g->tmpheap);
	free(g->late);
	if (g->di)
		LLVMDisposeDIBuilder(g->di);
	if (g->b)
		LLVMDisposeBuilder(g->b);
	if (g->mod)
		LLVMDisposeModule(g->mod);
	if (g->ctx)
		LLVMContextDispose(g->ctx);
}

/* The probes codegen made (sys_exit_* replays) join the program's once
 * the walk over the sema probes, which point into its array, is done. */
static void add_late_probes(struct cg *g)
{
	struct program *p = g->prog;
	struct probe **v;

	if (!g->nlate)
		return;
	v = realloc(p->probes, (p->nprobes + g->nlate) * sizeof(*v));
	if (!v)
		abort();
	memcpy(v + p->nprobes, g->late, g->nlate * sizeof(*v));
	p->probes = v;
	p->nprobes += g->nlate;
	g->nlate = 0;
}

int cg_generate(struct sema_probe *probes, int nprobes, struct sema *s,
		const struct source *src, unsigned dump, struct program *out,
		struct diag *d)
{
	struct cg g = { .prog = out, .s = s, .d = d, .act_share_from = -1 };
	int nfn = 0, idx = 0, rc = -1;

	for (int i = 0; i < nprobes; i++)
		for (int j = 0; j < probes[i].nprobes; j++)
			nfn += probes[i].per_site && !probes[i].probes[j]->sys_raw ?
				probes[i].probes[j]->nsites : 1;
	out->progs = calloc(nfn ? nfn : 1, sizeof(*out->progs));
	if (!out->progs)
		return -1;
	cg_module_init(&g, src);
	cg_add_license(&g);
	if (cg_define_maps(&g))
		goto out;
	cg_counters(&g);
	if (s->has_actions)
		cg_ringbuf(&g);
	for (int i = 0; i < nprobes; i++)
		for (int j = 0; j < probes[i].nprobes; j++, idx++) {
			const struct probe *p = probes[i].probes[j];

			if (shared_sites(&probes[i], p)) {
				gen_shared(&g, &probes[i], p, idx);
				continue;
			}
			if (!probes[i].per_site || p->sys_raw) {
				/* The companion first: it is attached first. */
				g.rp_on = cg_rp_wanted(probes[i].node, p);
				if (g.rp_on)
					cg_rp_exit(&g, probes[i].node, p, idx);
				gen_function(&g, probes[i].node, p, idx, -1);
				g.rp_on = false;
				continue;
			}
			/* DWARF locations differ per address: one program per site. */
			for (int k = 0; k < p->nsites; k++)
				gen_function(&g, probes[i].node, p, idx, k);
		}
	add_late_probes(&g);
	if (!g.errors && cg_entry_companions(&g))
		goto out;
	if (!g.errors)
		cg_watch_setups(&g);
	if (g.errors)
		goto out;
	cg_slp_finish(&g);
	cg_lean_debug_info(&g);
	LLVMDIBuilderFinalize(g.di);
	cg_size_ringbuf(&g);
	if (cg_emit(&g, dump))
		goto out;
	if (dump & PR_DUMP_BPF)
		cg_dump_bpf(out);
	rc = 0;
out:
	cg_dispose(&g);
	return rc;
}
