/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * loop.c - the traced side of the per-hit benchmarks: calls hit() N times,
 * at most R times a second if R is given, and prints the
 * nanoseconds the loop took (loop_ns= on stderr), so that a tracer's start-up and exit are not
 * counted.  Uprobes go on hit(); its argument is the loop index, so
 * hist(arg0) sees varied values.  use_req() is called once, for probes
 * that read a struct member through DWARF (build with -g).
 *
 * With a third argument "sys" it calls getppid(2) instead of hit(), for
 * tracepoint:syscalls:sys_enter_getppid: a tracepoint costs far less than
 * a uprobe's trap, so the tracer's reading, not the probe, limits the rate.
 *
 * At start it writes "stamp_now=MS" (CLOCK_MONOTONIC) on stderr: under a
 * tracer's -c, that is the moment the tracer let it run, i.e. attached.
 *
 *   loop N [R [sys]]
 */
#define _GNU_SOURCE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

__attribute__((noipa)) long hit(long i)
{
	return i ^ 0x5a;
}

struct req {
	int id;
	long len;
	const char *name;
};

__attribute__((noipa)) long use_req(struct req *r)
{
	return r->len + r->id;
}

static long long clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	double rate = argc > 2 ? atof(argv[2]) : 0;
	int sys = argc > 3 && !strcmp(argv[3], "sys");
	volatile long sink = 0;
	struct req req = { 7, 4096, "bench" };
	long long t0 = now_ns(), c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);

	fprintf(stderr, "stamp_now=%.3f\n", t0 / 1e6);
	sink += use_req(&req);

	for (long i = 0; i < n; i++) {
		/* Pacing: wait for this call's slot (busy, so the rate holds). */
		if (rate > 0)
			while (now_ns() - t0 < (long long)(i * 1e9 / rate))
				;
		sink += sys ? syscall(SYS_getppid) : hit(i);
	}
	fprintf(stderr, "loop_ns=%lld\nloop_cpu_ns=%lld\n", now_ns() - t0,
		clock_ns(CLOCK_PROCESS_CPUTIME_ID) - c0);
	return sink == 42;
}
