/* SPDX-License-Identifier: GPL-2.0-only */ /* wpfunc N [K [MS]]: calls increment(0, &v[i % K]) N times, K (default 1)
 * distinct ints, after sleeping MS milliseconds (for -p PID): a target for bpftrace's watchpoint:increment+arg1 form,
 * where a uprobe at increment() watches the int its arg1 points to.  A
 * synchronous watchpoint stops the process (SIGSTOP) at increment()'s entry
 * until the tracer has set the watchpoint and sent SIGCONT: the SIGCONTs
 * are counted.  Prints what a trace must see to stderr.  (Whether this
 * machine's breakpoints fire: tests/progs/kcan bpfires.) */
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile sig_atomic_t conts;

static void on_cont(int sig)
{
	(void)sig;
	conts++;
}

/* The nop keeps the write out of the first instruction: the uprobe runs
 * that one out of line, before a signal (the SIGSTOP) can stop the process,
 * so a write there would come before the watchpoint is set. */
__attribute__((noinline)) void increment(int unused, int *i)
{
	(void)unused;
	__asm__ volatile("nop" ::: "memory");
	(*i)++;
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	int k = argc > 2 ? atoi(argv[2]) : 1;
	int ms = argc > 3 ? atoi(argv[3]) : 0;
	int *v = calloc(k > 0 ? (size_t)k : 1, 64);   /* 64 bytes apart: one slot each */

	if (!v || k < 1)
		return 2;
	signal(SIGCONT, on_cont);
	if (ms > 0)
		usleep((useconds_t)ms * 1000);
	for (int j = 0; j < n; j++)
		increment(0, &v[(j % k) * 16]);
	fprintf(stderr, "calls=%d first=%d sigconts=%d\n", n, v[0], (int)conts);
	return 0;
}
