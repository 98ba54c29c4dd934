/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * probe.h - attach points resolved to places in the kernel or a binary.
 *
 * probe_resolve() turns the text of one attach point ("uprobe:./app:f*",
 * "tracepoint:syscalls:sys_enter_write", "interval:ms:100") into a struct
 * probe: its kind, every address it expands to, and the context a program
 * there can read (tracepoint fields as a record type; DWARF variables for
 * uprobes, see dwarf.h).  It reads ELF symbol tables, tracefs formats and
 * DWARF, nothing else; it attaches nothing.
 */
#ifndef PR_PROBE_H
#define PR_PROBE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "lib/diag.h"

struct type;
struct dw_probe;

enum probe_kind {
	PK_BEGIN, PK_END,
	PK_UPROBE, PK_URETPROBE, PK_USDT,
	PK_TRACEPOINT, PK_RAWTP,
	PK_PROFILE, PK_INTERVAL, PK_SOFTWARE, PK_HARDWARE,
	PK_KPROBE, PK_KRETPROBE, PK_FENTRY, PK_FEXIT,
	PK_WATCHPOINT,            /* watchpoint and asyncwatchpoint: a breakpoint PMU event */
};

/* A USDT argument as its note describes it ("-4@%edi", "8@-8(%rbp)", "4@$5"). */
struct usdt_arg {
	int size;                 /* bytes, 1/2/4/8 */
	bool is_signed;
	enum { UA_REG, UA_MEM, UA_CONST } kind;
	int reg_off;              /* UA_REG, UA_MEM: offset of the register in struct pt_regs */
	int64_t value;            /* UA_MEM: displacement; UA_CONST: the value */
	int idx_off;              /* UA_MEM with an index ("8@-96(%rbp,%rax,8)"): the index
	                           * register's offset in struct pt_regs; scale 0 if none */
	int scale;                /* 1, 2, 4 or 8 */
};

/* One address a probe attaches at. */
struct probe_site {
	char *func;               /* symbol (or "file.c:42" for a line probe) */
	uint64_t addr;            /* virtual address in the ELF file (before load bias) */
	uint64_t offset;          /* file offset: what the uprobe PMU takes */
	uint64_t ref_ctr_offset;  /* USDT semaphore file offset, 0 if none */
	struct dw_probe *dw;      /* DWARF view at this address, NULL without debuginfo */
	struct usdt_arg *uargs;   /* USDT: the note's arguments (arg0.. at this site) */
	int nuargs;
	bool absent;              /* lacks a DWARF variable the body reads, which other
	                           * sites have (sema): its hits are only counted */
	bool entry;               /* a function symbol's first instruction (FUNC, not
	                           * FUNC+OFFS, a line or an address) */
};

struct probe {
	enum probe_kind kind;
	struct loc loc;           /* of the attach point text */
	char *spec;               /* the attach point text as written */
	char *name;               /* canonical name, the `probe` builtin: "uprobe:/abs/app:f" */

	/* uprobe, uretprobe, usdt, kprobe: binary (absolute path) and sites */
	char *path;
	/* the binary as `probe` and -l name it: as written where the user gave
	 * a path ("./app"), else the path found ("libc" names the library's) */
	char *path_shown;
	/* path is 32-bit x86 code (i386, a compat task): pt_regs holds its
	 * registers in the low halves, arguments are on the stack (cdecl) */
	bool elf32;
	struct probe_site *sites;
	int nsites;
	/* usdt whose binary is a wildcard or, with -p, left out: the probe of
	 * the next binary it found (each its own path and sites); the caller of
	 * probe_resolve takes them apart, probe_free frees them */
	struct probe *more;
	bool demangle;            /* probe_site_name() demangles C++ and Rust names */
	bool unmatched;           /* kprobe pattern that matches no kernel function,
	                           * where the script names others (missing_ok):
	                           * skipped, as bpftrace skips it */

	/* tracepoint: category and event; with a wildcard that matched several
	 * tracepoints, sites[i].func is "category:event" for each, and args holds
	 * only the fields all of them share at the same offset with the same type.
	 * args: T_RECORD of the format's fields
	 * with offsets from the start of the tracepoint context.
	 * rawtracepoint: event and args from BTF. */
	char *category;
	char *event;
	const struct type *args;
	/* fexit, kretprobe: the function's result type from BTF (NULL: rax as
	 * int64), to read retval as the function returned it */
	const struct type *ret;
	/* syscalls:sys_enter_* or sys_exit_* wildcard attached once to the
	 * raw_syscalls tracepoint (syscalls.h): SYS_ENTER or SYS_EXIT, and
	 * sys_site[nr] the site of syscall nr (-1: none) for nr < nsys. */
	enum { SYS_PERF, SYS_ENTER, SYS_EXIT } sys_raw;
	int16_t *sys_site;
	int nsys;
	/* Each site attached as the raw tracepoint of its event rather than
	 * through the tracepoint PMU (probe_use_raw_tp()). */
	bool tp_raw;

	/* profile (freq hz on every cpu), interval (period ns on one cpu),
	 * software and hardware (perf type/config, sample period). */
	uint32_t perf_type;
	uint64_t perf_config;
	uint64_t period;          /* interval: ns; software/hardware: events */
	uint64_t freq;            /* profile: hz */
	/* watchpoint: the address, its length (1, 2, 4, 8) and HW_BREAKPOINT_R/W/X bits */
	uint64_t wp_addr;
	uint32_t wp_len, wp_type;
	/* watchpoint:FUNC+argN: FUNC (sites[0], in path) and N; the address is
	 * argN at each call.  wp_async: asyncwatchpoint, which does not stop
	 * the process while the watchpoint is set. */
	char *wp_func;
	int wp_arg;
	bool wp_async;
	bool wp_kernel;           /* no process: a kernel address, on every CPU */
	/* kprobe: its program calls override() (bpf_override_return), which
	 * the kernel allows only at functions of its error-injection list */
	bool override;
	/* kprobe/kretprobe wildcard: one kprobe_multi link for all the
	 * functions it matches (the kernel has them, no offset, and
	 * PERF_RUN_KPROBE_MULTI is not 0), else one kprobe per function */
	bool kmulti;
	/* kprobe/kretprobe wildcard: the kernel's text symbols matching it
	 * (each once, sorted), read from /proc/kallsyms while resolving it,
	 * so that attaching, which counts the ones that cannot be probed,
	 * need not read all of kallsyms again (have_ksyms: they were read);
	 * ksym_addrs: the address of each, 0 where several functions have
	 * the name or kptr_restrict hides it */
	char **ksyms;
	uint64_t *ksym_addrs;
	int nksyms;
	bool have_ksyms;
};

struct probe_opts {
	pid_t pid;                /* -p, or the traced command's pid; 0 if none */
	bool child;               /* pid is the traced command's (-c), not yet exec'd:
	                           * its maps are not its program's */
	const char *default_bin;  /* the binary of -p / -c, used when BIN is left out */
	bool use_args;            /* the probe body reads `args`: a uprobe on a plain
	                           * function then goes where perf probe puts it (after
	                           * the prologue, through DWARF) instead of the symbol */
	bool use_retval;          /* the probe body reads `retval`: a kretprobe's
	                           * result is typed from BTF */
	bool no_context;          /* does not read `args`: a tracepoint need not
	                           * read the trace record, and its formats are not
	                           * read */
	bool kstack;              /* reads `kstack`: syscall tracepoints stay tracepoints
	                           * (not one raw_syscalls program), so that the stack
	                           * starts where bpftrace's does */
	bool missing_ok;          /* the script names other attach points: a uprobe
	                           * whose function the binary lacks is a warning and
	                           * resolves with no sites (bpftrace skips it) */
	bool unsafe;              /* --unsafe: a uprobe offset that cannot be checked,
	                           * or is inside an instruction, is only warned about */
	bool demangle;            /* `probe` names C++ and Rust functions demangled */
	bool verbose;             /* -v: name the functions a wildcard skips */
};

/* Resolves one attach point.  On error reports through d (pointing at
 * loc) and returns -1. */
int probe_resolve(const char *text, struct loc loc, const struct probe_opts *o,
		  struct diag *d, struct probe **out);
void probe_free(struct probe *p);
/* Makes tracepoint probe p attach as raw tracepoints (tp_raw) if each of
 * its sites is a kernel tracepoint (tpformat.h) and p is not a raw
 * syscalls program.  For a program that reads no trace record: it then
 * costs less per hit, and detaching a raw tracepoint is closing a link,
 * where the kernel frees each tracepoint perf event after two RCU grace
 * periods under a global mutex (~40-80 ms each, one at a time). */
void probe_use_raw_tp(struct probe *p);
/* --dump probes: kind, binary, each site's function, address and file offset. */
void probe_dump(FILE *out, const struct probe *p);
const char *probe_kind_name(enum probe_kind k);
/* newer bpftrace's probetype: the provider's name, "special" for BEGIN/END */
const char *probe_type_name(enum probe_kind k);
/* The i-th software (or hardware) event name perf-run knows, NULL past
 * the last: what `-l software:*` lists. */
const char *probe_perf_event_name(bool hardware, int i);
/* The `probe` builtin at one site of a wildcard tracepoint or uprobe
 * ("tracepoint:sched:sched_switch", "uprobe:/bin/x:f1"), as bpftrace names
 * it; p->name where one name fits every site.  Writes into buf. */
const char *probe_site_name(const struct probe *p, int site, char *buf, size_t n);
/* The binary as `probe` names it (path_shown, else path). */
const char *probe_path_shown(const struct probe *p);
/* The C++ or Rust function a uprobe SPEC names by its demangled name
 * ("shop::Cart::total", "cpp:shop::Cart::total" without its "cpp:"), or
 * NULL if SPEC is in perf probe's syntax. */
const char *probe_cxx_name(const char *spec);

/* kprobe:a,kprobe:b,kprobe:c* with one body: p joins into, to be attached
 * with it through one kprobe_multi link, if both are kprobes (or both
 * kretprobes) at the entry of named kernel functions or wildcards and the
 * kernel has such links (PERF_RUN_KPROBE_MULTI=0: never).  Returns 1 if
 * it joined (p's site and name were added to into's; the caller frees
 * p), 0 if not, -1 if out of memory. */
int probe_kmulti_join(struct probe *into, struct probe *p);

/* A kprobe or kretprobe that a kprobe_multi link could take: at the entry
 * of kernel functions named by one name or wildcard of the kernel itself
 * (not MODULE:FUNC, an offset or a line). */
bool probe_kmulti_plain(const struct probe *p);
/* True if the `probe` builtin differs from site to site. */
bool probe_name_per_site(const struct probe *p);
/* A kprobe or kretprobe with a wildcard site: one program serves
 * functions known only at attach, so what differs between them (`probe`,
 * retval's type) is looked up by address (program.h's PR_KNAME_MAP and
 * PR_KRET_MAP, runtime/kret.c). */
bool probe_kwild(const struct probe *p);

#endif
