// SPDX-License-Identifier: GPL-2.0-only
/*
 * child.c - the traced command.  It is forked before compiling so that its
 * pid and executable are known to the compiler, then waits on a pipe
 * before exec: the first probe must be live before its first instruction
 * runs.  Writing a byte opens the gate; EOF without one means perf-run
 * died or gave up, and the child leaves without running the command.
 *
 * Seized with ptrace for one stop only, right after its exec: whether the
 * exec worked is known before BEGIN runs, and BEGIN's output comes before
 * the command's first instruction.  Then it is detached, so that none of
 * its signals ever waits on perf-run (a tracee stops at every signal until
 * its tracer lets it go).  Its exit is read from a pidfd, its mappings
 * from the kernel's perf records (maprec.h), which outlive it.  If ptrace
 * is refused it is not held after exec (BEGIN runs before it starts, as
 * before); a failed exec comes back through a close-on-exec pipe.  The
 * kernel kills it (PR_SET_PDEATHSIG) when perf-run dies, however it dies.
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
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wordexp.h>

#include "child.h"
#include "maprec.h"

static bool child_is_exec(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

/* argv[0] resolved as execvp would (malloc'd), symbolic links kept: the
 * exec goes through them, as bpftrace's, so comm and /proc/PID/exe name
 * the link (python3, not python3.11). */
static char *child_find(const char *name)
{
	char buf[PATH_MAX];
	if (strchr(name, '/'))
		return child_is_exec(name) ? strdup(name) : NULL;
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (const char *s = path; *s;) {
		const char *e = strchrnul(s, ':');
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)(e - s), s, name);
		if (e > s && child_is_exec(buf))
			return strdup(buf);
		s = *e ? e + 1 : e;
	}
	return NULL;
}

/* In the child: waits for the gate, then execs; a failed exec's errno
 * goes back through err_fd (closed by the exec when it succeeds). */
static void child_wait_gate(int fd, int err_fd, const char *path, char *const argv[])
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
	int e = errno;
	if (write(err_fd, &e, sizeof(e)) < 0) {
		/* perf-run is gone: nobody to tell */
	}
	_exit(127);
}

static void child_fds_init(struct child *c)
{
	memset(c, 0, sizeof(*c));
	c->gate_fd = c->pidfd = c->err_fd = -1;
}

int child_spawn(struct child *c, char *const argv[])
{
	int gate[2], err[2];

	child_fds_init(c);
	if (!argv || !argv[0]) {
		fprintf(stderr, "perf-run: no command to run\n");
		return -1;
	}
	char *found = child_find(argv[0]);
	c->path = found ? realpath(found, NULL) : NULL;
	if (!c->path) {
		fprintf(stderr, "perf-run: cannot find '%s'%s\n", argv[0],
			strchr(argv[0], '/') ? ": no such executable" : " in PATH");
		free(found);
		return -1;
	}
	if (pipe2(gate, O_CLOEXEC)) {
		fprintf(stderr, "perf-run: cannot start '%s': %s\n", argv[0], strerror(errno));
		free(found);
		return -1;
	}
	if (pipe2(err, O_CLOEXEC)) {
		fprintf(stderr, "perf-run: cannot start '%s': %s\n", argv[0], strerror(errno));
		close(gate[0]);
		close(gate[1]);
		free(found);
		return -1;
	}
	fflush(NULL);
	pid_t parent = getpid();
	c->pid = fork();
	if (c->pid < 0) {
		fprintf(stderr, "perf-run: cannot start '%s': %s\n", argv[0], strerror(errno));
		close(gate[0]);
		close(gate[1]);
		close(err[0]);
		close(err[1]);
		free(found);
		return -1;
	}
	if (c->pid == 0) {
		/* the command never outlives perf-run, even one killed by
		 * SIGKILL (nothing else is left to kill it since ptrace lets it
		 * go after exec); perf-run may be gone before the prctl */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(127);
		close(gate[1]);
		close(err[0]);
		child_wait_gate(gate[0], err[1], found, argv);
	}
	free(found);
	close(gate[0]);
	close(err[1]);
	c->gate_fd = gate[1];
	c->err_fd = err[0];
	c->pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
	c->mr = mr_open(c->pid);
	c->traced = ptrace(PTRACE_SEIZE, c->pid, NULL, (void *)(long)PTRACE_O_TRACEEXEC) == 0;
	c->name = strdup(argv[0]);
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
		/* wordexp also says so of $((...)) and ${...} forms it will not
		 * expand without a shell */
		fprintf(stderr, "perf-run: -c: '%s' is not a command line -c splits: an "
			"unterminated quote, or a shell expansion ($((...)), ${...}) it does not "
			"run (for one, -c \"sh -c '...'\")\n", line);
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
		child_fds_init(c);
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

/* The ELF class and machine of path: "i386" for a 32-bit x86 program, or
 * "ELF" for another ELF, NULL if not an ELF file. */
static const char *child_elf_kind(const char *path)
{
	unsigned char h[20];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	ssize_t n = fd >= 0 ? read(fd, h, sizeof(h)) : -1;

	if (fd >= 0)
		close(fd);
	if (n < (ssize_t)sizeof(h) || memcmp(h, "\177ELF", 4))
		return NULL;
	/* e_machine at 18, little-endian on x86: EM_386 is 3 */
	return h[4] == 1 && h[5] == 1 && h[18] == 3 && h[19] == 0 ? "i386" : "ELF";
}

/* A failed exec, said in the user's terms: exec's errors name the file
 * even when what is missing is its interpreter. */
static void child_exec_error(const struct child *c, int e)
{
	const char *why = strerror(e), *elf = e == ENOEXEC ? child_elf_kind(c->path) : NULL;
	if (elf && !strcmp(elf, "i386"))
		why = "it is a 32-bit (i386) program, which this kernel cannot run (no IA32 "
		      "emulation: CONFIG_IA32_EMULATION or ia32_emulation=0), or a damaged one";
	else if (elf)
		why = "it is an ELF program for another machine or ABI than this kernel runs";
	else if (e == ENOEXEC)
		why = "not a format the kernel runs (a script needs a #! line)";
	else if (e == ENOENT)
		why = "its interpreter (#! line or ELF program interpreter) does not exist";
	fprintf(stderr, "perf-run: cannot run '%s': %s\n", c->name ? c->name : c->path, why);
}

/* After the child has exited before exec'ing: why, from err_fd. */
static int child_exec_failed(struct child *c)
{
	int e = 0;
	ssize_t n = c->err_fd >= 0 ? read(c->err_fd, &e, sizeof(e)) : -1;
	if (n == (ssize_t)sizeof(e))
		child_exec_error(c, e);
	else
		fprintf(stderr, "perf-run: the command '%s' ended before it could run\n",
			c->name ? c->name : c->path);
	return -1;
}

static void child_reaped(struct child *c, int st)
{
	c->status = st;
	c->exited = 1;
	if (c->mr)
		c->maps_new |= mr_read(c->mr) & MR_MAPPED;   /* its last mappings */
}

/* Traced: waits for the stop right after the exec, letting signals that
 * come first through. */
static int child_wait_exec_stop(struct child *c)
{
	int st;
	for (;;) {
		pid_t w = waitpid(c->pid, &st, __WALL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w != c->pid) {
			fprintf(stderr, "perf-run: cannot follow the command: %s\n", strerror(errno));
			return -1;
		}
		if (!WIFSTOPPED(st)) {
			child_reaped(c, st);
			return child_exec_failed(c);
		}
		int event = st >> 16;
		if (event == PTRACE_EVENT_EXEC) {
			c->stopped = 1;
			return 0;
		}
		if (event == PTRACE_EVENT_STOP)   /* a group stop: until SIGCONT */
			ptrace(PTRACE_LISTEN, c->pid, NULL, NULL);
		else
			ptrace(PTRACE_CONT, c->pid, NULL, (void *)(long)WSTOPSIG(st));
	}
}

/* Untraced: the exec closes err_fd; a failed one writes its errno first. */
static int child_wait_exec_pipe(struct child *c)
{
	int e;
	ssize_t n;
	do
		n = read(c->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(e)) {
		child_exec_error(c, e);
		child_kill(c);
		return -1;
	}
	return 0;
}

static void child_execed(struct child *c, int execs)
{
	if (execs <= c->execs)
		return;
	c->execs = execs;
	if (c->on_exec)
		c->on_exec(c->arg, c->pid);
}

int child_release(struct child *c)
{
	if (c->gate_fd < 0)
		return 0;
	ssize_t n = write(c->gate_fd, "g", 1);
	close(c->gate_fd);
	c->gate_fd = -1;
	if (n != 1) {
		fprintf(stderr, "perf-run: cannot start the traced command: %s\n", strerror(errno));
		return -1;
	}
	int r = c->traced ? child_wait_exec_stop(c) : child_wait_exec_pipe(c);
	close(c->err_fd);
	c->err_fd = -1;
	if (r == 0)
		child_execed(c, 1);
	return r;
}

void child_resume(struct child *c)
{
	if (!c->stopped)
		return;
	/* from here on its signals are its own: nothing waits on us */
	ptrace(PTRACE_DETACH, c->pid, NULL, NULL);
	c->stopped = 0;
}

/* Non-blocking reap: through the pidfd where there is one. */
static void child_try_reap(struct child *c, int flags)
{
	siginfo_t si;
	int st;

	if (c->exited)
		return;
	if (c->pidfd >= 0 && !(flags & __WALL)) {
		memset(&si, 0, sizeof(si));
		if (waitid(P_PIDFD, (id_t)c->pidfd, &si, WEXITED | flags) == 0 &&
		    si.si_pid == c->pid)
			child_reaped(c, si.si_code == CLD_EXITED ? W_EXITCODE(si.si_status, 0) :
				     si.si_status);
		return;
	}
	pid_t w;
	for (;;) {
		w = waitpid(c->pid, &st, flags);
		if (w < 0 && errno == EINTR)
			continue;
		if (w == c->pid && WIFSTOPPED(st) && !(flags & WNOHANG))
			continue;   /* a stop reported before the SIGKILL */
		break;
	}
	if (w == c->pid && !WIFSTOPPED(st))
		child_reaped(c, st);
}

int child_poll(struct child *c)
{
	if (c->exited)
		return 1;
	if (c->mr) {
		int what = mr_read(c->mr);
		c->maps_new |= what & MR_MAPPED;
		if (what & MR_EXEC)
			child_execed(c, mr_execs(c->mr));
	}
	child_try_reap(c, WNOHANG);
	return c->exited;
}

char *child_maps_text(struct child *c)
{
	c->maps_new = 0;
	return c->mr ? mr_maps_text(c->mr) : NULL;
}

void child_kill(struct child *c)
{
	if (c->gate_fd >= 0) {
		close(c->gate_fd);   /* EOF at the gate: the child exits by itself */
		c->gate_fd = -1;
	}
	if (!c->exited && c->pid > 0) {
		kill(c->pid, SIGKILL);
		child_try_reap(c, __WALL);
	}
	if (c->pidfd >= 0) {
		close(c->pidfd);
		c->pidfd = -1;
	}
	if (c->err_fd >= 0) {
		close(c->err_fd);
		c->err_fd = -1;
	}
	mr_close(c->mr);
	c->mr = NULL;
	free(c->name);
	c->name = NULL;
}
