/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sema.h - semantic analysis: names, builtins, function calls and types of
 * a parsed program whose attach points are resolved.
 *
 * sema_check() types every expression (node->type), folds constant
 * expressions in place, rewrites positional parameters that are numbers
 * into N_INT, annotates N_MAP nodes with their map (sema_map_of) and
 * infers every global map's key and value types across all probes.
 */
#ifndef PR_SEMA_H
#define PR_SEMA_H

#include <stdbool.h>
#include <stdio.h>

#include "ast.h"
#include "config.h"
#include "lib/diag.h"
#include "probe.h"
#include "lib/types.h"

struct sema_map {
	char *name;               /* "@x", "@" */
	const struct type *key;   /* T_TUPLE, NULL for a map without keys */
	const struct type *value; /* T_AGG for aggregations, else the stored type */
	struct loc loc;           /* first use */
	bool key_set;             /* key seen once (private to sema) */
	bool deleted;             /* some delete(@m) names it */
	int decl_type;            /* let @m = hash(N) (newer bpftrace): its BPF_MAP_TYPE_*, else 0 */
	uint32_t decl_max;        /* and its N */
	struct loc decl_loc;
};

/* One N_PROBE and the probes its attach points resolved to. */
struct sema_probe {
	struct node *node;
	struct probe **probes;
	int nprobes;
	bool per_site;            /* reads something that differs per site */
	bool dwarf_site;          /* of which DWARF or USDT locations (else only the
				   * site's name or address, read by its cookie) */
};

struct sema_opts {
	char **params;            /* positional parameters $1.. */
	int nparams;
	bool unsafe;              /* allow system() */
	bool has_child;           /* a command is traced (-c, --): cpid is its pid */
	char **named;             /* "--name=value" words after "--" (getopt()) */
	int nnamed;
};

struct sema {
	struct sema_map *maps;
	int nmaps;
	bool uses_stack;          /* ustack or kstack somewhere */
	bool uses_config;         /* elapsed */
	bool has_actions;         /* some record goes to the ring buffer */
	bool has_exit;            /* exit() is called somewhere */
	char **params;            /* borrowed from the options, for string positionals */
	int nparams;
	struct pr_settings cfg;   /* config block and BPFTRACE_* variables */
};

/* Returns 0, or -1 after reporting every error through d. */
int sema_check(struct node *prog, struct sema_probe *probes, int nprobes,
	       const struct sema_opts *o, struct diag *d, struct sema *out);
void sema_free(struct sema *s);
/* The map an N_MAP node names (index into s->maps), -1 if none. */
int sema_map_of(const struct node *n);
/* For ast_type_printer. */
void sema_type_printer(FILE *out, const struct type *t);
/* Is the memory an expression names (a field, element or dereference)
 * the traced program's (true) or the kernel's?  Told by the pointer it is
 * reached through: curtask and raw tracepoint arguments are kernel
 * pointers, DWARF variables and casts at uprobes user ones. */
bool sema_place_is_user(const struct node *n);
/* The type of `args` at a kprobe on a kernel source line (its variables
 * in kernel memory). */
const struct type *sema_kdwarf_args_type(void);
/* The string value of a positional parameter that is not a number. */
const char *sema_param(const struct sema *s, const struct node *n);

#endif
