/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * dwarf_prologue.h - variables read inside a function's prologue
 * (internal to the dwarf module).
 *
 * A location that is one DWARF expression, not a list, claims the whole
 * scope, but at -O0 it names a stack slot that the prologue writes: read
 * before the prologue's end, it holds the previous call's bytes, a
 * plausible and wrong number.  There a parameter is read where the SysV
 * x86-64 ABI passed it (the integer registers), and what cannot be known
 * that way (a local, a parameter in memory or in SSE registers) is
 * unavailable with a reason.
 */
#ifndef PR_DWARF_PROLOGUE_H
#define PR_DWARF_PROLOGUE_H

#include <elfutils/libdw.h>
#include <stdbool.h>

#include "dwarf_loc.h"

struct dwd_index;

/* True if var's location at c->addr cannot be trusted: the site is in the
 * prologue and var's location is one expression reading the frame or a
 * register. */
bool dwp_applies(Dwarf_Die *var, const struct dwl_ctx *c);
/* var's location there: a parameter of c->sp_die where the ABI passed it,
 * else DWR_UNSUPPORTED with why.  A class the unit only declares (as a
 * parameter's type or the return type) is classified by its definition
 * in another unit, found through the index *decls (dwarf_decl.h). */
void dwp_var_loc(Dwarf_Die *var, const struct dwl_ctx *c, struct dwd_index **decls,
		 struct dw_loc *out);

#endif
