/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * dwarf_decl.h - a struct, class or union that a unit only declares
 * (DW_AT_declaration: `typedef struct lua_State lua_State;` in a file that
 * never includes its definition), completed from the unit that defines it,
 * as gdb does (internal to the dwarf module).
 *
 * The index of every unit's definitions by qualified name is built on the
 * first question and kept by the type cache of its Dwarf.
 */
#ifndef PR_DWARF_DECL_H
#define PR_DWARF_DECL_H

#include <elfutils/libdw.h>
#include <stdbool.h>

struct dwd_index;

/* The definition of the record that d declares: the same name in the same
 * namespaces and classes, a struct or class for a struct or class, a union
 * for a union.  1 with *def; 0 if no unit defines it (or d is in an
 * anonymous namespace, whose types are the unit's own); -1 if units define
 * it differently (sizes or members), *n the number of definitions. */
int dwd_definition(struct dwd_index **ix, Dwarf_Die *d, Dwarf_Die *def, int *n);
/* A record type t that is only declared replaced by its one definition
 * (dwd_definition's 1); true if *t is a definition now (or was one). */
bool dwd_complete(struct dwd_index **ix, Dwarf_Die *t);
void dwd_free(struct dwd_index *ix);

#endif
