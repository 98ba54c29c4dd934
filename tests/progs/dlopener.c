/* SPDX-License-Identifier: GPL-2.0-only */ /* dlopener LIB N: loads LIB with dlopen() only now, well after the trace
 * started, and calls its dlo_func(i) N times: a probe on a library that is
 * not mapped yet when it is attached must fire. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	int n = argc > 2 ? atoi(argv[2]) : 10;
	void *h = dlopen(argv[1], RTLD_NOW);
	int (*f)(int) = h ? (int (*)(int))dlsym(h, "dlo_func") : NULL;
	if (!f) {
		fprintf(stderr, "dlopener: %s\n", dlerror());
		return 1;
	}
	long sum = 0;
	for (int i = 0; i < n; i++)
		sum += f(i);
	fprintf(stderr, "dlo calls=%d sum=%ld\n", n, sum);
	return 0;
}
