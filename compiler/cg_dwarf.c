// SPDX-License-Identifier: GPL-2.0-only
/*
 * cg_dwarf.c - code that reads the traced program's variables at a uprobe
 * site: DWARF location programs (dwarf.h) run as straight-line BPF over
 * pt_regs and user memory, then C-like access to what they find: fields,
 * elements, pointer dereferences, address-of.
 *
 * A "place" is traced-program memory: its value here is the user address
 * (an i64), read with bpf_probe_read_user only when a scalar is needed.
 * Each site has its own program (sema marks the probe per_site), so the
 * location of a variable is a compile-time fact.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "codegen_int.h"
#include "dwarf.h"
#include "lib/elfsym.h"
#include "lexer.h"
#include "probe.h"

#define REG_IP 128

LLVMValueRef cg_read_user(struct cg *g, LLVMValueRef addr, unsigned size)
{
	LLVMValueRef buf = cg_alloca(g, 8, "uval");
	LLVMValueRef args[3] = { buf, cg_const(g, size > 8 ? 8 : size),
				 LLVMBuildIntToPtr(g->b, addr, g->ptr, "") };

	/* The helper fills what it reads (zeros on a fault); a narrower read
	 * leaves the upper bytes to clear. */
	if (size < 8)
		LLVMBuildStore(g->b, cg_const(g, 0), buf);
	cg_read(g, H_READ_USER, args);
	return LLVMBuildLoad2(g->b, g->i64, buf, "");
}

/* Whether the probe reads the kernel's DWARF (kprobe:FUNC:LINE): its
 * variables are in kernel registers and memory. */
static bool kernel_site(struct cg *g)
{
	return g->probe->kind == PK_KPROBE;
}

/* The helper that reads the traced code's memory. */
static int mem_helper(struct cg *g)
{
	return kernel_site(g) ? H_READ_KERNEL : H_READ_USER;
}

/* size bytes (at most 8) of kernel memory at addr, zero-extended. */
static LLVMValueRef read_kernel(struct cg *g, LLVMValueRef addr, unsigned size)
{
	LLVMValueRef buf = cg_alloca(g, 8, "kval"), args[3];

	args[0] = buf;
	args[1] = cg_const(g, size > 8 ? 8 : size);
	args[2] = LLVMBuildIntToPtr(g->b, addr, g->ptr, "");
	LLVMBuildStore(g->b, cg_const(g, 0), buf);
	cg_read(g, H_READ_KERNEL, args);
	return LLVMBuildLoad2(g->b, g->i64, buf, "");
}

/* The same of the traced code's memory: the program's, or the kernel's. */
static LLVMValueRef read_mem(struct cg *g, LLVMValueRef addr, unsigned size)
{
	return kernel_site(g) ? read_kernel(g, addr, size) : cg_read_user(g, addr, size);
}

/* The scalar at a place, from the traced program's memory or, where the
 * place is reached through a kernel pointer (curtask, raw tracepoint
 * arguments, casts at kernel probes), from the kernel's. */
static LLVMValueRef read_place(struct cg *g, const struct node *n, LLVMValueRef addr,
			       unsigned size)
{
	return sema_place_is_user(n) ? cg_read_user(g, addr, size) : read_kernel(g, addr, size);
}

static LLVMValueRef reg(struct cg *g, int regno, struct loc loc)
{
	int off = dw_reg_ptregs_offset(regno);

	if (off < 0) {
		cg_error(g, loc, "DWARF register %d is not in pt_regs", regno);
		return cg_const(g, 0);
	}
	return LLVMBuildLoad2(g->b, g->i64, cg_gep(g, g->ctxarg, off), "");
}

static LLVMValueRef cmp(struct cg *g, LLVMIntPredicate p, LLVMValueRef a, LLVMValueRef b)
{
	return cg_bool(g, LLVMBuildICmp(g->b, p, a, b, ""));
}

static LLVMValueRef binary(struct cg *g, enum dwl_op op, LLVMValueRef a, LLVMValueRef b)
{
	switch (op) {
	case DWL_ADD: return cg_arith(g, '+', a, b, true);
	case DWL_SUB: return cg_arith(g, '-', a, b, true);
	case DWL_MUL: return cg_arith(g, '*', a, b, true);
	case DWL_DIV: return cg_arith(g, '/', a, b, true);
	case DWL_MOD: return cg_arith(g, '%', a, b, false);
	case DWL_AND: return cg_arith(g, '&', a, b, true);
	case DWL_OR: return cg_arith(g, '|', a, b, true);
	case DWL_XOR: return cg_arith(g, '^', a, b, true);
	case DWL_SHL: return cg_arith(g, TOK_SHL, a, b, false);
	case DWL_SHR: return cg_arith(g, TOK_SHR, a, b, false);
	case DWL_SHRA: return cg_arith(g, TOK_SHR, a, b, true);
	case DWL_EQ: return cmp(g, LLVMIntEQ, a, b);
	case DWL_NE: return cmp(g, LLVMIntNE, a, b);
	case DWL_LT: return cmp(g, LLVMIntSLT, a, b);
	case DWL_LE: return cmp(g, LLVMIntSLE, a, b);
	case DWL_GT: return cmp(g, LLVMIntSGT, a, b);
	default: return cmp(g, LLVMIntSGE, a, b);
	}
}

/* ---- DW_OP_entry_value ----
 *
 * A value the caller passed in a register that the function has since
 * reused: a companion uprobe at the function's entry saves the registers
 * in entry_regs, keyed by thread, entry address and the frame's CFA (the
 * stack pointer before the call pushed its return address), and the site
 * reads them back by its own frame's CFA: in recursion each call sees its
 * own entry.  A hit in a call that began before the probes were attached
 * is skipped and counted (CG_NOENTRY). */

#define ENTRY_NREGS 17
#define ENTRY_MAX 16384

struct entry_key {
	uint64_t pid_tgid, entry, cfa;
};

static LLVMValueRef entry_map(struct cg *g)
{
	if (!g->entry_regs)
		/* LRU: frames come and go, their keys are never deleted. */
		g->entry_regs = cg_map_define(g, "entry_regs", 9 /* BPF_MAP_TYPE_LRU_HASH */, ENTRY_MAX,
					      sizeof(struct entry_key), ENTRY_NREGS * 8);
	return g->entry_regs;
}

static LLVMValueRef entry_key(struct cg *g, uint64_t entry, LLVMValueRef cfa)
{
	LLVMValueRef key = cg_alloca(g, sizeof(struct entry_key), "ekey");

	LLVMBuildStore(g->b, cg_pid_tgid(g), key);
	LLVMBuildStore(g->b, cg_const(g, entry), cg_gep(g, key, 8));
	LLVMBuildStore(g->b, cfa, cg_gep(g, key, 16));
	return key;
}

/* Remembers that the site's function needs a companion at its entry. */
static uint64_t need_entry(struct cg *g, struct loc loc)
{
	const struct probe_site *s = &g->probe->sites[g->site < 0 ? 0 : g->site];
	uint64_t entry = s->dw ? dw_probe_entry(s->dw) : 0;

	if (!entry) {
		cg_error(g, loc, "no function entry for an entry value at %s", s->func);
		return 0;
	}
	for (int i = 0; i < g->nentries; i++)
		if (g->entries[i].addr == entry && !strcmp(g->entries[i].p->path, g->probe->path))
			return entry;
	g->entries = realloc(g->entries, (g->nentries + 1) * sizeof(*g->entries));
	if (!g->entries)
		abort();
	g->entries[g->nentries++] = (struct cg_entry){ g->probe, entry,
		strdup(dw_probe_func(s->dw) ? dw_probe_func(s->dw) : s->func) };
	return entry;
}

static LLVMValueRef entry_value(struct cg *g, int regno, LLVMValueRef cfa, struct loc loc)
{
	uint64_t entry = need_entry(g, loc);
	int off = dw_reg_ptregs_offset(regno);
	LLVMValueRef args[2], p;

	if (off < 0 || regno >= ENTRY_NREGS) {
		cg_error(g, loc, "DWARF register %d is not in pt_regs", regno);
		return cg_const(g, 0);
	}
	args[0] = entry_map(g);
	args[1] = entry_key(g, entry, cfa);
	p = LLVMBuildIntToPtr(g->b, cg_helper(g, H_MAP_LOOKUP, args, 2), g->ptr, "");
	/* No entry seen for this frame: the value is unknown, never 0. */
	LLVMBasicBlockRef miss = cg_block(g, "noentry"), hit = cg_block(g, "entry");
	LLVMBuildCondBr(g->b, LLVMBuildIsNotNull(g->b, p, ""), hit, miss);
	LLVMPositionBuilderAtEnd(g->b, miss);
	cg_count(g, CG_NOENTRY);
	LLVMBuildRet(g->b, LLVMConstInt(g->i32, 0, 0));
	LLVMPositionBuilderAtEnd(g->b, hit);
	return LLVMBuildLoad2(g->b, g->i64, cg_gep(g, p, 8 * (uint64_t)regno), "");
}

/* The companion: saves every pt_regs register, in DWARF order. */
static int gen_companion(struct cg *g, int i)
{
	const struct cg_entry *e = &g->entries[i];
	struct probe *p = calloc(1, sizeof(*p));
	char name[64], sec[64];
	uint64_t offset;

	if (!p || !(p->sites = calloc(1, sizeof(*p->sites))))
		abort();
	if (elfsym_offset(e->p->path, e->addr, &offset)) {
		cg_error(g, e->p->loc, "the entry of %s is not in a loaded segment of %s", e->func,
			 e->p->path);
		free(p->sites);
		free(p);
		return -1;
	}
	p->kind = PK_UPROBE;
	p->loc = e->p->loc;
	p->path = strdup(e->p->path);
	if (asprintf(&p->name, "uprobe:%s:%s (entry values)", e->p->path, e->func) < 0)
		abort();
	p->sites[0] = (struct probe_site){ .func = strdup(e->func), .addr = e->addr,
					   .offset = offset };
	p->nsites = 1;
	struct probe **v = realloc(g->prog->probes, (g->prog->nprobes + 1) * sizeof(*v));
	if (!v)
		abort();
	g->prog->probes = v;
	v[g->prog->nprobes++] = p;

	snprintf(name, sizeof(name), "entry%d_uprobe", i);
	snprintf(sec, sizeof(sec), "uprobe/entry%d", i);
	struct pr_prog *pp = cg_func_begin(g, name, sec, e->p->loc);
	pp->bpf_prog_type = 2; /* BPF_PROG_TYPE_KPROBE */
	pp->probe = p;
	pp->site = 0;
	LLVMValueRef regs = cg_alloca(g, ENTRY_NREGS * 8, "regs"), args[4];
	for (int r = 0; r < ENTRY_NREGS; r++)
		LLVMBuildStore(g->b, LLVMBuildLoad2(g->b, g->i64,
				cg_gep(g, g->ctxarg, (uint64_t)dw_reg_ptregs_offset(r)), ""),
			       cg_gep(g, regs, 8 * (uint64_t)r));
	args[0] = entry_map(g);
	/* At the entry the return address is on top: the CFA is sp + 8. */
	args[1] = entry_key(g, e->addr, LLVMBuildAdd(g->b, LLVMBuildLoad2(g->b, g->i64,
			cg_gep(g, g->ctxarg, (uint64_t)dw_reg_ptregs_offset(7)), ""), cg_const(g, 8), ""));
	args[2] = regs;
	args[3] = cg_const(g, 0);
	cg_helper(g, H_MAP_UPDATE, args, 4);
	cg_func_end(g);
	return 0;
}

int cg_entry_companions(struct cg *g)
{
	for (int i = 0; i < g->nentries; i++)
		if (gen_companion(g, i))
			return -1;
	return 0;
}

static LLVMValueRef run_prog(struct cg *g, const struct dwl_insn *p, int n, uint64_t site,
			     struct loc loc);

/* DWL_CALLSITES: the case whose return address is ret runs its program;
 * a return address no call site gives the value for (a call through a
 * pointer, a site that does not pass it) skips the hit, counted. */
static LLVMValueRef callsites(struct cg *g, const struct dwl_insn *p, int n, int *i,
			      LLVMValueRef ret, uint64_t site, struct loc loc)
{
	LLVMValueRef slot = cg_alloca(g, 8, "csval");
	LLVMBasicBlockRef join = cg_block(g, "cs_join"), miss = cg_block(g, "cs_miss");
	int cases = (int)p[*i].val;

	for (int k = 0; k < cases; k++) {
		int at = *i + 1;
		if (at >= n || p[at].op != DWL_CS_CASE || at + 1 + (int)p[at].size > n) {
			cg_error(g, loc, "malformed DWARF call-site table");
			return cg_const(g, 0);
		}
		LLVMBasicBlockRef hit = cg_block(g, "cs_hit"), next = cg_block(g, "cs_next");
		LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, ret,
				cg_const(g, (uint64_t)p[at].val), ""), hit, next);
		LLVMPositionBuilderAtEnd(g->b, hit);
		LLVMBuildStore(g->b, run_prog(g, p + at + 1, (int)p[at].size, site, loc), slot);
		LLVMBuildBr(g->b, join);
		LLVMPositionBuilderAtEnd(g->b, next);
		*i = at + (int)p[at].size;
	}
	LLVMBuildBr(g->b, miss);
	LLVMPositionBuilderAtEnd(g->b, miss);
	cg_count(g, CG_NOCALLSITE);
	LLVMBuildRet(g->b, LLVMConstInt(g->i32, 0, 0));
	LLVMPositionBuilderAtEnd(g->b, join);
	return LLVMBuildLoad2(g->b, g->i64, slot, "");
}

/* Runs a location program; returns the top of its stack. */
static LLVMValueRef run_prog(struct cg *g, const struct dwl_insn *p, int n, uint64_t site,
			     struct loc loc)
{
	LLVMValueRef st[64], t;
	int sp = 0;

	for (int i = 0; i < n; i++) {
		const struct dwl_insn *in = &p[i];

		if (sp >= 62 || (in->op >= DWL_PLUS_CONST && sp < 1) ||
		    (in->op >= DWL_ADD && in->op <= DWL_GE && sp < 2)) {
			cg_error(g, loc, "malformed DWARF location");
			return cg_const(g, 0);
		}
		switch (in->op) {
		case DWL_REG: st[sp++] = reg(g, in->reg, loc); break;
		case DWL_CONST: st[sp++] = cg_const(g, (uint64_t)in->val); break;
		case DWL_BIAS:
			/* The kernel's addresses are placed when compiling
			 * (dws_kernel_addr), never here: a kprobe's ip is past its
			 * int3, and bpf_get_func_ip is 0 past a function's entry.
			 * At a return probe ip is in the caller, maybe another module:
			 * sema allows no DWARF variables there, so this never runs. */
			if (g->probe->kind != PK_UPROBE) {
				cg_error(g, loc, "DWARF variables need a uprobe, where ip is the site");
				return cg_const(g, 0);
			}
			st[sp++] = LLVMBuildSub(g->b, reg(g, 16, loc), cg_const(g, site), "");
			break;
		case DWL_ENTRY_VALUE: st[sp - 1] = entry_value(g, in->reg, st[sp - 1], loc); break;
		case DWL_CALLSITES: st[sp - 1] = callsites(g, p, n, &i, st[sp - 1], site, loc); break;
		case DWL_PLUS_CONST:
			st[sp - 1] = LLVMBuildAdd(g->b, st[sp - 1], cg_const(g, (uint64_t)in->val), "");
			break;
		case DWL_DEREF: st[sp - 1] = read_mem(g, st[sp - 1], in->size); break;
		case DWL_NEG: st[sp - 1] = LLVMBuildNeg(g->b, st[sp - 1], ""); break;
		case DWL_NOT: st[sp - 1] = LLVMBuildNot(g->b, st[sp - 1], ""); break;
		case DWL_ABS:
			t = st[sp - 1];
			st[sp - 1] = LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, t,
				cg_const(g, 0), ""), LLVMBuildNeg(g->b, t, ""), t, "");
			break;
		case DWL_DUP: st[sp] = st[sp - 1]; sp++; break;
		case DWL_DROP: sp--; break;
		case DWL_SWAP:
			if (sp < 2)
				goto bad;
			t = st[sp - 1]; st[sp - 1] = st[sp - 2]; st[sp - 2] = t;
			break;
		case DWL_OVER:
			if (sp < 2)
				goto bad;
			st[sp] = st[sp - 2]; sp++;
			break;
		case DWL_BRA_SWAP: {
			if (sp < 3)
				goto bad;
			LLVMValueRef keep = LLVMBuildICmp(g->b, LLVMIntNE, st[sp - 1], cg_const(g, 0), "");
			sp--;
			t = st[sp - 1];
			st[sp - 1] = LLVMBuildSelect(g->b, keep, t, st[sp - 2], "");
			st[sp - 2] = LLVMBuildSelect(g->b, keep, st[sp - 2], t, "");
			break;
		}
		default:
			st[sp - 2] = binary(g, in->op, st[sp - 2], st[sp - 1]);
			sp--;
		}
	}
	if (sp > 0)
		return st[sp - 1];
bad:
	cg_error(g, loc, "malformed DWARF location");
	return cg_const(g, 0);
}

static const struct dw_var *site_var(struct cg *g, const struct node *n)
{
	const struct probe_site *s = &g->probe->sites[g->site < 0 ? 0 : g->site];
	const struct dw_var *v = s->dw ? dw_find_var(s->dw, n->name) : NULL;

	if (!v)
		cg_error(g, n->loc, "no variable '%s' at %s", n->name, s->func);
	return v;
}

static uint64_t site_addr(struct cg *g)
{
	const struct probe_site *s = &g->probe->sites[g->site < 0 ? 0 : g->site];

	return s->dw ? dw_probe_addr(s->dw) : s->addr;
}

/* Whether piece p gives its bits [from, from + n): all of them if it has a
 * location; of a run of bit pieces some of which are empty, those the
 * others give (dwarf_loc.c, dw_piece.given). */
static bool piece_gives(const struct dw_piece *p, uint32_t from, uint32_t n)
{
	if (p->kind != DWR_OPTIMIZED)
		return true;
	if (!p->bits_given || from + n > 64 || !n)
		return false;
	uint64_t want = (n < 64 ? ~0ull >> (64 - n) : ~0ull) << from;
	return (p->given & want) == want;
}

/* Whether the pieces give bits [from, from + n) of the variable (its other
 * pieces are optimised out, or it ends early). */
static bool pieces_cover_bits(const struct dw_loc *l, uint32_t from, uint32_t n)
{
	uint32_t off = 0, need = from;

	for (int i = 0; i < l->npieces && need < from + n; i++) {
		const struct dw_piece *p = &l->pieces[i];
		uint32_t end = off + 8 * p->size;
		if (end > need) {
			uint32_t upto = end < from + n ? end : from + n;
			if (!piece_gives(p, need - off, upto - need))
				return false;
			need = upto;
		}
		off = end;
	}
	return need >= from + n;
}

static bool pieces_cover(const struct dw_loc *l, uint32_t from, uint32_t size)
{
	return pieces_cover_bits(l, 8 * from, 8 * size);
}

/* An implicit pointer's own value is asked for: there is none (gdb shows
 * <synthetic pointer>); only what it points at can be read. */
static void no_address(struct cg *g, const struct dw_var *v, const struct node *n)
{
	cg_error(g, n->loc, "'%s' is a pointer with no value at %s: it points at '%s', which is "
		 "not in memory (DW_OP_implicit_pointer); read *%s, %s->field or %s[N] (N constant)",
		 v->name, dw_probe_func(g->probe->sites[g->site < 0 ? 0 : g->site].dw),
		 v->loc.target_name ? v->loc.target_name : "?", v->name, v->name, v->name);
}

/* A variable that lives in registers or pieces: its value, up to 8 bytes. */
static LLVMValueRef var_value(struct cg *g, const struct dw_var *v, const struct node *n)
{
	const struct dw_loc *l = &v->loc;
	LLVMValueRef acc = cg_const(g, 0);
	unsigned shift = 0;

	if (l->kind == DWR_VALUE)
		return run_prog(g, l->prog, l->n, site_addr(g), n->loc);
	if (l->kind == DWR_IMPLICIT_PTR) {
		no_address(g, v, n);
		return cg_const(g, 0);
	}
	if (v->type && !pieces_cover(l, 0, v->type->size)) {
		cg_error(g, n->loc, "'%s' is partly optimised out at %s: DWARF gives only some of "
			 "its bytes", n->name, dw_probe_func(g->probe->sites[g->site < 0 ? 0 : g->site].dw));
		return cg_const(g, 0);
	}
	for (int i = 0; i < l->npieces; i++) {
		const struct dw_piece *p = &l->pieces[i];
		LLVMValueRef x;

		if (shift + 8 * p->size > 64) {
			cg_error(g, n->loc, "'%s' is split over more than 8 bytes", n->name);
			break;
		}
		x = run_prog(g, p->prog, p->n, site_addr(g), n->loc);
		if (p->kind == DWR_MEMORY)
			x = read_mem(g, x, p->size);
		if (p->size < 8)
			x = LLVMBuildAnd(g->b, x, cg_const(g, ~0ull >> (64 - 8 * p->size)), "");
		acc = LLVMBuildOr(g->b, acc, LLVMBuildShl(g->b, x, cg_const(g, shift), ""), "");
		shift += 8 * p->size;
	}
	return acc;
}

bool cg_is_dwarf_var(struct cg *g, const struct node *n)
{
	return n->kind == N_FIELD && n->a->kind == N_IDENT &&
	       (g->probe->kind == PK_UPROBE || g->probe->kind == PK_KPROBE) &&
	       n->a->type && n->a->type->kind == T_ARGS && !n->a->type->fields;
}

static const struct type *record_of(const struct type *t)
{
	return t->kind == T_PTR ? t->elem : t;
}

LLVMValueRef cg_place_addr(struct cg *g, struct node *n)
{
	const struct type *a = n->kind == N_UNOP ? NULL : n->a->type;

	if (cg_is_dwarf_var(g, n)) {
		const struct dw_var *v = site_var(g, n);

		if (!v)
			return cg_const(g, 0);
		if (v->loc.kind == DWR_IMPLICIT_PTR) {
			no_address(g, v, n);
			return cg_const(g, 0);
		}
		if (v->loc.kind != DWR_MEMORY) {
			cg_error(g, n->loc, "'%s' is in a register at %s, not in memory", n->name,
				 dw_probe_func(g->probe->sites[g->site].dw));
			return cg_const(g, 0);
		}
		return run_prog(g, v->loc.prog, v->loc.n, site_addr(g), n->loc);
	}
	if (n->kind == N_UNOP)
		return cg_expr(g, n->a);
	if (n->kind == N_FIELD) {
		const struct field *f = type_field(record_of(a), n->name);
		LLVMValueRef base = a->kind == T_PTR ? cg_expr(g, n->a) : cg_place_addr(g, n->a);

		return LLVMBuildAdd(g->b, base, cg_const(g, f ? f->offset : 0), "");
	}
	/* N_INDEX */
	LLVMValueRef base = a->kind == T_PTR ? cg_expr(g, n->a) : cg_place_addr(g, n->a);
	uint32_t es = a->elem && a->elem->size ? a->elem->size : 1;

	return LLVMBuildAdd(g->b, base, LLVMBuildMul(g->b, cg_expr(g, n->b), cg_const(g, es), ""),
			    "");
}

/* A bitfield: the bytes that hold it, shifted down and sign- or
 * zero-extended from its width (bit 0 is the least significant). */
static LLVMValueRef bitfield_value(struct cg *g, struct node *n, const struct field *f)
{
	unsigned bytes = (f->bit_offset + f->bit_size + 7) / 8, sh;
	LLVMValueRef v;

	if (bytes > 8 || f->bit_size > 64) {
		cg_error(g, n->loc, "bitfield '%s' spans more than 8 bytes", n->name);
		return cg_const(g, 0);
	}
	v = read_place(g, n, cg_place_addr(g, n), bytes);
	sh = 64 - f->bit_size;
	v = LLVMBuildShl(g->b, v, cg_const(g, sh - f->bit_offset), "");
	if (type_is_int(n->type) && n->type->is_signed)
		return LLVMBuildAShr(g->b, v, cg_const(g, sh), "");
	return LLVMBuildLShr(g->b, v, cg_const(g, sh), "");
}

/* A struct or array at a place, copied whole into a buffer on the BPF
 * side (a by-value copy, as bpftrace makes for `$s = *$p`, `@m = $p->arr`):
 * the pointer to that buffer is the value. */
static LLVMValueRef read_aggregate(struct cg *g, struct node *n)
{
	const struct type *t = n->type;
	LLVMValueRef buf = cg_alloca(g, t->size ? t->size : 1, "agg");
	LLVMValueRef args[3] = { buf, cg_const(g, t->size),
		LLVMBuildIntToPtr(g->b, cg_place_addr(g, n), g->ptr, "") };

	cg_memset0(g, buf, t->size ? t->size : 1);
	cg_read(g, sema_place_is_user(n) ? H_READ_USER : H_READ_KERNEL, args);
	return buf;
}

/* The struct or array value (a $variable, a map value) that a chain of
 * fields and constant indexes starts from, or NULL if it starts in
 * memory: `$s.len`, `@m[k].arr[1]` read the copy, not the program. */
static struct node *value_root(struct node *n)
{
	while ((n->kind == N_FIELD || n->kind == N_INDEX) && n->a->type &&
	       (n->a->type->kind == T_RECORD || n->a->type->kind == T_ARRAY))
		n = n->a;
	return (n->kind == N_VAR || n->kind == N_MAP || n->kind == N_CALL) && n->type &&
	       (n->type->kind == T_RECORD || n->type->kind == T_ARRAY) ? n : NULL;
}

/* Pointer to the part of a copied struct or array that n names. */
static LLVMValueRef value_member(struct cg *g, struct node *n)
{
	if (n->kind == N_VAR || n->kind == N_MAP || n->kind == N_CALL)
		return cg_expr(g, n);
	LLVMValueRef base = value_member(g, n->a);
	const struct type *a = n->a->type;

	if (n->kind == N_FIELD) {
		const struct field *f = type_field(a, n->name);

		if (f && f->bit_size)
			cg_error(g, n->loc, "a bitfield of a copied struct cannot be read");
		return cg_gep(g, base, f ? f->offset : 0);
	}
	uint32_t es = a->elem && a->elem->size ? a->elem->size : 1;

	if (n->b->kind != N_INT || n->b->ival >= a->count) {
		cg_error(g, n->b->loc, "an element of a copied array needs a constant index "
			 "below %u", a->count);
		return base;
	}
	return cg_gep(g, base, n->b->ival * es);
}

static LLVMValueRef member_value(struct cg *g, struct node *n)
{
	const struct type *t = n->type;
	LLVMValueRef p = value_member(g, n), v;
	unsigned size = t->size && t->size < 8 ? t->size : 8;

	if (t->kind == T_RECORD || t->kind == T_ARRAY)
		return p;
	v = LLVMBuildLoad2(g->b, LLVMIntTypeInContext(g->ctx, 8 * size), p, "");
	LLVMSetAlignment(v, 1); /* a packed field: byte loads, never a misaligned one */
	if (size < 8)
		v = LLVMBuildZExt(g->b, v, g->i64, "");
	return cg_to_int_type(g, v, t);
}

/* args.P when P is a pointer DWARF gives no value for, only a pointee
 * (DW_OP_implicit_pointer); NULL for anything else. */
static const struct dw_var *implicit_var(struct cg *g, const struct node *n)
{
	const struct dw_var *v;

	if (!cg_is_dwarf_var(g, n) || !n->type || n->type->kind != T_PTR)
		return NULL;
	v = site_var(g, n);
	return v && v->loc.kind == DWR_IMPLICIT_PTR ? v : NULL;
}

/* What a chain of members reads from: the location of a variable not in
 * memory, or of the pointee of an implicit pointer, and its name. */
struct reg_src {
	const struct dw_loc *loc;
	const char *name;
	uint32_t size;          /* bytes the location holds, 0 if unknown */
};

/* args.V.m[.n...] (constant indexes) where V is not in memory, or
 * args.P->m, *args.P, args.P[k] where P is an implicit pointer: the
 * location read and the member's byte offset in it; false otherwise. */
static bool reg_member(struct cg *g, const struct node *n, uint32_t *off, struct reg_src *src)
{
	uint32_t at = 0;

	while (n->kind == N_FIELD || n->kind == N_INDEX || (n->kind == N_UNOP && n->op == '*')) {
		const struct type *a = n->a->type;
		const struct type *rec = a && a->kind == T_PTR ? a->elem : a;
		const struct dw_var *ip = a && a->kind == T_PTR ? implicit_var(g, n->a) : NULL;
		if (cg_is_dwarf_var(g, n) || !a || (a->kind == T_PTR && !ip))
			break;
		if (n->kind == N_UNOP) {
			/* *P: the pointee itself */
		} else if (n->kind == N_FIELD) {
			const struct field *f = rec && rec->kind == T_RECORD ? type_field(rec, n->name) : NULL;
			if (!f)
				return false;
			at += f->offset;
		} else if (ip) {
			if (n->b->kind != N_INT || !rec || !rec->size)
				return false;
			at += (uint32_t)n->b->ival * rec->size;
		} else {
			if (a->kind != T_ARRAY || !a->elem || n->b->kind != N_INT ||
			    n->b->ival >= a->count)
				return false;
			at += (uint32_t)n->b->ival * a->elem->size;
		}
		n = n->a;
		if (ip) {
			const struct dw_loc *l = &ip->loc;
			if (l->target_off < 0)
				return false;
			*off = at + (uint32_t)l->target_off;
			*src = (struct reg_src){ l->target, l->target_name, l->target_size };
			return true;
		}
	}
	if (!cg_is_dwarf_var(g, n) || n->type->kind == T_PTR)
		return false;
	const struct dw_var *v = site_var(g, n);
	if (!v || v->loc.kind == DWR_MEMORY || !v->type)
		return false;
	*off = at;
	*src = (struct reg_src){ &v->loc, v->name, v->type->size };
	return true;
}

/* Bytes [at, at + size) of a variable in a register or in pieces, size <= 8:
 * the parts of each piece that hold them, shifted into place.  Of them,
 * bits [bit, bit + nbits) must be given (a bitfield's; the others are
 * shifted out). */
static LLVMValueRef reg_bytes(struct cg *g, const struct reg_src *v, uint32_t at, uint32_t size,
			      uint32_t bit, uint32_t nbits, const struct node *n)
{
	const struct dw_loc *l = v->loc;
	LLVMValueRef acc = cg_const(g, 0);
	uint32_t off = 0;

	if (v->size && at + size > v->size) {
		cg_error(g, n->loc, "bytes %u-%u are past the end of '%s' (%u bytes), which "
			 "DWARF gives as the object the pointer points at", at, at + size - 1,
			 v->name, v->size);
		return cg_const(g, 0);
	}
	if (l->kind == DWR_MEMORY)  /* an implicit pointer's pointee in memory */
		return read_mem(g, LLVMBuildAdd(g->b, run_prog(g, l->prog, l->n, site_addr(g),
								   n->loc), cg_const(g, at), ""), size);
	if (l->kind == DWR_VALUE) {
		if (at + size > 8)
			goto missing;
		acc = run_prog(g, l->prog, l->n, site_addr(g), n->loc);
		acc = LLVMBuildLShr(g->b, acc, cg_const(g, 8 * at), "");
		return size < 8 ? LLVMBuildAnd(g->b, acc, cg_const(g, ~0ull >> (64 - 8 * size)), "") : acc;
	}
	if (l->kind != DWR_PIECES || !pieces_cover_bits(l, 8 * at + bit, nbits))
		goto missing;
	for (int i = 0; i < l->npieces; i++, off += l->pieces[i - 1].size) {
		const struct dw_piece *p = &l->pieces[i];
		uint32_t lo = at > off ? at : off, hi = at + size < off + p->size ? at + size : off + p->size;
		LLVMValueRef x;
		if (lo >= hi || !p->n)   /* no program: bits outside those asked for */
			continue;
		x = run_prog(g, p->prog, p->n, site_addr(g), n->loc);
		if (p->kind == DWR_MEMORY)
			x = read_mem(g, LLVMBuildAdd(g->b, x, cg_const(g, lo - off), ""), hi - lo);
		else if (lo - off >= 8)
			goto missing;
		else
			x = LLVMBuildLShr(g->b, x, cg_const(g, 8 * (lo - off)), "");
		if (hi - lo < 8)
			x = LLVMBuildAnd(g->b, x, cg_const(g, ~0ull >> (64 - 8 * (hi - lo))), "");
		acc = LLVMBuildOr(g->b, acc, LLVMBuildShl(g->b, x, cg_const(g, 8 * (lo - at)), ""), "");
	}
	return acc;
missing:
	cg_error(g, n->loc, "'%s' is optimised out at %s: DWARF gives no location for its bytes "
		 "%u-%u in '%s'", n->name ? n->name : v->name, dw_probe_func(g->probe->sites[g->site < 0 ? 0 : g->site].dw),
		 at, at + size - 1, v->name);
	return cg_const(g, 0);
}

/* A member of a struct or array kept in registers or pieces (small
 * structs at -O1 and up), bitfields included. */
static LLVMValueRef reg_member_value(struct cg *g, struct node *n, const struct reg_src *v,
				     uint32_t at)
{
	const struct field *f = n->kind == N_FIELD ? type_field(record_of(n->a->type), n->name)
						   : NULL;
	/* A bitfield: from the byte its first bit is in (clang keeps the
	 * 48-bit b of { short a; long b : 48; } as a piece of its own) */
	unsigned lo = f && f->bit_size ? f->bit_offset / 8u : 0, bit = f ? f->bit_offset % 8u : 0;
	unsigned bytes = f && f->bit_size ? (unsigned)(bit + f->bit_size + 7) / 8 : n->type->size;

	if (!bytes || bytes > 8) {
		cg_error(g, n->loc, "'%s' is not in memory and wider than 8 bytes", n->name);
		return cg_const(g, 0);
	}
	LLVMValueRef x = reg_bytes(g, v, at + lo, bytes, bit,
				   f && f->bit_size ? f->bit_size : 8 * bytes, n);
	if (!f || !f->bit_size)
		return cg_to_int_type(g, x, n->type);
	unsigned sh = 64 - f->bit_size;
	x = LLVMBuildShl(g->b, x, cg_const(g, sh - bit), "");
	if (type_is_int(n->type) && n->type->is_signed)
		return LLVMBuildAShr(g->b, x, cg_const(g, sh), "");
	return LLVMBuildLShr(g->b, x, cg_const(g, sh), "");
}

/* The value of a place of scalar type. */
LLVMValueRef cg_place_value(struct cg *g, struct node *n)
{
	const struct type *t = n->type;

	if (n->kind != N_UNOP && value_root(n))
		return member_value(g, n);

	if (cg_is_dwarf_var(g, n)) {
		const struct dw_var *v = site_var(g, n);

		if (!v)
			return cg_const(g, 0);
		if (v->loc.kind != DWR_MEMORY) {
			if (!type_is_int(t) && t->kind != T_PTR && t->kind != T_FLOAT) {
				cg_error(g, n->loc, "'%s' is not in memory; read its fields through a pointer",
					 n->name);
				return cg_const(g, 0);
			}
			return cg_to_int_type(g, var_value(g, v, n), t);
		}
	}
	if ((n->kind == N_FIELD || n->kind == N_INDEX || (n->kind == N_UNOP && n->op == '*')) &&
	    !cg_is_dwarf_var(g, n) && t->kind != T_RECORD && t->kind != T_ARRAY) {
		uint32_t at;
		struct reg_src src;
		if (reg_member(g, n, &at, &src))
			return reg_member_value(g, n, &src, at);
	}
	if (n->kind == N_FIELD && !cg_is_dwarf_var(g, n)) {
		const struct field *f = type_field(record_of(n->a->type), n->name);

		if (f && f->bit_size)
			return bitfield_value(g, n, f);
	}
	if (t->kind == T_RECORD || t->kind == T_ARRAY)
		return read_aggregate(g, n);
	return cg_to_int_type(g, read_place(g, n, cg_place_addr(g, n), t->size ? t->size : 8), t);
}

/* ---- print(args) ---- */

/* Aggregates larger than this, or past this much of the record, are left
 * out of print(args), to keep the record within the per-CPU heap next to
 * the rest of the probe.  (lua's luaL_Buffer, a common local, is 1056.) */
#define ARGS_AGG_MAX 4096
#define ARGS_REC_MAX 8192

enum { PA_READ, PA_SKIP };

/* What print(args) can show of v: PA_READ, or PA_SKIP with a note. */
static int printable(const struct dw_var *v, const char **note)
{
	const struct type *t = v->type;
	const struct dw_loc *l = &v->loc;
	bool scalar = t && (type_is_int(t) || t->kind == T_PTR || t->kind == T_FLOAT);

	*note = NULL;
	if (l->kind == DWR_OPTIMIZED)
		*note = "<optimized out>";
	else if (l->kind == DWR_IMPLICIT_PTR)
		*note = "<synthetic pointer>";  /* as gdb: it has no value, only a pointee */
	else if (l->kind == DWR_UNSUPPORTED || !t || t->kind == T_VOID)
		*note = "<unavailable>";
	else if (!scalar && t->kind != T_RECORD && t->kind != T_ARRAY)
		*note = "<unavailable>";
	else if (!scalar && (t->size == 0 || t->size > ARGS_AGG_MAX))
		*note = "<too large>";
	else if (!scalar && l->kind != DWR_MEMORY && t->size > 8 && l->kind != DWR_PIECES)
		*note = "<unavailable>";
	return *note ? PA_SKIP : PA_READ;
}

/* Whether store_pieces() writes a piece: one DWARF gives a location for,
 * a value of at most the 8 bytes a register holds (clang's 3- and 6-byte
 * stack values: DW_OP_convert to unsigned_24, unsigned_48), or in memory
 * (read at any size: clang keeps a struct's first 64 bytes in one piece). */
static bool piece_stored(const struct dw_piece *p)
{
	if (p->kind == DWR_OPTIMIZED)   /* the bits a run of bit pieces gives, 0 elsewhere */
		return p->bits_given && p->given && p->size && p->size <= 8;
	return p->size && (p->size <= 8 || (p->kind == DWR_MEMORY && p->size <= ARGS_AGG_MAX));
}

/* Stores the low sz bytes of x at dst: one store of 1, 2, 4 or 8 bytes,
 * else (3, 5, 6, 7) byte by byte, low byte first. */
static void store_low(struct cg *g, LLVMValueRef x, LLVMValueRef dst, unsigned sz)
{
	if (sz == 1 || sz == 2 || sz == 4 || sz == 8) {
		if (sz < 8)
			x = LLVMBuildTrunc(g->b, x, LLVMIntTypeInContext(g->ctx, 8 * sz), "");
		LLVMBuildStore(g->b, x, dst);
		return;
	}
	for (unsigned b = 0; b < sz; b++)
		LLVMBuildStore(g->b, LLVMBuildTrunc(g->b, LLVMBuildLShr(g->b, x, cg_const(g, 8 * b), ""),
						    LLVMInt8TypeInContext(g->ctx), ""),
			       cg_gep(g, dst, b));
}

/* Marks in avail[0..size) the bits of v that the record will hold, a mask
 * per byte: all of them unless v is in pieces; then those of the pieces
 * stored (of a run of bit pieces, the bits given), so that the others
 * (optimised out, or past the last piece) are never shown as 0.  Returns
 * whether every bit is there. */
static bool bytes_avail(const struct dw_var *v, uint8_t *avail, uint32_t size)
{
	const struct dw_loc *l = &v->loc;
	uint32_t off = 0;
	bool all = true;

	memset(avail, l->kind != DWR_PIECES ? 0xff : 0, size);
	for (int i = 0; l->kind == DWR_PIECES && i < l->npieces; i++) {
		const struct dw_piece *p = &l->pieces[i];
		bool some = p->kind == DWR_OPTIMIZED;
		for (uint32_t b = off; b < off + p->size && b < size; b++)
			avail[b] = !piece_stored(p) ? 0 : some ? (uint8_t)(p->given >> 8 * (b - off))
							   : 0xff;
		off += p->size;
	}
	for (uint32_t b = 0; b < size; b++)
		all &= avail[b] == 0xff;
	return all;
}

/* Writes each piece of a variable split over registers and memory at
 * its byte offset in dst. */
static void store_pieces(struct cg *g, LLVMValueRef dst, const struct dw_loc *l, struct loc loc)
{
	uint32_t off = 0;

	for (int i = 0; i < l->npieces; i++) {
		const struct dw_piece *p = &l->pieces[i];
		unsigned sz = p->size;

		if (piece_stored(p) && p->kind == DWR_MEMORY && sz != 1 && sz != 2 && sz != 4 &&
		    sz != 8) {
			LLVMValueRef args[3] = { cg_gep(g, dst, off), cg_const(g, sz),
				LLVMBuildIntToPtr(g->b, run_prog(g, p->prog, p->n, site_addr(g), loc),
						  g->ptr, "") };
			cg_read(g, mem_helper(g), args);
		} else if (piece_stored(p)) {
			LLVMValueRef x = run_prog(g, p->prog, p->n, site_addr(g), loc);

			if (p->kind == DWR_MEMORY)
				x = read_mem(g, x, sz);
			store_low(g, x, cg_gep(g, dst, off), sz);
		}
		off += sz;
	}
}

static void store_var(struct cg *g, LLVMValueRef dst, const struct dw_var *v, struct loc loc)
{
	const struct type *t = v->type;
	const struct dw_loc *l = &v->loc;
	struct node n = { .kind = N_IDENT, .name = (char *)v->name, .loc = loc };

	if (type_is_int(t) || t->kind == T_PTR || t->kind == T_FLOAT) {
		if (l->kind == DWR_PIECES && !pieces_cover(l, 0, t->size))
			return;  /* printed as <optimized out> */
		LLVMValueRef x = l->kind == DWR_MEMORY
			? read_mem(g, run_prog(g, l->prog, l->n, site_addr(g), loc), t->size)
			: var_value(g, v, &n);
		LLVMBuildStore(g->b, cg_to_int_type(g, x, t), dst);
	} else if (l->kind == DWR_MEMORY) {
		LLVMValueRef args[3] = { dst, cg_const(g, t->size),
			LLVMBuildIntToPtr(g->b, run_prog(g, l->prog, l->n, site_addr(g), loc), g->ptr, "") };
		cg_read(g, mem_helper(g), args);
	} else if (l->kind == DWR_PIECES) {
		store_pieces(g, dst, l, loc);
	} else {
		LLVMBuildStore(g->b, run_prog(g, l->prog, l->n, site_addr(g), loc), dst);
	}
}

static void fmt_append(char **s, size_t *len, const char *a, const char *b, const char *c)
{
	size_t add = strlen(a) + strlen(b) + strlen(c);

	*s = realloc(*s, *len + add + 1);
	if (!*s)
		abort();
	*len += (size_t)sprintf(*s + *len, "%s%s%s", a, b, c);
}

/* A variable shadowed by a later (inner) one of the same name is not shown. */
static bool shadowed(const struct dw_var *v, int i, int n)
{
	for (int j = i + 1; j < n; j++)
		if (!strcmp(v[j].name, v[i].name))
			return true;
	return false;
}

void cg_print_place(struct cg *g, int id, struct node *m)
{
	struct pr_action *a = &g->prog->actions[id];
	uint32_t size = (m->type->size + 7) & ~7u;
	struct pr_arg *pa = calloc(1, sizeof(*pa));

	if (!pa)
		abort();
	pa->type = m->type;
	pa->offset = 8;
	a->args = pa;
	a->nargs = 1;
	a->size = 8 + size;
	LLVMValueRef rec = cg_alloca(g, 8 + size, "place");
	cg_memset0(g, rec, 8 + size);
	LLVMBuildStore(g->b, cg_const(g, (uint64_t)id), rec);
	LLVMValueRef args[3] = { cg_gep(g, rec, 8), cg_const(g, m->type->size),
		LLVMBuildIntToPtr(g->b, cg_place_addr(g, m), g->ptr, "") };
	cg_read(g, sema_place_is_user(m) ? H_READ_USER : H_READ_KERNEL, args);
	cg_send(g, rec, 8 + size);
}

/* A bitfield of a partly available record: extracted in BPF from the
 * record's bytes at src into an 8-byte slot of its own, printed from there. */
struct bf_slot {
	uint32_t src, slot;
	const struct field *f;
};

/* print(args)'s format and arguments being built. */
struct args_fmt {
	char *fmt;
	size_t len;
	struct pr_arg *pa;
	int npa, cap;
	struct bf_slot *bf;
	int nbf;
	uint32_t slot_at;       /* the record offset of the next bitfield slot */
};

static void fmt_arg(struct args_fmt *f, const struct type *t, uint32_t offset)
{
	if (f->npa == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 8;
		if (!(f->pa = realloc(f->pa, f->cap * sizeof(*f->pa))))
			abort();
	}
	f->pa[f->npa] = (struct pr_arg){ .type = t, .offset = offset, .gdb_ptrs = true };
	f->npa++;
	fmt_append(&f->fmt, &f->len, "%s", "", "");
}

static bool all_in(const uint8_t *avail, uint32_t from, uint32_t size, bool want)
{
	for (uint32_t b = from; b < from + size; b++)
		if (avail[b] != (want ? 0xff : 0))
			return false;
	return true;
}

/* Whether avail has bits [from, from + n), or (want false) none of them. */
static bool bits_in(const uint8_t *avail, uint32_t from, uint32_t n, bool want)
{
	for (uint32_t b = from; b < from + n; b++)
		if (!!(avail[b / 8] & (1u << (b % 8))) != want)
			return false;
	return true;
}

/* A bitfield of a partial record: printed from a slot of its own if all
 * its bits are there, else <optimized out>.  (The slot takes the bytes
 * from the storage unit's first: the bits outside the field are shifted
 * out.) */
static void fmt_bitfield(struct args_fmt *f, const struct field *fl, const uint8_t *avail,
			 uint32_t at, uint32_t rec_off)
{
	uint32_t bytes = (fl->bit_offset + fl->bit_size + 7) / 8;

	if (!fl->type || bytes > 8 || fl->bit_size > 64 ||
	    !bits_in(avail, 8 * at + fl->bit_offset, fl->bit_size, true)) {
		fmt_append(&f->fmt, &f->len, bytes <= 8 && !bits_in(avail, 8 * at + fl->bit_offset,
								    fl->bit_size, true)
			   ? "<optimized out>" : "<unavailable>", "", "");
		return;
	}
	if (!(f->bf = realloc(f->bf, (f->nbf + 1) * sizeof(*f->bf))))
		abort();
	f->bf[f->nbf++] = (struct bf_slot){ .src = rec_off + at, .slot = f->slot_at, .f = fl };
	fmt_arg(f, fl->type, f->slot_at);
	f->slot_at += 8;
}

/* Extracts each bitfield of f->bf from the bytes stored in rec. */
static void store_bitfields(struct cg *g, LLVMValueRef rec, const struct args_fmt *f)
{
	for (int i = 0; i < f->nbf; i++) {
		const struct field *fl = f->bf[i].f;
		unsigned bytes = (fl->bit_offset + fl->bit_size + 7) / 8, sh = 64 - fl->bit_size;
		LLVMValueRef x = cg_const(g, 0);

		for (unsigned b = 0; b < bytes; b++) {  /* byte loads: any alignment, any width */
			LLVMValueRef y = LLVMBuildLoad2(g->b, LLVMInt8TypeInContext(g->ctx),
							cg_gep(g, rec, f->bf[i].src + b), "");
			y = LLVMBuildZExt(g->b, y, g->i64, "");
			x = LLVMBuildOr(g->b, x, LLVMBuildShl(g->b, y, cg_const(g, 8 * b), ""), "");
		}
		x = LLVMBuildShl(g->b, x, cg_const(g, sh - fl->bit_offset), "");
		x = type_is_int(fl->type) && fl->type->is_signed
			? LLVMBuildAShr(g->b, x, cg_const(g, sh), "")
			: LLVMBuildLShr(g->b, x, cg_const(g, sh), "");
		LLVMBuildStore(g->b, x, cg_gep(g, rec, f->bf[i].slot));
	}
}

/*
 * A record or array of which DWARF gives only some pieces: each member
 * whose bytes are all there is printed as the formatter prints it inside
 * the record, the others as <optimized out> (gdb's view), so that no byte
 * DWARF does not give shows as 0.  A bitfield whose bytes are there is
 * extracted into a slot of its own (fmt_bitfield).
 */
static void fmt_partial(struct args_fmt *f, const struct type *t, const uint8_t *avail,
			uint32_t at, uint32_t rec_off)
{
	if (all_in(avail, at, t->size, true)) {
		fmt_arg(f, t, rec_off + at);
	} else if (all_in(avail, at, t->size, false) ||
		   (t->kind != T_RECORD && t->kind != T_ARRAY) ||
		   (t->kind == T_ARRAY && (!t->elem || !t->elem->size || t->elem->size == 1))) {
		fmt_append(&f->fmt, &f->len, "<optimized out>", "", "");
	} else if (t->kind == T_ARRAY) {
		fmt_append(&f->fmt, &f->len, "[", "", "");
		for (uint32_t i = 0; i < t->count; i++) {
			fmt_append(&f->fmt, &f->len, i ? "," : "", "", "");
			fmt_partial(f, t->elem, avail, at + i * t->elem->size, rec_off);
		}
		fmt_append(&f->fmt, &f->len, "]", "", "");
	} else {
		fmt_append(&f->fmt, &f->len, "{ ", "", "");
		for (int i = 0; i < t->nfields; i++) {
			const struct field *fl = &t->fields[i];
			fmt_append(&f->fmt, &f->len, i ? ", ." : ".", fl->name ? fl->name : "", " = ");
			if (fl->bit_size && fl->offset + (fl->bit_offset + fl->bit_size + 7) / 8 <= t->size)
				fmt_bitfield(f, fl, avail, at + fl->offset, rec_off);
			else if (fl->bit_size)
				fmt_append(&f->fmt, &f->len, "<unavailable>", "", "");
			else if (fl->type && fl->type->size && fl->offset + fl->type->size <= t->size)
				fmt_partial(f, fl->type, avail, at + fl->offset, rec_off);
			else
				fmt_append(&f->fmt, &f->len, "<unavailable>", "", "");
		}
		fmt_append(&f->fmt, &f->len, " }", "", "");
	}
}

/* One variable's part of print(args): its format, and its place in the record. */
static void fmt_var(struct args_fmt *f, const struct dw_var *v, uint32_t off)
{
	const struct type *t = v->type;
	bool scalar = type_is_int(t) || t->kind == T_PTR || t->kind == T_FLOAT;
	uint8_t *avail = calloc(t->size ? t->size : 1, 1);

	if (!avail)
		abort();
	if (bytes_avail(v, avail, t->size))
		fmt_arg(f, t, off);
	else if (scalar)
		fmt_append(&f->fmt, &f->len, "<optimized out>", "", "");
	else
		fmt_partial(f, t, avail, 0, off);
	free(avail);
}

/* LLVM's BPF target expands a memset of at most about 1 KB inline; past
 * that it would call memset().  A failed bpf_probe_read_kernel() zeroes
 * its destination, whatever the size: a read of address 0 always fails. */
static void zero_record(struct cg *g, LLVMValueRef rec, uint32_t size)
{
	if (size <= 512) {
		cg_memset0(g, rec, size);
		return;
	}
	LLVMValueRef args[3] = { rec, cg_const(g, size), LLVMConstNull(g->ptr) };
	cg_read(g, H_READ_KERNEL, args);
}

void cg_print_args(struct cg *g, int id, struct loc loc)
{
	struct pr_action *a = &g->prog->actions[id];
	const struct probe_site *s = &g->probe->sites[g->site < 0 ? 0 : g->site];
	const struct dw_var *v;
	int n = dw_vars(s->dw, &v), k = 0, shown = 0;
	const struct dw_var **rd = calloc(n ? n : 1, sizeof(*rd));
	uint32_t *at = calloc(n ? n : 1, sizeof(*at));
	uint32_t off = 8;
	struct args_fmt f = { 0 };
	const char *note;

	if (!rd || !at)
		abort();
	fmt_append(&f.fmt, &f.len, "{", "", "");
	for (int i = 0; i < n; i++) {
		if (shadowed(v, i, n))
			continue;
		type_complete_value(v[i].type);   /* no expression of sema's holds it */
		fmt_append(&f.fmt, &f.len, shown++ ? ", ." : " .", v[i].name, " = ");
		uint32_t size = printable(&v[i], &note) == PA_SKIP ? 0
			: cg_is_mem(v[i].type) || v[i].type->kind == T_RECORD || v[i].type->kind == T_ARRAY
			? (v[i].type->size + 7) & ~7u : 8;
		if (size && off + size > ARGS_REC_MAX)
			note = "<too large>";
		if (note) {
			fmt_append(&f.fmt, &f.len, note, "", "");
			continue;
		}
		f.slot_at = off + size;  /* bitfield slots, if any, follow the variable */
		fmt_var(&f, &v[i], off);
		at[k] = off;
		rd[k++] = &v[i];
		off = f.slot_at;
	}
	fmt_append(&f.fmt, &f.len, shown ? " }\n" : "}\n", "", "");
	free(a->fmt);
	a->fmt = f.fmt;
	a->args = f.pa ? f.pa : calloc(1, sizeof(*f.pa));
	a->nargs = f.npa;
	a->size = off;
	/* Sites of one layout print through one format; sites whose layout
	 * differs only in names, each through its own, chosen by the site:
	 * either way they share a program. */
	id = cg_action_reuse(g, id);

	LLVMValueRef rec = cg_alloca(g, off, "args");
	zero_record(g, rec, off);
	LLVMBuildStore(g->b, cg_site_late(g, (uint64_t)id), rec);
	for (int i = 0; i < k; i++)
		store_var(g, cg_gep(g, rec, at[i]), rd[i], loc);
	store_bitfields(g, rec, &f);
	free(f.bf);
	free(rd);
	free(at);
	cg_send(g, rec, off);
}
