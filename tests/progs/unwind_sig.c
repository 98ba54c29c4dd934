/* SPDX-License-Identifier: GPL-2.0-only */ /* unwind_sig N: main calls sig_a(i) N times; sig_a -> sig_b, which
 * raise()s SIGUSR1, whose handler on_usr1 calls sig_probe.  Built -O2
 * -fomit-frame-pointer (mk/progs-extra.mk): a user stack at sig_probe
 * goes through the kernel's signal frame (__restore_rt) to the code the
 * signal interrupted, raise() in sig_b.  Prints "sig calls=N sum=S". */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEEP __attribute__((noipa))

static volatile long acc;

KEEP long sig_probe(long x)
{
	return x * 3 + 1;
}

static void on_usr1(int sig)
{
	acc += sig_probe(sig);
}

KEEP long sig_b(long x)
{
	raise(SIGUSR1);
	return x + acc;
}

KEEP long sig_a(long x)
{
	return sig_b(x + 1) * 2;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	struct sigaction sa;
	long sum = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	for (int i = 0; i < n; i++)
		sum += sig_a(i);
	fprintf(stderr, "sig calls=%d sum=%ld\n", n, sum);
	return 0;
}
