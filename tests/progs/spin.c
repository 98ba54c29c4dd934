/* SPDX-License-Identifier: GPL-2.0-only */ /* spin [MS]: stays busy in user space for MS milliseconds (default 1000) of
 * wall-clock time. profile:hz:N fires on wall-clock time, so it can sample
 * this program at most about N * MS / 1000 times; fewer when the machine is
 * busy. Counting its own CPU time instead would not bound the samples: in a
 * guest, time stolen by the host is not CPU time, and a 1000 ms spin took
 * 1.8 s of wall-clock time and 180 samples at 99 Hz on a CI machine. */
#include <stdlib.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 1000, end = now_ms() + ms;
	volatile unsigned long x = 0;

	while (now_ms() < end)
		for (int i = 0; i < 10000; i++)
			x += i;
	return 0;
}
