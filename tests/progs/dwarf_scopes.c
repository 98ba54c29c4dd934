/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * dwarf_scopes.c - scopes target: locals in nested blocks, shadowing, a
 * loop with accumulators, static locals, file statics and globals.
 * tests/dwarf/conformance.sh probes lines by pattern (the ACC markers).
 */
#include <stdio.h>

int g_total;
static int s_calls;
volatile int g_sink;

__attribute__((noinline)) int accumulate(const int *v, int n)
{
	static int runs;
	int sum = 0, prod = 1;

	runs++;
	for (int i = 0; i < n; i++) {
		int sq = v[i] * v[i];          /* ACC square */
		sum += sq;                     /* ACC sum */
		if (v[i] & 1) {
			int odd = v[i];
			prod *= odd;           /* ACC odd */
		}
	}
	g_total += sum;
	s_calls++;
	return sum + prod + runs;
}

__attribute__((noinline)) int shadow(int x)
{
	int y = x + 1;

	{
		int x = y * 2;         /* SHADOW inner */
		y += x;
		{
			int z = x - y;
			g_sink = z;    /* SHADOW deepest */
		}
	}
	return y + x;
}

__attribute__((noinline)) long count_down(long n)
{
	long steps = 0;

	while (n > 1) {
		n = (n & 1) ? 3 * n + 1 : n / 2;
		steps++;               /* LOOP step */
	}
	return steps;
}

int main(int argc, char **argv)
{
	int v[6] = { 1, 2, 3, 4, 5, argc };

	(void)argv;
	g_sink = accumulate(v, 6);
	g_sink += shadow(argc + 3);
	g_sink += (int)count_down(27 + argc);
	printf("%d %d %d\n", g_sink, g_total, s_calls);
	return 0;
}
