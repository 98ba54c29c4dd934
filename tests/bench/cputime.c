/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * cputime.c - runs a command and writes the CPU time it used (user + system,
 * from wait4()) as "cpu_ns=N" on stderr: the traced side of the tracepoint
 * per-hit case (dd), where the cost of a probe is the CPU time it adds to
 * the traced process.  CPU time, unlike wall time, does not grow when other
 * work on the machine takes the CPU away, so the figure holds on a busy box.
 *
 * Like loop.c, it writes "stamp_now=MS" (CLOCK_MONOTONIC) on stderr as it
 * starts: under a tracer's -c that is the moment the probes are live.
 *
 *   cputime CMD [ARG...]
 */
#define _GNU_SOURCE

#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec ts;
	struct rusage ru;
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: cputime CMD [ARG...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	fprintf(stderr, "stamp_now=%.3f\n", ts.tv_sec * 1e3 + ts.tv_nsec / 1e6);
	pid = fork();
	if (pid < 0) {
		perror("cputime: fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		perror("cputime: exec");
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("cputime: wait4");
		return 1;
	}
	fprintf(stderr, "cpu_ns=%lld\n",
		(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
		(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
