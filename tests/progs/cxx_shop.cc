/* SPDX-License-Identifier: GPL-2.0-only */ /* cxx_shop N [MS]: C++ names for demangling: a namespaced class with
 * overloads and const methods, a template with two instances, and
 * shop::bump, whose first instruction has a LOCK prefix (the kernel's
 * uprobes refuse it: a wildcard skips it).  run(n) calls, per i < n,
 * Cart::add(int) twice (once through Cart::add(char const*, int)),
 * total() and total(int) once each, twice<int> and twice<long> once each
 * and bump once.  Prints the calls and the sum a trace must see.  With
 * MS, it then sleeps MS milliseconds: bpftrace names a process's code only
 * while it runs. */
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace shop {

class Cart {
public:
	explicit Cart(int base) : sum_(base) {}
	__attribute__((noipa)) int add(int price);
	__attribute__((noipa)) int add(const char *name, int price);
	__attribute__((noipa)) int total() const;
	__attribute__((noipa)) int total(int discount) const;

private:
	int sum_;
	int items_ = 0;
};

int Cart::add(int price)
{
	sum_ += price;
	return ++items_;
}

int Cart::add(const char *name, int price)
{
	return add(price + (name[0] == 'x'));
}

int Cart::total() const
{
	return sum_;
}

int Cart::total(int discount) const
{
	return sum_ - discount;
}

template <typename T> __attribute__((noipa)) T twice(T x)
{
	return x + x;
}

/* naked: the LOCK-prefixed add is the first instruction, with or without
 * frame pointers */
__attribute__((naked, noinline)) void bump(int *)
{
	asm volatile("lock addl $1, (%rdi)\n\tret");
}

__attribute__((noipa)) long run(int n)
{
	Cart c(0);
	long s = 0;
	int hits = 0;

	for (int i = 0; i < n; i++) {
		c.add(i);
		c.add("xy", i);
		s += c.total() + c.total(1) + twice(i) + twice(long(i));
		bump(&hits);
	}
	return s + hits;
}

}  // namespace shop

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	long s = shop::run(n);
	fprintf(stderr, "calls=%d sum=%ld\n", n, s);
	if (argc > 2) {
		long ms = atol(argv[2]);
		struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };
		nanosleep(&ts, nullptr);
	}
	return 0;
}
