/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * demangle.h - C++ (Itanium ABI) and Rust (legacy and v0) symbol names
 * made readable, through LLVM's demanglers (lib/demangle.cc: LLVM's
 * demangling API is C++ only, so this one file is C++ behind a C face).
 *
 * Two forms, for the two families of tools whose output perf-run
 * reproduces:
 *   DM_FULL   what bpftrace 0.17 prints (ustack, usym, func, -l): the
 *             whole demangled name, `shop::Cart::total(int) const`,
 *             `int shop::twice<int>(int)`;
 *   DM_SHORT  what perf prints (perf script, perf report, folded
 *             stacks): no parameters, qualifiers or return type,
 *             `shop::Cart::total`, `shop::twice<int>`.
 * Rust names are the same in both: `core::fmt::write`, the legacy
 * scheme's hash suffix and `$LT$`-style escapes removed, as rustc's own
 * demangler prints them by default.
 */
#ifndef PR_DEMANGLE_H
#define PR_DEMANGLE_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

enum dm_form { DM_FULL, DM_SHORT };

/* The demangled form of name, malloc'd; NULL if name is not a mangled
 * C++ or Rust name (a C name) or cannot be demangled. */
char *dm_demangle(const char *name, enum dm_form form);
/* Whether name looks mangled (starts _Z or _R): worth demangling. */
bool dm_is_mangled(const char *name);

#ifdef __cplusplus
}
#endif

#endif
