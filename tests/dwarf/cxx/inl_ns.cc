// SPDX-License-Identifier: GPL-2.0-only
// inl_ns N: shop::run's first instructions are the inlined constructor of
// shop::Src (clang++-19 -O2, DWARF 5): libdw 0.188's dwarf_getscopes finds
// no scope at them in such a unit (tests/runtime/unwind.test).
#include <cstdlib>

namespace shop {
struct Src {
	const char *p;
	long n;
	Src(const char *q, long m) : p(q), n(m * 3) {}
	long get() const { return n + (p ? 1 : 0); }
};

__attribute__((noinline)) long run(const char *q, long m)
{
	Src s(q, m);
	return s.get();
}
}

int main(int argc, char **argv)
{
	long t = 0;
	int n = argc > 1 ? atoi(argv[1]) : 3;

	for (int i = 0; i < n; i++)
		t += shop::run(argv[0], i);
	return (int)(t & 1);
}
