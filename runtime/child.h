/*
 * child.h - the traced command of -c / --: forked before compiling (so its
 * pid is known), held before exec until every probe is attached, then
 * released; its exit ends the trace.  Where ptrace allows, the child is
 * seized (PTRACE_SEIZE, no stop of its own) only to be told of its execs
 * and its exit while its memory map can still be read.
 */
#ifndef PR_CHILD_H
#define PR_CHILD_H

#include <sys/types.h>

struct child {
	pid_t pid;
	int gate_fd;   /* write end: closing it lets the child exec */
	int pidfd;     /* becomes readable when the child exits, -1 if unsupported */
	int status;    /* wait status once reaped */
	int exited;
	int traced;    /* seized with ptrace: stops at each exec and at exit */
	int execs;     /* execs seen so far (only counted when traced) */
	char *path;    /* absolute path of the executable, malloc'd */
	/* Called while the child is stopped right after an exec and right
	 * before it exits, when its mappings are complete and still readable
	 * (user symbols are needed after it is gone).  May be NULL. */
	void (*at_stop)(void *arg, pid_t pid);
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
int child_release(struct child *c);
/* Non-blocking: 1 if exited (and reaped), 0 if running.  Also lets a
 * traced child go on from the stops it is in (calling at_stop). */
int child_poll(struct child *c);
void child_kill(struct child *c);

#endif
