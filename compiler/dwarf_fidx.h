/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dwarf_fidx.h - a compile unit's real (not inlined) functions by address
 * (internal to the dwarf module).
 *
 * Finding the function at an address by walking the unit costs a walk per
 * probe site, quadratic in the functions of a unit for a wildcard.  The
 * index is built once per unit on first use and answers by binary search
 * exactly what the walk would (the first subprogram dwarf_getfuncs visits
 * whose ranges hold the address).  What else a site asks of its whole
 * unit (has it location lists; the first line-table row at an address) is
 * kept beside it.  It holds DIEs of its Dwarf, so its owner (struct
 * dw_mod) frees it before the Dwarf is ended.
 */
#ifndef PR_DWARF_FIDX_H
#define PR_DWARF_FIDX_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stdint.h>

struct dwf_cache;

/* The real function of cu containing addr, through the index *c keeps
 * (created on first use). */
bool dwf_realfunc(struct dwf_cache **c, Dwarf_Die *cu, uint64_t addr, Dwarf_Die *out);
/* perf's test for an optimised unit: a parameter or variable anywhere in
 * it has a location list. */
bool dwf_optimized(struct dwf_cache **c, Dwarf_Die *cu);
/* The index of cu's first line-table row at addr (as a scan from row 0
 * finds it); false if none. */
bool dwf_line_at(struct dwf_cache **c, Dwarf_Die *cu, uint64_t addr, size_t *idx);
void dwf_free(struct dwf_cache *c);

#endif
