/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * test_usdt.c - USDT argument specs as compilers write them: registers,
 * constants, memory at a register plus a displacement and the
 * base+index*scale form (gcc -O2's arr[i]); the forms no x86 operand has
 * refused.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "compiler/usdt.h"
#include "unit.h"

/* pt_regs offsets (compiler/usdt.c's table) */
enum { RAX = 80, RBX = 40, RBP = 32, RSP = 152, RDI = 112, RSI = 104, R12 = 24 };

static void one(const char *spec, int kind, int size, int reg, int idx, int scale, long value)
{
	struct usdt_arg *a;
	char err[256], what[300];
	int n = usdt_parse_args(spec, &a, err, sizeof(err));

	snprintf(what, sizeof(what), "%s parses", spec);
	unit_expect(what, n == 1);
	if (n != 1)
		return;
	snprintf(what, sizeof(what), "%s: kind, size, registers, scale, value", spec);
	unit_expect(what, (int)a->kind == kind && a->size == size && a->reg_off == reg &&
			  a->idx_off == idx && a->scale == scale && a->value == value);
	free(a);
}

static void refused(const char *spec)
{
	struct usdt_arg *a = NULL;
	char err[256], what[300];

	snprintf(what, sizeof(what), "%s is refused, in one sentence", spec);
	unit_expect(what, usdt_parse_args(spec, &a, err, sizeof(err)) < 0 && !a &&
			  strstr(err, "cannot read"));
}

int main(void)
{
	one("-4@%edi", UA_REG, 4, RDI, 0, 0, 0);
	one("8@-8(%rbp)", UA_MEM, 8, RBP, 0, 0, -8);
	one("4@$5", UA_CONST, 4, 0, 0, 0, 5);
	one("-8@-96(%rbp,%rax,8)", UA_MEM, 8, RBP, RAX, 8, -96);
	one("8@(%rdi,%rsi,4)", UA_MEM, 8, RDI, RSI, 4, 0);
	one("2@16(%r12,%rbx)", UA_MEM, 2, R12, RBX, 1, 16);
	one("8@(%rsp,%rax,2)", UA_MEM, 8, RSP, RAX, 2, 0);
	refused("8@(%rax,%rsp,8)");     /* %rsp is no index register */
	refused("8@(%rax,%rbx,3)");     /* scales are 1, 2, 4, 8 */
	refused("8@(%rax,%rbx,16)");
	refused("8@(%rax,)");
	refused("8@(%rax,%rbx,8");
	refused("8@(%rax,%rbx,8)x");
	refused("8@4(%rip,%rax,8)");
	refused("8@(%rax,%rip)");
	refused("8@(%rax,rbx,8)");
	return unit_summary();
}
