// SPDX-License-Identifier: GPL-2.0-only
// declret_a.cc - make() returns Res, which this unit's DWARF only declares
// under clang: whether a hidden pointer takes rdi is not told here.
#include <cstdio>

#include "declret.h"

__attribute__((noinline)) Res make(int a, long b)
{
	return Res(a + b > 5 ? "big" : "small");
}

int main()
{
	for (int i = 1; i <= 2; i++)
		std::printf("%s\n", make(i, 10 * i).msg);
	return 0;
}
