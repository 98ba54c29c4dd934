/* SPDX-License-Identifier: GPL-2.0-only */ /* ticker N MS: prints "ticker started", calls tick(i) and tock(i) N times,
 * sleeping MS milliseconds between calls, then prints "ticks=N": a slow,
 * long-lived target (for -p, for killing the tracer while attached, for
 * replacing the binary once it runs). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((noipa)) int tick(int i)
{
	return i ^ 1;
}

__attribute__((noipa)) int tock(int i)
{
	return i ^ 2;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	int ms = argc > 2 ? atoi(argv[2]) : 10;

	fprintf(stderr, "ticker started\n");
	for (int i = 0; i < n; i++) {
		tick(i);
		tock(i);
		usleep((useconds_t)ms * 1000);
	}
	fprintf(stderr, "ticks=%d\n", n);
	return 0;
}
