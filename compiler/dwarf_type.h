/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dwarf_type.h - DWARF type DIEs → struct type (types.h), cached per DIE.
 *
 * Internal to the dwarf module.  One cache per opened debuginfo, since DIE
 * offsets are only unique within one file.
 */
#ifndef PR_DWARF_TYPE_H
#define PR_DWARF_TYPE_H

#include <elfutils/libdw.h>
#include <stddef.h>

struct type;
struct dwt_cache;
struct dwd_index;

struct dwt_cache *dwt_new(void);
/* The types are the kernel's: pointers into kernel memory.  Before any
 * type is built. */
void dwt_set_kernel(struct dwt_cache *c);
/* Frees the cache and the names the types point to: after type_free_all(). */
void dwt_free(struct dwt_cache *c);
/* The type a DIE's DW_AT_type names; void if it has none.  NULL if the
 * type cannot be expressed (long double, complex). */
const struct type *dwt_type_of(struct dwt_cache *c, Dwarf_Die *die);
/* A type DIE itself (struct, typedef, base type...) → struct type. */
const struct type *dwt_convert(struct dwt_cache *c, Dwarf_Die *type_die);
/* C spelling of a DIE's DW_AT_type the way perf probe -V writes it ("int*"). */
void dwt_name_of(Dwarf_Die *die, char *buf, size_t n);
/* The cache's index of record definitions (dwarf_decl.h), built on first
 * use, for others that complete declared-only classes. */
struct dwd_index **dwt_decls(struct dwt_cache *c);

#endif
