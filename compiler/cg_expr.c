// SPDX-License-Identifier: GPL-2.0-only
/*
 * cg_expr.c - code for expressions: literals, builtins, scratch variables,
 * map reads and keys, operators, tracepoint fields.
 *
 * Integers travel as i64 normalised to their type (codegen_int.h), so
 * arithmetic is always 64-bit as sema typed it.  BPF v3 has no signed
 * division, so it is built from unsigned division of magnitudes.
 */
#define _GNU_SOURCE
#include <linux/bpf.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "builtin.h"
#include "codegen_int.h"
#include "lexer.h"
#include "lib/elfsym.h"

/* x86-64 struct pt_regs offsets. */
static const unsigned arg_regs[6] = { 112, 104, 96, 88, 72, 64 };
#define REG_AX 80
#define REG_DX 96
#define REG_IP 128
#define REG_SP 152

bool cg_is_mem(const struct type *t)
{
	return t && (t->kind == T_STR || t->kind == T_USYM || t->kind == T_TUPLE ||
		     t->kind == T_RECORD || t->kind == T_ARRAY || type_ufmt_mem(t));
}

LLVMValueRef cg_bool(struct cg *g, LLVMValueRef i1)
{
	return LLVMBuildZExt(g->b, i1, g->i64, "");
}

LLVMValueRef cg_to_int_type(struct cg *g, LLVMValueRef v, const struct type *t)
{
	unsigned sh;

	if (t->kind == T_BOOL)
		return cg_bool(g, LLVMBuildICmp(g->b, LLVMIntNE, v, cg_const(g, 0), ""));
	if (t->kind != T_INT && t->kind != T_ENUM)
		return v;
	if (t->size >= 8)
		return v;
	sh = 64 - 8 * t->size;
	if (t->is_signed)
		return LLVMBuildAShr(g->b, LLVMBuildShl(g->b, v, cg_const(g, sh), ""),
				     cg_const(g, sh), "");
	return LLVMBuildAnd(g->b, v, cg_const(g, ~0ull >> sh), "");
}

void cg_store_value(struct cg *g, LLVMValueRef dst, LLVMValueRef v,
		    const struct type *t, uint32_t size)
{
	if (!cg_is_mem(t)) {
		if (size >= 8)
			LLVMBuildStore(g->b, v, dst);
		else
			LLVMBuildStore(g->b, LLVMBuildTrunc(g->b, v,
					LLVMIntTypeInContext(g->ctx, 8 * size), ""), dst);
		return;
	}
	if (t->size >= size) {
		cg_memcpy(g, dst, v, size);
		return;
	}
	cg_memcpy(g, dst, v, t->size);
	cg_memset0(g, cg_gep(g, dst, t->size), size - t->size);
}

/* Element i of the tuple at p: its bytes for a memory type, else its i64. */
static LLVMValueRef tuple_at(struct cg *g, LLVMValueRef p, const struct type *t, int i)
{
	LLVMValueRef e = cg_gep(g, p, t->fields[i].offset);

	return cg_is_mem(t->fields[i].type) ? e : LLVMBuildLoad2(g->b, g->i64, e, "");
}

void cg_store_as(struct cg *g, LLVMValueRef dst, const struct type *dt, LLVMValueRef v,
		 const struct type *t, uint32_t size)
{
	if (!dt || !t || dt->kind != T_TUPLE || t->kind != T_TUPLE || type_equal(dt, t) ||
	    dt->nfields != t->nfields) {
		cg_store_value(g, dst, v, t, size);
		return;
	}
	/* A tuple whose strings are narrower than the slot's: element by
	 * element, each at the slot's offsets, the rest zeroed. */
	cg_memset0(g, dst, size);
	for (int i = 0; i < t->nfields; i++) {
		const struct type *de = dt->fields[i].type, *se = t->fields[i].type;

		cg_store_as(g, cg_gep(g, dst, dt->fields[i].offset), de, tuple_at(g, v, t, i), se,
			    cg_is_mem(de) ? de->size : 8);
	}
}

static LLVMValueRef tuple_expr(struct cg *g, struct node *n)
{
	const struct type *t = n->type;
	LLVMValueRef buf = cg_alloca(g, t->size ? t->size : 8, "tuple");
	struct node *e = n->list;

	cg_memset0(g, buf, t->size ? t->size : 8);
	for (int i = 0; i < t->nfields && e; i++, e = e->next) {
		const struct type *ft = t->fields[i].type;

		cg_store_as(g, cg_gep(g, buf, t->fields[i].offset), ft, cg_expr(g, e), e->type,
			    cg_is_mem(ft) ? ft->size : 8);
	}
	return buf;
}

/* A zeroed stack slot: the verifier rejects reads of uninitialised stack,
 * and a variable assigned on one path only may be read on another. */
static LLVMValueRef alloca_zeroed(struct cg *g, uint32_t size, const char *name)
{
	LLVMValueRef a = cg_alloca_var(g, size, name);
	LLVMBuilderRef saved = g->b, eb = LLVMCreateBuilderInContext(g->ctx);

	LLVMPositionBuilderAtEnd(eb, g->entry);
	g->b = eb;
	cg_memset0(g, a, size);
	g->b = saved;
	LLVMDisposeBuilder(eb);
	return a;
}

struct cg_var *cg_var(struct cg *g, const char *name, const struct type *t)
{
	struct cg_var *v;

	for (int i = 0; i < g->nvars; i++)
		if (!strcmp(g->vars[i].name, name))
			return &g->vars[i];
	if (!t)
		return NULL;
	if (g->nvars == g->capvars) {
		g->capvars = g->capvars ? 2 * g->capvars : 8;
		g->vars = realloc(g->vars, g->capvars * sizeof(*g->vars));
		if (!g->vars)
			abort();
	}
	v = &g->vars[g->nvars++];
	v->name = name;
	v->type = t;
	v->slot = alloca_zeroed(g, cg_is_mem(t) ? t->size : 8, name);
	return v;
}

/* ---- maps ---- */

LLVMValueRef cg_map_key(struct cg *g, struct node *m, LLVMValueRef bucket)
{
	int mi = sema_map_of(m);
	const struct pr_map *pm = &g->prog->maps[mi];
	const struct type *kt = pm->key;
	struct node *k = m->list;
	bool mem = false;

	if (pm->array) {
		LLVMValueRef idx = cg_alloca(g, 4, "idx");

		LLVMBuildStore(g->b, bucket ? LLVMBuildTrunc(g->b, bucket, g->i32, "")
					    : LLVMConstInt(g->i32, 0, 0), idx);
		return idx;
	}
	/* @[comm]: a buffer on the stack exactly the key's size is the key
	 * itself, without a copy. */
	if (kt && kt->nfields == 1 && k && !bucket && cg_is_mem(k->type) &&
	    k->type->size == pm->key_size && kt->fields[0].offset == 0) {
		LLVMValueRef v = cg_expr(g, k);
		if (LLVMIsAAllocaInst(v))
			return v;
		LLVMValueRef key = cg_alloca(g, pm->key_size, "key");
		cg_store_value(g, key, v, k->type, pm->key_size);
		return key;
	}
	LLVMValueRef key = cg_alloca(g, pm->key_size, "key");

	for (int i = 0; kt && i < kt->nfields; i++)
		mem |= cg_is_mem(kt->fields[i].type);
	if (mem)
		cg_memset0(g, key, pm->key_size);
	for (int i = 0; kt && i < kt->nfields && k; i++, k = k->next) {
		LLVMValueRef v = cg_expr(g, k);
		uint32_t fsz = (kt->fields[i].type->size + 7) & ~7u;

		cg_store_value(g, cg_gep(g, key, kt->fields[i].offset), v, k->type,
			       cg_is_mem(k->type) ? kt->fields[i].type->size : fsz);
	}
	if (bucket)
		LLVMBuildStore(g->b, bucket, cg_gep(g, key, kt ? kt->size : 0));
	else if (!kt)
		LLVMBuildStore(g->b, cg_const(g, 0), key);
	return key;
}

LLVMValueRef cg_map_read(struct cg *g, struct node *m)
{
	int mi = sema_map_of(m);
	const struct pr_map *pm = &g->prog->maps[mi];
	LLVMValueRef args[2] = { g->maps[mi], cg_map_key(g, m, NULL) };
	LLVMValueRef p, res;
	LLVMBasicBlockRef done;
	bool mem = cg_is_mem(pm->value);

	p = LLVMBuildIntToPtr(g->b, cg_helper(g, H_MAP_LOOKUP, args, 2), g->ptr, "");
	res = cg_alloca(g, mem ? pm->value_size : 8, "mapval");
	cg_memset0(g, res, mem ? pm->value_size : 8);
	done = cg_if(g, LLVMBuildIsNotNull(g->b, p, ""), "found");
	cg_memcpy(g, res, p, mem ? pm->value_size : 8);
	LLVMBuildBr(g->b, done);
	LLVMPositionBuilderAtEnd(g->b, done);
	return mem ? res : LLVMBuildLoad2(g->b, g->i64, res, "");
}

/* ---- builtins ---- */

LLVMValueRef cg_ctx_load(struct cg *g, unsigned off, unsigned size)
{
	LLVMTypeRef t = LLVMIntTypeInContext(g->ctx, 8 * size);
	LLVMValueRef v = LLVMBuildLoad2(g->b, t, cg_gep(g, g->ctxarg, off), "");

	return size == 8 ? v : LLVMBuildZExt(g->b, v, g->i64, "");
}

static LLVMValueRef helper0(struct cg *g, int id)
{
	return cg_helper(g, id, NULL, 0);
}

static LLVMValueRef mask32(struct cg *g, LLVMValueRef v)
{
	return LLVMBuildAnd(g->b, v, cg_const(g, 0xffffffffu), "");
}

/*
 * 32-bit code (a compat task): its registers are the low halves of pt_regs
 * (the upper ones are not defined in compatibility mode), argN the cdecl
 * stack slots above the return address at a function's entry (sema
 * refuses it elsewhere), and a 64-bit result is edx:eax.
 */
static LLVMValueRef reg32(struct cg *g, unsigned off)
{
	return mask32(g, cg_ctx_load(g, off, 8));
}

static LLVMValueRef elf32_arg(struct cg *g, unsigned i)
{
	LLVMValueRef sp = reg32(g, REG_SP);

	return cg_read_user(g, LLVMBuildAdd(g->b, sp, cg_const(g, 4 + 4 * (uint64_t)i), ""), 4);
}

static LLVMValueRef elf32_retval(struct cg *g, const struct type *t)
{
	LLVMValueRef ax = reg32(g, REG_AX);

	if (t->kind == T_INT && t->size == 8)
		return LLVMBuildOr(g->b, ax, LLVMBuildShl(g->b, reg32(g, REG_DX),
							  cg_const(g, 32), ""), "");
	return cg_to_int_type(g, ax, t);
}

static LLVMValueRef tgid(struct cg *g)
{
	return LLVMBuildLShr(g->b, cg_pid_tgid(g), cg_const(g, 32), "");
}

static LLVMValueRef elapsed(struct cg *g)
{
	LLVMValueRef key = cg_alloca(g, 4, "zero");
	LLVMValueRef args[2] = { cg_config(g), key }, p, start, now;
	LLVMBasicBlockRef done;

	now = helper0(g, H_KTIME);
	LLVMBuildStore(g->b, LLVMConstInt(g->i32, 0, 0), key);
	start = cg_alloca(g, 8, "start");
	LLVMBuildStore(g->b, cg_const(g, 0), start);
	p = LLVMBuildIntToPtr(g->b, cg_helper(g, H_MAP_LOOKUP, args, 2), g->ptr, "");
	done = cg_if(g, LLVMBuildIsNotNull(g->b, p, ""), "cfg");
	LLVMBuildStore(g->b, LLVMBuildLoad2(g->b, g->i64, p, ""), start);
	LLVMBuildBr(g->b, done);
	LLVMPositionBuilderAtEnd(g->b, done);
	return LLVMBuildSub(g->b, now, LLVMBuildLoad2(g->b, g->i64, start, ""), "");
}

/* Frames of a raw tracepoint's program and its bpf_trace_run* caller. */
#define CG_RAWTP_SKIP 2

/* A T_STACK value of type t (ustack(perf, n)...: frames, 0 for all). */
LLVMValueRef cg_stack_id(struct cg *g, const struct type *t)
{
	bool user = t->is_user;
	LLVMValueRef cfi = user ? cg_ustack_cfi(g, t->frames) : NULL;
	if (cfi)
		return cfi;
	LLVMValueRef map = cg_stackmap_n(g, t->frames);
	/* A raw tracepoint's kernel stack starts in the program and the
	 * bpf_trace_run* that called it: skipped, it starts at the
	 * tracepoint's __traceiter_*, as the perf event's (and bpftrace's),
	 * so a tracepoint: probe with kstack can be a raw one too. */
	bool raw = g->probe && (g->probe->kind == PK_RAWTP ||
				(g->probe->kind == PK_TRACEPOINT && g->probe->tp_raw));
	uint64_t skip = !user && raw ? CG_RAWTP_SKIP : 0;
	LLVMValueRef args[3] = { g->ctxarg, map ? map : cg_stackmap(g),
				 cg_const(g, user ? BPF_F_USER_STACK : skip) };
	LLVMValueRef id = mask32(g, cg_helper(g, H_GET_STACKID, args, 3));

	if (!user)   /* a kernel stack is the same in every process: one key */
		return id;
	return LLVMBuildOr(g->b, id, LLVMBuildShl(g->b, tgid(g), cg_const(g, 32), ""), "");
}

/* comm into 16 bytes at dst (a buffer, or a record slot). */
void cg_comm_into(struct cg *g, LLVMValueRef dst)
{
	LLVMValueRef args[2] = { dst, cg_const(g, 16) };

	cg_helper(g, H_COMM, args, 2);
}

static LLVMValueRef comm(struct cg *g)
{
	LLVMValueRef buf = cg_alloca(g, 16, "comm");

	cg_comm_into(g, buf);
	return buf;
}

static int probe_index(const struct cg *g)
{
	for (int i = 0; i < g->prog->nprobes; i++)
		if (g->prog->probes[i] == g->probe)
			return i;
	return -1;
}

/* A uprobe site named by a symbol (a line probe's site is "file.c:N"). */
static bool site_named(const struct probe *p, int site)
{
	if (p->kind != PK_UPROBE && p->kind != PK_URETPROBE)
		return false;
	for (const char *c = p->sites[site].func; c && *c; c++)
		if (!(*c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9')))
			return false;
	return p->sites[site].func != NULL;
}

/* The site whose function this program runs at, if there is exactly one
 * and it is named by a symbol, else -1. */
static int site_func(const struct cg *g)
{
	const struct probe *p = g->probe;
	int site = g->site >= 0 ? g->site : p->nsites == 1 ? 0 : -1;

	return site >= 0 && probe_index(g) >= 0 && site_named(p, site) ? site : -1;
}

/* Every site of a program shared through the cookie is named by a symbol. */
static bool sites_named(const struct cg *g)
{
	if (probe_index(g) != g->pidx)
		return false;
	for (int k = 0; k < g->probe->nsites; k++)
		if (!site_named(g->probe, k))
			return false;
	return true;
}

/* How far each of g->probe's sites is from the start of the function
 * symbol holding it (0 where none does), found once per probe. */
static uint64_t func_delta(struct cg *g, int site, int arg)
{
	const struct probe *p = g->probe;

	(void)arg;
	if (g->fdelta_of != p) {
		struct elfsym *sym;
		int n = p->path ? elfsym_every(p->path, &sym) : 0;
		uint64_t *d = realloc(g->fdelta, sizeof(*d) * (size_t)(p->nsites ? p->nsites : 1));

		if (!d)
			abort();
		g->fdelta = d;
		g->fdelta_of = p;
		for (int i = 0; i < p->nsites; i++) {
			uint64_t a = p->sites[i].addr;
			int lo = 0, hi = n;     /* the last symbol starting at or before a */

			while (lo < hi) {
				int mid = (lo + hi) / 2;
				if (sym[mid].addr <= a)
					lo = mid + 1;
				else
					hi = mid;
			}
			d[i] = lo > 0 && a < sym[lo - 1].addr + sym[lo - 1].size ? a - sym[lo - 1].addr : 0;
		}
		if (n > 0)
			elfsym_free(sym, n);
	}
	return g->fdelta[site];
}

/* func at a uprobe site inside a function (a line, FUNC+OFFS, an
 * address): the function's start, so that the sites a lazy pattern or a
 * line range gives one function are one key of a map keyed by func, as
 * they are one name when printed. */
static LLVMValueRef func_start(struct cg *g, LLVMValueRef ip)
{
	char name[64];
	LLVMValueRef d;

	if (g->site_cookie) {
		snprintf(name, sizeof(name), "p%d_fdelta", g->pidx);
		d = cg_site_value(g, name, func_delta, 0);
	} else if (g->site >= 0 || g->probe->nsites == 1) {
		d = cg_const(g, func_delta(g, g->site >= 0 ? g->site : 0, 0));
	} else {
		return ip;
	}
	return LLVMBuildSub(g->b, ip, d, "func");
}

static LLVMValueRef usym_of(struct cg *g, LLVMValueRef addr)
{
	LLVMValueRef buf = cg_alloca(g, 16, "usym");

	LLVMBuildStore(g->b, addr, buf);
	LLVMBuildStore(g->b, tgid(g), cg_gep(g, buf, 8));
	return buf;
}

static uint64_t uarg_value(struct cg *g, int site, int i)
{
	const struct probe_site *s = &g->probe->sites[site];

	return i < s->nuargs ? (uint64_t)s->uargs[i].value : 0;
}

/* A USDT argument's constant or displacement: in a program that sites
 * share, each site's from a table by cookie, so that sites whose specs
 * differ only in these numbers have one program (the code compared in
 * gen_shared then is the same). */
static LLVMValueRef usdt_value(struct cg *g, int i, const struct usdt_arg *a)
{
	char name[64];

	if (!g->site_cookie)
		return cg_const(g, (uint64_t)a->value);
	snprintf(name, sizeof(name), "p%d_uarg%d", g->pidx, i);
	return cg_site_value(g, name, uarg_value, i);
}

/* The note says where each argument is at this site: a register, memory
 * at a register plus a displacement (plus an index register times a
 * scale), or a constant. */
static LLVMValueRef usdt_arg(struct cg *g, int i)
{
	const struct probe_site *site = &g->probe->sites[g->site < 0 ? 0 : g->site];
	const struct usdt_arg *a = &site->uargs[i];
	const struct type *t = type_int(a->size, a->is_signed);
	LLVMValueRef v;

	if (a->kind == UA_CONST)
		return usdt_value(g, i, a);
	v = cg_ctx_load(g, a->reg_off, 8);
	if (a->kind == UA_MEM && a->scale)
		v = LLVMBuildAdd(g->b, v, LLVMBuildMul(g->b, cg_ctx_load(g, a->idx_off, 8),
						       cg_const(g, (uint64_t)a->scale), ""), "");
	if (a->kind == UA_MEM)
		v = cg_read_user(g, LLVMBuildAdd(g->b, v, usdt_value(g, i, a), ""), a->size);
	return cg_to_int_type(g, v, t);
}

/* The builtins of newer bpftrace that check_newer_ident (sema_ctx.c) types. */
static LLVMValueRef newer_ident(struct cg *g, const struct node *n)
{
	switch (n->bi) {
	case BI_TRUE: case BI_FALSE:
		return cg_const(g, n->bi == BI_TRUE);
	case BI_JIFFIES:
		return helper0(g, H_JIFFIES64);
	case BI_NCPUS: {
		/* as bpftrace: the possible CPUs, known when the program is built */
		int n = libbpf_num_possible_cpus();

		return cg_const(g, n > 0 ? (uint64_t)n : 1);
	}
	case BI_PROBETYPE: {
		const char *nm = probe_type_name(g->probe->kind);

		return cg_store_const_str(g, nm, strlen(nm), n->type->size);
	}
	}
	return NULL;
}

/* The function at bpf_get_func_ip's entry in a hash by address (program.h's
 * PR_KRET_MAP, PR_KNAME_MAP), defined on first use; NULL if not in it. */
static LLVMValueRef kfunc_lookup(struct cg *g, LLVMValueRef *map, const char *name,
				 uint32_t value_size)
{
	LLVMValueRef key = cg_alloca(g, 8, "kfunc_ip"), args[2];

	if (!*map)
		*map = cg_map_define(g, name, BPF_MAP_TYPE_HASH, PR_KRET_MAX, 8, value_size);
	LLVMBuildStore(g->b, cg_helper(g, H_GET_FUNC_IP, &g->ctxarg, 1), key);
	args[0] = *map;
	args[1] = key;
	return LLVMBuildIntToPtr(g->b, cg_helper(g, H_MAP_LOOKUP, args, 2), g->ptr, "");
}

/* `probe` at a kprobe wildcard: "kprobe:" and the function's name (its
 * address in PR_KNAME_MAP), as bpftrace names each function's hits; the
 * wildcard's name for one not in it. */
static LLVMValueRef kname_ident(struct cg *g, uint32_t size)
{
	const struct probe *p = g->probe;
	LLVMValueRef buf = cg_store_const_str(g, p->name, strlen(p->name), size), v;
	size_t plen = strlen(probe_kind_name(p->kind)) + 1;
	LLVMBasicBlockRef done;

	if (plen + PR_KNAME_SIZE > size)   /* sema makes room: never */
		return buf;
	v = kfunc_lookup(g, &g->kname, PR_KNAME_MAP, PR_KNAME_SIZE);
	done = cg_if(g, LLVMBuildIsNotNull(g->b, v, ""), "kname_found");
	cg_memcpy(g, cg_gep(g, buf, (unsigned)plen), v, PR_KNAME_SIZE);
	LLVMBuildBr(g->b, done);
	LLVMPositionBuilderAtEnd(g->b, done);
	return buf;
}

static LLVMValueRef probe_ident(struct cg *g, struct node *n)
{
	const struct probe *p = g->probe;
	char buf[1024];
	const char *nm;

	if (p->sys_raw || g->site_cookie)
		return cg_sys_probe_name(g, n->type->size);
	if (probe_kwild(p))
		return kname_ident(g, n->type->size);
	nm = probe_site_name(p, g->site, buf, sizeof(buf));
	return cg_store_const_str(g, nm, strlen(nm), n->type->size);
}

static LLVMValueRef arg_ident(struct cg *g, struct node *n)
{
	const struct probe *p = g->probe;
	const char *s = n->name;

	if (p->kind == PK_USDT)
		return usdt_arg(g, s[3] - '0');
	if (p->elf32)
		return elf32_arg(g, (unsigned)(s[3] - '0'));
	/* A raw tracepoint's context is its arguments as u64s. */
	return cg_ctx_load(g, p->kind == PK_RAWTP ? 8u * (unsigned)(s[3] - '0')
						  : arg_regs[s[3] - '0'], 8);
}

/* Whether a kretprobe's program serves functions the compiler did not
 * type (a wildcard's): their result kinds come from PR_KRET_MAP. */
static bool kret_by_table(const struct probe *p)
{
	return p->kind == PK_KRETPROBE && !p->ret && probe_kwild(p);
}

/* rax as the function at bpf_get_func_ip returned it (program.h's
 * PR_KRET_MAP): shifted left past the result's bits and back, arithmetic
 * for a signed result; a bool 0/1; rax whole for a function not in it. */
static LLVMValueRef kret_read(struct cg *g, LLVMValueRef rax)
{
	LLVMValueRef kind = cg_alloca(g, 8, "kret_kind"), p, k, sh, shl, v, isbool;
	LLVMBasicBlockRef done;

	LLVMBuildStore(g->b, cg_const(g, 0), kind);
	p = kfunc_lookup(g, &g->kret, PR_KRET_MAP, 1);
	done = cg_if(g, LLVMBuildIsNotNull(g->b, p, ""), "kret_found");
	LLVMBuildStore(g->b, LLVMBuildZExt(g->b, LLVMBuildLoad2(g->b, g->i8, p, ""), g->i64, ""),
		       kind);
	LLVMBuildBr(g->b, done);
	LLVMPositionBuilderAtEnd(g->b, done);
	k = LLVMBuildLoad2(g->b, g->i64, kind, "");
	sh = LLVMBuildAnd(g->b, k, cg_const(g, 63), "");
	shl = LLVMBuildShl(g->b, rax, sh, "");
	v = LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntNE,
					       LLVMBuildAnd(g->b, k, cg_const(g, PR_KRET_SIGNED), ""),
					       cg_const(g, 0), ""),
			    LLVMBuildAShr(g->b, shl, sh, ""), LLVMBuildLShr(g->b, shl, sh, ""), "");
	isbool = LLVMBuildICmp(g->b, LLVMIntNE, LLVMBuildAnd(g->b, k, cg_const(g, PR_KRET_BOOL), ""),
			       cg_const(g, 0), "");
	return LLVMBuildSelect(g->b, isbool,
			       cg_bool(g, LLVMBuildICmp(g->b, LLVMIntNE, v, cg_const(g, 0), "")),
			       v, "kret");
}

static LLVMValueRef retval_ident(struct cg *g, struct node *n)
{
	const struct probe *p = g->probe;

	/* Typed by the function's own return type (its BTF's in the kernel,
	 * probe.ret; its DWARF's in user space, sema's): eax of an int
	 * sign-extended, al of a bool as 0/1. */
	if (p->kind == PK_FEXIT)
		/* fexit's context: the arguments' u64 slots, then the result. */
		return cg_to_int_type(g, cg_ctx_load(g, 8u * (unsigned)p->args->nfields, 8),
				      p->ret ? p->ret : n->type);
	if (p->elf32)
		return elf32_retval(g, n->type);
	if (p->kind == PK_KRETPROBE && p->ret)
		return cg_to_int_type(g, cg_ctx_load(g, REG_AX, 8), p->ret);
	if (kret_by_table(p))
		return kret_read(g, cg_ctx_load(g, REG_AX, 8));
	return cg_to_int_type(g, cg_ctx_load(g, REG_AX, 8), n->type);
}

static LLVMValueRef func_ident(struct cg *g, struct node *n)
{
	const struct probe *p = g->probe;

	if (n->type->kind == T_USYM && g->site_cookie && sites_named(g))
		/* the site's index is the cookie (below the tag's probe bits) */
		return usym_of(g, LLVMBuildOr(g->b, g->sys_site,
					      cg_const(g, PR_SITE_TAG | (uint64_t)g->pidx << 32), ""));
	if (n->type->kind == T_USYM && site_func(g) >= 0)
		return usym_of(g, cg_const(g, PR_SITE_TAG | (uint64_t)probe_index(g) << 32 |
						(uint64_t)site_func(g)));
	/* At a return probe the ip is the caller's: ask the kernel for
	 * the probed address instead. */
	LLVMValueRef ip = p->kind == PK_URETPROBE || p->kind == PK_KRETPROBE ?
		cg_helper(g, H_GET_FUNC_IP, &g->ctxarg, 1) :
		p->elf32 ? reg32(g, REG_IP) : cg_ctx_load(g, REG_IP, 8);

	if (p->kind == PK_UPROBE && n->type->kind == T_USYM)
		ip = func_start(g, ip);

	return n->type->kind == T_USYM ? usym_of(g, ip) : ip;
}

static bool perf_ctx(const struct cg *g);

static LLVMValueRef ident(struct cg *g, struct node *n)
{
	LLVMValueRef fv = cg_func_ident(g, n);

	if (fv)
		return fv;

	switch (n->bi) {
	case BI_PID:
		return tgid(g);
	case BI_TID:
		return mask32(g, cg_pid_tgid(g));
	case BI_UID:
		return mask32(g, helper0(g, H_UID_GID));
	case BI_GID:
		return LLVMBuildLShr(g->b, helper0(g, H_UID_GID), cg_const(g, 32), "");
	case BI_CPU:
		return mask32(g, helper0(g, H_CPU));
	case BI_RAND:
		return mask32(g, helper0(g, H_PRANDOM));
	case BI_NSECS:
		return helper0(g, H_KTIME);
	case BI_ELAPSED:
		return elapsed(g);
	case BI_CGROUP:
		return helper0(g, H_CGROUP);
	case BI_CURTASK:
		return helper0(g, H_CURTASK);
	case BI_COMM:
		return comm(g);
	case BI_USTACK: case BI_KSTACK:
		return cg_stack_id(g, type_stack(n->bi == BI_USTACK));
	case BI_PROBE:
		return probe_ident(g, n);
	case BI_ARGN:
		return arg_ident(g, n);
	case BI_RETVAL:
		return retval_ident(g, n);
	case BI_FUNC:
		return func_ident(g, n);
	case BI_CTX:
		if (perf_ctx(g)) {
			cg_error(g, n->loc, "at this probe ctx can only be read one scalar field at a "
				 "time (ctx->regs.ip, ctx->sample_period, ctx->addr): its memory "
				 "is not struct bpf_perf_event_data");
			return cg_const(g, 0);
		}
		return LLVMBuildPtrToInt(g->b, g->ctxarg, g->i64, "");
	}
	if ((fv = newer_ident(g, n)))
		return fv;
	cg_error(g, n->loc, "internal error: no code for '%s'", n->name);
	return cg_const(g, 0);
}

/* ---- tracepoint fields ---- */

static LLVMValueRef read_str(struct cg *g, int helper, LLVMValueRef src, uint32_t size)
{
	LLVMValueRef buf = cg_alloca(g, size, "strbuf");
	LLVMValueRef args[3] = { buf, cg_const(g, size), src };

	cg_memset0(g, buf, size);
	cg_read(g, helper, args);
	return buf;
}

/* A perf-event program's context is struct bpf_perf_event_data only as
 * the verifier sees loads from it (it rewrites each into reads of the
 * kernel's bpf_perf_event_data_kern), so ctx's fields are context loads. */
static bool perf_ctx(const struct cg *g)
{
	enum probe_kind k = g->probe->kind;

	return k == PK_PROFILE || k == PK_INTERVAL || k == PK_SOFTWARE || k == PK_HARDWARE;
}

/* The offset in the context of ctx->a.b..., a chain of whole fields. */
static bool perf_ctx_off(const struct node *n, uint64_t *off)
{
	const struct type *rec;
	const struct field *f;

	if (n->kind == N_IDENT && n->bi == BI_CTX) {
		*off = 0;
		return true;
	}
	if (n->kind != N_FIELD || !n->a->type || !perf_ctx_off(n->a, off))
		return false;
	rec = n->op == TOK_ARROW ? n->a->type->elem : n->a->type;
	if ((n->op == TOK_ARROW) != (n->a->kind == N_IDENT) || !rec ||
	    !(f = type_field(rec, n->name)) || f->bit_size)
		return false;
	*off += f->offset;
	return true;
}

static LLVMValueRef perf_ctx_field(struct cg *g, struct node *n)
{
	const struct type *t = n->type;
	uint64_t off;

	if (!perf_ctx_off(n, &off) || !t || (t->kind != T_INT && t->kind != T_PTR) ||
	    !t->size || t->size > 8) {
		cg_error(g, n->loc, "at this probe ctx can only be read one scalar field at a time "
			 "(ctx->regs.ip, ctx->sample_period, ctx->addr)");
		return cg_const(g, 0);
	}
	return cg_to_int_type(g, cg_ctx_load(g, (unsigned)off, t->size), t);
}

static bool perf_ctx_root(const struct node *n)
{
	while (n->kind == N_FIELD)
		n = n->a;
	return n->kind == N_IDENT && n->bi == BI_CTX;
}

static LLVMValueRef plain_field(struct cg *g, struct node *n);

static LLVMValueRef field(struct cg *g, struct node *n)
{
	if (perf_ctx(g) && perf_ctx_root(n))
		return perf_ctx_field(g, n);
	return plain_field(g, n);
}

static LLVMValueRef plain_field(struct cg *g, struct node *n)
{
	const struct field *f;
	const struct type *t = n->type;
	LLVMValueRef v, off;

	if (n->a->type && n->a->type->kind == T_TUPLE)
		return tuple_at(g, cg_expr(g, n->a), n->a->type, atoi(n->name));
	if (n->a->kind != N_IDENT || n->a->type->kind == T_PTR || cg_is_dwarf_var(g, n))
		return cg_place_value(g, n);
	f = type_field(g->probe->args, n->name);
	if (!f) {
		cg_error(g, n->loc, "internal error: no field '%s'", n->name);
		return cg_const(g, 0);
	}
	/* a kprobe's args are registers of its struct pt_regs context */
	if (g->probe->kind == PK_RAWTP || g->probe->kind == PK_FENTRY || g->probe->kind == PK_FEXIT ||
	    g->probe->kind == PK_KPROBE)
		return cg_to_int_type(g, cg_ctx_load(g, f->offset, 8), t);
	if (g->probe->sys_raw)
		return cg_sys_field(g, f, t);
	if (t->kind == T_STR && t->data_loc) {
		v = cg_ctx_load(g, f->offset, 4);
		off = LLVMBuildAnd(g->b, v, cg_const(g, 0xffff), "");
		return read_str(g, H_READ_KERNEL_STR,
				LLVMBuildGEP2(g->b, g->i8, g->ctxarg, &off, 1, ""), t->size);
	}
	if (t->kind == T_STR) {
		/* Not a memcpy: LLVM would load through a moved ctx pointer,
		 * which the verifier refuses. */
		LLVMValueRef buf = cg_alloca(g, t->size, "field");
		LLVMValueRef args[3] = { buf, cg_const(g, t->size), cg_gep(g, g->ctxarg, f->offset) };

		cg_read(g, H_READ_KERNEL, args);
		return buf;
	}
	if (t->kind == T_INT || t->kind == T_ENUM || t->kind == T_BOOL || t->kind == T_PTR) {
		unsigned sz = t->size ? t->size : 8;

		return cg_to_int_type(g, cg_ctx_load(g, f->offset, sz > 8 ? 8 : sz), t);
	}
	cg_error(g, n->loc, "field '%s' of type %s cannot be read yet", n->name,
		 type_str_name(t, (char[64]){ 0 }, 64));
	return cg_const(g, 0);
}

/* $s[i] of a string value: its byte i, 0 for i past the buffer. */
static LLVMValueRef str_index(struct cg *g, struct node *n)
{
	uint32_t size = n->a->type->size;
	LLVMValueRef s = cg_expr(g, n->a), i = cg_expr(g, n->b), res;
	LLVMBasicBlockRef done;

	if (n->b->kind == N_INT)
		return LLVMBuildSExt(g->b, LLVMBuildLoad2(g->b, g->i8, cg_gep(g, s, n->b->ival), ""),
				     g->i64, "");
	res = cg_alloca(g, 8, "ch");
	LLVMBuildStore(g->b, cg_const(g, 0), res);
	done = cg_if(g, LLVMBuildICmp(g->b, LLVMIntULT, i, cg_const(g, size), ""), "inside");
	LLVMBuildStore(g->b, LLVMBuildSExt(g->b, LLVMBuildLoad2(g->b, g->i8,
			LLVMBuildGEP2(g->b, g->i8, s, &i, 1, ""), ""), g->i64, ""), res);
	LLVMBuildBr(g->b, done);
	LLVMPositionBuilderAtEnd(g->b, done);
	return LLVMBuildLoad2(g->b, g->i64, res, "");
}

static LLVMValueRef index_expr(struct cg *g, struct node *n)
{
	const struct field *f;
	const struct type *a = n->a->type;

	if (a && a->kind == T_STR)
		return str_index(g, n);

	if (n->a->kind != N_FIELD || n->a->a->kind != N_IDENT || n->a->a->type->kind == T_PTR ||
	    cg_is_dwarf_var(g, n->a) ||
	    !(f = type_field(g->probe->args, n->a->name)))
		return cg_place_value(g, n);
	return cg_to_int_type(g, cg_ctx_load(g, f->offset + a->elem->size * n->b->ival,
					     a->elem->size), n->type);
}

/* ---- operators ---- */

static bool is_u64(const struct type *t)
{
	return t && t->kind == T_INT && !t->is_signed && t->size == 8;
}

/* The byte of a string at i; a str() read's extra byte (types.h str_more)
 * and the one before it end the string as the shorter read would have. */
static LLVMValueRef str_byte(struct cg *g, LLVMValueRef s, const struct type *t, uint32_t i)
{
	if (t->str_more && i + 2 >= t->size)
		return LLVMConstInt(g->i8, 0, 0);
	return LLVMBuildLoad2(g->b, g->i8, cg_gep(g, s, i), "");
}

LLVMValueRef cg_str_eq_n(struct cg *g, LLVMValueRef a, const struct type *ta, LLVMValueRef b,
			 const struct type *tb, uint64_t limit)
{
	uint32_t asz = ta->size - ta->str_more, bsz = tb->size - tb->str_more;
	uint32_t n = asz < bsz ? asz : bsz;
	LLVMValueRef res = cg_alloca(g, 8, "streq");
	LLVMBasicBlockRef eq = cg_block(g, "streq"), done = cg_block(g, "strdone");

	if (limit < n)
		n = (uint32_t)limit;
	LLVMBuildStore(g->b, cg_const(g, 0), res);
	for (uint32_t i = 0; i < n; i++) {
		LLVMValueRef ca = str_byte(g, a, ta, i);
		LLVMValueRef cb = str_byte(g, b, tb, i);
		LLVMBasicBlockRef same = cg_block(g, ""), next = cg_block(g, "");

		LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, ca, cb, ""), same, done);
		LLVMPositionBuilderAtEnd(g->b, same);
		LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, ca,
						    LLVMConstInt(g->i8, 0, 0), ""), eq, next);
		LLVMPositionBuilderAtEnd(g->b, next);
	}
	LLVMBuildBr(g->b, eq);
	LLVMPositionBuilderAtEnd(g->b, eq);
	LLVMBuildStore(g->b, cg_const(g, 1), res);
	LLVMBuildBr(g->b, done);
	LLVMPositionBuilderAtEnd(g->b, done);
	return LLVMBuildLoad2(g->b, g->i64, res, "");
}

static LLVMValueRef str_eq(struct cg *g, LLVMValueRef a, const struct type *ta, LLVMValueRef b,
			   const struct type *tb)
{
	return cg_str_eq_n(g, a, ta, b, tb, UINT64_MAX);
}

static LLVMValueRef bytes_eq(struct cg *g, LLVMValueRef x, LLVMValueRef y, uint32_t size)
{
	LLVMValueRef r = LLVMConstInt(LLVMInt1TypeInContext(g->ctx), 1, 0);

	for (uint32_t i = 0; i < size; i++)
		r = LLVMBuildAnd(g->b, r, LLVMBuildICmp(g->b, LLVMIntEQ,
				 LLVMBuildLoad2(g->b, g->i8, cg_gep(g, x, i), ""),
				 LLVMBuildLoad2(g->b, g->i8, cg_gep(g, y, i), ""), ""), "");
	return cg_bool(g, r);
}

/* Tuples of one shape (sema's unify): 1 if every element is equal. */
static LLVMValueRef tuple_eq(struct cg *g, LLVMValueRef a, const struct type *ta,
			     LLVMValueRef b, const struct type *tb)
{
	LLVMValueRef r = cg_const(g, 1);

	for (int i = 0; i < ta->nfields && i < tb->nfields; i++) {
		const struct type *ea = ta->fields[i].type, *eb = tb->fields[i].type;
		LLVMValueRef x = tuple_at(g, a, ta, i), y = tuple_at(g, b, tb, i), e;

		if (ea->kind == T_TUPLE)
			e = tuple_eq(g, x, ea, y, eb);
		else if (ea->kind == T_STR)
			e = str_eq(g, x, ea, y, eb);
		else if (cg_is_mem(ea))   /* same type: the same bytes */
			e = bytes_eq(g, x, y, ea->size);
		else
			e = cg_bool(g, LLVMBuildICmp(g->b, LLVMIntEQ, x, y, ""));
		r = LLVMBuildAnd(g->b, r, e, "");
	}
	return r;
}

static LLVMValueRef logical(struct cg *g, struct node *n)
{
	LLVMValueRef a = cg_expr(g, n->a), b, c;
	LLVMBasicBlockRef from = LLVMGetInsertBlock(g->b);
	LLVMBasicBlockRef rhs = cg_block(g, "rhs"), done = cg_block(g, "logic");
	LLVMValueRef phi, vals[2];
	LLVMBasicBlockRef bbs[2];

	c = LLVMBuildICmp(g->b, LLVMIntNE, a, cg_const(g, 0), "");
	if (n->op == TOK_AND)
		LLVMBuildCondBr(g->b, c, rhs, done);
	else
		LLVMBuildCondBr(g->b, c, done, rhs);
	LLVMPositionBuilderAtEnd(g->b, rhs);
	b = cg_bool(g, LLVMBuildICmp(g->b, LLVMIntNE, cg_expr(g, n->b), cg_const(g, 0), ""));
	bbs[1] = LLVMGetInsertBlock(g->b);
	LLVMBuildBr(g->b, done);
	LLVMPositionBuilderAtEnd(g->b, done);
	phi = LLVMBuildPhi(g->b, g->i64, "");
	vals[0] = cg_const(g, n->op == TOK_OR);
	bbs[0] = from;
	vals[1] = b;
	LLVMAddIncoming(phi, vals, bbs, 2);
	return phi;
}

/*
 * As the BPF instructions define it: x / 0 is 0 and x % 0 is x.  In LLVM IR
 * a zero divisor is undefined, and an optimiser that proves it zero would
 * print garbage.  A divisor known not to be zero folds the selects away.
 */
static LLVMValueRef udiv(struct cg *g, LLVMValueRef a, LLVMValueRef b, bool rem)
{
	LLVMValueRef zero = LLVMBuildICmp(g->b, LLVMIntEQ, b, cg_const(g, 0), "");
	LLVMValueRef safe = LLVMBuildSelect(g->b, zero, cg_const(g, 1), b, "");
	LLVMValueRef q = rem ? LLVMBuildURem(g->b, a, safe, "") : LLVMBuildUDiv(g->b, a, safe, "");

	return LLVMBuildSelect(g->b, zero, rem ? a : cg_const(g, 0), q, "");
}

static LLVMValueRef sdiv(struct cg *g, LLVMValueRef a, LLVMValueRef b, bool rem)
{
	LLVMValueRef z = cg_const(g, 0);
	LLVMValueRef an = LLVMBuildICmp(g->b, LLVMIntSLT, a, z, "");
	LLVMValueRef bn = LLVMBuildICmp(g->b, LLVMIntSLT, b, z, "");
	LLVMValueRef ua = LLVMBuildSelect(g->b, an, LLVMBuildNeg(g->b, a, ""), a, "");
	LLVMValueRef ub = LLVMBuildSelect(g->b, bn, LLVMBuildNeg(g->b, b, ""), b, "");
	LLVMValueRef q = udiv(g, ua, ub, rem);
	LLVMValueRef neg = rem ? an : LLVMBuildXor(g->b, an, bn, "");

	return LLVMBuildSelect(g->b, neg, LLVMBuildNeg(g->b, q, ""), q, "");
}

LLVMValueRef cg_arith(struct cg *g, int op, LLVMValueRef a, LLVMValueRef b, bool sgn)
{
	switch (op) {
	case '+': return LLVMBuildAdd(g->b, a, b, "");
	case '-': return LLVMBuildSub(g->b, a, b, "");
	case '*': return LLVMBuildMul(g->b, a, b, "");
	case '/': return sgn ? sdiv(g, a, b, false) : udiv(g, a, b, false);
	case '%': return sgn ? sdiv(g, a, b, true) : udiv(g, a, b, true);
	case '&': return LLVMBuildAnd(g->b, a, b, "");
	case '|': return LLVMBuildOr(g->b, a, b, "");
	case '^': return LLVMBuildXor(g->b, a, b, "");
	case TOK_SHL:
		return LLVMBuildShl(g->b, a, LLVMBuildAnd(g->b, b, cg_const(g, 63), ""), "");
	case TOK_SHR:
		b = LLVMBuildAnd(g->b, b, cg_const(g, 63), "");
		return sgn ? LLVMBuildAShr(g->b, a, b, "") : LLVMBuildLShr(g->b, a, b, "");
	}
	return NULL;
}

static LLVMValueRef compare(struct cg *g, int op, LLVMValueRef a, LLVMValueRef b, bool sgn)
{
	LLVMIntPredicate p;

	switch (op) {
	case '<': p = sgn ? LLVMIntSLT : LLVMIntULT; break;
	case '>': p = sgn ? LLVMIntSGT : LLVMIntUGT; break;
	case TOK_LE: p = sgn ? LLVMIntSLE : LLVMIntULE; break;
	case TOK_GE: p = sgn ? LLVMIntSGE : LLVMIntUGE; break;
	case TOK_EQ: p = LLVMIntEQ; break;
	default: p = LLVMIntNE; break;
	}
	return cg_bool(g, LLVMBuildICmp(g->b, p, a, b, ""));
}

static LLVMValueRef binop(struct cg *g, struct node *n)
{
	const struct type *ta = n->a->type, *tb = n->b->type;
	LLVMValueRef a, b, r;
	bool sgn = !is_u64(ta) && !is_u64(tb);

	if (n->op == TOK_AND || n->op == TOK_OR)
		return logical(g, n);
	a = cg_expr(g, n->a);
	b = cg_expr(g, n->b);
	if (ta->kind == T_STR || ta->kind == T_TUPLE) {
		r = ta->kind == T_STR ? str_eq(g, a, ta, b, tb) : tuple_eq(g, a, ta, b, tb);
		return n->op == TOK_EQ ? r : LLVMBuildXor(g->b, r, cg_const(g, 1), "");
	}
	if (ta->kind == T_ARRAY || ta->kind == T_UFMT) {
		/* arrays: sema saw the same size.  bufs: the length (first 8
		 * bytes) and what follows, zero past the length in both */
		r = bytes_eq(g, a, b, ta->size < tb->size ? ta->size : tb->size);
		return n->op == TOK_EQ ? r : LLVMBuildXor(g->b, r, cg_const(g, 1), "");
	}
	if (ta->kind == T_PTR && (n->op == '+' || n->op == '-') && type_is_int(tb)) {
		uint32_t es = ta->elem && ta->elem->size ? ta->elem->size : 1;

		b = LLVMBuildMul(g->b, b, cg_const(g, es), "");
	}
	if (tb->kind == T_PTR && n->op == '+' && type_is_int(ta)) {
		uint32_t es = tb->elem && tb->elem->size ? tb->elem->size : 1;

		a = LLVMBuildMul(g->b, a, cg_const(g, es), "");
	}
	if (ta->kind == T_PTR && tb->kind == T_PTR && n->op == '-') {
		uint32_t es = ta->elem && ta->elem->size ? ta->elem->size : 1;

		return cg_arith(g, '/', LLVMBuildSub(g->b, a, b, ""), cg_const(g, es), true);
	}
	r = cg_arith(g, n->op, a, b, n->type->kind == T_PTR ? false : n->type->is_signed);
	return r ? r : compare(g, n->op, a, b, sgn);
}

static LLVMValueRef unop(struct cg *g, struct node *n)
{
	LLVMValueRef a;

	if (n->op == '*')
		return cg_place_value(g, n);
	if (n->op == '&')
		return cg_place_addr(g, n->a);
	a = cg_expr(g, n->a);
	switch (n->op) {
	case '-':
		return LLVMBuildNeg(g->b, a, "");
	case '!':
		return cg_bool(g, LLVMBuildICmp(g->b, LLVMIntEQ, a, cg_const(g, 0), ""));
	default:
		return LLVMBuildNot(g->b, a, "");
	}
}

static LLVMValueRef ternary(struct cg *g, struct node *n)
{
	LLVMValueRef c = cg_expr(g, n->a);
	bool mem, none = n->type->kind == T_VOID;
	LLVMValueRef res;
	LLVMBasicBlockRef yes = cg_block(g, "then"), no = cg_block(g, "else");
	LLVMBasicBlockRef done = cg_block(g, "endcond");
	struct node *arms[2] = { n->b, n->c };
	LLVMBasicBlockRef bbs[2] = { yes, no };

	mem = cg_is_mem(n->type);
	res = none ? NULL : cg_alloca(g, mem ? n->type->size : 8, "cond");
	LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntNE, c, cg_const(g, 0), ""), yes, no);
	for (int i = 0; i < 2; i++) {
		LLVMPositionBuilderAtEnd(g->b, bbs[i]);
		if (none) /* both arms are void calls: a statement (see sema) */
			cg_expr(g, arms[i]);
		else
			cg_store_as(g, res, n->type, cg_expr(g, arms[i]), arms[i]->type,
				    mem ? n->type->size : 8);
		LLVMBuildBr(g->b, done);
	}
	LLVMPositionBuilderAtEnd(g->b, done);
	if (none)
		return cg_const(g, 0);
	return mem ? res : LLVMBuildLoad2(g->b, g->i64, res, "");
}

LLVMValueRef cg_expr(struct cg *g, struct node *n)
{
	struct cg_var *v;

	switch (n->kind) {
	case N_INT:
		return cg_const(g, n->ival);
	case N_STR:
		return cg_store_const_str(g, n->name, n->len, n->len + 1);
	case N_POSITIONAL: {
		const char *s = sema_param(g->s, n);

		return cg_store_const_str(g, s, strlen(s), n->type->size);
	}
	case N_IDENT:
		return ident(g, n);
	case N_VAR:
		v = cg_var(g, n->name, n->type);
		return cg_is_mem(v->type) ? v->slot : LLVMBuildLoad2(g->b, g->i64, v->slot, "");
	case N_MAP:
		return cg_map_read(g, n);
	case N_CALL:
		return cg_call(g, n);
	case N_BINOP:
		return binop(g, n);
	case N_UNOP:
		return unop(g, n);
	case N_TERNARY:
		return ternary(g, n);
	case N_INCDEC:
		return cg_incdec(g, n);
	case N_FIELD:
		return field(g, n);
	case N_INDEX:
		return index_expr(g, n);
	case N_TUPLE:
		return tuple_expr(g, n);
	case N_STMTEXPR:
		for (struct node *s = n->list; s; s = s->next)
			cg_stmt(g, s);
		return cg_expr(g, n->a);
	case N_CAST:
		return cg_to_int_type(g, cg_expr(g, n->a), n->type);
	default:
		cg_error(g, n->loc, "internal error: no code for %s", ast_kind_name(n->kind));
		return cg_const(g, 0);
	}
}
