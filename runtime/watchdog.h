/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * watchdog.h - a process that lets a stopped -p process go if perf-run
 * dies without doing it.
 *
 * A synchronous watchpoint stops the traced process (SIGSTOP from BPF)
 * until perf-run has set the breakpoint and sent SIGCONT.  Killed by
 * SIGKILL in between, perf-run could do neither, and the process stayed
 * stopped for ever (bpftrace 0.17 leaves it so too).  The watchdog is a
 * child forked before anything is loaded, holding only the read end of a
 * pipe: when the pipe ends without perf-run's word that it has let the
 * process go, perf-run died, and the watchdog sends the SIGCONT.
 */
#ifndef PR_WATCHDOG_H
#define PR_WATCHDOG_H

#include <stdbool.h>
#include <sys/types.h>

/* Starts the watchdog of target; the pipe's write end, or -1 (then
 * nothing watches, as before). */
int wd_start(pid_t target);

/* Whether pid is stopped (state T in /proc/PID/stat). */
bool wd_stopped(pid_t pid);

/* perf-run has let the target go (or never stopped it): the watchdog
 * ends without a signal. */
void wd_done(int fd);

#endif
