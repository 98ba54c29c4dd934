/* SPDX-License-Identifier: GPL-2.0-only */ /* libswap.so.c - two libraries from one source for swapper (tests/progs/
 * swapper.c): libswap.so has sw_run -> a_outer -> a_leaf, libswap_b.so
 * has b_pad0, b_pad1, then sw_run -> b_outer -> b_leaf, so that a pc of one
 * falls in a differently named function of the other at the same address.
 * a_leaf / b_leaf spin for the given milliseconds. */
#include <time.h>

#define KEEP __attribute__((noipa, used))

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

#ifdef SWAP_B
volatile long sink;
KEEP void b_pad0(long n) { for (long i = 0; i < n; i++) sink += i * 3 + (i >> 2) - (i ^ 7); }
KEEP void b_pad1(long n) { for (long i = 0; i < n; i++) sink -= i * 5 + (i >> 3) + (i ^ 9); }
#define OUTER b_outer
#define LEAF b_leaf
#else
#define OUTER a_outer
#define LEAF a_leaf
#endif

KEEP long LEAF(double ms)
{
	double end = now_ms() + ms;
	long n = 0;

	while (now_ms() < end)
		n++;
	return n;
}

KEEP long OUTER(double ms)
{
	long n = LEAF(ms);

	return n + 1;   /* work after the call: no tail call */
}

KEEP long sw_run(double ms)
{
	long n = OUTER(ms);

	return n + 1;
}
