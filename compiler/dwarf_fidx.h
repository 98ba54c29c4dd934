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
 * finds it) that does not end a sequence (the previous function's, when
 * each function has a section of its own); false if none. */
bool dwf_line_at(struct dwf_cache **c, Dwarf_Die *cu, uint64_t addr, size_t *idx);
/* perf's skip_prologue: in an unoptimised unit (no location lists) the
 * second line-table row of sp, whose entry is `entry` (or the first row
 * flagged prologue_end before it); entry itself in an optimised unit. */
uint64_t dwf_body_start(struct dwf_cache **c, Dwarf_Die *cu, Dwarf_Die *sp, uint64_t entry);
/* The first address past sp's prologue, before which a stack slot that a
 * single DWARF expression names may not be written yet: dwf_body_start in
 * an unoptimised unit; in an optimised one the first row flagged
 * prologue_end, else entry + 1 (only the entry itself is surely before
 * every store).  Always above entry. */
uint64_t dwf_prologue_end(struct dwf_cache **c, Dwarf_Die *cu, Dwarf_Die *sp, uint64_t entry);
void dwf_free(struct dwf_cache *c);

#endif
