/* SPDX-License-Identifier: GPL-2.0-only */ /* sdt_tick N: fires the USDT probe perfrun:tick N times with arguments i
 * and N, through a semaphore so that the probe costs nothing untraced. */
#define _SDT_HAS_SEMAPHORES 1
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>

unsigned short perfrun_tick_semaphore __attribute__((section(".probes")));

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10, total = 0;
	for (long i = 0; i < n; i++) {
		if (perfrun_tick_semaphore)
			STAP_PROBE2(perfrun, tick, i, n);
		total += i;
	}
	printf("sum %ld\n", total);
	return 0;
}
