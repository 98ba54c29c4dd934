/* SPDX-License-Identifier: GPL-2.0-only */ /* unwind_late LIB N MS: loads LIB (tests/progs/libunwind_late.so) with
 * dlopen() only now, then calls its late_a(i, late_cb) N times, MS ms
 * apart; late_a -> late_b -> late_c -> late_cb, here.  A user stack at
 * late_cb crosses the library, whose unwind tables the tracer loads when
 * the BPF program first meets it.  Prints "late calls=N sum=S". */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noipa)) long late_cb(long x)
{
	return x * 2 + 1;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	int n = argc > 2 ? atoi(argv[2]) : 10, ms = argc > 3 ? atoi(argv[3]) : 0;
	void *h = dlopen(argv[1], RTLD_NOW);
	long (*f)(long, long (*)(long)) = h ? (long (*)(long, long (*)(long)))dlsym(h, "late_a")
					    : NULL;
	if (!f) {
		fprintf(stderr, "unwind_late: %s\n", dlerror());
		return 1;
	}
	long sum = 0;
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	for (int i = 0; i < n; i++) {
		sum += f(i, late_cb);
		if (ms)
			nanosleep(&ts, NULL);
	}
	fprintf(stderr, "late calls=%d sum=%ld\n", n, sum);
	return 0;
}
