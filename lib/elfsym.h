/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * elfsym.h - what a uprobe needs from an ELF file without DWARF: function
 * symbols, virtual address to file offset, and finding a library by name
 * the way the dynamic loader would.
 */
#ifndef PR_ELFSYM_H
#define PR_ELFSYM_H

#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct elfsym {
	char *name;
	uint64_t addr;    /* st_value: virtual address in the file */
	uint64_t size;
	uint64_t offset;  /* file offset of addr (what the uprobe PMU takes) */
};

/* Every defined function symbol (.symtab, else .dynsym) whose name matches
 * the fnmatch pattern, deduplicated by name, sorted by address.  Returns the
 * count (0 if none) or -1 if the file is not a readable ELF (errno set). */
int elfsym_match(const char *path, const char *pattern, struct elfsym **out);
/* The same with the symbol table of symfile (a separate debug file of a
 * stripped binary) instead of path's own; NULL symfile: elfsym_match(). */
int elfsym_match_debug(const char *path, const char *symfile, const char *pattern,
		       struct elfsym **out);
/* The same over demangled names (lib/demangle.h), of symbol table symfile
 * if not NULL (as elfsym_match_debug): a pattern without parameters
 * matches perf's short name, all overloads ("shop::Cart::total", "shop::*"),
 * one with them the whole name, with or without a template's return type
 * ("shop::Cart::add(int)", "shop::Cart::total() const"); spaces do not
 * count.  Names stay mangled in *out. */
int elfsym_match_demangled(const char *path, const char *symfile, const char *pattern,
			   struct elfsym **out);
/* Whether the mangled name matches pattern as elfsym_match_demangled
 * matches symbols (for names found elsewhere: DWARF's linkage names). */
bool elfsym_demangled_is(const char *pattern, const char *mangled);
/* Every defined function symbol, same-named ones (static functions of
 * several units) each kept, sorted by address; as elfsym_match otherwise. */
int elfsym_every(const char *path, struct elfsym **out);
/* Whether path has a .symtab (is not stripped). */
bool elfsym_has_symtab(const char *path);
void elfsym_free(struct elfsym *syms, int n);
/* File offset of a virtual address through the PT_LOAD headers; -1 if unmapped. */
int elfsym_offset(const char *path, uint64_t addr, uint64_t *offset);
/* The same in an ELF already open: the PT_LOAD segment that holds addr. */
int elfsym_addr_offset(Elf *elf, uint64_t addr, uint64_t *offset);
/* Turns BIN of an attach point into an absolute path: a path with '/',
 * a library name ("libc", "libc.so.6", "c") searched as ld.so would (in the
 * maps of pid if given, LD_LIBRARY_PATH, /etc/ld.so.conf directories, the
 * default directories), or a program name looked up in PATH.  Returns a
 * malloc'd path or NULL. */
char *elfsym_find_binary(const char *bin, pid_t pid);
/* Whether a file called base (no folder) is the library want names:
 * "libc" and "c" mean libc.so*, "libc.so.6" means itself. */
bool elfsym_lib_name_matches(const char *want, const char *base);
/* A library named without a path among the i386 ones (Debian's multilib
 * directories), for a 32-bit program: malloc'd path or NULL. */
char *elfsym_find_lib_i386(const char *bin);
/* The data symbol name (STT_OBJECT) of path: its virtual address in the
 * file and its size.  0 if found, 1 if not, -1 if path is no ELF file. */
int elfsym_object(const char *path, const char *name, uint64_t *addr, uint64_t *size);
/* The path through which pid's executable is opened and probed: its name,
 * or /proc/PID/exe when the file at that name is no longer the one it
 * runs (deleted or replaced, as after a package upgrade).  NULL if there
 * is none, with *why saying why in a few words ("has exited"...). */
char *elfsym_pid_exe(pid_t pid, const char **why);
/* True if the file is x86-64 code (EM_X86_64). */
bool elfsym_is_x86_64(const char *path);
/* True if the file is 32-bit x86 code (EM_386), run as a compat task. */
bool elfsym_is_i386(const char *path);
/* The section called name that holds bytes in this file (not SHT_NOBITS,
 * as in a separate debug file), its header in *sh; NULL if none. */
Elf_Scn *elfsym_section(Elf *elf, const char *name, GElf_Shdr *sh);
/* True if the file is an ET_EXEC (not PIE). */
bool elfsym_is_exec(const char *path);

#endif
