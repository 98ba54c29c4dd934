/* SPDX-License-Identifier: GPL-2.0-only */ /* a_part.c - one of two compile units that both define a static helper(). */
static int helper(int x)
{
	return x * 3 + 1;
}

int part_a(int v)
{
	return helper(v) + 2;
}
