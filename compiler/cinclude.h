/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cinclude.h - the files a script's #include lines name, checked before
 * libclang reads them.
 *
 * clang reads an included file to its end: a device (/dev/zero) grows its
 * memory without bound, a FIFO blocks it, a binary prints an error per
 * byte run.  Each file a script includes, and each file a non-system
 * header it includes names in turn, must be a regular text file (no NUL
 * byte) of at most CI_MAX_SIZE bytes.  Names are resolved as clang does
 * for this unit: "x" first beside the including file (the script's own
 * lines: the current directory), then, as <x>, in clang's system
 * directories.  A name not found is left to clang's own "file not found".
 */
#ifndef PR_CINCLUDE_H
#define PR_CINCLUDE_H

#include "ctypes.h"
#include "lib/diag.h"

#define CI_MAX_SIZE (64 << 20)

/* Reports each refused include at its #include in the script (a nested
 * one as "in FILE:LINE"); returns the number of errors. */
int ci_check(const struct ct_decl *decls, int n, struct diag *d);

#endif
