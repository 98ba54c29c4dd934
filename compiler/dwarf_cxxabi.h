/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dwarf_cxxabi.h - whether a C++ class is passed and returned by invisible
 * reference (the Itanium C++ ABI's "non-trivial for the purposes of
 * calls"), from its DWARF, where the producer does not say it with
 * DW_AT_calling_convention (gcc 12 does not; clang does).
 */
#ifndef PR_DWARF_CXXABI_H
#define PR_DWARF_CXXABI_H

#include <elfutils/libdw.h>
#include <stdbool.h>

struct dwd_index;

enum cxx_pass { CXX_BY_VALUE, CXX_BY_REFERENCE, CXX_UNKNOWN };

/* How an object of class, struct or union type t (typedefs and
 * qualifiers peeled) is passed: by reference if t, a base or a member has
 * a user-provided destructor, copy or move constructor, or a virtual
 * function; unknown where DWARF cannot tell (a deleted one, a type only
 * declared that no unit defines).  A class only declared is judged by its
 * definition in another unit (dwarf_decl.h, through the index *decls). */
enum cxx_pass cxx_pass_of(Dwarf_Die *t, struct dwd_index **decls);
/* The type of DIE d (a variable, member or type) into *t with typedefs
 * and qualifiers peeled, and array types too if arrays; false if none. */
bool cxx_peel_type(Dwarf_Die *d, Dwarf_Die *t, bool arrays);

#endif
