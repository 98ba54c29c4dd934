/* SPDX-License-Identifier: GPL-2.0-only */ /* sdt_multi N [MS]: USDT probes as optimised code has them, built -O2 and
 * linked with libsdt_lib.so (whose probe perfrun:lib has a semaphore):
 * perfrun:inl is in an always-inline function that two callers inline, so
 * its note is there twice (two locations of one probe); perfrun:idx passes
 * arr[i], which gcc writes as a base+index*scale operand ("8@(%rdi,%rax,8)");
 * other:inl is a second provider with the same probe name.  Prints what a
 * trace must see.  With MS, waits MS ms before each round: a -p target. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>
#include <time.h>

void sdt_lib_tick(long i);

static inline __attribute__((always_inline)) void hit(long v)
{
	STAP_PROBE1(perfrun, inl, v);
}

__attribute__((noipa)) void first(long i)
{
	hit(i);
}

__attribute__((noipa)) void second(long i)
{
	hit(i + 1000);
	STAP_PROBE1(other, inl, i);
}


int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3, ms = argc > 2 ? atol(argv[2]) : 0;
	long arr[8], sum = 0, isum = 0;
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };
	for (long i = 0; i < 8; i++)
		arr[i] = 100 + i * i;
	for (long i = 0; i < n; i++) {
		if (ms)
			nanosleep(&ts, NULL);
		first(i);
		second(i);
		STAP_PROBE2(perfrun, idx, arr[i % 8], i);
		sum += arr[i % 8];
		isum += 2 * i + 1000;
		sdt_lib_tick(i);
	}
	fprintf(stderr, "inl=%ld inl_sum=%ld idx_sum=%ld lib=%ld\n", 2 * n, isum, sum, n);
	return 0;
}
