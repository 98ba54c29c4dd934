/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * dwarf_prologue.c - variables inside a function's prologue: parameters
 * where the SysV x86-64 ABI passed them, by the classification of its
 * section 3.2.3 (each eightbyte of an argument INTEGER, SSE or MEMORY;
 * INTEGER eightbytes take rdi, rsi, rdx, rcx, r8, r9 in order, all of an
 * argument's or none; a hidden pointer for a returned MEMORY value takes
 * rdi first; the rest go on the stack from the CFA up, each in 8-byte
 * units).  pt_regs holds no xmm register: what the call passed there is
 * unavailable.
 */
#define _GNU_SOURCE
#include "dwarf_prologue.h"

#include "dwarf_cxxabi.h"
#include "dwarf_decl.h"

#include <dwarf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum cl { CL_NONE, CL_INT, CL_SSE, CL_MEM };

/* An argument's class: per eightbyte, or passed by invisible reference
 * (a C++ class that is not trivially copyable); unknown if DWARF does not
 * tell (a type without size, an array without bounds). */
struct argcls {
	enum cl eb[2];
	unsigned size;
	bool byref, unknown, aggregate;
	bool align16;           /* holds a 16-byte scalar (long double, __int128) */
};

static const int int_regs[6] = { 5, 4, 1, 2, 8, 9 };  /* rdi rsi rdx rcx r8 r9 */

static enum cl merge(enum cl a, enum cl b)
{
	if (a == b || b == CL_NONE)
		return a;
	if (a == CL_NONE)
		return b;
	if (a == CL_MEM || b == CL_MEM)
		return CL_MEM;
	return CL_INT;  /* INTEGER with SSE */
}

/* Marks the eightbytes of [off, off+size) with k; past 16 bytes: MEMORY. */
static void mark(struct argcls *a, uint64_t off, uint64_t size, enum cl k)
{
	if (size == 0)
		return;
	for (uint64_t e = off / 8; e <= (off + size - 1) / 8; e++) {
		if (e > 1) {
			a->eb[0] = a->eb[1] = CL_MEM;
			return;
		}
		a->eb[e] = merge(a->eb[e], k);
	}
}

static Dwarf_Word udata(Dwarf_Die *d, unsigned name, Dwarf_Word dflt)
{
	Dwarf_Attribute a;
	Dwarf_Word v;

	return dwarf_attr_integrate(d, name, &a) && !dwarf_formudata(&a, &v) ? v : dflt;
}

static void classify_at(Dwarf_Die *t, uint64_t off, struct argcls *a, struct dwd_index **decls,
			int depth);

static void classify_scalar(Dwarf_Die *t, uint64_t off, struct argcls *a)
{
	int tag = dwarf_tag(t);
	int size = dwarf_bytesize(t);

	if (size == 16 && tag == DW_TAG_base_type)
		a->align16 = true;
	if (tag == DW_TAG_base_type) {
		Dwarf_Word enc = udata(t, DW_AT_encoding, 0);
		bool fp = enc == DW_ATE_float || enc == DW_ATE_complex_float;
		if (size <= 0)
			a->unknown = true;
		else if (fp && (size > 16 || (enc == DW_ATE_float && size > 8)))
			mark(a, off, (uint64_t)size, CL_MEM);  /* long double: x87, in memory */
		else
			mark(a, off, (uint64_t)size, fp ? CL_SSE : CL_INT);
		return;
	}
	if (size <= 0 && tag == DW_TAG_ptr_to_member_type) {
		Dwarf_Die f;
		size = cxx_peel_type(t, &f, false) && dwarf_tag(&f) == DW_TAG_subroutine_type ? 16 : 8;
	}
	mark(a, off, size > 0 ? (uint64_t)size : 8, CL_INT);
}

static void classify_members(Dwarf_Die *t, uint64_t off, struct argcls *a,
			     struct dwd_index **decls, int depth)
{
	Dwarf_Die m, mt;
	Dwarf_Attribute at;
	bool is_union = dwarf_tag(t) == DW_TAG_union_type;

	if (dwarf_child(t, &m) != 0)
		return;
	do {
		int tag = dwarf_tag(&m);
		if ((tag != DW_TAG_member && tag != DW_TAG_inheritance) ||
		    dwarf_attr(&m, DW_AT_declaration, &at) || dwarf_attr(&m, DW_AT_external, &at))
			continue;  /* a static member is no part of the object */
		Dwarf_Word mo = 0;
		if (dwarf_attr(&m, DW_AT_data_member_location, &at) && dwarf_formudata(&at, &mo)) {
			a->unknown = true;  /* an expression (a virtual base) */
			return;
		}
		if (!is_union && !dwarf_attr(&m, DW_AT_data_member_location, &at) &&
		    !dwarf_attr(&m, DW_AT_data_bit_offset, &at)) {
			a->unknown = true;
			return;
		}
		Dwarf_Word bits = udata(&m, DW_AT_bit_size, 0);
		if (bits) {
			Dwarf_Word bo = udata(&m, DW_AT_data_bit_offset, mo * 8);
			mark(a, off + bo / 8, (bo + bits - 1) / 8 - bo / 8 + 1, CL_INT);
			continue;
		}
		if (!cxx_peel_type(&m, &mt, false)) {
			a->unknown = true;
			return;
		}
		int ms = dwarf_bytesize(&mt);
		if ((ms == 2 || ms == 4 || ms == 8) && mo % (Dwarf_Word)ms &&
		    dwarf_tag(&mt) == DW_TAG_base_type)
			mark(a, off + mo, 1, CL_MEM);  /* unaligned (packed): in memory */
		else
			classify_at(&mt, off + mo, a, decls, depth + 1);
	} while (dwarf_siblingof(&m, &m) == 0);
}

static void classify_array(Dwarf_Die *t, uint64_t off, struct argcls *a,
			   struct dwd_index **decls, int depth)
{
	Dwarf_Die et, sub;
	int es;

	if (!cxx_peel_type(t, &et, false) || (es = dwarf_bytesize(&et)) <= 0 ||
	    dwarf_child(t, &sub) != 0) {
		a->unknown = true;
		return;
	}
	Dwarf_Word count = udata(&sub, DW_AT_count, 0);
	if (!count) {
		Dwarf_Attribute at;
		Dwarf_Word ub;
		if (!dwarf_attr(&sub, DW_AT_upper_bound, &at) || dwarf_formudata(&at, &ub))
			return;  /* a flexible array member: no bytes */
		count = ub + 1;
	}
	if (count > 16 || count * (Dwarf_Word)es > 16) {  /* (no overflow: count is small) */
		mark(a, off, 17, CL_MEM);
		return;
	}
	for (Dwarf_Word i = 0; i < count; i++)
		classify_at(&et, off + i * (Dwarf_Word)es, a, decls, depth + 1);
}

static void classify_at(Dwarf_Die *t, uint64_t off, struct argcls *a, struct dwd_index **decls,
			int depth)
{
	int tag = dwarf_tag(t);
	Dwarf_Die def = *t;

	if (depth > 16) {
		a->unknown = true;
		return;
	}
	if (tag == DW_TAG_structure_type || tag == DW_TAG_class_type || tag == DW_TAG_union_type) {
		int size = dwd_complete(decls, &def) ? dwarf_bytesize(&def) : -1;
		if (size < 0)
			a->unknown = true;
		else if (size > 16)
			mark(a, off, (uint64_t)size, CL_MEM);
		else
			classify_members(&def, off, a, decls, depth);
	} else if (tag == DW_TAG_array_type) {
		classify_array(t, off, a, decls, depth);
	} else if (tag == DW_TAG_base_type || tag == DW_TAG_pointer_type ||
		   tag == DW_TAG_reference_type || tag == DW_TAG_rvalue_reference_type ||
		   tag == DW_TAG_ptr_to_member_type || tag == DW_TAG_enumeration_type) {
		classify_scalar(t, off, a);
	} else {
		a->unknown = true;
	}
}

/* Whether d is in a C++ unit. */
static bool is_cxx(Dwarf_Die *d)
{
	Dwarf_Die cu;
	Dwarf_Word lang = dwarf_diecu(d, &cu, NULL, NULL) ? udata(&cu, DW_AT_language, 0) : 0;

	return lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
	       lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14;
}

/* The class of an object of the type of DIE d (a parameter, or a
 * function for its return value); a class d's unit only declares by its
 * definition in another (decls). */
static struct argcls classify(Dwarf_Die *d, struct dwd_index **decls)
{
	struct argcls a = { { CL_NONE, CL_NONE }, 0, false, false, false, false };
	Dwarf_Die t;

	if (!cxx_peel_type(d, &t, false)) {
		a.unknown = true;
		return a;
	}
	dwd_complete(decls, &t);  /* left declared if no unit defines it: unknown below */
	int tag = dwarf_tag(&t), size = dwarf_bytesize(&t);
	a.aggregate = tag == DW_TAG_structure_type || tag == DW_TAG_class_type ||
		      tag == DW_TAG_union_type || tag == DW_TAG_array_type;
	a.size = size > 0 ? (unsigned)size : 8;
	if (a.aggregate && is_cxx(d)) {  /* C++: classes passed by invisible reference */
		enum cxx_pass p = cxx_pass_of(&t, decls);
		a.byref = p == CXX_BY_REFERENCE;
		a.unknown = p == CXX_UNKNOWN;
		if (p != CXX_BY_VALUE)
			return a;
	} else if (a.aggregate &&
		   udata(&t, DW_AT_calling_convention, 0) == DW_CC_pass_by_reference) {
		a.byref = true;
		return a;
	}
	classify_at(&t, 0, &a, decls, 0);
	if (a.eb[0] == CL_MEM || a.eb[1] == CL_MEM)
		a.eb[0] = a.eb[1] = CL_MEM;
	return a;
}

static int ints_of(const struct argcls *a)
{
	return a->byref ? 1 : (a->eb[0] == CL_INT) + (a->eb[1] == CL_INT);
}

static int sses_of(const struct argcls *a)
{
	return a->byref ? 0 : (a->eb[0] == CL_SSE) + (a->eb[1] == CL_SSE);
}

static void unavailable(struct dw_loc *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void unavailable(struct dw_loc *out, const char *fmt, ...)
{
	va_list ap;

	memset(out, 0, sizeof(*out));
	out->kind = DWR_UNSUPPORTED;
	va_start(ap, fmt);
	if (vasprintf(&out->why, fmt, ap) < 0)
		out->why = NULL;
	va_end(ap);
}

/* Where the walk over sp's parameters stands. */
struct argwalk {
	int next_int, next_sse;
	uint64_t stack;         /* the next stack argument's offset from the CFA */
	const char *lost;       /* a parameter before whose class is unknown */
};

enum where { W_REGS, W_STACK, W_SSE, W_UNKNOWN };

struct slot {
	enum where where;
	int reg0;               /* W_REGS: index of the first in int_regs */
	uint64_t off;           /* W_STACK: offset from the CFA */
};

/* The next argument, of class a: where the call put it (taking its
 * registers or stack bytes from w). */
static struct slot assign(struct argwalk *w, const struct argcls *a)
{
	struct slot s = { W_UNKNOWN, 0, 0 };
	int ni = ints_of(a), ns = sses_of(a);

	if (w->lost || a->unknown || (!ni && !ns && a->eb[0] != CL_MEM)) {
		if (!w->lost)  /* an empty class takes nothing, which DWARF cannot show */
			w->lost = "?";
		return s;
	}
	if (a->eb[0] != CL_MEM && w->next_int + ni <= 6 && w->next_sse + ns <= 8) {
		s.where = ns ? W_SSE : W_REGS;
		s.reg0 = w->next_int;
		w->next_int += ni;
		w->next_sse += ns;
		return s;
	}
	uint64_t align = a->align16 ? 16 : 8;
	w->stack = (w->stack + align - 1) / align * align;
	s.where = W_STACK;
	s.off = w->stack;
	w->stack += ((uint64_t)a->size + 7) / 8 * 8;
	return s;
}

/* argwalk's lost when the return value's class is unknown. */
static const char ret_unknown[] = "the return value";

/* Param p, of class a, at slot s: its location at the site, or why not. */
static void place(Dwarf_Die *p, const struct argcls *a, const struct slot *s, const char *lost,
		  const struct dwl_ctx *c, struct dw_loc *out)
{
	const char *name = dwarf_diename(p) ?: "?";
	const char *fn = dwarf_diename(c->sp_die) ?: "the function";
	unsigned long long at = (unsigned long long)c->addr;
	int regs[2];

	switch (s->where) {
	case W_REGS:
		regs[0] = int_regs[s->reg0];
		regs[1] = ints_of(a) > 1 ? int_regs[s->reg0 + 1] : 0;
		dwl_arg_loc(c, regs, ints_of(a), a->size, a->aggregate, a->byref, out);
		return;
	case W_STACK:
		dwl_stack_arg_loc(c, (int64_t)s->off, out);
		return;
	case W_SSE:
		unavailable(out, "'%s' cannot be read at 0x%llx, in %s's prologue, where its stack "
			    "slot is not written yet: the call passed it in SSE registers (xmm), "
			    "which a probe cannot read; probe %s past its prologue to read it",
			    name, at, fn, fn);
		return;
	case W_UNKNOWN:
		if (lost == ret_unknown)
			unavailable(out, "'%s' cannot be read at 0x%llx, in %s's prologue, where its "
				    "stack slot is not written yet: which register the call passed it "
				    "in depends on whether %s returns its value through a hidden "
				    "pointer, and DWARF does not tell how its return type is passed "
				    "(a class this unit only declares and no unit of the binary defines, "
				    "such as clang's std::string)",
				    name, at, fn, fn);
		else if (lost && strcmp(lost, "?"))
			unavailable(out, "'%s' cannot be read at 0x%llx, in %s's prologue, where its "
				    "stack slot is not written yet: how the call passed it depends on "
				    "how '%s' before it was passed, which DWARF does not tell", name,
				    at, fn, lost);
		else
			unavailable(out, "'%s' cannot be read at 0x%llx, in %s's prologue, where its "
				    "stack slot is not written yet: DWARF does not tell how the call "
				    "passed it", name, at, fn);
		return;
	}
}

static bool same_die(Dwarf_Die *a, Dwarf_Die *b)
{
	return dwarf_dieoffset(a) == dwarf_dieoffset(b);
}

void dwp_var_loc(Dwarf_Die *var, const struct dwl_ctx *c, struct dwd_index **decls,
		 struct dw_loc *out)
{
	const char *name = dwarf_diename(var) ?: "?";
	const char *fn = dwarf_diename(c->sp_die) ?: "the function";
	unsigned long long at = (unsigned long long)c->addr, end = (unsigned long long)c->body;
	struct argwalk w = { 0, 0, 0, NULL };
	Dwarf_Die d;

	if (dwarf_tag(var) != DW_TAG_formal_parameter) {
		unavailable(out, "'%s' is not set up yet at 0x%llx: that is in %s's prologue "
			    "(until 0x%llx), before the stack slot DWARF names for it is written",
			    name, at, fn, end);
		return;
	}
	Dwarf_Word cc = udata(c->sp_die, DW_AT_calling_convention, DW_CC_normal);
	/* DW_CC_program: gcc's main, which libc calls as any function */
	if ((cc != DW_CC_normal && cc != DW_CC_program) || dwarf_child(c->sp_die, &d) != 0) {
		unavailable(out, "'%s' cannot be read at 0x%llx, in %s's prologue, where its stack "
			    "slot is not written yet: %s does not follow the standard calling "
			    "convention", name, at, fn, fn);
		return;
	}
	struct argcls ret = classify(c->sp_die, decls);  /* void: no type, no registers */
	Dwarf_Attribute rt;
	if (ret.unknown && dwarf_attr_integrate(c->sp_die, DW_AT_type, &rt))
		w.lost = ret_unknown;  /* a hidden pointer in rdi or not: every register unknown */
	else if (!ret.unknown && (ret.byref || ret.eb[0] == CL_MEM))
		w.next_int = 1;  /* rdi: where to write the returned object */
	do {
		if (dwarf_tag(&d) != DW_TAG_formal_parameter)
			continue;
		struct argcls a = classify(&d, decls);
		const char *lost = w.lost;
		struct slot sl = assign(&w, &a);
		if (same_die(&d, var)) {
			place(&d, &a, &sl, lost, c, out);
			return;
		}
		if (w.lost && !strcmp(w.lost, "?"))
			w.lost = dwarf_diename(&d) ?: "a parameter";
	} while (dwarf_siblingof(&d, &d) == 0);
	unavailable(out, "'%s' cannot be read at 0x%llx, in %s's prologue, where its stack slot "
		    "is not written yet: it is no parameter %s itself was called with", name, at,
		    fn, fn);
}

/* One expression (not a list) that reads a register or the frame. */
static bool frame_expr(Dwarf_Attribute *a)
{
	Dwarf_Op *ops;
	size_t n;
	int form = dwarf_whatform(a);

	if (form != DW_FORM_exprloc && form != DW_FORM_block1 && form != DW_FORM_block2 &&
	    form != DW_FORM_block4 && form != DW_FORM_block)
		return false;
	if (dwarf_getlocation(a, &ops, &n) != 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned op = ops[i].atom;
		if (op == DW_OP_fbreg || op == DW_OP_call_frame_cfa || op == DW_OP_bregx ||
		    op == DW_OP_regx || (op >= DW_OP_reg0 && op <= DW_OP_reg31) ||
		    (op >= DW_OP_breg0 && op <= DW_OP_breg31))
			return true;
	}
	return false;
}

bool dwp_applies(Dwarf_Die *var, const struct dwl_ctx *c)
{
	Dwarf_Attribute a;

	return dwl_in_prologue(c) && !dwarf_attr_integrate(var, DW_AT_const_value, &a) &&
	       dwarf_attr_integrate(var, DW_AT_location, &a) && frame_expr(&a);
}
