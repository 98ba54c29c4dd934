/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * config.h - newer bpftrace's config variables: a script's
 * `config = { name = value; ... }` block and the BPFTRACE_* environment
 * variables, which win over the block (as bpftrace's docs say).
 *
 * Only the variables perf-run can honour are accepted; one it cannot is
 * an error naming it, never silently ignored, unless it has no visible
 * effect here (license, log_size, ...).
 */
#ifndef PR_CONFIG_H
#define PR_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "ast.h"
#include "lib/diag.h"

struct pr_settings {
	uint32_t max_map_keys;      /* entries of a map with keys, 0: the default */
	uint32_t max_strlen;        /* str()'s default size */
	bool no_exit_print;         /* print_maps_on_exit = false */
	bool no_demangle;           /* cpp_demangle = false, BPFTRACE_NO_CPP_DEMANGLE=1 */
};

/* Defaults, then the script's config blocks (N_BLOCK nodes of the
 * program), then the environment.  Returns 0, or -1 after reporting. */
int cfg_read(const struct node *prog, struct pr_settings *s, struct diag *d);
/* Whether C++ and Rust names are demangled as far as the config blocks and
 * the environment say (cpp_demangle, BPFTRACE_NO_CPP_DEMANGLE): for probe
 * resolution, which runs before sema reads the settings; reports nothing. */
bool cfg_demangle(const struct node *prog);

#endif
