/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * format.h - printf-style formatting of ring buffer record arguments, and
 * the text of one typed value as bpftrace prints it (map keys and values,
 * %s of a non-string).  Output goes to a growable buffer so that the same
 * text can be written plain or escaped into JSON.
 */
#ifndef PR_FORMAT_H
#define PR_FORMAT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "compiler/program.h"

struct fmt_buf {
	char *s;      /* NUL-terminated, malloc'd */
	size_t len, cap;
};

struct sym;

/* Frames in one entry of the stack map (its value is this many u64s, as
 * compiler/cg_maps.c defines it). */
#define FMT_MAX_FRAMES 127
/* Inlined functions shown at one pc of a user stack, at most. */
#define FMT_MAX_INLINED 16

/* What values that name kernel or user addresses need to be printed. */
struct fmt_ctx {
	struct sym *sym;   /* NULL: addresses print as hex */
	int stack_fd;      /* BPF_MAP_TYPE_STACK_TRACE fd, -1 if none */
	int ustack_fd;     /* user stacks unwound through CFI (same values), -1 if none */
	const int *stack_n_fds; /* [n]: the map of stacks cut to n frames ("stacks_N"), or -1 */
	int stack_indent;  /* spaces before each frame: 8 for values, 4 for keys */
	bool src_lines;    /* -v: user frames also show (file:line) where known */
	const struct program *prog; /* names PR_SITE_TAG symbols; may be NULL */
	bool key;          /* a map key: structs as {.a=1,.p=0x10}, as bpftrace 0.17 */
	bool gdb_ptrs;     /* print(args): struct members that are pointers in hex (0x0) */
	bool demangle;     /* user symbols' C++ and Rust names demangled (not --no-demangle) */
};

/* A user symbol's name as c prints it: demangled in bpftrace's whole form
 * (ustack, usym, func), or perf's short one (perf_form: folded stacks),
 * unless c->demangle is off or c has no symbols. */
const char *fmt_symname(const struct fmt_ctx *c, const char *name, bool perf_form);

/* The map that holds the frames of stack type t's ids (-1 if none). */
int fmt_stack_fd(const struct fmt_ctx *c, const struct type *t);

struct tm;
/* strftime() with a buffer that grows until the result fits (a fixed one
 * made a long format print nothing), malloc'd; NULL if out of memory or
 * past 1 MiB. */
char *fmt_strftime_tm(const char *fmt, const struct tm *tm);
void fmt_init(struct fmt_buf *b);
void fmt_free(struct fmt_buf *b);
void fmt_reset(struct fmt_buf *b);
void fmt_putc(struct fmt_buf *b, char c);
void fmt_puts(struct fmt_buf *b, const char *s);
void fmt_putn(struct fmt_buf *b, const char *s, size_t n);
void fmt_addf(struct fmt_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s as the inside of a JSON string (no quotes added). */
void fmt_json_str(struct fmt_buf *b, const char *s);

/* Integer stored in 8 bytes at p, narrowed and extended as type t says. */
int64_t fmt_int(const struct type *t, const void *p);
/* One value of type t at p as bpftrace prints it (strings unquoted). */
void fmt_value(struct fmt_buf *b, const struct type *t, const void *p,
	       const struct fmt_ctx *c);
/* The same value as bpftrace's JSON writes it: integers as numbers, a
 * tuple as an array of its elements, anything else as a string. */
void fmt_json_value(struct fmt_buf *b, const struct type *t, const void *p,
		    const struct fmt_ctx *c);
/* The bytes of a buf() value at p (u64 length, then at most cap bytes) as
 * printf's %r (mode 0), %rx ('x') or %rh ('h') show them. */
void fmt_bytes(struct fmt_buf *b, const void *p, size_t cap, char mode);
/* printf(fmt, args...) over one record (rec points at the id; argument
 * offsets count from there, as program.h lays them out).  Returns 0,
 * or -1 if an argument lies outside the record (len bytes). */
int fmt_printf(struct fmt_buf *b, const char *fmt, const struct pr_arg *args,
	       int nargs, const void *rec, size_t len, const struct fmt_ctx *c);

#endif
