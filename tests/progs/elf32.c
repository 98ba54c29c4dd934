/* SPDX-License-Identifier: GPL-2.0-only */ /* elf32 N: a 32-bit (i386, gcc -m32) target, built at -O0 (elf32) and -O2
 * (elf32_o2) by mk/progs-extra.mk where -m32 links.  N times it calls
 *   add3(i, -5, 0x7ffffff0)   returns i - 5 + 0x7ffffff0 (an int)
 *   neg(i)                    returns -i - 1 (negative: retval sign-extends)
 *   wide(i * 0x100000001, 3)  returns its first argument times 3 (a 64-bit
 *                             argument in two stack slots, result in edx:eax)
 *   name(i)                   returns "even" or "odd" (a pointer)
 * and prints what a trace must see. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noipa)) int add3(int a, int b, int c)
{
	int s = a + b;
	s += c;
	return s;
}

__attribute__((noipa)) int neg(int x)
{
	return -x - 1;
}

__attribute__((noipa)) long long wide(long long v, int k)
{
	return v * k;
}

__attribute__((noipa)) const char *name(int i)
{
	return i % 2 ? "odd" : "even";
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	long long sum = 0;
	for (int i = 0; i < n; i++) {
		sum += add3(i, -5, 0x7ffffff0);
		sum += neg(i);
		sum += wide(i * 0x100000001LL, 3);
		sum += name(i)[0];
	}
	fprintf(stderr, "calls=%d sum=%lld\n", n, sum);
	return 0;
}
