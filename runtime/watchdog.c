// SPDX-License-Identifier: GPL-2.0-only
/*
 * watchdog.c - a process that lets a stopped -p process go if perf-run
 * dies without doing it (why: watchdog.h).  The child runs only
 * async-signal-safe calls: perf-run may have threads when it forks.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "watchdog.h"

#define WD_DONE 'd'

/* comm may hold anything, so the state is after the last ')'; open and
 * read only: the watchdog child calls it too. */
bool wd_stopped(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	const char *paren = strrchr(buf, ')');
	return paren && paren[1] == ' ' && paren[2] == 'T';
}

/* The child: nothing of perf-run's stays open (a BPF link, a pipe's write
 * end that a reader waits on, the terminal), Ctrl-C is perf-run's to
 * handle; then it waits for the pipe to end. */
static void wd_child(int rfd, pid_t target)
{
	int null = open("/dev/null", O_RDWR);
	char c = 0;

	for (int s = 1; s < NSIG; s++)
		signal(s, s == SIGKILL || s == SIGSTOP ? SIG_DFL : SIG_IGN);
	if (null >= 0)
		for (int i = 0; i < 3; i++)
			dup2(null, i);
	if (dup2(rfd, 3) != 3)
		_exit(1);
	close_range(4, ~0u, 0);
	prctl(PR_SET_NAME, "perf-run-wd");
	while (read(3, &c, 1) < 0)
		;
	if (c != WD_DONE && wd_stopped(target))
		kill(target, SIGCONT);
	_exit(0);
}

int wd_start(pid_t target)
{
	int p[2];

	if (target <= 0 || pipe2(p, O_CLOEXEC))
		return -1;
	pid_t pid = fork();
	if (pid == 0)
		wd_child(p[0], target);
	close(p[0]);
	if (pid < 0) {
		close(p[1]);
		return -1;
	}
	return p[1];
}

void wd_done(int fd)
{
	char c = WD_DONE;

	if (fd < 0)
		return;
	if (write(fd, &c, 1) != 1) {
		/* the watchdog is gone: nothing to tell */
	}
	close(fd);
}
