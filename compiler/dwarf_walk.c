// SPDX-License-Identifier: GPL-2.0-only
/*
 * dwarf_walk.c - a depth-first walk over a DIE's children (dwarf_walk.h).
 */
#include "dwarf_walk.h"

/* perf's die_find_child: depth first, fn says whether to enter a DIE. */
int dww_walk_children(Dwarf_Die *parent, dww_walk_fn fn, void *arg)
{
	Dwarf_Die d;

	if (dwarf_child(parent, &d) != 0)
		return 0;
	do {
		int r = fn(&d, arg);
		if (r == DWW_END)
			return 1;
		if (r == DWW_CONT && dww_walk_children(&d, fn, arg))
			return 1;
	} while (dwarf_siblingof(&d, &d) == 0);
	return 0;
}
