/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * events.h - ring buffer records to actions: printf, print, clear, zero,
 * time, exit, system, cat, join; and printing maps for print() and at exit.
 */
#ifndef PR_EVENTS_H
#define PR_EVENTS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "compiler/program.h"
#include "format.h"

struct pf;

struct ev_ctx {
	const struct program *p;
	FILE *out;
	bool json;
	/* -f folded: stack-keyed maps as folded stacks (mp_folded), the
	 * others as text; fold_names: more than one such map, so each line
	 * starts with its map's name */
	bool folded, fold_names;
	bool fold_perf;   /* -f folded-perf: mp_folded_perf's layout */
	const int *map_fds;    /* fd of each p->maps[i], -1 if not found */
	struct fmt_ctx fc;
	/* -f perf, -f pprof: stack-keyed maps' prints are kept here (NULL
	 * otherwise) and written at exit; the other maps print as text */
	struct pf *prof;
	bool exit_requested;   /* an exit() record was seen */
	uint64_t clears;       /* clear() records run: ustack ids may be free (stackids.h) */
	int64_t exit_code;     /* of the exit(code) seen last (END may call one), else 0 */
	uint64_t bad;          /* records that did not decode */
	/* exit()'s flag in the program's memory, NULL if no exit(): once it is
	 * seen set, at most flag_budget more bytes (a full ring buffer) can
	 * have come before its record, which may have been lost */
	const volatile uint64_t *exit_flag;
	uint64_t flag_budget, after_flag;
	/* each map's failed updates in the program's memory (NULL if not
	 * mapped), and how many of them a print of the map has said */
	const volatile uint64_t *map_drops;
	uint64_t *drops_said;
	const volatile sig_atomic_t *stop;   /* nonzero: SIGINT or SIGTERM came */
	/* after a stop by signal: system() records still queued are not run
	 * (each may take as long as it likes), only counted */
	bool no_system;
	uint64_t system_skipped;
	/* Output that could not be written: records (and printed maps) since
	 * the last good flush, those lost to failed flushes, and the first
	 * error (0 if none). */
	uint64_t pending, unwritten;
	int write_errno;
	/* ACT_WATCH: sets the watchpoint of probe p at addr (run.c); returns
	 * EV_WATCH_NOSPC when the CPU has no breakpoint register left */
	int (*watch)(void *arg, const struct probe *p, uint64_t addr);
	void (*unwatch)(void *arg, uint64_t addr);   /* ACT_UNWATCH: every watchpoint at addr */
	void *watch_arg;
};

/* ring_buffer_sample_fn: decodes one record and runs its action.  Returns
 * -EINTR once the run should stop, so that a poll under a flood of records
 * returns. */
int ev_record(void *ctx, void *data, size_t len);
#define EV_WATCH_NOSPC 1
/* print(@map, top, div) now. */
void ev_print_map(struct ev_ctx *e, int map, int64_t top, int64_t div);
/* Flushes the output; a failure counts the records it lost (ev_ctx). */
void ev_flush(struct ev_ctx *e);
/* At exit: every non-empty map in name order, as bpftrace does. */
void ev_print_maps(struct ev_ctx *e, bool at_exit);

#endif
