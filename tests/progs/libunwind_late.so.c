/* SPDX-License-Identifier: GPL-2.0-only */ /* libunwind_late.so.c: the library tests/progs/unwind_late loads with
 * dlopen() after the trace has started, built -O2 -fomit-frame-pointer
 * (mk/progs-extra.mk) as distributions build: late_a -> late_b -> late_c
 * -> the caller's callback, so that a stack through it needs its CFI,
 * which the tracer can only read once it is mapped. */
#define KEEP __attribute__((noipa))

KEEP long late_c(long x, long (*cb)(long))
{
	volatile long buf[19];

	for (int i = 0; i < 19; i++)
		buf[i] = x + i;
	return cb(buf[x % 19]) + buf[2];
}

KEEP long late_b(long x, long (*cb)(long))
{
	long a = x * 5, b = x ^ 0x33, c = x + 7, d = x * x, e = x - 3;
	long r = late_c(x, cb);

	return r + a * b - c * d + e + (a ^ c ^ e) * (b | d);
}

KEEP long late_a(long x, long (*cb)(long))
{
	return late_b(x + 1, cb) - 1;
}
