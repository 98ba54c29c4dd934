// SPDX-License-Identifier: GPL-2.0-only
/*
 * dwarf_cxxabi.c - a C++ class's passing by invisible reference from the
 * members DWARF declares (Itanium C++ ABI 3.1.2.3: a class with a
 * non-trivial copy or move constructor or destructor, which a virtual
 * function or base makes non-trivial, is passed and returned in memory
 * the caller provides, its address in a register).  A special member
 * declared `= default` in the class (DW_AT_defaulted in_class) is trivial
 * when the bases' and members' are; one `= delete` (DW_AT_deleted) makes
 * the answer depend on the others: unknown.
 */
#include "dwarf_cxxabi.h"

#include <dwarf.h>
#include <string.h>

#include "dwarf_decl.h"

static bool flag(Dwarf_Die *d, unsigned name)
{
	Dwarf_Attribute a;
	bool v = false;

	return dwarf_attr_integrate(d, name, &a) && !dwarf_formflag(&a, &v) && v;
}

static Dwarf_Word udata(Dwarf_Die *d, unsigned name)
{
	Dwarf_Attribute a;
	Dwarf_Word v;

	return dwarf_attr_integrate(d, name, &a) && !dwarf_formudata(&a, &v) ? v : 0;
}

bool cxx_peel_type(Dwarf_Die *d, Dwarf_Die *t, bool arrays)
{
	Dwarf_Attribute at;

	for (int depth = 0; depth < 16; depth++) {
		if (!dwarf_attr_integrate(d, DW_AT_type, &at) || !dwarf_formref_die(&at, t))
			return false;
		int tag = dwarf_tag(t);
		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
		    tag != DW_TAG_atomic_type && tag != DW_TAG_restrict_type &&
		    !(arrays && tag == DW_TAG_array_type))
			return true;
		d = t;
	}
	return false;
}

static bool is_class(Dwarf_Die *t)
{
	int tag = dwarf_tag(t);
	return tag == DW_TAG_structure_type || tag == DW_TAG_class_type || tag == DW_TAG_union_type;
}

/* Whether constructor f of class cls takes a reference to cls first (a
 * copy or move constructor). */
static bool copies(Dwarf_Die *f, Dwarf_Die *cls)
{
	Dwarf_Die p, r, t;

	if (dwarf_child(f, &p) != 0)
		return false;
	do {
		if (dwarf_tag(&p) != DW_TAG_formal_parameter || flag(&p, DW_AT_artificial))
			continue;
		if (!cxx_peel_type(&p, &r, false) || (dwarf_tag(&r) != DW_TAG_reference_type &&
						  dwarf_tag(&r) != DW_TAG_rvalue_reference_type))
			return false;
		const char *a = cxx_peel_type(&r, &t, false) ? dwarf_diename(&t) : NULL;
		const char *b = dwarf_diename(cls);
		return a && b && !strcmp(a, b);
	} while (dwarf_siblingof(&p, &p) == 0);
	return false;
}

/* A special member of cls that is user-provided (or virtual): by
 * reference; deleted: unknown; else by value. */
static enum cxx_pass member_fn(Dwarf_Die *f, Dwarf_Die *cls)
{
	const char *n = dwarf_diename(f), *c = dwarf_diename(cls);
	bool special = n && (n[0] == '~' || (c && !strcmp(n, c) && copies(f, cls)));

	if (udata(f, DW_AT_virtuality))
		return CXX_BY_REFERENCE;
	if (!special)
		return CXX_BY_VALUE;
	if (flag(f, DW_AT_deleted))
		return CXX_UNKNOWN;
	return udata(f, DW_AT_defaulted) == DW_DEFAULTED_in_class ? CXX_BY_VALUE : CXX_BY_REFERENCE;
}

static enum cxx_pass pass_of(Dwarf_Die *t, struct dwd_index **decls, int depth)
{
	Dwarf_Attribute a;
	Dwarf_Die m, mt;
	enum cxx_pass r = CXX_BY_VALUE;

	/* clang describes a class only where its constructor is emitted
	 * (constructor homing): elsewhere it is declared, and judged by that
	 * unit's definition */
	if (depth > 16 || !dwd_complete(decls, t))
		return CXX_UNKNOWN;
	switch (udata(t, DW_AT_calling_convention)) {
	case DW_CC_pass_by_reference:
		return CXX_BY_REFERENCE;
	case DW_CC_pass_by_value:
		return CXX_BY_VALUE;
	}
	if (dwarf_child(t, &m) != 0)
		return CXX_BY_VALUE;
	do {
		enum cxx_pass k = CXX_BY_VALUE;
		int tag = dwarf_tag(&m);
		if (tag == DW_TAG_subprogram)
			k = member_fn(&m, t);
		else if ((tag == DW_TAG_inheritance && udata(&m, DW_AT_virtuality)))
			k = CXX_BY_REFERENCE;  /* a virtual base */
		else if ((tag == DW_TAG_inheritance || tag == DW_TAG_member) &&
			 !dwarf_attr(&m, DW_AT_external, &a) && !dwarf_attr(&m, DW_AT_declaration, &a) &&
			 cxx_peel_type(&m, &mt, true) && is_class(&mt))
			k = pass_of(&mt, decls, depth + 1);
		if (k == CXX_BY_REFERENCE)
			return k;
		if (k == CXX_UNKNOWN)
			r = k;
	} while (dwarf_siblingof(&m, &m) == 0);
	return r;
}

enum cxx_pass cxx_pass_of(Dwarf_Die *t, struct dwd_index **decls)
{
	Dwarf_Die c = *t;

	return is_class(&c) ? pass_of(&c, decls, 0) : CXX_BY_VALUE;
}
