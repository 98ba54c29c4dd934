// SPDX-License-Identifier: GPL-2.0-only
/*
 * dwarf_loc.c - DWARF location expressions → dw_loc stack programs.
 *
 * Everything that depends only on the site address is settled here, once:
 * the location list entry, the frame base, the CFA (from .eh_frame or
 * .debug_frame through libdw's CFI).  What depends on the running process
 * (registers, memory, load bias, entry values) is left as a short program.
 * Register numbers stay DWARF's (x86-64: 0 ax, 1 dx, 2 cx, 3 bx, 4 si,
 * 5 di, 6 bp, 7 sp, 8-15 r8-r15, 16 ip).
 */
#define _GNU_SOURCE
#include "dwarf_loc.h"
#include "dwarf_callsite.h"
#include "dwarf_rawloc.h"

#include <dwarf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A growing program; err set on the first form that cannot be expressed. */
struct prog {
	struct dwl_insn *v;
	int n, cap;
	bool entry;
	char *err;
	bool optimized;         /* err says "optimised out", not "unsupported" */
};

static void emit(struct prog *p, enum dwl_op op, int reg, unsigned size, int64_t val)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 8;
		p->v = realloc(p->v, p->cap * sizeof(*p->v));
		if (!p->v)
			abort();
	}
	p->v[p->n++] = (struct dwl_insn){ .op = op, .reg = reg, .size = size, .val = val };
}

static void fail(struct prog *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fail(struct prog *p, const char *fmt, ...)
{
	va_list ap;

	if (p->err)
		return;
	va_start(ap, fmt);
	if (vasprintf(&p->err, fmt, ap) < 0)
		p->err = NULL;
	va_end(ap);
}

static int binop(unsigned atom)
{
	switch (atom) {
	case DW_OP_plus: return DWL_ADD;
	case DW_OP_minus: return DWL_SUB;
	case DW_OP_mul: return DWL_MUL;
	case DW_OP_div: return DWL_DIV;
	case DW_OP_mod: return DWL_MOD;
	case DW_OP_and: return DWL_AND;
	case DW_OP_or: return DWL_OR;
	case DW_OP_xor: return DWL_XOR;
	case DW_OP_shl: return DWL_SHL;
	case DW_OP_shr: return DWL_SHR;
	case DW_OP_shra: return DWL_SHRA;
	case DW_OP_eq: return DWL_EQ;
	case DW_OP_ne: return DWL_NE;
	case DW_OP_lt: return DWL_LT;
	case DW_OP_le: return DWL_LE;
	case DW_OP_gt: return DWL_GT;
	case DW_OP_ge: return DWL_GE;
	case DW_OP_neg: return DWL_NEG;
	case DW_OP_not: return DWL_NOT;
	case DW_OP_abs: return DWL_ABS;
	case DW_OP_dup: return DWL_DUP;
	case DW_OP_drop: return DWL_DROP;
	case DW_OP_swap: return DWL_SWAP;
	case DW_OP_over: return DWL_OVER;
	}
	return -1;
}

static void translate(struct prog *p, Dwarf_Attribute *attr, const Dwarf_Op *ops, size_t n,
		      const struct dwl_ctx *c, bool *is_value, int depth);

/* CFA at the site as a program: the CFI row is fixed by the address. */
static void emit_cfa(struct prog *p, const struct dwl_ctx *c, int depth)
{
	Dwarf_Frame *frame = NULL;
	Dwarf_Op *ops;
	size_t n;
	bool v = false;

	if ((!c->cfi_eh || dwarf_cfi_addrframe(c->cfi_eh, c->addr, &frame) != 0) &&
	    (!c->cfi_dbg || dwarf_cfi_addrframe(c->cfi_dbg, c->addr, &frame) != 0)) {
		fail(p, "no call frame information at 0x%llx", (unsigned long long)c->addr);
		return;
	}
	if (dwarf_frame_cfa(frame, &ops, &n) != 0 || n == 0)
		fail(p, "no CFA rule at 0x%llx", (unsigned long long)c->addr);
	else
		translate(p, NULL, ops, n, c, &v, depth + 1);
	free(frame);
}

/* The frame base value of the real function (DW_AT_frame_base). */
static void emit_frame_base(struct prog *p, const struct dwl_ctx *c, int depth)
{
	Dwarf_Attribute fb;
	Dwarf_Op *ops;
	size_t n;
	bool v = false;

	if (!c->sp_die || !dwarf_attr_integrate(c->sp_die, DW_AT_frame_base, &fb) ||
	    dwarf_getlocation_addr(&fb, c->addr, &ops, &n, 1) <= 0 || n == 0) {
		fail(p, "no frame base at 0x%llx", (unsigned long long)c->addr);
		return;
	}
	/* A frame base "DW_OP_reg6" means the value of rbp, not memory at it:
	 * translate() pushes register values, which is that meaning. */
	translate(p, &fb, ops, n, c, &v, depth + 1);
}

static void emit_entry_value(struct prog *p, Dwarf_Attribute *attr, const Dwarf_Op *op,
			     const struct dwl_ctx *c)
{
	Dwarf_Attribute sub;
	Dwarf_Op *ops;
	size_t n;

	if (!attr || dwarf_getlocation_attr(attr, op, &sub) != 0 ||
	    dwarf_getlocation(&sub, &ops, &n) != 0) {
		fail(p, "unreadable DW_OP_entry_value");
		return;
	}
	int reg;
	if (n == 1 && ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31)
		reg = ops[0].atom - DW_OP_reg0;
	else if (n == 1 && ops[0].atom == DW_OP_regx)
		reg = (int)ops[0].number;
	else {
		fail(p, "value known only from the caller (DW_OP_entry_value of an expression)");
		p->optimized = true;
		return;
	}
	/* At the function's first instruction the entry value is the register. */
	if (c->func_entry && c->addr == c->func_entry) {
		emit(p, DWL_REG, reg, 0, 0);
		return;
	}
	/* The frame's CFA tells this call's entry from a deeper one's of the
	 * same function (recursion): the companion keys the registers by it. */
	emit_cfa(p, c, 0);
	emit(p, DWL_ENTRY_VALUE, reg, 0, 0);
	p->entry = true;
}

/* DW_OP_GNU_parameter_ref: the return address at CFA-8 picks the call
 * site, whose value dwarf_callsite.c tables. */
static void emit_param_ref(struct prog *p, Dwarf_Attribute *attr, const Dwarf_Op *op,
			   const struct dwl_ctx *c)
{
	struct prog cfa = { 0 };
	struct dwl_insn *t = NULL;
	int nt = 0;
	bool entry = false;
	char *why = NULL;

	emit_cfa(&cfa, c, 0);
	if (cfa.err) {
		fail(p, "%s", cfa.err);
	} else if (dwcs_table(attr, op, c, cfa.v, cfa.n, &t, &nt, &entry, &why) != 0) {
		fail(p, "%s", why ? why : "no call site gives the value");
		p->optimized = true;
	} else {
		for (int i = 0; i < cfa.n; i++)
			emit(p, cfa.v[i].op, cfa.v[i].reg, cfa.v[i].size, cfa.v[i].val);
		emit(p, DWL_PLUS_CONST, 0, 0, -8);
		emit(p, DWL_DEREF, 0, 8, 0);
		if (c->pie) {
			emit(p, DWL_BIAS, 0, 0, 0);
			emit(p, DWL_SUB, 0, 0, 0);
		}
		for (int i = 0; i < nt; i++)
			emit(p, t[i].op, t[i].reg, t[i].size, t[i].val);
		p->entry |= entry;
	}
	free(why);
	free(t);
	free(cfa.v);
	free(cfa.err);
}

/* DW_OP_implicit_value: the value's bytes are the block itself.  Its data
 * come from libdw's accessor: the operation's number2 points at the
 * block's length, not at its bytes. */
static void emit_implicit(struct prog *p, Dwarf_Attribute *attr, const Dwarf_Op *op)
{
	Dwarf_Block b;
	uint64_t v = 0;

	if (!attr || dwarf_getlocation_implicit_value(attr, op, &b) != 0) {
		fail(p, "unreadable DW_OP_implicit_value");
		return;
	}
	if (b.length > 8) {
		fail(p, "implicit value of %llu bytes", (unsigned long long)b.length);
		return;
	}
	for (size_t i = 0; i < b.length; i++)
		v |= (uint64_t)b.data[i] << (8 * i);
	emit(p, DWL_CONST, 0, 0, (int64_t)v);
}

/* DW_OP_convert to a base type: truncate (unsigned) or sign-extend to its
 * size; the stack stays 64 bits wide.  Offset 0 means "generic", no-op. */
static void emit_convert(struct prog *p, Dwarf_Attribute *attr, const Dwarf_Op *op)
{
	Dwarf_Die t;
	Dwarf_Attribute a;
	Dwarf_Word enc = 0;

	if (op->number == 0)
		return;
	if (!attr || dwarf_getlocation_die(attr, op, &t) != 0) {
		fail(p, "unreadable DW_OP_convert");
		return;
	}
	int size = dwarf_bytesize(&t);
	if (dwarf_attr(&t, DW_AT_encoding, &a))
		dwarf_formudata(&a, &enc);
	if (size <= 0 || size >= 8)
		return;
	if (enc == DW_ATE_signed || enc == DW_ATE_signed_char) {
		emit(p, DWL_CONST, 0, 0, 64 - 8 * size);
		emit(p, DWL_SHL, 0, 0, 0);
		emit(p, DWL_CONST, 0, 0, 64 - 8 * size);
		emit(p, DWL_SHRA, 0, 0, 0);
	} else {
		emit(p, DWL_CONST, 0, 0, (int64_t)((1ull << (8 * size)) - 1));
		emit(p, DWL_AND, 0, 0, 0);
	}
}

static bool emit_reg(struct prog *p, unsigned atom, const Dwarf_Op *op, bool *is_value)
{
	int reg;

	if (atom >= DW_OP_reg0 && atom <= DW_OP_reg31)
		reg = atom - DW_OP_reg0;
	else if (atom == DW_OP_regx)
		reg = (int)op->number;
	else if (atom >= DW_OP_breg0 && atom <= DW_OP_breg31) {
		emit(p, DWL_REG, atom - DW_OP_breg0, 0, 0);
		if (op->number)
			emit(p, DWL_PLUS_CONST, 0, 0, (int64_t)op->number);
		return true;
	} else if (atom == DW_OP_bregx) {
		emit(p, DWL_REG, (int)op->number, 0, 0);
		if (op->number2)
			emit(p, DWL_PLUS_CONST, 0, 0, (int64_t)op->number2);
		return true;
	} else
		return false;
	if (dw_reg_ptregs_offset(reg) >= 0)
		;
	else if (reg >= 17 && reg <= 32)  /* x86-64 DWARF 17-32: xmm0-15 */
		fail(p, "the value is only in register xmm%d, which a BPF program cannot read "
		     "(pt_regs holds the general registers)", reg - 17);
	else
		fail(p, "the value is in register %d, which a uprobe cannot read", reg);
	emit(p, DWL_REG, reg, 0, 0);
	*is_value = true;
	return true;
}

/* A link-time address: PIE and shared objects move by the load bias; the
 * kernel's is placed when compiling (KASLR, a module's sections). */
static void emit_addr(struct prog *p, uint64_t addr, const struct dwl_ctx *c)
{
	uint64_t at;

	if (c->place) {
		if (c->place(c->place_arg, addr, &at))
			emit(p, DWL_CONST, 0, 0, (int64_t)at);
		else
			fail(p, "where the running kernel has its address 0x%llx is not known (a "
			     "module's .init section is freed after its init; kptr_restrict may hide "
			     "/proc/kallsyms' addresses)", (unsigned long long)addr);
		return;
	}
	emit(p, DWL_CONST, 0, 0, (int64_t)addr);
	if (c->pie) {
		emit(p, DWL_BIAS, 0, 0, 0);
		emit(p, DWL_ADD, 0, 0, 0);
	}
}

static void translate_one(struct prog *p, Dwarf_Attribute *attr, const Dwarf_Op *op,
			  const struct dwl_ctx *c, bool *is_value, int depth)
{
	unsigned atom = op->atom;
	int b;

	if (emit_reg(p, atom, op, is_value))
		return;
	if (atom >= DW_OP_lit0 && atom <= DW_OP_lit31) {
		emit(p, DWL_CONST, 0, 0, atom - DW_OP_lit0);
		return;
	}
	if ((b = binop(atom)) >= 0) {
		emit(p, (enum dwl_op)b, 0, 0, 0);
		return;
	}
	switch (atom) {
	case DW_OP_addr:
		emit_addr(p, op->number, c);
		break;
	case DW_OP_addrx: case DW_OP_GNU_addr_index:
	case DW_OP_constx: case DW_OP_GNU_const_index: {
		/* DWARF 5 (clang): an index into .debug_addr. */
		Dwarf_Attribute res;
		Dwarf_Addr a;
		if (!attr || dwarf_getlocation_attr(attr, op, &res) || dwarf_formaddr(&res, &a)) {
			fail(p, "unreadable .debug_addr entry");
			break;
		}
		if (atom == DW_OP_addrx || atom == DW_OP_GNU_addr_index)
			emit_addr(p, a, c);
		else
			emit(p, DWL_CONST, 0, 0, (int64_t)a);
		break;
	}
	case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u: case DW_OP_const8u:
	case DW_OP_constu: case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s:
	case DW_OP_const8s: case DW_OP_consts:
		emit(p, DWL_CONST, 0, 0, (int64_t)op->number);
		break;
	case DW_OP_plus_uconst:
		emit(p, DWL_PLUS_CONST, 0, 0, (int64_t)op->number);
		break;
	case DW_OP_deref:
		emit(p, DWL_DEREF, 0, 8, 0);
		break;
	case DW_OP_deref_size:
		if (op->number != 1 && op->number != 2 && op->number != 4 && op->number != 8)
			fail(p, "DW_OP_deref_size %llu", (unsigned long long)op->number);
		emit(p, DWL_DEREF, 0, (unsigned)op->number, 0);
		break;
	case DW_OP_pick:
		if (op->number > 1)
			fail(p, "DW_OP_pick %llu", (unsigned long long)op->number);
		emit(p, op->number ? DWL_OVER : DWL_DUP, 0, 0, 0);
		break;
	case DW_OP_fbreg:
		if (depth > 2) {
			fail(p, "recursive frame base");
			break;
		}
		emit_frame_base(p, c, depth);
		emit(p, DWL_PLUS_CONST, 0, 0, (int64_t)op->number);
		break;
	case DW_OP_call_frame_cfa:
		emit_cfa(p, c, depth);
		break;
	case DW_OP_stack_value:
		*is_value = true;
		break;
	case DW_OP_implicit_value:
		emit_implicit(p, attr, op);
		*is_value = true;
		break;
	case DW_OP_entry_value: case DW_OP_GNU_entry_value:
		emit_entry_value(p, attr, op, c);
		break;
	case DW_OP_GNU_parameter_ref:
		emit_param_ref(p, attr, op, c);
		break;
	case DW_OP_nop: case DW_OP_reinterpret: case DW_OP_GNU_reinterpret:
		break;
	case DW_OP_convert: case DW_OP_GNU_convert:
		emit_convert(p, attr, op);
		break;
	case DW_OP_form_tls_address: case DW_OP_GNU_push_tls_address:
		fail(p, "thread-local variables are not supported");
		break;
	case DW_OP_implicit_pointer: case DW_OP_GNU_implicit_pointer:
		fail(p, "a pointer to a value that has no address (DW_OP_implicit_pointer)");
		p->optimized = true;
		break;
	default:
		fail(p, "DWARF operation 0x%x is not supported", atom);
	}
}

static void translate(struct prog *p, Dwarf_Attribute *attr, const Dwarf_Op *ops, size_t n,
		      const struct dwl_ctx *c, bool *is_value, int depth)
{
	for (size_t i = 0; i < n && !p->err; i++) {
		if (*is_value && ops[i].atom != DW_OP_stack_value) {
			fail(p, "operations after a register or stack value");
			break;
		}
		/* The one branch gcc emits: over the one-byte DW_OP_swap after
		 * it.  Other branches stay unsupported. */
		if (ops[i].atom == DW_OP_bra && ops[i].number == 1 && i + 1 < n &&
		    ops[i + 1].atom == DW_OP_swap && ops[i + 1].offset == ops[i].offset + 3) {
			emit(p, DWL_BRA_SWAP, 0, 0, 0);
			i++;
			continue;
		}
		translate_one(p, attr, &ops[i], c, is_value, depth);
	}
}

static void prog_take(struct prog *p, struct dw_loc *out)
{
	if (p->entry)
		out->uses_entry_value = true;
	if (p->err) {
		out->kind = p->optimized ? DWR_OPTIMIZED : DWR_UNSUPPORTED;
		free(out->why);
		out->why = p->err;
		p->err = NULL;
	}
}

static void set_why(struct dw_loc *out, enum dwr_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_why(struct dw_loc *out, enum dwr_kind kind, const char *fmt, ...)
{
	va_list ap;

	out->kind = kind;
	free(out->why);
	va_start(ap, fmt);
	if (vasprintf(&out->why, fmt, ap) < 0)
		out->why = NULL;
	va_end(ap);
}

static struct dw_piece *add_piece(struct dw_loc *out, unsigned size, enum dwr_kind kind,
				  struct prog *p)
{
	out->pieces = realloc(out->pieces, (out->npieces + 1) * sizeof(*out->pieces));
	if (!out->pieces)
		abort();
	struct dw_piece *pc = &out->pieces[out->npieces++];
	pc->size = size;
	pc->kind = kind;
	pc->bits_given = false;
	pc->given = 0;
	pc->prog = p->v;
	pc->n = p->n;
	p->v = NULL;
	p->n = p->cap = 0;
	return pc;
}

/* Bit pieces (DW_OP_bit_piece, gcc's struct of bitfields in registers)
 * from a byte boundary to the next: one value piece of those bytes, the
 * program of each shifted into place and or-ed; optimised out as a whole
 * if one of them is (its bits would otherwise read as 0). */
struct bit_group {
	struct prog p;
	unsigned bits;
	bool empty;
	uint64_t given;   /* the bits a piece gives, while bits <= 64 */
};

/* Adds a bit piece of `bits` bits at bit `shift` of what ops[0..n) give. */
static void bit_piece(struct bit_group *bg, Dwarf_Attribute *attr, const Dwarf_Op *ops,
		      size_t n, unsigned bits, unsigned shift, const struct dwl_ctx *c)
{
	struct prog *p = &bg->p;
	bool v = false;
	size_t before = (size_t)p->n;

	if (!n) {
		bg->empty = true;
	} else {
		translate(p, attr, ops, n, c, &v, 0);
		if (!v)
			fail(p, "a bit piece in memory is not supported");
		if (shift) {
			emit(p, DWL_CONST, 0, 0, shift);
			emit(p, DWL_SHR, 0, 0, 0);
		}
		if (bits < 64) {
			emit(p, DWL_CONST, 0, 0, (int64_t)(~0ull >> (64 - bits)));
			emit(p, DWL_AND, 0, 0, 0);
		}
		if (bg->bits) {
			emit(p, DWL_CONST, 0, 0, bg->bits);
			emit(p, DWL_SHL, 0, 0, 0);
		}
		if (before)
			emit(p, DWL_OR, 0, 0, 0);
		if (bg->bits + bits <= 64)
			bg->given |= (bits < 64 ? ~0ull >> (64 - bits) : ~0ull) << bg->bits;
	}
	bg->bits += bits;
}

/* Splits at DW_OP_piece (and runs of DW_OP_bit_piece); each piece is a
 * program of its own. */
static void translate_pieces(Dwarf_Attribute *attr, const Dwarf_Op *ops, size_t n,
			     const struct dwl_ctx *c, struct dw_loc *out)
{
	size_t start = 0;
	struct bit_group bg = { 0 };

	out->kind = DWR_PIECES;
	for (size_t i = 0; i < n; i++) {
		if (ops[i].atom == DW_OP_bit_piece) {
			bit_piece(&bg, attr, ops + start, i - start, (unsigned)ops[i].number,
				  (unsigned)ops[i].number2, c);
			start = i + 1;
			if (bg.bits > 64 && !bg.empty)
				fail(&bg.p, "bit pieces of more than 64 bits");
			if (bg.bits % 8 == 0 || bg.p.err) {
				unsigned bytes = bg.bits / 8;
				bool empty = bg.empty, some = bg.p.n > 0;
				struct dw_piece *pc;
				uint64_t given = bg.bits <= 64 ? bg.given : 0;
				bg.bits = 0;
				bg.empty = false;
				bg.given = 0;
				pc = add_piece(out, bytes, empty ? DWR_OPTIMIZED : DWR_VALUE, &bg.p);
				pc->bits_given = empty && some;
				pc->given = pc->bits_given ? given : 0;
				prog_take(&bg.p, out);
				if (out->kind != DWR_PIECES)
					return;
			}
			continue;
		}
		if (ops[i].atom != DW_OP_piece)
			continue;
		if (bg.bits) {
			set_why(out, DWR_UNSUPPORTED, "a byte piece after bit pieces that end inside a byte");
			free(bg.p.v);
			return;
		}
		struct prog p = { 0 };
		bool v = false;
		/* A pointer member with no value of its own (gcc -O2: a struct
		 * holding &local): that piece has no bytes to read, the
		 * others do. */
		bool implicit = i == start + 1 && (ops[start].atom == DW_OP_implicit_pointer ||
						   ops[start].atom == DW_OP_GNU_implicit_pointer);
		if (!implicit)
			translate(&p, attr, ops + start, i - start, c, &v, 0);
		add_piece(out, (unsigned)ops[i].number,
			  i == start || implicit ? DWR_OPTIMIZED : v ? DWR_VALUE : DWR_MEMORY, &p);
		prog_take(&p, out);
		if (out->kind != DWR_PIECES)
			return;
		start = i + 1;
	}
	if (bg.bits) {
		set_why(out, DWR_UNSUPPORTED, "bit pieces that end inside a byte");
		free(bg.p.v);
	}
}

static bool has_piece(const Dwarf_Op *ops, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ops[i].atom == DW_OP_piece || ops[i].atom == DW_OP_bit_piece)
			return true;
	return false;
}

static void dwl_var_loc_depth(Dwarf_Die *var, const struct dwl_ctx *c, struct dw_loc *out,
			      int depth);

/* A pointer the compiler removed, to an object it keeps in registers or
 * constants (gcc -O2 for &local passed to an inlined function): the value
 * is the object it names, read through its own location at the site. */
static void implicit_ptr(Dwarf_Attribute *attr, const Dwarf_Op *op, const struct dwl_ctx *c,
			 struct dw_loc *out, int depth)
{
	Dwarf_Die die, t;
	Dwarf_Attribute ta;
	Dwarf_Word size = 0;
	const char *name;

	if (depth > 4 || !attr || dwarf_getlocation_die(attr, op, &die) != 0) {
		set_why(out, DWR_UNSUPPORTED, "unreadable DW_OP_implicit_pointer");
		return;
	}
	name = dwarf_diename(&die);
	out->target = calloc(1, sizeof(*out->target));
	if (!out->target)
		abort();
	dwl_var_loc_depth(&die, c, out->target, depth + 1);
	if (dwarf_attr_integrate(&die, DW_AT_type, &ta) && dwarf_formref_die(&ta, &t) &&
	    dwarf_aggregate_size(&t, &size) != 0)
		size = 0;
	out->kind = DWR_IMPLICIT_PTR;
	out->target_off = (int64_t)op->number2;
	out->target_size = (uint32_t)size;
	out->target_name = strdup(name ? name : "?");
	out->uses_entry_value = out->target->uses_entry_value;
}

static void translate_expr(Dwarf_Attribute *attr, const Dwarf_Op *ops, size_t n,
			   const struct dwl_ctx *c, struct dw_loc *out, int depth)
{
	struct prog p = { 0 };
	bool v = false;

	if (n == 1 && (ops[0].atom == DW_OP_implicit_pointer ||
		       ops[0].atom == DW_OP_GNU_implicit_pointer)) {
		implicit_ptr(attr, ops, c, out, depth);
		return;
	}
	if (has_piece(ops, n)) {
		translate_pieces(attr, ops, n, c, out);
		return;
	}
	translate(&p, attr, ops, n, c, &v, 0);
	out->kind = v ? DWR_VALUE : DWR_MEMORY;
	out->prog = p.v;
	out->n = p.n;
	prog_take(&p, out);
}

static void const_value(Dwarf_Attribute *a, struct dw_loc *out)
{
	Dwarf_Sword s;
	Dwarf_Word u;
	Dwarf_Block blk;
	struct prog p = { 0 };
	uint64_t v = 0;
	unsigned form = dwarf_whatform(a);

	/* DW_FORM_dataN holds the value's bits: zero-extended, as gdb reads
	 * them (libdw's formsdata sign-extends them: an int 255 in data1
	 * would be -1); type_const() gives them the variable's width and sign. */
	if ((form == DW_FORM_data1 || form == DW_FORM_data2 || form == DW_FORM_data4 ||
	     form == DW_FORM_data8 || form == DW_FORM_udata) && dwarf_formudata(a, &u) == 0) {
		v = u;
	} else if (dwarf_formsdata(a, &s) == 0) {
		v = (uint64_t)s;
	} else if (dwarf_formblock(a, &blk) == 0 && blk.length <= 8) {
		for (size_t i = 0; i < blk.length; i++)
			v |= (uint64_t)blk.data[i] << (8 * i);
	} else {
		set_why(out, DWR_UNSUPPORTED, "a constant of this form is not supported");
		return;
	}
	emit(&p, DWL_CONST, 0, 0, (int64_t)v);
	out->kind = DWR_VALUE;
	out->prog = p.v;
	out->n = p.n;
}

static const char *line_of(const struct dwl_ctx *c, uint64_t addr, int *line)
{
	Dwarf_Line *l = c->cu_die ? dwarf_getsrc_die(c->cu_die, addr) : NULL;
	const char *f = l ? dwarf_linesrc(l, NULL, NULL) : NULL;

	*line = 0;
	if (l)
		dwarf_lineno(l, line);
	if (f && strrchr(f, '/'))
		f = strrchr(f, '/') + 1;
	return f;
}

/* Names the location list range nearest to the site, to say where to probe. */
static void why_optimized(Dwarf_Attribute *a, const char *name, const struct dwl_ctx *c,
			  struct dw_loc *out)
{
	Dwarf_Addr base, start, end, bs = 0, be = 0;
	Dwarf_Op *ops;
	size_t n;
	ptrdiff_t off = 0;
	uint64_t best = UINT64_MAX;
	bool uninit;

	while ((off = dwrl_getlocations(a, off, &base, &start, &end, &ops, &n, &uninit)) > 0) {
		if (n == 0)
			continue;
		uint64_t d = end <= c->addr ? c->addr - end + 1 : start - c->addr;
		if (d < best) {
			best = d;
			bs = start;
			be = end;
		}
	}
	if (best == UINT64_MAX) {
		set_why(out, DWR_OPTIMIZED, "'%s' is optimised out at 0x%llx", name,
			(unsigned long long)c->addr);
		return;
	}
	int line;
	const char *f = line_of(c, bs, &line);
	set_why(out, DWR_OPTIMIZED,
		"'%s' is optimised out at 0x%llx; it is available at 0x%llx-0x%llx (%s:%d)",
		name, (unsigned long long)c->addr, (unsigned long long)bs,
		(unsigned long long)be, f ? f : "?", line);
}

/* The expression at c->addr, chosen as gdb chooses it: the first entry
 * whose range holds the address, or an empty range at exactly the
 * function's entry (GCC's location views put a value there that holds at
 * the views of the entry address, such as a local computed from a
 * parameter before the first instruction); dwarf_getlocation_addr skips
 * those.  1 found, 0 none, -1 unreadable; *uninit: DWARF marks the value
 * as maybe not yet initialised there (DW_OP_GNU_uninit). */
static int loc_at(Dwarf_Attribute *a, const struct dwl_ctx *c, Dwarf_Op **ops, size_t *n,
		  bool *uninit)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	while ((off = dwrl_getlocations(a, off, &base, &start, &end, ops, n, uninit)) > 0) {
		if (c->addr >= start && c->addr < end)
			return 1;
		if (start == end && start == c->addr && c->func_entry == c->addr)
			return 1;
	}
	return off < 0 ? -1 : 0;
}

static void dwl_var_loc_raw(Dwarf_Die *var, const struct dwl_ctx *c, struct dw_loc *out,
			    int depth);

/* The size and signedness of var's scalar type (typedefs and qualifiers
 * peeled); false for aggregates and types without a size. */
static bool scalar_of(Dwarf_Die *var, int *size, bool *sign)
{
	Dwarf_Attribute a;
	Dwarf_Die t;
	Dwarf_Word enc = 0;
	Dwarf_Die *d = var;

	for (int depth = 0; depth < 16; depth++) {
		if (!dwarf_attr_integrate(d, DW_AT_type, &a) || !dwarf_formref_die(&a, &t))
			return false;
		d = &t;
		int tag = dwarf_tag(d);
		if (tag == DW_TAG_typedef || tag == DW_TAG_const_type ||
		    tag == DW_TAG_volatile_type || tag == DW_TAG_atomic_type ||
		    tag == DW_TAG_restrict_type)
			continue;
		if (tag == DW_TAG_pointer_type) {
			*size = 8;
			*sign = false;
			return true;
		}
		if (tag != DW_TAG_base_type && tag != DW_TAG_enumeration_type)
			return false;
		*size = dwarf_bytesize(d);
		if (tag == DW_TAG_enumeration_type) {
			/* Signed as its underlying type (DWARF 3+), else as dwarf_type.c. */
			int usize;
			*sign = false;
			if (!scalar_of(d, &usize, sign))
				*sign = false;
			return *size > 0;
		}
		if (dwarf_attr(d, DW_AT_encoding, &a))
			dwarf_formudata(&a, &enc);
		*sign = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
		return *size > 0;
	}
	return false;
}

/* A constant value is written in the variable's type: DWARF gives an
 * unsigned char 255 as DW_OP_const1s -1 or a signed data1 0xff, which a
 * 64-bit stack would hold as -1.  Zero-extend unsigned types, sign-extend
 * signed ones from their width. */
static void type_const(Dwarf_Die *var, struct dw_loc *out)
{
	int size;
	bool sign;

	if (out->kind != DWR_VALUE || out->n != 1 || out->prog[0].op != DWL_CONST ||
	    !scalar_of(var, &size, &sign) || size >= 8)
		return;
	uint64_t v = (uint64_t)out->prog[0].val, mask = (1ull << (8 * size)) - 1;
	v &= mask;
	if (sign && (v >> (8 * size - 1)))
		v |= ~mask;
	out->prog[0].val = (int64_t)v;
}

/* A constant piece holds the low `size` bytes of its value. */
static void type_const_pieces(struct dw_loc *out)
{
	for (int i = 0; out->kind == DWR_PIECES && i < out->npieces; i++) {
		struct dw_piece *p = &out->pieces[i];
		if (p->kind == DWR_VALUE && p->n == 1 && p->prog[0].op == DWL_CONST && p->size < 8)
			p->prog[0].val = (int64_t)((uint64_t)p->prog[0].val &
						   ((1ull << (8 * p->size)) - 1));
	}
}

static void dwl_var_loc_depth(Dwarf_Die *var, const struct dwl_ctx *c, struct dw_loc *out,
			      int depth)
{
	dwl_var_loc_raw(var, c, out, depth);
	type_const(var, out);
	type_const_pieces(out);
}

void dwl_var_loc(Dwarf_Die *var, const struct dwl_ctx *c, struct dw_loc *out)
{
	dwl_var_loc_depth(var, c, out, 0);
}

static void dwl_var_loc_raw(Dwarf_Die *var, const struct dwl_ctx *c, struct dw_loc *out,
			    int depth)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;
	const char *name = dwarf_diename(var);

	memset(out, 0, sizeof(*out));
	if (!name)
		name = "?";
	if (dwarf_attr_integrate(var, DW_AT_const_value, &a)) {
		const_value(&a, out);
		return;
	}
	if (!dwarf_attr_integrate(var, DW_AT_location, &a)) {
		set_why(out, DWR_OPTIMIZED, "'%s' is optimised out (it has no location)", name);
		return;
	}
	bool uninit = false;
	int r = loc_at(&a, c, &ops, &n, &uninit);
	if (r < 0) {
		set_why(out, DWR_UNSUPPORTED, "cannot read the location of '%s': %s", name,
			dwarf_errmsg(-1));
		return;
	}
	if (r == 0 || n == 0) {
		why_optimized(&a, name, c, out);
		return;
	}
	if (uninit) {
		/* Not read, although gdb reads it: gcc marks a location so where
		 * var-tracking could not prove the register still holds the
		 * variable, and it often does not (dwarf_oddpieces f24 at -O1:
		 * rbx after its `sar`, where gdb prints a wrong o). */
		set_why(out, DWR_OPTIMIZED, "'%s' may not hold its value at 0x%llx: DWARF marks "
			"its location there as possibly uninitialised (DW_OP_GNU_uninit)", name,
			(unsigned long long)c->addr);
		out->maybe_uninit = true;
		return;
	}
	translate_expr(&a, ops, n, c, out, depth);
}

bool dwl_in_prologue(const struct dwl_ctx *c)
{
	return c->body && c->func_entry && c->addr >= c->func_entry && c->addr < c->body;
}

/* A register's value as the call passed it: the register itself at the
 * function's entry, its entry value (keyed by the frame's CFA) after. */
static void emit_arg_reg(struct prog *p, const struct dwl_ctx *c, int reg)
{
	if (c->addr == c->func_entry) {
		emit(p, DWL_REG, reg, 0, 0);
		return;
	}
	emit_cfa(p, c, 0);
	emit(p, DWL_ENTRY_VALUE, reg, 0, 0);
	p->entry = true;
}

void dwl_arg_loc(const struct dwl_ctx *c, const int *regs, int n, unsigned size, bool aggregate,
		 bool byref, struct dw_loc *out)
{
	struct prog p = { 0 };
	char *err = NULL;

	memset(out, 0, sizeof(*out));
	if (byref || !aggregate) {
		emit_arg_reg(&p, c, regs[0]);
		out->kind = byref ? DWR_MEMORY : DWR_VALUE;
		out->prog = p.v;
		out->n = p.n;
		prog_take(&p, out);
		out->as_passed = true;
		return;
	}
	out->kind = DWR_PIECES;
	out->as_passed = true;
	for (int i = 0; i < n && 8u * i < size; i++) {
		emit_arg_reg(&p, c, regs[i]);
		if (p.entry)
			out->uses_entry_value = true;
		if (p.err && !err)
			err = p.err;
		else
			free(p.err);
		p.err = NULL;
		p.entry = false;
		add_piece(out, size - 8u * i < 8 ? size - 8u * i : 8, DWR_VALUE, &p);
	}
	if (err) {
		dwl_loc_free(out);
		memset(out, 0, sizeof(*out));
		out->kind = DWR_UNSUPPORTED;
		out->why = err;
	}
}

void dwl_stack_arg_loc(const struct dwl_ctx *c, int64_t off, struct dw_loc *out)
{
	struct prog p = { 0 };

	memset(out, 0, sizeof(*out));
	emit_cfa(&p, c, 0);
	emit(&p, DWL_PLUS_CONST, 0, 0, off);
	out->kind = DWR_MEMORY;
	out->as_passed = true;
	out->prog = p.v;
	out->n = p.n;
	prog_take(&p, out);
}

void dwl_addr_loc(uint64_t addr, const struct dwl_ctx *c, struct dw_loc *out)
{
	struct prog p = { 0 };

	memset(out, 0, sizeof(*out));
	emit_addr(&p, addr, c);
	out->kind = DWR_MEMORY;
	out->prog = p.v;
	out->n = p.n;
	prog_take(&p, out);
}

bool dwl_available(const struct dw_loc *l)
{
	return l->kind == DWR_MEMORY || l->kind == DWR_VALUE || l->kind == DWR_PIECES;
}

void dwl_loc_free(struct dw_loc *l)
{
	if (l->target) {
		dwl_loc_free(l->target);
		free(l->target);
	}
	free(l->target_name);
	for (int i = 0; i < l->npieces; i++)
		free(l->pieces[i].prog);
	free(l->pieces);
	free(l->prog);
	free(l->why);
	memset(l, 0, sizeof(*l));
}

static void print_prog(FILE *out, const struct dwl_insn *v, int n)
{
	static const char *const names[] = {
		[DWL_NEG] = "neg", [DWL_NOT] = "not", [DWL_ABS] = "abs", [DWL_ADD] = "add",
		[DWL_SUB] = "sub", [DWL_MUL] = "mul", [DWL_DIV] = "div", [DWL_MOD] = "mod",
		[DWL_AND] = "and", [DWL_OR] = "or", [DWL_XOR] = "xor", [DWL_SHL] = "shl",
		[DWL_SHR] = "shr", [DWL_SHRA] = "shra", [DWL_EQ] = "eq", [DWL_NE] = "ne",
		[DWL_LT] = "lt", [DWL_LE] = "le", [DWL_GT] = "gt", [DWL_GE] = "ge",
		[DWL_DUP] = "dup", [DWL_DROP] = "drop", [DWL_SWAP] = "swap", [DWL_OVER] = "over",
	};

	for (int i = 0; i < n; i++) {
		const struct dwl_insn *x = &v[i];

		fputs(i ? " " : "", out);
		switch (x->op) {
		case DWL_REG: fprintf(out, "%%%s", dw_reg_name(x->reg)); break;
		case DWL_ENTRY_VALUE: fprintf(out, "entry(%%%s)", dw_reg_name(x->reg)); break;
		case DWL_CONST: fprintf(out, "%lld", (long long)x->val); break;
		case DWL_BIAS: fputs("bias", out); break;
		case DWL_PLUS_CONST: fprintf(out, "%+lld", (long long)x->val); break;
		case DWL_BRA_SWAP: fprintf(out, "bra-swap"); break;
		case DWL_CALLSITES: fprintf(out, "callsites(%lld)", (long long)x->val); break;
		case DWL_CS_CASE: fprintf(out, "ret=0x%llx:", (unsigned long long)x->val); break;
		case DWL_DEREF: fprintf(out, "deref%u", x->size); break;
		default: fputs(names[x->op] ? names[x->op] : "?", out);
		}
	}
}

void dw_loc_print(FILE *out, const struct dw_loc *l)
{
	switch (l->kind) {
	case DWR_MEMORY:
		fputs("mem[", out);
		print_prog(out, l->prog, l->n);
		fputs("]", out);
		break;
	case DWR_VALUE:
		fputs("value[", out);
		print_prog(out, l->prog, l->n);
		fputs("]", out);
		break;
	case DWR_PIECES:
		fputs("pieces", out);
		for (int i = 0; i < l->npieces; i++) {
			const struct dw_piece *p = &l->pieces[i];
			fprintf(out, " %u:%s[", p->size, p->kind == DWR_MEMORY ? "mem" :
				p->kind == DWR_VALUE ? "value" :
				p->bits_given ? "optimised-some-bits" : "optimised");
			print_prog(out, p->prog, p->n);
			fputs("]", out);
		}
		break;
	case DWR_IMPLICIT_PTR:
		fprintf(out, "implicit-pointer(&%s%+lld: ", l->target_name, (long long)l->target_off);
		dw_loc_print(out, l->target);
		fputs(")", out);
		break;
	default:
		fprintf(out, "%s: %s", l->kind == DWR_OPTIMIZED ? "optimised" : "unsupported",
			l->why ? l->why : "?");
	}
	if (l->uses_entry_value)
		fputs(" (entry value)", out);
	if (l->as_passed)
		fputs(" (as passed)", out);
}
