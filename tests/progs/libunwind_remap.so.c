/* SPDX-License-Identifier: GPL-2.0-only */ /* libunwind_remap.so.c: remap_spin(counter) counts *counter down to 0 in
 * a 4 KB frame; built a second time with -DREMAP_SMALL_FRAME as
 * libunwind_remap_b.so, whose remap_spin has the same size at the same
 * offset but a 16-byte frame.  unwind_remap maps one then the other at the
 * same address: a mapping cached for the first must not unwind the second
 * (its CFA rule there is 4 KB off).  The entry point (-e) is remap_spin,
 * for unwind_remap to find without a loader. */
#ifdef REMAP_SMALL_FRAME
#define REMAP_SUB "nop; nop; nop; sub $8, %rsp\n.cfi_adjust_cfa_offset 8\n"
#define REMAP_ADD "add $8, %rsp\n.cfi_adjust_cfa_offset -8\n"
#else
#define REMAP_SUB "sub $4096, %rsp\n.cfi_adjust_cfa_offset 4096\n"
#define REMAP_ADD "add $4096, %rsp\n.cfi_adjust_cfa_offset -4096\n"
#endif

__asm__(".text\n.globl remap_spin\n.type remap_spin, @function\n.p2align 4\n"
	"remap_spin:\n.cfi_startproc\n" REMAP_SUB
	"1: decq (%rdi)\njnz 1b\n" REMAP_ADD "ret\n.cfi_endproc\n"
	".size remap_spin, .-remap_spin\n");
