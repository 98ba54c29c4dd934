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
#include <string.h>

#include "codegen_int.h"
#include "dwarf.h"
#include "lexer.h"

#define REG_IP 128

LLVMValueRef cg_read_user(struct cg *g, LLVMValueRef addr, unsigned size)
{
	LLVMValueRef buf = cg_alloca(g, 8, "uval");
	LLVMValueRef args[3] = { buf, cg_const(g, size > 8 ? 8 : size),
				 LLVMBuildIntToPtr(g->b, addr, g->ptr, "") };

	LLVMBuildStore(g->b, cg_const(g, 0), buf);
	cg_helper(g, H_READ_USER, args, 3);
	return LLVMBuildLoad2(g->b, g->i64, buf, "");
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
			st[sp++] = LLVMBuildSub(g->b, reg(g, 16, loc), cg_const(g, site), "");
			break;
		case DWL_ENTRY_VALUE:
			cg_error(g, loc, "entry values cannot be read yet");
			return cg_const(g, 0);
		case DWL_PLUS_CONST:
			st[sp - 1] = LLVMBuildAdd(g->b, st[sp - 1], cg_const(g, (uint64_t)in->val), "");
			break;
		case DWL_DEREF: st[sp - 1] = cg_read_user(g, st[sp - 1], in->size); break;
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

/* A variable that lives in registers or pieces: its value, up to 8 bytes. */
static LLVMValueRef var_value(struct cg *g, const struct dw_var *v, const struct node *n)
{
	const struct dw_loc *l = &v->loc;
	LLVMValueRef acc = cg_const(g, 0);
	unsigned shift = 0;

	if (l->kind == DWR_VALUE)
		return run_prog(g, l->prog, l->n, site_addr(g), n->loc);
	for (int i = 0; i < l->npieces; i++) {
		const struct dw_piece *p = &l->pieces[i];
		LLVMValueRef x;

		if (shift + 8 * p->size > 64) {
			cg_error(g, n->loc, "'%s' is split over more than 8 bytes", n->name);
			break;
		}
		if (p->kind == DWR_OPTIMIZED)
			x = cg_const(g, 0);
		else
			x = run_prog(g, p->prog, p->n, site_addr(g), n->loc);
		if (p->kind == DWR_MEMORY)
			x = cg_read_user(g, x, p->size);
		if (p->size < 8)
			x = LLVMBuildAnd(g->b, x, cg_const(g, ~0ull >> (64 - 8 * p->size)), "");
		acc = LLVMBuildOr(g->b, acc, LLVMBuildShl(g->b, x, cg_const(g, shift), ""), "");
		shift += 8 * p->size;
	}
	return acc;
}

bool cg_is_dwarf_var(struct cg *g, const struct node *n)
{
	return n->kind == N_FIELD && n->a->kind == N_IDENT && g->probe->kind == PK_UPROBE &&
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

/* The value of a place of scalar type. */
LLVMValueRef cg_place_value(struct cg *g, struct node *n)
{
	const struct type *t = n->type;

	if (cg_is_dwarf_var(g, n)) {
		const struct dw_var *v = site_var(g, n);

		if (!v)
			return cg_const(g, 0);
		if (v->loc.kind != DWR_MEMORY) {
			if (!type_is_int(t) && t->kind != T_PTR) {
				cg_error(g, n->loc, "'%s' is not in memory; read its fields through a pointer",
					 n->name);
				return cg_const(g, 0);
			}
			return cg_to_int_type(g, var_value(g, v, n), t);
		}
	}
	if (t->kind == T_RECORD || t->kind == T_ARRAY) {
		cg_error(g, n->loc, "a %s cannot be used as a value; use a field, an element or str()",
			 t->kind == T_RECORD ? "struct" : "array");
		return cg_const(g, 0);
	}
	return cg_to_int_type(g, cg_read_user(g, cg_place_addr(g, n), t->size ? t->size : 8), t);
}
