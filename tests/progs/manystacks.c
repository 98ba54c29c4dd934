/* SPDX-License-Identifier: GPL-2.0-only */ /* manystacks N BITS [US]: calls leaf() N times, each time through BITS
 * levels of left()/right() chosen by the bits of the call's number, so
 * that call i has a user stack of its own while i < 2^BITS: more distinct
 * stacks than ustack keeps ids for (16384).  With US, sleeps US
 * microseconds after every 256 calls.  Prints `leaves=N`. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noipa)) void leaf(void)
{
	sink++;
}

__attribute__((noipa)) void walk(unsigned bits, int depth);

__attribute__((noipa)) void left(unsigned bits, int depth)
{
	walk(bits >> 1, depth - 1);
	sink++;
}

__attribute__((noipa)) void right(unsigned bits, int depth)
{
	walk(bits >> 1, depth - 1);
	sink++;
}

__attribute__((noipa)) void walk(unsigned bits, int depth)
{
	if (depth == 0)
		leaf();
	else if (bits & 1)
		right(bits, depth);
	else
		left(bits, depth);
	sink++;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1, bits = argc > 2 ? atoi(argv[2]) : 15;
	int us = argc > 3 ? atoi(argv[3]) : 0;

	for (int i = 0; i < n; i++) {
		walk((unsigned)i, bits);
		if (us > 0 && i % 256 == 255)
			usleep((useconds_t)us);
	}
	fprintf(stderr, "leaves=%d\n", sink ? n : 0);
	return 0;
}
