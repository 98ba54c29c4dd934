// SPDX-License-Identifier: GPL-2.0-only
// anon.cc - a method of a class in an anonymous namespace, inlined (g++
// -O2), which gcc's DWARF gives no linkage name: stacks name its inlined
// frame by the namespaces and class around it, as llvm-symbolizer does
// (tests/runtime/dwarf_cxx.test).  Prints the sum.
#include <cstdio>

namespace app {

__attribute__((noinline)) int leaf(int v)
{
	asm volatile("" : "+r"(v));
	return v * 2;
}

namespace {
struct Worker {
	int n;
	int step(int x) { return leaf(x + n) + 1; }
};
}  // namespace

__attribute__((noinline)) int run(int k)
{
	Worker w{k};
	return w.step(k) + 1;
}

}  // namespace app

int main(int argc, char **)
{
	int s = 0;
	for (int i = 0; i < 3; i++)
		s += app::run(i + argc);
	std::printf("%d\n", s);
	return 0;
}
