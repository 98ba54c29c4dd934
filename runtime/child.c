/*
 * child.c - the traced command.  It is forked before compiling so that its
 * pid and executable are known to the compiler, then waits on a pipe
 * before exec: the first probe must be live before its first instruction
 * runs.  Writing a byte opens the gate; EOF without one means perf-run
 * died or gave up, and the child leaves without running the command.
 *
 * The child is also seized with ptrace, for two stops only: after each
 * exec and just before exit.  At both its memory map is complete and
 * readable, which /proc no longer offers once it has exited, and a short
 * command can exit before any poll sees it.  Every other stop (signals,
 * job control) is passed on as if no tracer were there.  If ptrace is
 * refused, the child runs untraced and the mappings are polled instead.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wordexp.h>

#include "child.h"

static bool child_is_exec(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

/* argv[0] resolved as execvp would, made absolute. */
static char *child_find(const char *name)
{
	char buf[PATH_MAX];
	if (strchr(name, '/'))
		return child_is_exec(name) ? realpath(name, NULL) : NULL;
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (const char *s = path; *s;) {
		const char *e = strchrnul(s, ':');
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)(e - s), s, name);
		if (e > s && child_is_exec(buf))
			return realpath(buf, NULL);
		s = *e ? e + 1 : e;
	}
	return NULL;
}

static void child_wait_gate(int fd, const char *path, char *const argv[])
{
	char c;
	ssize_t n;
	do
		n = read(fd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(127);   /* perf-run went away before the probes were live */
	close(fd);
	execv(path, argv);
	fprintf(stderr, "perf-run: cannot run '%s': %s\n", argv[0], strerror(errno));
	_exit(127);
}

int child_spawn(struct child *c, char *const argv[])
{
	int gate[2];

	memset(c, 0, sizeof(*c));
	c->gate_fd = c->pidfd = -1;
	if (!argv || !argv[0]) {
		fprintf(stderr, "perf-run: no command to run\n");
		return -1;
	}
	c->path = child_find(argv[0]);
	if (!c->path) {
		fprintf(stderr, "perf-run: cannot find '%s'%s\n", argv[0],
			strchr(argv[0], '/') ? ": no such executable" : " in PATH");
		return -1;
	}
	if (pipe2(gate, O_CLOEXEC)) {
		fprintf(stderr, "perf-run: cannot start '%s': %s\n", argv[0], strerror(errno));
		return -1;
	}
	fflush(NULL);
	c->pid = fork();
	if (c->pid < 0) {
		fprintf(stderr, "perf-run: cannot start '%s': %s\n", argv[0], strerror(errno));
		close(gate[0]);
		close(gate[1]);
		return -1;
	}
	if (c->pid == 0) {
		close(gate[1]);
		child_wait_gate(gate[0], c->path, argv);
	}
	close(gate[0]);
	c->gate_fd = gate[1];
	c->pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
	c->traced = ptrace(PTRACE_SEIZE, c->pid, NULL,
			   (void *)(long)(PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT)) == 0;
	return 0;
}

/* The first character wordexp refuses outside quotes (WRDE_BADCHAR), for
 * the message; a rough scan is enough since wordexp already said there is one. */
static char child_badchar(const char *s)
{
	char q = 0;
	for (; *s; s++) {
		if (*s == '\\' && q != '\'' && s[1])
			s++;
		else if (q ? *s == q : (*s == '\'' || *s == '"'))
			q = q ? 0 : *s;
		else if (!q && strchr("|&;<>(){}\n", *s))
			return *s;
	}
	return '?';
}

/* wordexp's refusal, said in the user's terms. */
static void child_wordexp_error(int r, const char *line)
{
	char bad;
	switch (r) {
	case WRDE_CMDSUB:
		fprintf(stderr, "perf-run: -c: command substitution ($(...) or `...`) is not run: '%s'\n",
			line);
		break;
	case WRDE_BADCHAR:
		bad = child_badchar(line);
		fprintf(stderr, "perf-run: -c: '%s' has an unquoted '%s%c', which -c does not run: "
			"it runs one command, not a shell line (for one, -c \"sh -c '...'\")\n",
			line, bad == '\n' ? "\\" : "", bad == '\n' ? 'n' : bad);
		break;
	case WRDE_SYNTAX:
		fprintf(stderr, "perf-run: -c: '%s' is not a well-formed command line "
			"(an unterminated quote?)\n", line);
		break;
	default:
		fprintf(stderr, "perf-run: -c: cannot split '%s': out of memory\n", line);
		break;
	}
}

int child_spawn_line(struct child *c, const char *line)
{
	wordexp_t we;
	int r = wordexp(line, &we, WRDE_NOCMD);

	if (r) {
		memset(c, 0, sizeof(*c));
		c->gate_fd = c->pidfd = -1;
		if (r == WRDE_NOSPACE)
			wordfree(&we);   /* glibc may have allocated part of it */
		child_wordexp_error(r, line);
		return -1;
	}
	r = child_spawn(c, we.we_wordc ? we.we_wordv : NULL);
	wordfree(&we);
	return r;
}

const char *child_path(const struct child *c)
{
	return c->path;
}

int child_release(struct child *c)
{
	if (c->gate_fd < 0)
		return 0;
	ssize_t n = write(c->gate_fd, "g", 1);
	close(c->gate_fd);
	c->gate_fd = -1;
	return n == 1 ? 0 : -1;
}

static bool child_job_stop(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* One ptrace stop of a traced child; lets it go on. */
static void child_stopped(struct child *c, int st, bool notify)
{
	int event = st >> 16, sig = 0;
	if (event == PTRACE_EVENT_EXEC || event == PTRACE_EVENT_EXIT) {
		c->execs += event == PTRACE_EVENT_EXEC;
		if (notify && c->at_stop)
			c->at_stop(c->arg, c->pid);
	} else if (event == PTRACE_EVENT_STOP) {
		if (child_job_stop(WSTOPSIG(st))) {
			/* a group stop: stays stopped until SIGCONT, as untraced */
			ptrace(PTRACE_LISTEN, c->pid, NULL, NULL);
			return;
		}
	} else {
		sig = WSTOPSIG(st);   /* signal-delivery stop: deliver it */
	}
	ptrace(PTRACE_CONT, c->pid, NULL, (void *)(long)sig);
}

/* Reaps the child or handles its stops; blocks only if `flags` lacks WNOHANG. */
static void child_wait(struct child *c, int flags, bool notify)
{
	int st;
	while (!c->exited && waitpid(c->pid, &st, flags | __WALL) == c->pid) {
		if (WIFSTOPPED(st)) {
			child_stopped(c, st, notify);
			continue;
		}
		c->status = st;
		c->exited = 1;
	}
}

int child_poll(struct child *c)
{
	child_wait(c, WNOHANG, true);
	return c->exited;
}

void child_kill(struct child *c)
{
	if (c->gate_fd >= 0) {
		close(c->gate_fd);   /* EOF at the gate: the child exits by itself */
		c->gate_fd = -1;
	}
	if (!c->exited && c->pid > 0) {
		kill(c->pid, SIGKILL);
		child_wait(c, 0, false);
	}
	if (c->pidfd >= 0) {
		close(c->pidfd);
		c->pidfd = -1;
	}
}
