// SPDX-License-Identifier: GPL-2.0-only
// declret.h - a class whose constructors are defined in declret_b.cc only:
// clang (constructor homing) describes it in full there and only declares
// it in declret_a.cc, which returns one by value and takes one
// (tests/runtime/dwarf_cxx.test).
struct Res {
	explicit Res(const char *m);
	Res(const Res &o);
	~Res();
	const char *msg;
};
Res make(int a, long b);
int take(Res r, int k);
