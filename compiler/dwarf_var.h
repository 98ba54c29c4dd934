/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dwarf_var.h - variables at a probe site (internal to the dwarf module;
 * the public side is dw_vars / dw_find_var in dwarf.h).
 */
#ifndef PR_DWARF_VAR_H
#define PR_DWARF_VAR_H

#include <elfutils/libdw.h>
#include <stdint.h>
#include <stdio.h>

#include "dwarf.h"

struct dw_mod;

/* A site's view: its CU, the DIE its variables are looked up from (the
 * function or inlined instance), its address.  func is copied. */
struct dw_probe *dwv_probe_new(struct dw_mod *m, Dwarf_Off cu_off, Dwarf_Off scope_off,
			       uint64_t addr, const char *func);
/* Reads variables as perf probe -V does at a function's entry: the DWARF
 * locations as they are, also inside the prologue (dwarf_prologue.h),
 * for listings compared with perf probe's. */
void dwv_probe_perf_view(struct dw_probe *p);
/* Sets the site's -v note (copied). */
void dwv_probe_set_note(struct dw_probe *p, const char *note);
/* One "@<func+off>" block of perf probe -V (p may be NULL: no DWARF there). */
void dwv_list_site(FILE *out, struct dw_probe *p);

#endif
