/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ctypes.h - C declarations written in a script (struct, union, enum,
 * typedef, #include <...>, #define) parsed with libclang 19, the types they
 * declare as struct type (types.h), and the values of their enumerators and
 * integer macros.
 *
 * libclang is loaded (dlopen) by ct_parse() only, so a script without C
 * declarations never pays for it.  A unit holds the parsed declarations
 * until ct_free(); the types built from it live as long as the process.
 * Pointers in these types are marked as user memory (like DWARF types):
 * sema gives them the address space of the place they are read from.
 */
#ifndef PR_CTYPES_H
#define PR_CTYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/diag.h"

struct type;
struct ct_unit;

/* One declaration as the script wrote it and where. */
struct ct_decl {
	const char *text;
	struct loc loc;
};

/* Parses the declarations in order.  idents: the identifiers the script's
 * probes use, any of which a macro may define (ct_enum_value then knows
 * its value).  Reports every error through d, at the declaration's place
 * in the script, and returns -1; else 0 with *out set. */
int ct_parse(const struct ct_decl *decls, int n, const char *const *idents, int nidents,
	     struct diag *d, struct ct_unit **out);
void ct_free(struct ct_unit *u);
/* A declared type by its C name: "struct req", "union u", "enum color",
 * a typedef name ("req_t"), or a basic C type ("unsigned long").  NULL if
 * the unit declares no such type. */
const struct type *ct_type(struct ct_unit *u, const char *name);
/* The value of an enumerator declared in the unit (or in a header it
 * includes), or of a macro (the script's or a header's) that expands to an
 * integer constant, for an identifier given to ct_parse. */
bool ct_enum_value(struct ct_unit *u, const char *name, int64_t *value);
/* Is `name` a typedef the unit declares (for the parser's casts)? */
bool ct_is_typedef(struct ct_unit *u, const char *name);
/* Loads libclang if it is not yet: true if it is there. */
bool ct_available(void);
/* If the declaration text is a typedef, the name it declares (no libclang:
 * the parser needs typedef names to see casts before C is parsed). */
bool ct_typedef_name(const char *text, char *buf, size_t n);

#endif
