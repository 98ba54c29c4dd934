/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * stackids.h - giving `ustack` ids back.
 *
 * A CFI ustack is stored as an id (cg_unwind.c): the BPF side keeps the
 * pcs by id and the id by pcs, and ids come from a counter that stops at
 * PR_UW_MAX_STACKS.  A long profile that prints and clears @[ustack]
 * every second meets more distinct stacks than that, so ids are reclaimed
 * here, in the event loop: an id whose stack was not met for
 * PR_UW_IDLE_TICKS and that no map holds goes back to the queue the BPF
 * side takes ids from first.
 *
 * Order matters, since a probe may be between finding an id and storing
 * it in a map: the id's pcs -> id entry is removed first, so that no
 * probe can find it any more; then every non-sleepable program that may
 * still hold it has ended (synchronize_rcu, through an update of a map of
 * maps), records in the ring buffer that may name it are read (the
 * caller's drain), and only then are the maps searched for it.  Held: it
 * is linked again (or, if a new id was given to the same stack meanwhile,
 * it stays until no map holds it).  When a program may sleep, the last
 * step waits for the next collection (a second or more later).
 */
#ifndef PR_STACKIDS_H
#define PR_STACKIDS_H

#include <stdbool.h>
#include <stdint.h>

#include "compiler/program.h"

struct bpf_object;
struct stackids;

/* NULL if the program has no CFI ustack (or on failure: ids then run out
 * as before, each said as a note). */
struct stackids *si_new(const struct program *p, struct bpf_object *obj, const int *map_fds);

/* Reads every record committed to the ring buffer so far. */
typedef void (*si_drain_fn)(void *arg);

/* Collects if `clears` moved since the last call (a map was cleared) or
 * three quarters of the ids are out, at most once a second; returns the
 * ids given back. */
uint32_t si_collect(struct stackids *s, uint64_t clears, si_drain_fn drain, void *arg);

/* Whether a new stack finds no id: the counter is past the last one and
 * none was given back. */
bool si_full(const struct stackids *s);

/* Collections run, ids given back and the milliseconds it took, for -v. */
void si_stats(const struct stackids *s, uint64_t *runs, uint64_t *freed, double *ms);

void si_free(struct stackids *s);

#endif
