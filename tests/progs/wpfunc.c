/* wpfunc N [K [MS]]: calls increment(0, &v[i % K]) N times, K (default 1)
 * distinct ints, after sleeping MS milliseconds (for -p PID): a target for bpftrace's watchpoint:increment+arg1 form,
 * where a uprobe at increment() watches the int its arg1 points to.  A
 * synchronous watchpoint stops the process (SIGSTOP) at increment()'s entry
 * until the tracer has set the watchpoint and sent SIGCONT: the SIGCONTs
 * are counted.  Prints what a trace must see to stderr.
 * wpfunc check: exits 0 if this machine's breakpoint PMU counts writes (a
 * watchpoint on its own variable, written 3 times), for the cases that
 * expect hits. */
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

static int bp_fires(void)
{
	static volatile int x;
	struct perf_event_attr a;
	uint64_t n = 0;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_BREAKPOINT;
	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = (uintptr_t)&x;
	a.bp_len = HW_BREAKPOINT_LEN_4;
	a.exclude_kernel = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		perror("perf_event_open(breakpoint)");
		return 1;
	}
	for (int i = 0; i < 3; i++)
		x = i;
	if (read(fd, &n, sizeof(n)) != sizeof(n))
		n = 0;
	fprintf(stderr, "breakpoint hits=%llu of 3\n", (unsigned long long)n);
	return n == 3 ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "check"))
		return bp_fires();
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
