/* SPDX-License-Identifier: GPL-2.0-only */ // cart_use.cc - only declares shop::Cart (cart_def.cc defines it).
namespace shop {
class Cart;
volatile int sink;
__attribute__((noinline)) int touch(Cart *c, int k)
{
	sink = k;
	return c != nullptr;
}
}
