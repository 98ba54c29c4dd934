/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * profile.h - the samples that -f perf and -f pprof write: each print of a
 * stack-keyed map adds its entries (as -f folded's lines add up in a flame
 * graph), every frame resolved while its process and its stack ids are
 * still there: the functions at it (inlined ones too), the object that
 * holds it.  The writers (out_pprof.c, out_perfdata.c) read what this
 * keeps; nothing here knows a file format.
 */
#ifndef PR_PROFILE_H
#define PR_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "compiler/program.h"
#include "format.h"
#include "mapprint.h"

#define PF_COMM 16   /* the kernel's TASK_COMM_LEN */

/* One function at a location: the innermost (inlined) first. */
struct pf_func {
	char *name;   /* as printed (demangled unless --no-demangle) */
	char *sysname;   /* as in the ELF (mangled), NULL if the same */
	char *file;   /* source file, NULL if unknown */
	int line;
};

/* One address in one process (pid -1: the kernel). */
struct pf_loc {
	pid_t pid;
	uint64_t ip;           /* the address (a CFI ustack pc without its object tag) */
	uint64_t key;          /* the pc as the stack holds it (tagged): (pid, key) is unique */
	int obj;               /* index in pf->objs, -1 if no object holds it */
	bool note;             /* not an address: where a user stack ended (PR_UW_PC_*) */
	int nfunc;             /* 0: no name known */
	struct pf_func *func;
};

/* An object mapped for execution (pid -1: the kernel's text). */
struct pf_obj {
	pid_t pid;
	char *file;
	uint64_t start, end, pgoff;
	unsigned char build_id[20];
	int build_id_len;      /* 0: none */
};

/* A key of the map that is not a stack: str NULL means num. */
struct pf_label {
	char *key;
	char *str;
	int64_t num;
};

struct pf_sample {
	int col;               /* the map's column (pf->cols) */
	int64_t value;
	pid_t pid;             /* of the stacks, -1 if unknown */
	uint64_t time;         /* CLOCK_MONOTONIC ns of the print that added it */
	uint32_t nk, nu;       /* locs: nk kernel frames, then nu user frames, leaf first */
	uint32_t *locs;
	int nlabels;
	struct pf_label *labels;
};

/* One map that gave samples: a value column of the profile. */
struct pf_col {
	int map;               /* index in the program's maps */
	char *name;            /* "@name" */
	const char *unit;      /* "count", or "value" for sums and plain values */
};

struct pf_proc {
	pid_t pid;
	char comm[PF_COMM];
};

struct pf {
	const char *format;    /* "pprof", "perf.data": said in notes */
	struct pf_sample *s;
	size_t ns, cap_s;
	struct pf_loc *loc;
	size_t nloc, cap_loc;
	uint32_t *hash;        /* (pid, ip) → loc index + 1; 0 is empty */
	size_t hash_cap;
	struct pf_obj *obj;
	size_t nobj;
	struct pf_col *col;
	int ncol;
	struct pf_proc *proc;
	size_t nproc;
	bool *said;            /* per program map: its note was said */
	uint64_t *lost;        /* per program map: entries whose stack was gone */
	int nmaps;
};

struct pf *pf_new(const struct program *p, const char *format);
void pf_free(struct pf *pf);
/* Whether map m can give samples: a stack among its keys, and a value
 * that adds up (count, sum, an integer, a hist's or an avg's count). */
bool pf_takes(const struct pr_map *m);
/* Adds one print of map `map` (data d, read and folded) as samples.
 * false if the map cannot give samples: said once on stderr, and the
 * caller prints it as text. */
bool pf_add(struct pf *pf, int map, const struct pr_map *m, const struct mp_data *d,
	    const struct fmt_ctx *c);
/* Says the entries left out for want of a stack, once, before a write. */
void pf_report(struct pf *pf);
/* The command name of pid as the samples knew it, or NULL. */
const char *pf_comm(const struct pf *pf, pid_t pid);

#endif
