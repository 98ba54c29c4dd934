// SPDX-License-Identifier: GPL-2.0-only
// sret.cc - a C++ class that is not trivially copyable (a user-provided
// copy constructor and destructor) is returned through a hidden pointer in
// rdi, which moves the parameters one register on; a trivially copyable
// one of the same size comes back in rax.  At each function's first
// instruction (inside its prologue) perf-run reads the parameters where
// the call passed them (tests/runtime/dwarf_cxx.test).  Prints what was
// passed.
#include <cstdio>

struct Status {
	const char *msg;
	explicit Status(const char *m) : msg(m) {}
	Status(const Status &o) : msg(o.msg) {}
	~Status() { msg = nullptr; }
};

struct Plain {
	long v;
};

__attribute__((noinline)) Status check(int a, long b)
{
	return Status(a + b > 5 ? "big" : "small");
}

__attribute__((noinline)) Plain plain(int a, long b)
{
	return Plain{a + b};
}

int main()
{
	long sum = 0;
	for (int i = 1; i <= 3; i++) {
		Status s = check(i, 10 * i);
		Plain p = plain(i, 100 * i);
		std::printf("check(%d, %d) plain(%d, %d)\n", i, 10 * i, i, 100 * i);
		sum += p.v + (s.msg[0] == 'b');
	}
	return sum == 306 + 2 ? 0 : 1;
}
