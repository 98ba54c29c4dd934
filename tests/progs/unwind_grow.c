/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_grow N MS LIB...: dlopen()s each LIB in turn (copies of
 * tests/bench/hugefde_gen.sh's OUT.so, each with about 80,000 rows of
 * CFI) and calls its late_a(i, grow_cbK) N times, MS ms apart, K the
 * library's place (0-7): a user stack at grow_cbK crosses library K,
 * whose unwind tables the tracer loads when it first meets it, into room
 * it adds as the libraries come.  Prints "grow libs=L calls=N sum=S". */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CB(k) __attribute__((noipa)) long grow_cb##k(long x) { return x * 2 + k; }
CB(0) CB(1) CB(2) CB(3) CB(4) CB(5) CB(6) CB(7)
static long (*const cbs[8])(long) = { grow_cb0, grow_cb1, grow_cb2, grow_cb3,
				       grow_cb4, grow_cb5, grow_cb6, grow_cb7 };

int main(int argc, char **argv)
{
	if (argc < 4 || argc > 11)
		return 2;
	int n = atoi(argv[1]), ms = atoi(argv[2]);
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	long sum = 0;
	for (int k = 0; k + 3 < argc; k++) {
		void *h = dlopen(argv[k + 3], RTLD_NOW | RTLD_LOCAL);
		long (*f)(long, long (*)(long)) =
			h ? (long (*)(long, long (*)(long)))dlsym(h, "late_a") : NULL;
		if (!f) {
			fprintf(stderr, "unwind_grow: %s\n", dlerror());
			return 1;
		}
		for (int i = 0; i < n; i++) {
			sum += f(i, cbs[k]);
			if (ms)
				nanosleep(&ts, NULL);
		}
	}
	fprintf(stderr, "grow libs=%d calls=%d sum=%ld\n", argc - 3, n, sum);
	return 0;
}
