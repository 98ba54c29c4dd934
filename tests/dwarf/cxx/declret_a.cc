// SPDX-License-Identifier: GPL-2.0-only
// declret_a.cc - make() returns Res and take() is passed one: this unit's
// DWARF only declares Res under clang, so whether a hidden pointer takes
// rdi (and how r is passed) is told by declret_b.cc's unit only.  Prints
// to stderr the arguments each call gets, which a trace must read.
#include <cstdio>

#include "declret.h"

__attribute__((noinline)) Res make(int a, long b)
{
	return Res(a + b > 5 ? "big" : "small");
}

__attribute__((noinline)) int take(Res r, int k)
{
	return k + (r.msg[0] == 'b');
}

int main(int argc, char **argv)
{
	(void)argv;
	for (int i = 1; i <= 2; i++) {
		int a = i + 7 * argc;
		long b = -10L * i - argc;
		std::fprintf(stderr, "make %d %ld\n", a, b);
		Res r = make(a, b);
		std::fprintf(stderr, "take %s %d\n", r.msg, a * 3);
		std::printf("%d\n", take(r, a * 3));
	}
	return 0;
}
