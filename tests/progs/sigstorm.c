/* SPDX-License-Identifier: GPL-2.0-only */ /* sigstorm N [DELAY_MS [FILE]]: after DELAY_MS ms, sends itself SIGUSR1 N
 * times, each handled before the next (a signal handler counts them), then
 * prints "signals=N tracer=T" (T: TracerPid of /proc/self/status) on stdout
 * and, with FILE, into FILE: a traced command's signals must not wait on
 * the tracer, and it must not be ptrace'd while it runs. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t got;

static void on_usr1(int sig)
{
	(void)sig;
	got++;
}

__attribute__((noipa)) int sigstorm_done(int n)
{
	return n;
}

static int tracer(void)
{
	char line[256];
	int t = -1;
	FILE *f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "TracerPid:", 10))
			t = atoi(line + 10);
	if (f)
		fclose(f);
	return t;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	long delay = argc > 2 ? atol(argv[2]) : 0;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	if (delay > 0) {
		struct timespec ts = { delay / 1000, delay % 1000 * 1000000 };
		nanosleep(&ts, NULL);
	}
	for (int i = 0; i < n; i++)
		kill(getpid(), SIGUSR1);   /* delivered before kill() returns */
	char out[64];
	snprintf(out, sizeof(out), "signals=%d tracer=%d\n", (int)got, tracer());
	fputs(out, stdout);
	fflush(stdout);
	if (argc > 3) {
		FILE *f = fopen(argv[3], "w");
		if (f) {
			fputs(out, f);
			fclose(f);
		}
	}
	return sigstorm_done((int)got) == n ? 0 : 1;
}
