/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * maprec.h - a process's executable mappings as the kernel announces them
 * (perf's PERF_RECORD_MMAP2 and exec COMM records, the way `perf record`
 * learns them), without stopping or tracing the process.  The records stay
 * readable after it has exited, when /proc shows no mappings any more.
 */
#ifndef PR_MAPREC_H
#define PR_MAPREC_H

#include <stdbool.h>
#include <sys/types.h>

struct maprec;

/* Starts recording pid and its threads (new ones included).  NULL if the
 * kernel refuses (errno set). */
struct maprec *mr_open(pid_t pid);
void mr_close(struct maprec *m);
/* Reads the records that came since the last call.  Returns a mask of
 * MR_EXEC (pid exec'd) and MR_MAPPED (a new executable mapping of pid). */
#define MR_EXEC   1
#define MR_MAPPED 2
int mr_read(struct maprec *m);
/* Execs of pid seen so far. */
int mr_execs(const struct maprec *m);
/* The mappings since pid's last exec in /proc/PID/maps format (a later
 * mapping hides an earlier one it overlaps), malloc'd; NULL if none. */
char *mr_maps_text(const struct maprec *m);

#endif
