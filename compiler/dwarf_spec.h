/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dwarf_spec.h - the opened-binary cache and perf probe's spec syntax,
 * shared by the files of the dwarf module (internal).
 */
#ifndef PR_DWARF_SPEC_H
#define PR_DWARF_SPEC_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct dwt_cache;
struct dwf_cache;

struct dw_mod {
	char *path;
	int fd, dfd;            /* the ELF; the separate debuginfo or -1 */
	Elf *elf, *delf;
	Dwarf *dbg;
	Dwarf_CFI *cfi_eh, *cfi_dbg;
	bool pie;
	bool kernel;            /* the kernel's vmlinux or a module: its pointers
				 * are kernel pointers, its memory read as the
				 * kernel's */
	/* A relocatable object (a kernel module's .ko): libdwfl lays its
	 * sections out and applies the relocations its DWARF needs; elf,
	 * dbg and cfi_dbg are dwfl's. */
	Dwfl *dwfl;
	Dwfl_Module *dwmod;
	/* Where the running kernel has the kernel's link-time addresses (of
	 * globals): vmlinux moved by kslide, a module's sections by ksect. */
	uint64_t kslide;
	bool kslide_known;
	struct dw_ksect *ksect;
	int nksect;
	struct dwt_cache *types;
	struct dwf_cache *funcs;  /* per-unit function index (dwarf_fidx.h) */
	struct dw_mod *next;
};

/* FUNC[@SRC][:RLN|+OFFS|;PTN], SRC:ALN, SRC;PTN, 0xADDR; -L adds :A-B, :A+N. */
struct dw_spec {
	char *func, *file, *lazy;
	int line, line_end;     /* line_end: -L ranges, 0 if none */
	uint64_t offset, addr;
	bool has_line, has_offset, is_addr, glob;
	bool cxx;               /* func is a demangled C++ or Rust name (dws_cxx_name) */
};

struct dw_mod *dws_open(const char *path, char *err, size_t errlen);
/* A source file m's debug information names (-L, lazy patterns), opened
 * only if it is a regular file of at most DWS_MAX_SOURCE bytes, not
 * through a symbolic link when root, and not at all when the binary or
 * its debug file is owned by another user than root or this one (a name
 * such a binary supplies must not steer what root reads).  NULL and why. */
#define DWS_MAX_SOURCE (64 << 20)
FILE *dws_open_source(struct dw_mod *m, const char *path, char *why, size_t len);
int dws_parse(const char *s, struct dw_spec *sp, bool ranges, char *err, size_t errlen);
void dws_spec_free(struct dw_spec *sp);
/* Whether s (a FUNC part) is a C++ or Rust name as demangled: "::", a
 * parameter list, template arguments, a destructor, a space or
 * "operator" (what compiler/probe.c matches by demangled names too). */
bool dws_cxx_name(const char *s);
/* perf's strtailcmp: 0 if one string is a tail of the other, "." path
 * components and doubled slashes aside (clang compiling "./x.c" names
 * it /dir/./x.c in the line table and /dir/x.c in the file list). */
int dws_tailcmp(const char *a, const char *b);
/* The real (not inlined) function of cu (a unit of m) containing addr. */
bool dws_realfunc(struct dw_mod *m, Dwarf_Die *cu, uint64_t addr, Dwarf_Die *out);
int dws_entrypc(Dwarf_Die *d, Dwarf_Addr *addr);
/* dwarf_decl_file, also for DWARF 5's file 0. */
const char *dws_decl_file(Dwarf_Die *d);
/* The CU containing addr, with or without .debug_aranges. */
bool dws_addrdie(Dwarf *dbg, uint64_t addr, Dwarf_Die *cu);
/* Calls fn with each defined symbol of ELF type type (STT_FUNC,
 * STT_OBJECT) named name, in m's file's .symtab and .dynsym and then its
 * debug file's, until fn returns true; whether one did. */
bool dws_each_symbol(struct dw_mod *m, const char *name, int type,
		     bool (*fn)(const GElf_Sym *sym, void *arg), void *arg);
/* Whether name may name something in m's DWARF: false only if it is
 * nowhere in .debug_str (every name but the shortest is kept there), so a
 * misspelt function is not looked for in every unit (a second of the
 * kernel's). */
bool dws_may_name(struct dw_mod *m, const char *name);
/* Where a link-time address of the kernel (m->kernel) is in the running
 * kernel: vmlinux's moved by the KASLR slide; a module's (its sections in
 * libdwfl's layout) at its section's address there plus its offset into
 * it.  False if the module has no such section loaded (.init sections are
 * freed after the module's init). */
bool dws_kernel_addr(const struct dw_mod *m, uint64_t addr, uint64_t *out);

#endif
