/* SPDX-License-Identifier: GPL-2.0-only */ /* forker N [orphan]: calls func(i) N times, forks a child that calls func
 * N times too, waits for it, then calls func N more times.  A trace of the
 * command (-c, bpftrace's meaning: that process, not its children) sees 2N
 * calls.  With "orphan" the parent does not wait: it exits while the child
 * sleeps 2 s more with its output closed, and the trace must end with the
 * parent, not the child. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noipa)) int func(int i)
{
	return i + 1;
}

static void calls(int n)
{
	for (int i = 0; i < n; i++)
		func(i);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	int orphan = argc > 2 && !strcmp(argv[2], "orphan");

	calls(n);
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		calls(n);
		if (orphan) {
			fclose(stdout);
			fclose(stderr);
			sleep(2);
		}
		_exit(0);
	}
	if (!orphan)
		waitpid(pid, NULL, 0);
	calls(n);
	fprintf(stderr, "parent=%d child=%d\n", 2 * n, n);
	return 0;
}
