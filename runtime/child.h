/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * child.h - the traced command of -c / --: forked before compiling (so its
 * pid is known), held before exec until every probe is attached, then
 * released; it is held again (ptrace) only from its exec until
 * child_resume(), and is not traced after.  Its exit ends the trace.
 */
#ifndef PR_CHILD_H
#define PR_CHILD_H

#include <sys/types.h>

struct maprec;

struct child {
	pid_t pid;
	int gate_fd;   /* write end: closing it lets the child exec */
	int err_fd;    /* read end: a failed exec's errno; EOF once exec'd */
	int pidfd;     /* its exit, -1 if unsupported */
	int status;    /* wait status once reaped */
	int exited;
	int traced;    /* seized with ptrace: stops once, right after its exec */
	int stopped;   /* in that stop, until child_resume() */
	int execs;     /* execs seen so far */
	int maps_new;  /* executable mappings announced since child_maps_text() */
	struct maprec *mr;   /* its mappings as the kernel announces them, or NULL */
	char *path;    /* absolute path of the executable, malloc'd */
	char *name;    /* argv[0] as given, malloc'd */
	/* Called when the child has exec'd, as soon as that is seen: at the
	 * stop after the first exec (mappings of the binary and ld.so only),
	 * then from child_poll().  May be NULL. */
	void (*on_exec)(void *arg, pid_t pid);
	void *arg;
};

/* argv[0] is looked up in PATH as execvp does.  Reports and returns -1 on error. */
int child_spawn(struct child *c, char *const argv[]);
/* Splits "cmd 'arg 1' \"$HOME\"" into words as a shell does (quotes,
 * backslashes, variables, globs: wordexp), refusing command substitution
 * and the characters of a shell line (| & ; < > ( ) { } newline), and
 * spawns it.  Reports and returns -1 on error. */
int child_spawn_line(struct child *c, const char *line);
/* The absolute path the child will exec (for attach points without BIN). */
const char *child_path(const struct child *c);
/* Lets the child exec and waits until it has: traced, it is then stopped
 * before its first instruction until child_resume().  Reports a failed
 * exec (the child is then reaped) and returns -1. */
int child_release(struct child *c);
/* Lets a child stopped after its exec run, untraced from then on. */
void child_resume(struct child *c);
/* Non-blocking: 1 if exited (and reaped), 0 if running.  Reads the
 * mappings announced meanwhile (maps_new, on_exec). */
int child_poll(struct child *c);
/* The mappings since its last exec, /proc/PID/maps format, malloc'd (NULL
 * if unknown); clears maps_new. */
char *child_maps_text(struct child *c);
void child_kill(struct child *c);

#endif
