// SPDX-License-Identifier: GPL-2.0-only
/*
 * insn.c - instruction boundaries through LLVM's MC disassembler.
 *
 * x86 instructions are 1 to 15 bytes long, so the only way to know where
 * they start is to decode from a known start (the function symbol) to the
 * offset.  The X86 target is initialised on first use only: scripts with
 * plain function probes, source lines or tracepoints never pay for it.
 */
#define _GNU_SOURCE
#include "insn.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include <llvm-c/Disassembler.h>
#include <llvm-c/Target.h>

/* One decoder per mode: i386 code (a 32-bit ELF file) decodes otherwise
 * (0x40-0x4f are inc/dec there, not REX prefixes). */
static LLVMDisasmContextRef disasm(bool i386)
{
	static LLVMDisasmContextRef dc[2];
	if (!dc[i386]) {
		LLVMInitializeX86TargetInfo();
		LLVMInitializeX86TargetMC();
		LLVMInitializeX86Disassembler();
		dc[i386] = LLVMCreateDisasm(i386 ? "i386-unknown-linux-gnu" :
					    "x86_64-unknown-linux-gnu", NULL, 0, NULL, NULL);
	}
	return dc[i386];
}

enum insn_where insn_locate(const uint8_t *code, size_t len, uint64_t off,
			    uint64_t *start, uint64_t *next, bool i386)
{
	LLVMDisasmContextRef dc = disasm(i386);
	uint64_t pc = 0;
	char text[128];

	while (pc < off) {
		size_t n = dc && pc < len ? LLVMDisasmInstruction(dc, (uint8_t *)code + pc,
								  len - pc, pc, text, sizeof(text)) : 0;
		if (!n) {
			*start = pc;
			return INSN_UNDECODED;
		}
		if (pc + n > off) {
			*start = pc;
			*next = pc + n;
			return INSN_INSIDE;
		}
		pc += n;
	}
	return INSN_BOUNDARY;
}

static bool legacy_prefix(uint8_t c)
{
	return c == 0xf0 || c == 0xf2 || c == 0xf3 || c == 0x2e || c == 0x36 || c == 0x3e ||
	       c == 0x26 || c == 0x64 || c == 0x65 || c == 0x66 || c == 0x67;
}

enum insn_uprobe insn_uprobe_check(const uint8_t *b, size_t n, bool i386, size_t *len)
{
	bool bad = false;
	size_t i = 0;
	uint64_t start, next;

	for (; i < n && i < 14 && legacy_prefix(b[i]); i++)
		bad |= b[i] == 0xf0 || b[i] == 0x2e || b[i] == 0x36 || b[i] == 0x3e || b[i] == 0x26;
	/* in i386 code c4/c5/62 are LES/LDS/BOUND unless the next byte's mod is 11 */
	if (!bad && i < n && (b[i] == 0xc4 || b[i] == 0xc5 || b[i] == 0x62) &&
	    (!i386 || (i + 1 < n && (b[i + 1] & 0xc0) == 0xc0)))
		return INSN_UPROBE_VEX;
	if (!bad)
		return INSN_UPROBE_OK;
	if (!i386 && i < n && (b[i] & 0xf0) == 0x40)   /* REX (inc/dec in i386 code) */
		i++;
	bool nop = (i < n && b[i] == 0x90) || (i + 1 < n && b[i] == 0x0f && b[i + 1] == 0x1f);
	if (!nop || insn_locate(b, n, 1, &start, &next, i386) != INSN_INSIDE)
		return INSN_UPROBE_REFUSED;
	*len = (size_t)next;
	return INSN_UPROBE_NOP;
}

int insn_locate_fd(int fd, uint64_t foff, uint64_t size, uint64_t off, bool i386,
		   enum insn_where *where, uint64_t *start, uint64_t *next)
{
	/* Bytes past off matter only to finish the instruction that holds it. */
	size_t len = (size_t)(size && size < off + 16 ? size : off + 16);
	uint8_t *code = malloc(len);
	ssize_t got = code ? pread(fd, code, len, (off_t)foff) : -1;

	if (got < 0) {
		int saved = code ? errno : ENOMEM;

		free(code);
		errno = saved;
		return -1;
	}
	*where = insn_locate(code, (size_t)got, off, start, next, i386);
	free(code);
	return 0;
}
