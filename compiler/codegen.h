/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * codegen.h - typed AST to a BPF ELF object in memory, through the LLVM 19
 * C API, and the tables of program.h that describe it to the runtime.
 */
#ifndef PR_CODEGEN_H
#define PR_CODEGEN_H

#include "lib/diag.h"
#include "program.h"
#include "sema.h"

/* Fills out->elf, progs, actions and maps (out->probes is the caller's).
 * dump: PR_DUMP_IR / PR_DUMP_BPF bits, printed to stdout.  Returns 0, or
 * -1 after reporting through d. */
int cg_generate(struct sema_probe *probes, int nprobes, struct sema *s,
		const struct source *src, unsigned dump, struct program *out,
		struct diag *d);

#endif
