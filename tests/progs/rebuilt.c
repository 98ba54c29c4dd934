/* SPDX-License-Identifier: GPL-2.0-only */ /* rebuilt [N]: the program a test rewrites in place (cp of rebuilt_b over
 * a copy of rebuilt keeps the file's inode, as GNU ld does).  Built twice
 * from this file, -O2 without frame pointers: without REBUILT_B main ->
 * a1 -> a2 -> getppid(); with it main -> b1 -> b2 -> b3 -> getppid(), in
 * frames of other sizes, so that one's unwind rows misread the other's
 * stacks.  Calls getppid() N times (default 300), 1 ms apart. */
#include <stdlib.h>
#include <unistd.h>

static volatile int sink;

#ifndef REBUILT_B
__attribute__((noipa)) void a2(void)
{
	volatile char pad[40];
	pad[0] = 1;
	getppid();
	sink += pad[0];
}

__attribute__((noipa)) void a1(void)
{
	volatile char pad[72];
	pad[0] = 1;
	a2();
	sink += pad[0];
}

static void work(void)
{
	a1();
}
#else
__attribute__((noipa)) void b3(void)
{
	volatile char pad[200];
	pad[0] = 1;
	getppid();
	sink += pad[0];
}

__attribute__((noipa)) void b2(void)
{
	volatile char pad[24];
	pad[0] = 1;
	b3();
	sink += pad[0];
}

__attribute__((noipa)) void b1(void)
{
	volatile char pad[360];
	pad[0] = 1;
	b2();
	sink += pad[0];
}

static void work(void)
{
	b1();
}
#endif

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 300;

	for (int i = 0; i < n; i++) {
		work();
		usleep(1000);
	}
	return 0;
}
