/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * run.h - the runtime's one entry point: load a compiled program, attach
 * it, run BEGIN, loop over ring buffer records until exit()/Ctrl-C/the
 * traced command ends, run END, print the maps, detach.
 *
 * Everything attached is owned by a file descriptor of this process, so a
 * SIGKILL leaves nothing behind.
 */
#ifndef PR_RUN_H
#define PR_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "compiler/program.h"

/* RT_PERF, RT_PPROF: stack-keyed maps go into a file (prof_fd), the rest
 * is text on out (runtime/profile.h). */
enum rt_format { RT_TEXT, RT_JSON, RT_FOLDED, RT_PERF, RT_PPROF, RT_FOLDED_PERF };

struct rt_opts {
	FILE *out;            /* printf output and maps (stdout or -o FILE) */
	enum rt_format format;
	bool quiet;           /* -q: no "Attached ..." line */
	int verbose;          /* -v: raw verifier log, libbpf messages */
	pid_t pid;            /* -p PID or the traced command, 0 if none */
	struct child *child;  /* the traced command (-c / --), gated until attach; or NULL */
	double start_ms;      /* CLOCK_MONOTONIC ms at exec, for "Attached N probes in T ms" */
	bool dry_run;         /* --dry-run: stop once attached, before BEGIN runs */
	bool command_status;  /* --command-status: exit with the command's status */
	struct program *(*recompile)(void *arg, const char *prog);  /* loader.h */
	void *recompile_arg;
	int prof_fd;          /* RT_PERF, RT_PPROF: the -o file, written at exit */
	const char *prof_path;   /* its name, for messages */
	char **cmdline;       /* perf-run's own argv (perf.data's cmdline), or NULL */
	const char *listen;   /* --listen ADDR:PORT: serve the maps as metrics (exporter.h), or NULL */
	uint32_t max_series;  /* --max-series: keys of one map served at most (0: the default) */
};

/* Returns the process exit status: 0 on success, 1 on error (already
 * reported on stderr), exit(N)'s N; with command_status, a traced command
 * that ended on its own gives its status (128+N if killed by signal N). */
int rt_run(struct program *p, const struct rt_opts *o, struct diag *d);

#endif
