/* SPDX-License-Identifier: GPL-2.0-only */ /* flame [MS]: burns CPU for MS milliseconds (default 1000) of wall-clock
 * time in a known shape for profile formats: main -> run -> descend
 * (three levels of recursion) -> hot, three quarters of the work, and
 * main -> run -> cold, one quarter.  Prints "hot=H cold=C" (calls) on
 * stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* each its own loop: the samples' leaf is hot or cold itself */
__attribute__((noipa)) void hot(void)
{
	for (int i = 0; i < 300000; i++)
		sink += (unsigned long)i * 7;
}

__attribute__((noipa)) void cold(void)
{
	for (int i = 0; i < 100000; i++)
		sink += (unsigned long)i * 7;
}

__attribute__((noipa)) void descend(int depth)
{
	if (depth > 0)
		descend(depth - 1);
	else
		hot();
	sink++;
}

__attribute__((noipa)) void run(double ms)
{
	double end = now_ms() + ms;
	unsigned long h = 0, c = 0;

	while (now_ms() < end) {
		descend(3);
		h++;
		cold();
		c++;
	}
	fprintf(stderr, "hot=%lu cold=%lu\n", h, c);
}

int main(int argc, char **argv)
{
	run(argc > 1 ? atof(argv[1]) : 1000);
	return 0;
}
