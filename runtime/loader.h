/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * loader.h - the compiled BPF ELF into the kernel through libbpf, and a
 * verifier rejection turned into one error at the script line it came from.
 */
#ifndef PR_LOADER_H
#define PR_LOADER_H

#include "compiler/program.h"

struct bpf_object;

/* Opens p->elf as object "perf_run" and sets each program's type.
 * Reports a failure through d and returns NULL. */
struct bpf_object *ld_open(const struct program *p, int verbose, struct diag *d);
/* Loads the opened object (after providers set attach targets).  Reports a
 * verifier rejection at the script line it came from; returns 0 or -1. */
int ld_load(const struct program *p, struct bpf_object *o, int verbose, struct diag *d);
/* A lean compile (p->lean_btf) has no line info: ld_load then has the
 * rejected program compiled again with it by fn (which returns that
 * program, or NULL) and loaded alone, only to place the error at the
 * statement.  fn NULL: the error names the probe. */
typedef struct program *(*ld_recompile_fn)(void *arg, const char *prog);
void ld_set_recompile(ld_recompile_fn fn, void *arg);
/* The bpf_program of pr_prog i, or NULL. */
struct bpf_program *ld_prog(const struct program *p, struct bpf_object *o, int i);
/* fd of the map global `name`, or -1 (also for name == NULL). */
int ld_map_fd(struct bpf_object *o, const char *name);

#endif
