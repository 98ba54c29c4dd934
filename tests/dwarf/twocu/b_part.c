/* b_part.c - the other compile unit with a static helper(), and main. */
static __attribute__((noinline)) int helper(int x)
{
	int y = x - 4; /* KEEP */
// SPDX-License-Identifier: GPL-2.0-only
	return y * y;
}

int part_a(int v);

int main(int argc, char **argv)
{
	(void)argv;
	return helper(argc) + part_a(argc) > 100;
}
