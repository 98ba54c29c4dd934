// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_insn.c - instruction boundaries: inside a multi-byte instruction,
 * on a boundary, at the end of the bytes, after a long (15-byte) one, and
 * bytes that do not decode in 64-bit mode.  Byte values from the Intel SDM
 * (and objdump on this machine's test programs).
 */
#include <stdint.h>

#include "compiler/insn.h"
#include "unit.h"

static bool i386_mode;   /* decode as 32-bit code (a 32-bit ELF file's) */

static void expect_where(const char *name, const uint8_t *code, size_t len, uint64_t off,
			 enum insn_where want, uint64_t want_start, uint64_t want_next)
{
	uint64_t start = 99, next = 99;
	enum insn_where w = insn_locate(code, len, off, &start, &next, i386_mode);
	int ok = w == want;

	if (ok && want == INSN_INSIDE)
		ok = start == want_start && next == want_next;
	if (ok && want == INSN_UNDECODED)
		ok = start == want_start;
	unit_expect(name, ok);
	if (!ok)
		printf("    got where %d start %llu next %llu\n", (int)w, (unsigned long long)start,
		       (unsigned long long)next);
}

int main(void)
{
	/* lea (%rdi,%rdi,1),%eax; ret: loop's func */
	static const uint8_t func[] = { 0x8d, 0x04, 0x3f, 0xc3 };
	/* push %rbp; mov %rsp,%rbp; movabs $0x1122334455667788,%rax; nop */
	static const uint8_t prologue[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0xb8, 0x88, 0x77, 0x66,
					    0x55, 0x44, 0x33, 0x22, 0x11, 0x90 };
	/* nopw %cs:0x0(%rax,%rax,1) behind six 0x66 prefixes: 15 bytes, the
	 * longest an x86 instruction may be; then ret */
	static const uint8_t longest[] = { 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x2e, 0x0f, 0x1f,
					   0x84, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc3 };
	/* push %es (06) is not an instruction in 64-bit mode */
	static const uint8_t bad[] = { 0x90, 0x06, 0xc3 };

	expect_where("func+0 is a boundary", func, sizeof(func), 0, INSN_BOUNDARY, 0, 0);
	expect_where("func+1 is inside lea", func, sizeof(func), 1, INSN_INSIDE, 0, 3);
	expect_where("func+2 is inside lea", func, sizeof(func), 2, INSN_INSIDE, 0, 3);
	expect_where("func+3 (ret) is a boundary", func, sizeof(func), 3, INSN_BOUNDARY, 0, 0);
	expect_where("the end of the bytes is a boundary", func, sizeof(func), 4, INSN_BOUNDARY,
		     0, 0);
	expect_where("prologue+1 (mov) is a boundary", prologue, sizeof(prologue), 1,
		     INSN_BOUNDARY, 0, 0);
	expect_where("prologue+9 is inside movabs", prologue, sizeof(prologue), 9, INSN_INSIDE,
		     4, 14);
	expect_where("prologue+14 (nop) is a boundary", prologue, sizeof(prologue), 14,
		     INSN_BOUNDARY, 0, 0);
	expect_where("inside a 15-byte instruction", longest, sizeof(longest), 14, INSN_INSIDE,
		     0, 15);
	expect_where("after a 15-byte instruction", longest, sizeof(longest), 15, INSN_BOUNDARY,
		     0, 0);
	expect_where("bytes that do not decode", bad, sizeof(bad), 2, INSN_UNDECODED, 1, 0);
	expect_where("past the bytes: cannot tell", func, 2, 3, INSN_UNDECODED, 0, 0);

	/* i386: 0x48 is dec %eax, not a REX prefix; push %es decodes */
	i386_mode = true;
	static const uint8_t rex[] = { 0x55, 0x48, 0x89, 0xe5, 0xc3 };
	expect_where("i386: dec %eax is one byte", rex, sizeof(rex), 2, INSN_BOUNDARY, 0, 0);
	expect_where("i386: push %es decodes", bad, sizeof(bad), 2, INSN_BOUNDARY, 0, 0);
	expect_where("i386: inside mov %esp,%ebp", rex, sizeof(rex), 3, INSN_INSIDE, 2, 4);
	i386_mode = false;
	expect_where("x86-64: 48 89 e5 is one mov", rex, sizeof(rex), 2, INSN_INSIDE, 1, 4);

	/* cs; 40; nop: in x86-64 one NOP with a REX prefix (the probe moves
	 * past its 3 bytes); in i386 "cs inc %eax", which changes state */
	static const uint8_t csnop[] = { 0x2e, 0x40, 0x90, 0xc3 };
	size_t len = 0;
	unit_expect("x86-64: cs rex nop is a NOP",
		    insn_uprobe_check(csnop, sizeof(csnop), false, &len) == INSN_UPROBE_NOP &&
		    len == 3);
	unit_expect("i386: cs inc %eax is refused",
		    insn_uprobe_check(csnop, sizeof(csnop), true, &len) == INSN_UPROBE_REFUSED);

	/* libc's first instructions: vmovd (VEX, __memset_avx2_unaligned),
	 * vpbroadcastb (EVEX, __strchrnul_evex), the kernel refuses or runs
	 * wrongly; lds with a memory operand in i386 code is no VEX */
	static const uint8_t vex[] = { 0xc5, 0xf9, 0x6e, 0xc6 };
	static const uint8_t evex[] = { 0x62, 0xe2, 0x7d, 0x28, 0x7a, 0xce };
	static const uint8_t lds[] = { 0xc5, 0x06 };
	static const uint8_t mov[] = { 0x48, 0x89, 0xe5 };
	unit_expect("x86-64: VEX refused",
		    insn_uprobe_check(vex, sizeof(vex), false, &len) == INSN_UPROBE_VEX);
	unit_expect("x86-64: EVEX refused",
		    insn_uprobe_check(evex, sizeof(evex), false, &len) == INSN_UPROBE_VEX);
	unit_expect("i386: lds (%esi) taken",
		    insn_uprobe_check(lds, sizeof(lds), true, &len) == INSN_UPROBE_OK);
	unit_expect("x86-64: mov taken",
		    insn_uprobe_check(mov, sizeof(mov), false, &len) == INSN_UPROBE_OK);
	return unit_summary();
}
