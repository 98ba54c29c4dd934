/* SPDX-License-Identifier: GPL-2.0-only */ /* swapper A.so B.so ROUNDS MS: ROUNDS times, dlopen()s A, runs its sw_run
 * for MS ms through run_lib, dlclose()s it, then the same with B: the two
 * land at one address, so a frame of A printed after B was mapped there
 * must not be named after B's functions (reliability-2 N10).  Prints
 * "swapper rounds=R". */
#include <dlfcn.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>

typedef long (*run_fn)(double);

__attribute__((noipa)) long run_lib(run_fn f, double ms)
{
	long n = f(ms);

	return n + 1;   /* work after the call: no tail call */
}

static int one(const char *path, double ms)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	run_fn f = h ? (run_fn)(uintptr_t)dlsym(h, "sw_run") : NULL;

	if (!f) {
		fprintf(stderr, "swapper: %s\n", dlerror());
		return -1;
	}
	run_lib(f, ms);
	dlclose(h);
	return 0;
}

int main(int argc, char **argv)
{
	int rounds = argc > 3 ? atoi(argv[3]) : 1;
	double ms = argc > 4 ? atof(argv[4]) : 100;

	if (argc < 3)
		return 2;
	for (int r = 0; r < rounds; r++)
		if (one(argv[1], ms) || one(argv[2], ms))
			return 1;
	printf("swapper rounds=%d\n", rounds);
	return 0;
}
