// SPDX-License-Identifier: GPL-2.0-only
/*
 * dwarf_reg.c - x86-64 DWARF register numbers: their names for dumps and
 * their offsets in struct pt_regs, where a probe's context has them.  Part
 * of the dw_ facade (dwarf.h); a leaf, which dwarf_loc.c, dwarf_callsite.c
 * and the code generator all use.
 */
#include "dwarf.h"

static const char *const regnames[17] = {
	"ax", "dx", "cx", "bx", "si", "di", "bp", "sp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "ip",
};
/* struct pt_regs offsets (x86-64) in DWARF register order. */
static const int regoffs[17] = {
	80, 96, 88, 40, 104, 112, 32, 152, 72, 64, 56, 48, 24, 16, 8, 0, 128,
};

int dw_reg_ptregs_offset(int regno)
{
	return regno >= 0 && regno < 17 ? regoffs[regno] : -1;
}

const char *dw_reg_name(int regno)
{
	return regno >= 0 && regno < 17 ? regnames[regno] : "?";
}
