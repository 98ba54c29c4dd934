/* SPDX-License-Identifier: GPL-2.0-only */ /* inl_stack N: run() calls get(),
 * which clang -O2 inlines at run's first instructions.  clang writes no
 * .debug_aranges by default, so the unit of run's addresses must be found
 * through the units' own ranges for get to show as an inlined frame
 * (tests/runtime/unwind.test). */
#include <stdlib.h>

struct src { const char *p; long n; };

static inline __attribute__((always_inline)) long get(const struct src *s)
{
	return s->n + (s->p ? 1 : 0);
}

__attribute__((noinline)) long run(const char *q, long m)
{
	struct src s = { q, m * 3 };

	return get(&s);
}

int main(int argc, char **argv)
{
	long t = 0;
	int n = argc > 1 ? atoi(argv[1]) : 3;

	for (int i = 0; i < n; i++)
		t += run(argv[0], i);
	return (int)(t & 1);
}
