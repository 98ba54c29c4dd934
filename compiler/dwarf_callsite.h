/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dwarf_callsite.h - DW_OP_GNU_parameter_ref: a parameter gcc dropped from
 * a clone (.isra, .constprop, .part), whose value each caller's call site
 * gives (DW_TAG_call_site_parameter with DW_AT_call_parameter naming it).
 *
 * Read as gdb reads it: the current frame's return address picks the call
 * site.  Internal to the dwarf module (dwarf_loc.c calls it).
 */
#ifndef PR_DWARF_CALLSITE_H
#define PR_DWARF_CALLSITE_H

#include "dwarf_loc.h"

/* The table of the call sites that give the parameter DW_OP_GNU_parameter_ref
 * `op` of `attr` names: DWL_CALLSITES then, per site, DWL_CS_CASE and its
 * program (dwarf.h).  The program runs in the frame at c->addr: a caller's
 * register is unwound (callee-saved, by the CFI) or taken at the entry
 * (DWL_ENTRY_VALUE, *entry set).  cfa/ncfa: the CFA program at c->addr.
 * 0, or -1 with a malloc'd sentence in *why (no call site gives it). */
int dwcs_table(Dwarf_Attribute *attr, const Dwarf_Op *op, const struct dwl_ctx *c,
	       const struct dwl_insn *cfa, int ncfa, struct dwl_insn **out, int *n,
	       bool *entry, char **why);

#endif
