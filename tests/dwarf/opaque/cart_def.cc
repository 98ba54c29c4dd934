/* SPDX-License-Identifier: GPL-2.0-only */ // cart_def.cc - defines shop::Cart, which cart_use.cc only declares.
#include <cstdio>

namespace shop {
class Cart {
public:
	int items;
	long total;
};
int touch(Cart *c, int k);
}

int main()
{
	shop::Cart c;
	int sum = 0;

	for (int k = 1; k <= 3; k++) {
		c.items = k;
		c.total = 1000 + k;
		std::fprintf(stderr, "touch items=%d total=%ld\n", c.items, c.total);
		sum += shop::touch(&c, k);
	}
	return sum == 0;
}
