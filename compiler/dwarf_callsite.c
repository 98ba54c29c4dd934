// SPDX-License-Identifier: GPL-2.0-only
/*
 * dwarf_callsite.c - DW_OP_GNU_parameter_ref through the callers' call
 * sites: a table from return address to the value that call passed.
 *
 * Sound subset: a call value made of constants, addresses and the caller's
 * registers at the call.  A caller's register is recovered in the current
 * frame: rsp is the CFA; a callee-saved one by the CFI rule at the site
 * (unchanged, or saved at CFA+N); any other is the value the register had
 * at this call's entry (the call instruction changes only rsp and rip).
 * A site whose value needs more (memory at the call, its own entry
 * values) is left out: its hits read as absent, never as a guess.
 */
#define _GNU_SOURCE
#include "dwarf_callsite.h"

#include <dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef DW_AT_call_parameter
#define DW_AT_call_parameter 0x80
#endif

struct buf {
	struct dwl_insn *v;
	int n, cap;
	bool bad;
};

static void put(struct buf *b, enum dwl_op op, int reg, unsigned size, int64_t val)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 16;
		b->v = realloc(b->v, b->cap * sizeof(*b->v));
		if (!b->v)
			abort();
	}
	b->v[b->n++] = (struct dwl_insn){ .op = op, .reg = reg, .size = size, .val = val };
}

static void put_all(struct buf *b, const struct dwl_insn *v, int n)
{
	for (int i = 0; i < n; i++)
		put(b, v[i].op, v[i].reg, v[i].size, v[i].val);
}

static bool callee_saved(int reg)
{
	return reg == 3 || reg == 6 || (reg >= 12 && reg <= 15);
}

/* The CFI rule of a callee-saved register at the site: 1 unchanged, 0 saved
 * at CFA + *off, -1 neither (ask the entry value). */
static int cfi_rule(const struct dwl_ctx *c, int reg, int64_t *off)
{
	Dwarf_Frame *frame = NULL;
	Dwarf_Op mem[3], *ops;
	size_t n;
	int r = -1;

	if ((!c->cfi_eh || dwarf_cfi_addrframe(c->cfi_eh, c->addr, &frame) != 0) &&
	    (!c->cfi_dbg || dwarf_cfi_addrframe(c->cfi_dbg, c->addr, &frame) != 0))
		return -1;
	if (dwarf_frame_register(frame, reg, mem, &ops, &n) == 0) {
		if (n == 0 && ops == NULL)
			r = 1;
		else if (n == 1 && ops[0].atom == DW_OP_call_frame_cfa)
			*off = 0, r = 0;
		else if (n == 3 && ops[0].atom == DW_OP_call_frame_cfa &&
			 (ops[1].atom == DW_OP_consts || ops[1].atom == DW_OP_constu ||
			  ops[1].atom == DW_OP_lit0) && ops[2].atom == DW_OP_plus)
			*off = (int64_t)ops[1].number, r = 0;
		else if (n == 2 && ops[0].atom == DW_OP_call_frame_cfa &&
			 ops[1].atom == DW_OP_plus_uconst)
			*off = (int64_t)ops[1].number, r = 0;
	}
	free(frame);
	return r;
}

/* The caller's register `reg` at the call, in the frame at c->addr. */
static void caller_reg(struct buf *b, int reg, const struct dwl_ctx *c,
		       const struct dwl_insn *cfa, int ncfa, bool *entry)
{
	int64_t off = 0;
	int rule;

	if (reg == 7) {
		put_all(b, cfa, ncfa);
		return;
	}
	if (dw_reg_ptregs_offset(reg) < 0) {
		b->bad = true;
		return;
	}
	rule = callee_saved(reg) ? cfi_rule(c, reg, &off) : -1;
	if (rule == 1 || (c->func_entry && c->addr == c->func_entry)) {
		put(b, DWL_REG, reg, 0, 0);
	} else if (rule == 0) {
		put_all(b, cfa, ncfa);
		put(b, DWL_PLUS_CONST, 0, 0, off);
		put(b, DWL_DEREF, 0, 8, 0);
	} else {
		put_all(b, cfa, ncfa);
		put(b, DWL_ENTRY_VALUE, reg, 0, 0);
		*entry = true;
	}
}

/* A call value (a value, not a location) as a program of the callee's frame. */
static void call_value(struct buf *b, Dwarf_Attribute *a, const struct dwl_ctx *c,
		       const struct dwl_insn *cfa, int ncfa, bool *entry)
{
	Dwarf_Op *ops;
	size_t n;

	if (dwarf_getlocation(a, &ops, &n) != 0 || n == 0) {
		b->bad = true;
		return;
	}
	for (size_t i = 0; i < n && !b->bad; i++) {
		unsigned at = ops[i].atom;
		if (at >= DW_OP_lit0 && at <= DW_OP_lit31)
			put(b, DWL_CONST, 0, 0, at - DW_OP_lit0);
		else if (at >= DW_OP_reg0 && at <= DW_OP_reg31 && n == 1)
			caller_reg(b, (int)(at - DW_OP_reg0), c, cfa, ncfa, entry);
		else if (at >= DW_OP_breg0 && at <= DW_OP_breg31) {
			caller_reg(b, (int)(at - DW_OP_breg0), c, cfa, ncfa, entry);
			if (ops[i].number)
				put(b, DWL_PLUS_CONST, 0, 0, (int64_t)ops[i].number);
		} else if (at == DW_OP_addr) {
			put(b, DWL_CONST, 0, 0, (int64_t)ops[i].number);
			if (c->pie) {
				put(b, DWL_BIAS, 0, 0, 0);
				put(b, DWL_ADD, 0, 0, 0);
			}
		} else if (at == DW_OP_const1u || at == DW_OP_const2u || at == DW_OP_const4u ||
			   at == DW_OP_const8u || at == DW_OP_constu || at == DW_OP_const1s ||
			   at == DW_OP_const2s || at == DW_OP_const4s || at == DW_OP_const8s ||
			   at == DW_OP_consts)
			put(b, DWL_CONST, 0, 0, (int64_t)ops[i].number);
		else if (at == DW_OP_plus_uconst)
			put(b, DWL_PLUS_CONST, 0, 0, (int64_t)ops[i].number);
		else if (at == DW_OP_plus && b->n)
			put(b, DWL_ADD, 0, 0, 0);
		else if (at == DW_OP_minus && b->n)
			put(b, DWL_SUB, 0, 0, 0);
		else if (at != DW_OP_stack_value)
			b->bad = true;   /* memory at the call, entry values, ...: not now */
	}
}

static Dwarf_Off ref_off(Dwarf_Die *d, unsigned name)
{
	Dwarf_Attribute a;
	Dwarf_Die t;

	if (!dwarf_attr(d, name, &a) || !dwarf_formref_die(&a, &t))
		return (Dwarf_Off)-1;
	return dwarf_dieoffset(&t);
}

struct search {
	Dwarf_Off param, callee;
	const struct dwl_ctx *c;
	const struct dwl_insn *cfa;
	int ncfa;
	struct buf out;
	int nsites;
	bool entry;
};

/* One call site of the function: its case if it gives the parameter. */
static void call_site(struct search *s, Dwarf_Die *site)
{
	Dwarf_Attribute a;
	Dwarf_Addr ret;
	Dwarf_Die ch;
	bool gnu = dwarf_tag(site) == DW_TAG_GNU_call_site;

	/* A tail call returns to the caller's caller: its address is not this site's. */
	if (dwarf_hasattr(site, DW_AT_call_tail_call) || dwarf_hasattr(site, DW_AT_GNU_tail_call))
		return;
	if (ref_off(site, gnu ? DW_AT_abstract_origin : DW_AT_call_origin) != s->callee)
		return;
	if (!dwarf_attr(site, gnu ? DW_AT_low_pc : DW_AT_call_return_pc, &a) ||
	    dwarf_formaddr(&a, &ret) != 0 || dwarf_child(site, &ch) != 0)
		return;
	do {
		int tag = dwarf_tag(&ch);
		if (tag != DW_TAG_call_site_parameter && tag != DW_TAG_GNU_call_site_parameter)
			continue;
		if (ref_off(&ch, DW_AT_call_parameter) != s->param &&
		    ref_off(&ch, DW_AT_abstract_origin) != s->param)
			continue;
		if (!dwarf_attr(&ch, DW_AT_call_value, &a) &&
		    !dwarf_attr(&ch, DW_AT_GNU_call_site_value, &a))
			return;
		struct buf v = { 0 };
		bool entry = false;
		call_value(&v, &a, s->c, s->cfa, s->ncfa, &entry);
		if (!v.bad && v.n) {
			put(&s->out, DWL_CS_CASE, 0, (unsigned)v.n, (int64_t)ret);
			put_all(&s->out, v.v, v.n);
			s->nsites++;
			s->entry |= entry;
		}
		free(v.v);
		return;
	} while (dwarf_siblingof(&ch, &ch) == 0);
}

static void walk(struct search *s, Dwarf_Die *d, int depth)
{
	Dwarf_Die ch;

	if (depth > 64 || dwarf_child(d, &ch) != 0)
		return;
	do {
		int tag = dwarf_tag(&ch);
		if (tag == DW_TAG_call_site || tag == DW_TAG_GNU_call_site)
			call_site(s, &ch);
		else
			walk(s, &ch, depth + 1);
	} while (dwarf_siblingof(&ch, &ch) == 0);
}

int dwcs_table(Dwarf_Attribute *attr, const Dwarf_Op *op, const struct dwl_ctx *c,
	       const struct dwl_insn *cfa, int ncfa, struct dwl_insn **out, int *n,
	       bool *entry, char **why)
{
	struct search s = { .c = c, .cfa = cfa, .ncfa = ncfa };
	Dwarf_Die cu, param;

	(void)attr;
	*why = NULL;
	if (!c->cu_die || !c->sp_die || !dwarf_diecu(c->cu_die, &cu, NULL, NULL)) {
		*why = strdup("a value only the caller's call site gives, and no unit to find it in");
		return -1;
	}
	/* The operand is the parameter's offset in the unit. */
	s.param = dwarf_dieoffset(&cu) - dwarf_cuoffset(&cu) + op->number;
	if (!dwarf_offdie(dwarf_cu_getdwarf(cu.cu), s.param, &param)) {
		*why = strdup("unreadable DW_OP_GNU_parameter_ref");
		return -1;
	}
	s.callee = dwarf_dieoffset(c->sp_die);
	/* gcc's clones are local to their unit: its call sites are all in it. */
	put(&s.out, DWL_CALLSITES, 0, 0, 0);
	walk(&s, &cu, 0);
	if (!s.nsites) {
		free(s.out.v);
		if (asprintf(why, "'%s' is known only from its callers' call sites, and none gives "
			     "its value", dwarf_diename(&param) ? dwarf_diename(&param) : "?") < 0)
			*why = NULL;
		return -1;
	}
	s.out.v[0].val = s.nsites;
	*out = s.out.v;
	*n = s.out.n;
	*entry = s.entry;
	return 0;
}
