// SPDX-License-Identifier: GPL-2.0-only
/* demo.c - the program `make demo` traces: calls work(us) 300 times with
 * sleep lengths spread over 1 us .. 2 ms, so a histogram of work's argument
 * has a visible shape.  Prints its own count and total to stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* noipa: the probe needs a real `work` symbol called on every iteration. */
__attribute__((noipa)) long work(long us)
{
	usleep((useconds_t)us);
	return us;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 300;
	unsigned seed = 12345;
	long total = 0;

	for (int i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		/* a power of two by one draw, a fraction of it by another: a
		 * log-shaped spread, as request latencies often are */
		unsigned shift = (seed >> 16) % 11;
		total += work((1L << shift) + (long)((seed >> 8) % (1u << shift)));
	}
	fprintf(stderr, "demo: %d calls of work(), %ld us asked in total\n", n, total);
	return 0;
}
