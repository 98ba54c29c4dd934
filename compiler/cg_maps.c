// SPDX-License-Identifier: GPL-2.0-only
/*
 * cg_maps.c - the maps and globals of a script's object: the script's maps
 * (program.h's pr_map), the ring buffer and what it is sized to, the stack
 * map, the config map, the loss counters in .bss, per-site tables settled
 * once every site is made, constant .rodata, and pid_tgid once per hit.
 * Stands on cg_ir.c alone.
 */
#define _GNU_SOURCE
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_int.h"

static uint32_t agg_buckets(const struct type *v)
{
	if (v->agg == AGG_HIST)
		return hist_buckets((int)v->lh_step);
	if (v->agg == AGG_LHIST)
		return (uint32_t)((v->lh_max - v->lh_min) / v->lh_step) + 2;
	if (v->agg == AGG_TSERIES)
		return (uint32_t)v->lh_max;
	return 1;
}

/*
 * An aggregation without keys (@ = count(), @ = hist(x)) is a per-CPU
 * array indexed by its hist bucket, or 0: its entries always exist, so a
 * hit is one inlined lookup and an add, with no update call and no full
 * map.  A count is printed even when 0, as bpftrace prints its keyless
 * count; for the others an all-zero value is absent (the buckets, the hits
 * of sum, avg and stats, the valid flag of min and max are zero until the
 * first hit).  A map the script delete()s stays a hash: an array
 * entry cannot be removed from BPF on every CPU.
 */
int cg_define_maps(struct cg *g)
{
	struct program *p = g->prog;

	p->maps = calloc(g->s->nmaps ? g->s->nmaps : 1, sizeof(*p->maps));
	g->maps = calloc(g->s->nmaps ? g->s->nmaps : 1, sizeof(*g->maps));
	if (!p->maps || !g->maps)
		return -1;
	for (int i = 0; i < g->s->nmaps; i++) {
		struct sema_map *sm = &g->s->maps[i];
		struct pr_map *m = &p->maps[i];
		const struct type *v = sm->value;
		bool agg = v->kind == T_AGG;
		bool hist = agg && (v->agg == AGG_HIST || v->agg == AGG_LHIST ||
				    v->agg == AGG_TSERIES);   /* keyed by bucket too */
		bool array = agg && !sm->key && !sm->deleted && !sm->decl_type;

		m->name = strdup(sm->name);
		if (asprintf(&m->bpf_name, "map_%d_%s", i, sm->name[1] ? sm->name + 1 : "") < 0)
			return -1;
		m->bpf_type = sm->decl_type ? sm->decl_type : array ? BPF_MAP_TYPE_PERCPU_ARRAY :
			      agg ? BPF_MAP_TYPE_PERCPU_HASH : BPF_MAP_TYPE_HASH;
		m->array = array;
		m->key = sm->key;
		m->value = v;
		m->key_size = array ? 4 : (sm->key ? sm->key->size : 0) + (hist || !sm->key ? 8 : 0);
		m->value_size = agg ? v->size : v->kind == T_STR ? v->size : v->size < 8 ? 8 : v->size;
		m->max_entries = sm->key ? (hist ? 16384 : 4096) : agg_buckets(v);
		if (sm->key && g->s->cfg.max_map_keys)   /* config max_map_keys */
			m->max_entries = hist ? 4 * g->s->cfg.max_map_keys : g->s->cfg.max_map_keys;
		if (sm->decl_type)   /* let @m = hash(N): N entries (hist: N keys' buckets) */
			m->max_entries = !sm->key ? (hist ? agg_buckets(v) : 1) : !hist ? sm->decl_max :
				sm->decl_max * agg_buckets(v) < (1u << 22) ?
				sm->decl_max * agg_buckets(v) : (1u << 22);
		g->maps[i] = cg_map_define(g, m->bpf_name, m->bpf_type, m->max_entries,
					   m->key_size, m->value_size);
	}
	p->nmaps = g->s->nmaps;
	p->no_exit_print = g->s->cfg.no_exit_print;
	return 0;
}

LLVMValueRef cg_ringbuf(struct cg *g)
{
	if (!g->ringbuf) {
		g->prog->ringbuf_name = strdup("ringbuf");
		g->ringbuf = cg_map_define(g, "ringbuf", BPF_MAP_TYPE_RINGBUF, RINGBUF_BIG, 0, 0);
	}
	return g->ringbuf;
}

/*
 * The ring buffer's pages are allocated, charged and mapped before anything
 * runs: 4 MB cost 1.7 ms of a 7 ms start.  Records sent only from BEGIN and
 * END outside loops are counted here, and they alone get a small buffer;
 * records that can come at any rate get the big one.
 */
void cg_send(struct cg *g, LLVMValueRef rec, uint32_t size)
{
	enum probe_kind k = g->probe ? g->probe->kind : PK_BEGIN;

	if ((k == PK_BEGIN || k == PK_END) && !g->nloops)
		g->once_bytes += ((size + 7) & ~7u) + 8;   /* + the ring buffer's header */
	else
		g->ringbuf_busy = true;

	LLVMValueRef out[4] = { cg_ringbuf(g), rec, cg_const(g, size), cg_const(g, 0) };
	LLVMBasicBlockRef ok = cg_if(g, cg_helper(g, H_RINGBUF_OUTPUT, out, 4), "lost");

	cg_count(g, CG_LOST);
	LLVMBuildBr(g->b, ok);
	LLVMPositionBuilderAtEnd(g->b, ok);
}

void cg_size_ringbuf(struct cg *g)
{
	g->prog->ringbuf_size = RINGBUF_SMALL;
	if (g->ringbuf_busy || g->once_bytes > RINGBUF_SMALL / 2)
		g->prog->ringbuf_size = RINGBUF_BIG;
}

LLVMValueRef cg_stackmap(struct cg *g)
{
	g->slp_stack = true;    /* not allowed in a sleepable program */
	if (!g->stackmap) {
		g->prog->stack_map_name = strdup("stacks");
		g->stackmap = cg_map_define(g, "stacks", BPF_MAP_TYPE_STACK_TRACE, 16384, 4, 127 * 8);
	}
	return g->stackmap;
}

LLVMValueRef cg_config(struct cg *g)
{
	if (!g->config) {
		g->prog->config_map_name = strdup("config");
		g->config = cg_map_define(g, "config", BPF_MAP_TYPE_ARRAY, 1, 4,
					  sizeof(struct pr_config));
	}
	return g->config;
}

/*
 * The loss counters, u64 [CG_LOST] ring buffer records that did not fit,
 * [CG_DROPS] map updates that failed, [CG_FAULTS] reads that faulted, and
 * the [CG_EXIT] flag, then each script map's failed updates: one global in
 * .bss, which libbpf makes an array map the runtime reads at exit (and maps
 * into memory, to watch the flag and say at each print of a map what it
 * dropped).  A loss costs one atomic add on a constant address, no map
 * lookup.
 */
void cg_counters(struct cg *g)
{
	if (g->counters)
		return;
	/* then one slot per script map: its failed updates (program.h) */
	uint64_t n = CG_NCOUNTERS + (uint64_t)g->s->nmaps;
	LLVMTypeRef t = LLVMArrayType2(g->i64, n);
	g->counters = LLVMAddGlobal(g->mod, t, "pr_counters");
	LLVMSetInitializer(g->counters, LLVMConstNull(t));
	LLVMSetSection(g->counters, ".bss");
	LLVMSetAlignment(g->counters, 8);
	cg_di_global(g, g->counters, "pr_counters", 8 * (uint32_t)n);
	g->prog->counters_map_name = strdup(".bss");
}

LLVMValueRef cg_site_late(struct cg *g, uint64_t val)
{
	const struct probe *p = g->probe;
	int k = g->nsitetab_used++;

	if (g->act_share_from < 0 || !g->site_cookie || g->site < 0)
		return cg_const(g, val);
	if (k == g->nsitetab) {
		char name[64];
		LLVMTypeRef t = LLVMArrayType2(g->i64, (uint64_t)p->nsites);
		struct cg_sitetab *v = realloc(g->sitetab, (size_t)(k + 1) * sizeof(*v));

		if (!v)
			abort();
		g->sitetab = v;
		snprintf(name, sizeof(name), "p%d_late%d", g->pidx, k);
		v[k].gv = LLVMAddGlobal(g->mod, t, name);
		v[k].vals = calloc((size_t)p->nsites, 8);
		if (!v[k].vals)
			abort();
		LLVMSetInitializer(v[k].gv, LLVMConstNull(t));
		LLVMSetGlobalConstant(v[k].gv, 1);
		LLVMSetSection(v[k].gv, ".rodata");
		LLVMSetAlignment(v[k].gv, 8);
		cg_di_global(g, v[k].gv, name, 8u * (uint32_t)p->nsites);
		g->nsitetab++;
	}
	g->sitetab[k].vals[g->site] = val;
	LLVMValueRef at = LLVMBuildGEP2(g->b, g->i64, g->sitetab[k].gv, &g->sys_site, 1, "");
	return LLVMBuildLoad2(g->b, g->i64, at, "site_late");
}

/* Every late table gets the values its sites gave. */
void cg_sitetab_fill(struct cg *g, int nsites)
{
	LLVMValueRef *c = calloc((size_t)nsites, sizeof(*c));

	if (!c)
		abort();
	for (int k = 0; k < g->nsitetab; k++) {
		for (int i = 0; i < nsites; i++)
			c[i] = cg_const(g, g->sitetab[k].vals[i]);
		LLVMSetInitializer(g->sitetab[k].gv, LLVMConstArray2(g->i64, c, (uint64_t)nsites));
		free(g->sitetab[k].vals);
	}
	free(c);
	free(g->sitetab);
	g->sitetab = NULL;
	g->nsitetab = 0;
}

/* Constant bytes the programs index at run time: libbpf makes .rodata a
 * frozen array map.  The name must be unique in the object. */
LLVMValueRef cg_rodata(struct cg *g, const char *name, const void *data, uint32_t size)
{
	LLVMValueRef init = LLVMConstStringInContext(g->ctx, data, size, 1);
	LLVMValueRef gv = LLVMAddGlobal(g->mod, LLVMTypeOf(init), name);

	LLVMSetInitializer(gv, init);
	LLVMSetGlobalConstant(gv, 1);
	LLVMSetSection(gv, ".rodata");
	LLVMSetAlignment(gv, 8);
	cg_di_global(g, gv, name, size);
	return gv;
}

/* Sets a slot to 1: a plain store, no atomic add needed. */
void cg_flag(struct cg *g, int slot)
{
	cg_counters(g);
	LLVMBuildStore(g->b, cg_const(g, 1), cg_gep(g, g->counters, 8 * (uint64_t)slot));
}

void cg_count(struct cg *g, int slot)
{
	cg_counters(g);
	LLVMBuildAtomicRMW(g->b, LLVMAtomicRMWBinOpAdd, cg_gep(g, g->counters, 8 * (uint64_t)slot),
			   cg_const(g, 1), LLVMAtomicOrderingMonotonic, 0);
}

/* A read that faults leaves zeros (the helpers clear their buffer) and is
 * counted, so a value read as 0 is never silent. */
void cg_count_fault(struct cg *g, LLVMValueRef rc)
{
	LLVMBasicBlockRef ok = cg_if(g, LLVMBuildICmp(g->b, LLVMIntSLT, rc, cg_const(g, 0), ""),
				     "fault");
	cg_count(g, CG_FAULTS);
	LLVMBuildBr(g->b, ok);
	LLVMPositionBuilderAtEnd(g->b, ok);
}

LLVMValueRef cg_pid_tgid(struct cg *g)
{
	if (!g->pid_tgid) {
		LLVMBuilderRef saved = g->b;
		LLVMBuilderRef eb = LLVMCreateBuilderInContext(g->ctx);

		/* Once per hit, in the entry block, so every use dominates. */
		LLVMPositionBuilderAtEnd(eb, g->entry);
		g->b = eb;
		g->pid_tgid = cg_helper(g, H_PID_TGID, NULL, 0);
		g->b = saved;
		LLVMDisposeBuilder(eb);
	}
	return g->pid_tgid;
}
