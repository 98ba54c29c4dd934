/* SPDX-License-Identifier: GPL-2.0-only */ // shop.cc - C++ for DWARF reach: `this` and its members, members of a base
// class (std::vector's _M_impl is one), references, a template, a method
// inlined, namespaces and a class-scoped static.  Each call prints to
// stderr what a trace must read.
#include <cstdio>
#include <vector>

namespace shop {
struct Base {
	int id;
	long weight;
};

class Cart : public Base {
public:
	static int instances;
	std::vector<int> items;
	int total(int extra) const;
	int count() const { return (int)items.size() + id; }
};

int Cart::instances = 0;
volatile int sink;

__attribute__((noinline)) int Cart::total(int extra) const
{
	int s = extra;
	for (int v : items)
		s += v;
	return s + id;
}

__attribute__((noinline)) int byref(const Cart &c, int &&r)
{
	sink = r;
	return c.id + r;
}

template <typename T> __attribute__((noinline)) T twice(T v)
{
	return v * 2;
}

__attribute__((noinline)) int counted(const Cart *c)
{
	return c->count() * 3;  // count() inlined at -O1 and above
}
}  // namespace shop

int main()
{
	shop::Cart c;
	int sum = 0;

	shop::Cart::instances = 1;
	for (int k = 1; k <= 3; k++) {
		c.id = 40 + k;
		c.weight = 500 + k;
		c.items.push_back(k * 10);
		std::fprintf(stderr, "total id=%d weight=%ld n=%zu extra=%d first=%d instances=%d\n",
			     c.id, c.weight, c.items.size(), k, c.items[0], shop::Cart::instances);
		sum += c.total(k);
		std::fprintf(stderr, "byref id=%d r=%d\n", c.id, k + 100);
		sum += shop::byref(c, k + 100);
		std::fprintf(stderr, "twice v=%d\n", k + 7);
		sum += shop::twice(k + 7);
		sum += shop::counted(&c);
	}
	return sum == 0;
}
