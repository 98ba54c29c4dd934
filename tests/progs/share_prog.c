/* SPDX-License-Identifier: GPL-2.0-only */ /* share_prog N: uprobe sites whose programs may be shared (codegen.c,
 * gen_shared).  N times it calls
 *   sh_a(10 + i), sh_b(20 + i)        x in the same register at the entry:
 *                                     one program for both
 *   sh_c(7, 30 + i), sh_d(7, 8, 40 + i)  x in other registers: one each
 * and prints "sh_a=S sh_b=S sh_c=S sh_d=S", the sum of x each got.
 * Then once, for print(args) at pa_*: pa_x(5) and pa_x2(6) have one
 * layout (one program, one format); pa_y(7) differs in the name (its own
 * format, the same program), pa_u(-1) in the type (its own program). */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noipa)) int sh_a(int x) { return x + 1; }
__attribute__((noipa)) int sh_b(int x) { return x * 3; }
__attribute__((noipa)) int sh_c(long pad, int x) { return x - (int)pad; }
__attribute__((noipa)) int sh_d(long p1, long p2, int x) { return x - (int)(p1 + p2); }
__attribute__((noipa)) int pa_x(int x) { return x + 1; }
__attribute__((noipa)) int pa_x2(int x) { return x + 2; }
__attribute__((noipa)) int pa_y(int y) { return y + 3; }
__attribute__((noipa)) int pa_u(unsigned x) { return (int)x + 4; }

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	long s = 0, sa = 0, sb = 0, sc = 0, sd = 0;

	for (int i = 0; i < n; i++) {
		s += sh_a(10 + i) + sh_b(20 + i) + sh_c(7, 30 + i) + sh_d(7, 8, 40 + i);
		sa += 10 + i;
		sb += 20 + i;
		sc += 30 + i;
		sd += 40 + i;
	}
	s += pa_x(5) + pa_x2(6) + pa_y(7) + pa_u((unsigned)-1);
	fprintf(stderr, "sh_a=%ld sh_b=%ld sh_c=%ld sh_d=%ld\n", sa, sb, sc, sd);
	return s == 12345;
}
