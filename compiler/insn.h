/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * insn.h - x86-64 instruction boundaries, so that a uprobe at FUNC+OFFS or
 * at a raw address never lands inside an instruction (the kernel would
 * write int3 over the middle of it and the traced program would run a
 * different instruction).
 */
#ifndef PR_INSN_H
#define PR_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum insn_where {
	INSN_BOUNDARY,   /* off starts an instruction */
	INSN_INSIDE,     /* off is inside [*start, *next) */
	INSN_UNDECODED,  /* the bytes at *start do not decode: cannot tell */
};

/* Walks code (len bytes of a function, from its first instruction; i386:
 * 32-bit code) until off.  INSN_INSIDE gives the containing instruction's offset (*start) and
 * the next boundary (*next); INSN_UNDECODED the offset that failed. */
enum insn_where insn_locate(const uint8_t *code, size_t len, uint64_t off,
			    uint64_t *start, uint64_t *next, bool i386);

/* The same for a function of an x86-64 (or, i386, a 32-bit x86) ELF file
 * open as fd: size bytes at file offset foff (size 0: unknown).  Returns -1 (errno set) if they
 * cannot be read. */
int insn_locate_fd(int fd, uint64_t foff, uint64_t size, uint64_t off, bool i386,
		   enum insn_where *where, uint64_t *start, uint64_t *next);

/* Whether the kernel's x86 uprobes take the instruction at b (n bytes
 * read there): it refuses any with a LOCK or an ES/CS/SS/DS segment prefix,
 * and where the mapping comes after the probe (a -c command), it refuses
 * silently: the probe attaches and never fires.  A refused NOP (the
 * `cs nopw` compilers pad loops with) changes nothing, so the probe may go
 * to the next instruction instead: INSN_UPROBE_NOP, with *len its length.
 * A VEX-encoded instruction (AVX: libc's __memset_avx2_unaligned starts
 * with one) the kernel refuses at attach (ENOTSUPP), which with one
 * uprobe_multi link for a wildcard failed every function of it.  An
 * EVEX-encoded one (AVX-512) it accepts and then runs wrongly: under a
 * probe at __strchrnul_evex (62 e2 7d 28 7a ce, 6.18) the traced program's
 * printf printed its format unexpanded. */
enum insn_uprobe {
	INSN_UPROBE_OK,
	INSN_UPROBE_NOP,       /* refused, a NOP of *len bytes */
	INSN_UPROBE_REFUSED,   /* refused, and running it changes state */
	INSN_UPROBE_VEX,       /* refused: a VEX or EVEX prefix (0xc4, 0xc5, 0x62) */
};
enum insn_uprobe insn_uprobe_check(const uint8_t *b, size_t n, bool i386, size_t *len);

#endif
