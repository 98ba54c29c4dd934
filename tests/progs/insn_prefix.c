/* SPDX-License-Identifier: GPL-2.0-only */ /* insn_prefix N: calls pad(i) N times; pad's line 10 is a `cs nopw` (the
 * alignment NOP compilers emit) and line 11 a `lock addl`, the prefixes the
 * kernel's uprobes refuse.  Prints sum=N(N-1) (pad returns 2(x+1)-2). */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noipa)) int pad(int x)
{
	int v = x;
	asm volatile(".byte 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00");
	asm volatile("lock addl $1, (%0)" : : "r"(&v) : "memory");
	return 2 * v - 2;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 5, s = 0;

	for (int i = 0; i < n; i++)
		s += pad(i);
	fprintf(stderr, "sum=%d\n", s);
	return 0;
}
