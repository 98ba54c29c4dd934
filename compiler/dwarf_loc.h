/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dwarf_loc.h - DWARF location expressions → dw_loc stack programs.
 *
 * Internal to the dwarf module: evaluates what can be known at compile time
 * (which location list entry covers the site, the frame base and the CFA
 * from CFI) and leaves the rest as a program codegen runs at the probe hit.
 */
#ifndef PR_DWARF_LOC_H
#define PR_DWARF_LOC_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stdint.h>

#include "dwarf.h"

struct dwl_ctx {
	uint64_t addr;          /* the site, a virtual address in the file */
	Dwarf_Die *sp_die;      /* the real (not inlined) function containing addr */
	Dwarf_Die *cu_die;      /* for line numbers in messages */
	Dwarf_CFI *cfi_eh;      /* .eh_frame of the ELF, may be NULL */
	Dwarf_CFI *cfi_dbg;     /* .debug_frame of the debuginfo, may be NULL */
	bool pie;               /* DW_OP_addr needs the load bias (ET_DYN) */
	/* The kernel's link-time addresses, placed where the running kernel
	 * has them (dws_kernel_addr: KASLR's slide, a module's sections one
	 * by one); false if that section is not loaded. */
	bool (*place)(const void *arg, uint64_t addr, uint64_t *out);
	const void *place_arg;
	uint64_t func_entry;    /* entry of sp_die: there, entry values are registers */
	uint64_t body;          /* first address past sp_die's prologue (dwf_prologue_end);
				 * 0: no prologue rule (perf probe -V's view at the entry) */
};

/* Inside sp_die's prologue: [func_entry, body). */
bool dwl_in_prologue(const struct dwl_ctx *c);
/* A parameter as the call passed it in the integer registers regs[0..n)
 * (DWARF numbers): the registers themselves at the entry, their entry
 * values after it.  size bytes; an aggregate is assembled from pieces of
 * 8 bytes (the last shorter); byref: the registers hold its address (a C++
 * class passed by invisible reference).  DWR_UNSUPPORTED with why if the
 * frame cannot be told there (no CFI). */
void dwl_arg_loc(const struct dwl_ctx *c, const int *regs, int n, unsigned size, bool aggregate,
		 bool byref, struct dw_loc *out);

/* Location of variable or parameter DIE var at c->addr.  Always fills out
 * (kind DWR_OPTIMIZED / DWR_UNSUPPORTED with why when not readable). */
void dwl_var_loc(Dwarf_Die *var, const struct dwl_ctx *c, struct dw_loc *out);
/* A parameter the call passed on the stack, off bytes above the CFA (the
 * caller wrote it before the call: valid from the entry on). */
void dwl_stack_arg_loc(const struct dwl_ctx *c, int64_t off, struct dw_loc *out);
/* True if var has a readable location at addr (perf probe -V's filter). */
bool dwl_available(const struct dw_loc *l);
/* The location of an object at a link-time address (moved by the bias in a
 * PIE, placed by c->place in the kernel). */
void dwl_addr_loc(uint64_t addr, const struct dwl_ctx *c, struct dw_loc *out);
void dwl_loc_free(struct dw_loc *l);

#endif
