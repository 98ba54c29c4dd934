/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * unwind.h - the unwind tables of `ustack` through CFI: for every object
 * the trace can see (the binaries of the uprobes, the traced command, the
 * -p process's mappings, and the libraries each of them needs), rows built
 * from .eh_frame by libdw (dwarf_cfi_addrframe), put into the program's
 * BPF maps before the probes are attached (program.h, struct pr_uw_row).
 * Objects the BPF side meets later (a dlopen'd library, a process that
 * started after us, any process under a system-wide probe) are asked for
 * through a ring and loaded into the rows map's headroom while the trace
 * runs (uw_poll); stacks that reach one before that end at a counted note.
 * A script without ustack builds nothing.
 */
#ifndef PR_UNWIND_H
#define PR_UNWIND_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "compiler/program.h"

struct bpf_object;
struct uw;

/* Gives obj's array of row chunks, if it has one, the template map it is
 * created with (before the object is loaded): *fd the template's, to be
 * closed once obj is loaded, or -1 if obj has no such array.  0, or -1 if
 * the template cannot be made.  uw_build does it; a loader of its own
 * (the unit tests') must too. */
int uw_chunks_template(struct bpf_object *obj, int *fd);

/* Builds the rows (before the object is loaded: the rows map is sized to
 * them).  NULL if the program does not unwind through CFI or nothing was
 * found; verbose > 0 reports each object's rows and the build time;
 * progress: a build that takes more than a second says how far it is on
 * stderr. */
struct uw *uw_build(const struct program *p, struct bpf_object *obj, pid_t pid,
		    const char *child_path, int verbose, bool progress);
/* After load: writes the rows and the objects into their maps; -1 with
 * errno on failure. */
int uw_fill(struct uw *u, const struct program *p, struct bpf_object *obj);
/* The BPF side asks for objects it meets without an entry through a
 * ring: its epoll fd (-1 if none), to wait on in the event loop, and
 * uw_poll() loads what it asked for into the maps. */
int uw_poll_fd(const struct uw *u);
void uw_poll(struct uw *u);
/* At exit, on stderr: stacks that ended at an object whose tables were
 * still loading or did not fit. */
void uw_report(const struct uw *u);
/* The rows of one ELF file, built (not cached), sorted: for tests.
 * Returns the count, or -1 if it cannot be read; *rows is malloc'd. */
long uw_file_rows(const char *path, struct pr_uw_row **rows);
void uw_free(struct uw *u);
/* The key of the object a CFI ustack pc's tag names (pr_uw_tag), false
 * if the tag names none. */
bool uw_tag_key(struct uw *u, unsigned tag, struct pr_uw_key *k);

#endif
