/* SPDX-License-Identifier: GPL-2.0-only */ /* sdt_share: USDT probes whose programs may be shared (codegen.c,
 * gen_shared).  Once each, in this order:
 *   share:reg_a(x=11), share:reg_b(x=22)   one register, as its argument:
 *                                          one program
 *   share:konst_a(5), share:konst_b(6)     constants: one program, each
 *                                          its own value by cookie
 *   share:two(33, 44)                      two arguments: a program of its own
 * and then prints "done". */
#include <stdio.h>
#include <sys/sdt.h>

__attribute__((noipa)) void reg_a(long x) { STAP_PROBE1(share, reg_a, x); }
__attribute__((noipa)) void reg_b(long x) { STAP_PROBE1(share, reg_b, x); }
__attribute__((noipa)) void two(long x, long y) { STAP_PROBE2(share, two, x, y); }

int main(void)
{
	reg_a(11);
	reg_b(22);
	STAP_PROBE1(share, konst_a, 5);
	STAP_PROBE1(share, konst_b, 6);
	two(33, 44);
	puts("done");
	return 0;
}
