/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dwarf_rawloc.h - location list entries libdw refuses.
 *
 * gcc ends an expression with DW_OP_GNU_uninit (0xf0: "the location may
 * not hold the value yet") where var-tracking cannot prove it does; libdw
 * knows no such op and fails the whole list there, so every later entry
 * is lost too.  This walks a list as libdw's dwarf_getlocations does and
 * reads such an entry from the section's bytes, the marker dropped and
 * reported, so that the caller can refuse that entry alone (gdb reads it,
 * printing "[uninitialized]" by `print`, and is wrong at some of them).
 * Internal to the dwarf module.
 */
#ifndef PR_DWARF_RAWLOC_H
#define PR_DWARF_RAWLOC_H

#include <elfutils/libdw.h>
#include <stdbool.h>

/* dwarf_getlocations, with the same contract, except that an entry whose
 * expression libdw refuses only for a trailing DW_OP_GNU_uninit is
 * returned without it (*uninit set; else cleared).  Other failures are
 * libdw's own (-1, dwarf_errmsg). */
ptrdiff_t dwrl_getlocations(Dwarf_Attribute *a, ptrdiff_t off, Dwarf_Addr *base,
			    Dwarf_Addr *start, Dwarf_Addr *end, Dwarf_Op **ops, size_t *n,
			    bool *uninit);

#endif
