/* SPDX-License-Identifier: GPL-2.0-only */ /* watched N: maps a page at the fixed address 0x10000000 (as bpftrace's
 * own watchpoint test program does), then writes i to its first 8 bytes
 * for i = 1..N and reads it back once: a target for watchpoint probes.
 * Prints what a trace must see to stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	volatile long *p = mmap((void *)0x10000000, 4096, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	long sum = 0;

	if (p == MAP_FAILED) {
		perror("mmap 0x10000000");
		return 1;
	}
	for (int i = 1; i <= n; i++)
		p[0] = i;
	sum += p[0];
	fprintf(stderr, "writes=%d last=%ld\n", n, sum);
	return 0;
}
