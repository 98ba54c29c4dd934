/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dwarf_walk.h - a depth-first walk over a DIE's children, as perf's
 * die_find_child: the one DIE walker of the dwarf module.  Internal to it
 * (dwarf*.c); a leaf that uses libdw alone.
 */
#ifndef PR_DWARF_WALK_H
#define PR_DWARF_WALK_H

#include <elfutils/libdw.h>

/* What a dww_walk_children callback wants next. */
enum { DWW_CONT, DWW_SIBLING, DWW_END };
typedef int (*dww_walk_fn)(Dwarf_Die *d, void *arg);
/* Visits the DIEs under parent; returns 1 if fn ended the walk. */
int dww_walk_children(Dwarf_Die *parent, dww_walk_fn fn, void *arg);

#endif
