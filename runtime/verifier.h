/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verifier.h - a verifier rejection turned into one sentence at the script
 * construct that caused it: the failing instruction is found in the log,
 * its line and column in the object's BTF line info, and for the
 * instruction and complexity limits the loop (while, unroll) around it in
 * the script text.
 */
#ifndef PR_VERIFIER_H
#define PR_VERIFIER_H

#include "compiler/program.h"

/* Where and why: loc in the script (line 0: unknown) and the sentence
 * (malloc'd) that explains the rejection in the script's terms. */
struct vf_explain {
	struct loc loc;
	char *sentence;
};

/* Explains the rejection of p's program named `prog` (may be NULL: the
 * first) from the verifier's log.  Returns 0, or -1 if out of memory. */
int vf_explain(const struct program *p, const char *prog, const char *log,
	       struct vf_explain *out);
/* The index of the last instruction the log shows ("N: (op) ..."), or -1. */
int vf_last_insn(const char *log);
/* Line and column of instruction insn of program `prog` in p's BTF line
 * info; 0 if found, -1 if not. */
int vf_insn_loc(const struct program *p, const char *prog, int insn, struct loc *loc);
/* The line of the script a verifier log points at (its last "; ... @ FILE:LINE"
 * line info marker), or 0.  *msg gets the log's last meaningful line
 * (malloc'd) if msg is not NULL. */
int vf_log_line(const char *log, char **msg);

#endif
