/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dwarf.h - perf-probe specs, probe addresses and variables through libdw.
 *
 * dw_resolve() turns a perf probe SPEC of a binary into probe sites at the
 * addresses `perf probe` would use.  Each site carries a struct dw_probe:
 * the DWARF view at that address, from which the variables visible there
 * are read lazily (their types as struct type, their locations as a small
 * stack program that codegen turns into BPF without knowing DWARF).
 *
 * Binaries are opened once and kept until dw_close_all(); types built from
 * DWARF keep names owned by that cache, so call type_free_all() no later
 * than dw_close_all().
 */
#ifndef PR_DWARF_H
#define PR_DWARF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct type;
struct probe_site;
struct dw_probe;

/* One step of a location program over a stack of u64 values. */
enum dwl_op {
	DWL_REG,        /* push the pt_regs register `reg` (x86-64 DWARF regno 0..16) */
	DWL_CONST,      /* push val */
	DWL_BIAS,       /* push the load bias of the module (regs->ip - site addr) */
	DWL_PLUS_CONST, /* top += val */
	DWL_ENTRY_VALUE,/* pop a CFA, push the value register `reg` had at the entry of
			 * the call whose frame that is */
	DWL_DEREF,      /* pop an address, push the `size`-byte user value there, zero-extended */
	DWL_NEG, DWL_NOT, DWL_ABS,
	DWL_ADD, DWL_SUB, DWL_MUL, DWL_DIV, DWL_MOD, /* DIV is signed (DW_OP_div) */
	DWL_AND, DWL_OR, DWL_XOR, DWL_SHL, DWL_SHR, DWL_SHRA,
	DWL_EQ, DWL_NE, DWL_LT, DWL_LE, DWL_GT, DWL_GE, /* signed compares, push 0/1 */
	DWL_DUP, DWL_DROP, DWL_SWAP, DWL_OVER,
	DWL_BRA_SWAP,   /* pop a condition; if it is 0, swap the top two (gcc's
			 * "DW_OP_bra 1; DW_OP_swap": a select, as in min/max) */
	DWL_CALLSITES,  /* pop a return address (link-time), push the value the call
			 * site returning there passed (DW_OP_GNU_parameter_ref): `val`
			 * DWL_CS_CASE follow; no case matches: the hit is skipped */
	DWL_CS_CASE,    /* a case of DWL_CALLSITES: return address `val`, its value is
			 * the program of the `size` instructions that follow */
};

struct dwl_insn {
	enum dwl_op op;
	int reg;            /* DWL_REG, DWL_ENTRY_VALUE */
	unsigned size;      /* DWL_DEREF: 1, 2, 4 or 8 */
	int64_t val;        /* DWL_CONST, DWL_PLUS_CONST */
};

enum dwr_kind {
	DWR_MEMORY,    /* the program leaves the variable's user address on top */
	DWR_VALUE,     /* the program leaves the value itself on top */
	DWR_PIECES,    /* the value is assembled from `pieces`, in order, low bytes first */
	DWR_OPTIMIZED, /* not available at this address: see why */
	DWR_UNSUPPORTED, /* a form this reader cannot express (TLS...): see why */
	DWR_IMPLICIT_PTR, /* a pointer with no value of its own (DW_OP_implicit_pointer):
			   * it points `target_off` bytes into the object whose
			   * location is `target`; only what it points at can be read */
};

struct dw_loc;

struct dw_piece {
	unsigned size;             /* bytes */
	enum dwr_kind kind;        /* DWR_MEMORY, DWR_VALUE or DWR_OPTIMIZED */
	bool bits_given;           /* DWR_OPTIMIZED: bit pieces give some of its bits,
				    * not all (not read: a byte would show 0 bits) */
	uint64_t given;            /* bits_given: which (prog yields them, 0 elsewhere);
				    * a bitfield wholly inside them is read */
	struct dwl_insn *prog;
	int n;
};

struct dw_loc {
	enum dwr_kind kind;
	struct dwl_insn *prog;     /* DWR_MEMORY, DWR_VALUE */
	int n;
	struct dw_piece *pieces;   /* DWR_PIECES */
	int npieces;
	bool uses_entry_value;     /* some DWL_ENTRY_VALUE appears (needs an entry probe) */
	bool as_passed;            /* a parameter read inside the prologue where the call
				    * passed it (registers, stack), not where DWARF says */
	bool maybe_uninit;         /* DWR_OPTIMIZED for DW_OP_GNU_uninit: DWARF says the
				    * location may not hold the value (gdb reads it) */
	struct dw_loc *target;     /* DWR_IMPLICIT_PTR: the pointee's location at the site */
	int64_t target_off;        /* DWR_IMPLICIT_PTR: byte offset into the pointee */
	uint32_t target_size;      /* DWR_IMPLICIT_PTR: the pointee's size in bytes (0 unknown) */
	char *target_name;         /* DWR_IMPLICIT_PTR: the pointee's name, for messages */
	char *why;                 /* DWR_OPTIMIZED / DWR_UNSUPPORTED: one sentence */
};

struct dw_var {
	const char *name;
	const struct type *type;   /* NULL if the type cannot be expressed */
	const char *type_name;     /* C spelling as perf probe -V prints it */
	struct dw_loc loc;
	bool is_param;
	bool is_global;            /* CU-level variable (global or file static) */
	bool in_inline;            /* of a function inlined into the probed one at the site */
	bool in_outer;             /* of a function the probed inlined copy is inlined into */
	const char *frame;         /* in_outer: the name of that function */
	int decl_line;
};

/* Resolves SPEC (perf probe syntax without `%return`; is_return asks for a
 * return probe) in the ELF at PATH, using its DWARF or separate debuginfo
 * found by build-id.  Sites are malloc'd, each with func (malloc'd) and dw
 * (free with dw_probe_free).  Returns 0, or -1 with one sentence in err. */
int dw_resolve(const char *path, const char *spec, bool is_return,
	       struct probe_site **sites, int *nsites, char *err, size_t errlen);

/* Where the body of the function whose first instruction is ENTRY starts:
 * past the prologue in a unit without location lists (-O0), where its
 * variables' stack slots are written (DWARF calls them valid from the
 * entry, and they are not); ENTRY itself otherwise. */
uint64_t dw_body_start(const char *path, uint64_t entry);

/* The separate debug file of a binary (by build-id, .gnu_debuglink, the
 * debuginfod cache; checked as for DWARF), open, or -1. */
int dw_debug_fd(const char *bin);
/* perf probe -L SPEC and -V SPEC, printed as perf probe prints them.  -V
 * lists what a probe on SPEC reads, at the address it is placed at (past
 * the prologue, as the probe); at_entry lists them at a function's first
 * instruction instead, where perf probe -V looks (tests/dwarf/conformance.sh
 * compares that with perf probe). */
int dw_list_lines(FILE *out, const char *path, const char *spec, char *err, size_t errlen);
/* Where -L and lazy patterns look for a relative source file name, as
 * perf probe's -s/--source: DIR/NAME, else NAME with its leading
 * directories dropped one by one (the kernel's units name fs/read_write.c
 * relative to the build tree).  NULL: the unit's DW_AT_comp_dir. */
void dw_set_source(const char *dir);
int dw_list_vars(FILE *out, const char *path, const char *spec, bool at_entry, char *err,
		 size_t errlen);

/* A variable visible at the site by name: innermost local or parameter
 * first, then those of functions inlined at the site (perf probe reads
 * them too), then globals and statics of the compile unit.  NULL if none. */
const struct dw_var *dw_find_var(struct dw_probe *p, const char *name);
/* A type of the program at PATH by its C name ("struct req", "union u",
 * "enum e", a typedef or base type name), for casts: the first compile
 * unit that defines it (declarations without a body are skipped).  NULL
 * with one sentence in err if there is no DWARF or no such type. */
const struct type *dw_find_type(const char *path, const char *name, char *err, size_t errlen);
/* The return type of the function whose entry is addr in PATH, for
 * retval at a return probe: 1 with *t an integer, enum, bool or pointer
 * type; 0 if DWARF does not describe it or it returns void (retval is then
 * rax as it is); -1 with one sentence in why if retval cannot be read
 * there (floating point comes back in xmm0; structs by value). */
int dw_ret_type(const char *path, uint64_t addr, const struct type **t, char *why, size_t n);
/* Parameters and locals in scope at the site (not globals), outermost
 * first; returns the count. */
int dw_vars(struct dw_probe *p, const struct dw_var **vars);
/* The site's virtual address and its function (NULL if unknown). */
uint64_t dw_probe_addr(const struct dw_probe *p);
/* The entry address of the real (not inlined) function containing the
 * site, where DWL_ENTRY_VALUE registers are captured; 0 if unknown. */
uint64_t dw_probe_entry(struct dw_probe *p);
const char *dw_probe_func(const struct dw_probe *p);
/* One sentence on how the site's address was chosen, for -v (a line whose
 * only address is shared with another line); NULL if nothing to say. */
const char *dw_probe_note(const struct dw_probe *p);
/* Writes the variables and their locations, for --dump probes. */
void dw_probe_dump(FILE *out, struct dw_probe *p);
void dw_probe_free(struct dw_probe *p);

/* Byte offset of DWARF register regno in x86-64 struct pt_regs, -1 if none. */
int dw_reg_ptregs_offset(int regno);
/* "di", "sp", ... for dumps; "?" if unknown. */
const char *dw_reg_name(int regno);
/* Prints a location program ("breg7 +16 deref8"), for dumps and tests. */
void dw_loc_print(FILE *out, const struct dw_loc *l);

/* Opens PATH as the kernel's vmlinux, or as the debuginfo of a loaded
 * module (a relocatable .ko), with where the running kernel has it (before
 * any other use of it): its pointers are kernel pointers, and a location
 * that needs the value a register had at the function's entry or at a
 * call site (DW_OP_entry_value, DW_OP_GNU_parameter_ref), which perf probe
 * does not read either, is unsupported there.  0, or -1 with one sentence
 * in err. */
struct dw_ksect {
	char *name;             /* ".text", ".data", ... */
	uint64_t addr;          /* where the kernel loaded it */
};
struct dw_kplace {
	uint64_t slide;         /* vmlinux: KASLR's (running _text - linked _text) */
	bool slide_known;       /* false: kallsyms hides the running addresses */
	const struct dw_ksect *sects;   /* a module: its sections, one by one */
	int nsects;
};
int dw_open_kernel(const char *path, const struct dw_kplace *at, char *err, size_t errlen);
/* The function symbols of a module's debuginfo (opened by dw_open_kernel)
 * at their link-time addresses in its DWARF's layout, sorted by address:
 * their number (*out malloc'd, free with elfsym_free), or -1. */
struct elfsym;
int dw_module_functions(const char *path, struct elfsym **out);
/* Whether a site is in the kernel (dw_open_kernel). */
bool dw_probe_kernel(const struct dw_probe *p);

void dw_close_all(void);

#endif
