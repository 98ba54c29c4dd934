/* wild_o0: wa(x) and wb(y, x) called with x = 10, 100, 20, 200, 30, 300,
 * built -O0 (mk/progs-extra.mk): their parameters live in stack slots that
 * the prologue writes, for args at a wildcard. */
#include <stdio.h>
// SPDX-License-Identifier: GPL-2.0-only
__attribute__((noinline)) int wa(int x) { return x + 1; }
__attribute__((noinline)) int wb(int y, int x) { return x + y; }

int main(void)
{
	int s = 0;

	for (int i = 1; i <= 3; i++) {
		s += wa(i * 10);
		s += wb(i, i * 100);
	}
	fprintf(stderr, "sum=%d\n", s);
	return 0;
}
