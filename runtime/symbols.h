/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * symbols.h - addresses to names: kernel addresses through /proc/kallsyms,
 * user addresses of a process through libdw (Dwfl), cached per pid.
 */
#ifndef PR_SYMBOLS_H
#define PR_SYMBOLS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct sym;

struct sym *sym_new(void);
void sym_free(struct sym *s);
/* Reads the process's mappings now, while it is alive, so that its
 * addresses can still be named after it exits. */
void sym_prepare(struct sym *s, pid_t pid);
/* Forgets what was read of pid and reads its mappings again (after an
 * exec, or once libraries are loaded). */
void sym_refresh(struct sym *s, pid_t pid);
/* What is known of pid becomes the mappings in maps (/proc/PID/maps
 * format, executable mappings only, as child_maps_text() gives them after
 * the process has gone): each file is placed by its program headers. */
void sym_refresh_text(struct sym *s, pid_t pid, const char *maps);
/* Where pid's mappings come from when an address is in none that /proc
 * gave (the process has gone, or is a zombie): fn(arg) returns them as
 * sym_refresh_text() takes them, malloc'd, or NULL if it knows nothing
 * new.  One process at a time (the traced command). */
void sym_fallback(struct sym *s, pid_t pid, char *(*fn)(void *), void *arg);
/* The process has exec'd: what was read of it stays, behind its new
 * program, for addresses of the old one still to be printed. */
void sym_exec(struct sym *s, pid_t pid);
/* How a CFI ustack pc's object tag (pr_uw_tag) gives the object's key:
 * a frame is named only from a module of that file.  The sym_user*
 * functions take such pcs, tagged or not. */
void sym_tags(struct sym *s, bool (*key)(void *, unsigned, struct pr_uw_key *), void *arg);
/* Each process known holds its files open and their symbol tables (a
 * small program with libc: 5 descriptors, 18 MB): past this many, the one
 * used least recently is let go (the traced process never is); its
 * addresses print as addresses if it has exited by then. */
#define SYM_MAX_PROCS 32
/* Processes let go to keep SYM_MAX_PROCS known at once, for -v. */
uint64_t sym_let_go(const struct sym *s);
/* Name of the function holding addr and the offset into it, or NULL.  The
 * name lives as long as s. */
const char *sym_kernel(struct sym *s, uint64_t addr, uint64_t *off);
const char *sym_user(struct sym *s, pid_t pid, uint64_t addr, uint64_t *off);
/* The note that a frame of a user stack unwound through CFI stands for
 * (program.h's PR_UW_PC_*: the stack ended there), or NULL. */
const char *sym_user_note(uint64_t addr);
/* The file of the object that holds a user address (as the process mapped
 * it), or NULL. */
const char *sym_user_module(struct sym *s, pid_t pid, uint64_t addr);
/* The executable mapping of the object that holds a user address, as the
 * process mapped it (perf's MMAP2 and pprof's Mapping): its file as
 * /proc/PID/maps named it, the text segment's bounds and page offset
 * (from the object's program headers), its build-id.  -1 if no object
 * known holds addr.  file lives as long as s. */
struct sym_map {
	const char *file;
	uint64_t start, end, pgoff;
	unsigned char build_id[20];
	int build_id_len;   /* 0: none */
};
int sym_user_map(struct sym *s, pid_t pid, uint64_t addr, struct sym_map *out);
/* The functions inlined at a user address, from DWARF (dwarf_getscopes),
 * innermost first, each with its source line (the pc's line for the
 * innermost, then each copy's call site); out[n], after the n returned,
 * holds the line in the function the copy is in (name empty).  0 and
 * out[0]'s line alone where nothing is inlined; max >= 1. */
struct sym_frame {
	char name[512];   /* the linkage (mangled) name where DWARF has one */
	char file[256];   /* empty if unknown */
	int line;
};
int sym_user_inlined(struct sym *s, pid_t pid, uint64_t addr, struct sym_frame *out, int max);
/* name as printed: demangled (lib/demangle.h) in bpftrace's whole form,
 * or perf's short one (perf_form: folded stacks); name itself if it is no
 * C++ or Rust name.  Kept for the life of s (a profile prints the same
 * frames over and over). */
const char *sym_demangled(struct sym *s, const char *name, bool perf_form);
/* Source file and line of a user address (needs debuginfo), or NULL. */
const char *sym_user_line(struct sym *s, pid_t pid, uint64_t addr, int *line);

#endif
