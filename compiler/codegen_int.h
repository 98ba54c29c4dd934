/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * codegen_int.h - what the code generator's files (codegen.c and cg_*.c)
 * share: the generation context, struct cg, and each file's functions,
 * in sections by file.  Included by them alone.
 *
 * Layers: cg_ir.c (the toolbox) calls no other cg_ file; cg_maps.c calls
 * cg_ir.c alone; the rest may call each other (a statement may need a new
 * function, a callback, a companion program, and a function needs
 * statements); codegen.c drives them and cg_emit.c turns the module into
 * a BPF ELF.
 *
 * Value convention: an expression of an integer-like type (T_INT, T_BOOL,
 * T_ENUM, T_PTR, T_STACK, T_KSYM) yields an i64, sign- or zero-extended
 * from its type; an expression of a memory type (T_STR, T_USYM) yields a
 * pointer to a stack buffer of exactly type->size bytes.
 */
#ifndef PR_CODEGEN_INT_H
#define PR_CODEGEN_INT_H

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>

#include "ast.h"
#include "codegen.h"
#include "program.h"
#include "sema.h"

/* Helper ids of <linux/bpf.h>. */
enum {
	H_MAP_LOOKUP = 1, H_MAP_UPDATE = 2, H_MAP_DELETE = 3, H_KTIME = 5,
	H_PRANDOM = 7, H_CPU = 8, H_PID_TGID = 14, H_UID_GID = 15, H_COMM = 16,
	H_GET_STACKID = 27, H_CURTASK = 35, H_PROBE_READ_STR = 45, H_CGROUP = 80,
	H_SEND_SIGNAL = 109, H_READ_USER = 112, H_READ_KERNEL = 113,
	H_READ_USER_STR = 114, H_READ_KERNEL_STR = 115, H_RINGBUF_OUTPUT = 130,
	H_GET_FUNC_IP = 173, H_GET_ATTACH_COOKIE = 174, H_JIFFIES64 = 118, H_FOR_EACH_MAP_ELEM = 164,
	H_KTIME_BOOT = 125, H_PER_CPU_PTR = 153, H_THIS_CPU_PTR = 154,
	H_CURTASK_BTF = 158, H_FIND_VMA = 180,
};

/* Temporaries this large live in a per-CPU array ("heap") instead of the
 * 512-byte BPF stack, at offsets fixed at compile time. */
#define CG_HEAP_MIN 32
#define CG_HEAP_SIZE 16384

struct cg_var {
	const char *name;
	LLVMValueRef slot;
	const struct type *type;
};

/* A table of per-site values whose initializer is set when the last site
 * is generated (cg_site_late). */
struct cg_sitetab {
	LLVMValueRef gv;
	uint64_t *vals;
};

struct cg {
	LLVMContextRef ctx;
	LLVMModuleRef mod;
	LLVMBuilderRef b;
	LLVMDIBuilderRef di;
	LLVMMetadataRef di_file, di_cu, di_int;
	LLVMTypeRef i8, i16, i32, i64, ptr;
	struct program *prog;
	struct sema *s;
	struct diag *d;
	int errors;
	int llvm_failed;            /* LLVM reported an error diagnostic */

	LLVMValueRef *maps;         /* per sema map */
	LLVMValueRef ringbuf, stackmap, counters, config, heap;
	LLVMValueRef kret, kname;   /* PR_KRET_MAP, PR_KNAME_MAP, defined on first use */
	uint32_t once_bytes;        /* records BEGIN and END send (cg_send) */
	bool ringbuf_busy;          /* records may come at any rate */

	/* the function being built */
	LLVMValueRef fn, ctxarg;
	const struct probe *probe;
	int site;                   /* index into probe->sites, -1 for all of them */
	int pidx;                   /* index of probe in prog->probes */
	bool site_cookie;           /* shared by sites: sys_site is the attach cookie,
				     * the site's index (codegen.c, gen_shared) */
	int act_share_from;         /* actions from here on may be reused by an
				     * identical one (cg_stmt.c), -1: never */
	const struct probe *fdelta_of; /* the probe of fdelta (cg_expr.c, func) */
	uint64_t *fdelta;           /* its sites' distance from their function's start */
	struct cg_sitetab *sitetab; /* per-site tables filled once every site is made */
	int nsitetab;
	int nsitetab_used;          /* of them, used by the function being built */
	LLVMBasicBlockRef entry;    /* allocas and per-hit values, then a branch to start */
	LLVMBasicBlockRef start;
	LLVMMetadataRef sp;
	struct cg_var *vars;
	int nvars, capvars;
	LLVMBasicBlockRef brk[32], cont[32];
	int nloops;
	LLVMValueRef pid_tgid;      /* computed once per hit, in the entry block */
	LLVMValueRef sys_nr, sys_site, sys_regs; /* raw syscalls program (cg_syscall.c) */
	LLVMValueRef heap_ptr;      /* this hit's heap, looked up in the entry block */
	uint32_t heap_off;          /* first free heap byte */
	bool heap_full;             /* the probe's temporaries overflowed (said once) */
	struct loc at;              /* the construct being generated (cg_at) */
	LLVMValueRef *tmp;          /* temporaries of the statements being built */
	uint32_t *tmpsize;
	uint32_t *tmpheap;          /* heap_off before a heap temporary, or ~0u */
	int ntmp, captmp;

	/* DW_OP_entry_value: functions whose registers a companion probe at
	 * their entry saves into entry_regs (cg_dwarf.c) */
	LLVMValueRef entry_regs;
	struct cg_entry { const struct probe *p; uint64_t addr; char *func; } *entries;
	int nentries;

	/* sleepable uprobe programs (cg_sleep.c) */
	bool slp_cand;              /* this function may become sleepable */
	bool slp_stack;             /* it uses the stack map: it may not */
	bool fn_sleepable;          /* what cg_slp_end decided */
	int slp_reads;
	LLVMValueRef *slp_marks;    /* placeholder conditions of its reads */
	int nslp_marks, capslp_marks;
	LLVMValueRef slp_heap_ph;   /* placeholder heap pointer (cg_heap_ptr) */
	uint32_t heap_hw;           /* its largest heap_off */
	LLVMValueRef task_heap;     /* placeholder of the task-local heap map */
	uint32_t task_heap_size;

	/* syscall entries replayed at their return (cg_replay.c) */
	bool rp_on;                 /* the function being built is one */
	struct probe **late;        /* probes made while generating (replays) */
	int nlate;
	LLVMValueRef rp_flag;       /* while set, a failed read stores 1 here */
	LLVMValueRef rp_users;      /* in a replay at sys_exit: mm_users at the entry */
};

/* What cg_callback_begin puts aside of the function being built. */
struct cg_fnstate {
	LLVMValueRef fn, ctxarg, pid_tgid, sys_nr, sys_site, sys_regs, heap_ptr;
	LLVMBasicBlockRef entry, start, at;
	LLVMMetadataRef sp, loc;
	struct cg_var *vars;
	int nvars, capvars, nloops, ntmp, captmp;
	LLVMBasicBlockRef brk[32], cont[32];
	LLVMValueRef *tmp;
	uint32_t *tmpsize, *tmpheap, heap_off;
	bool slp_cand;
};

/* ---- cg_ir.c: the toolbox; it calls no other cg_ file ---- */
void cg_error(struct cg *g, struct loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void cg_at(struct cg *g, const struct node *n);
LLVMValueRef cg_const(struct cg *g, uint64_t v);
/* A BPF helper call, of any helper but a memory read (cg_read). */
LLVMValueRef cg_helper(struct cg *g, int id, LLVMValueRef *args, int n);
/* The call alone, reads too: no fault counting, never made sleepable
 * (cg_read and the sleepable arms it builds). */
LLVMValueRef cg_helper_raw(struct cg *g, int id, LLVMValueRef *args, int n);
/* A temporary: valid until the enclosing statement ends (cg_tmp_release). */
LLVMValueRef cg_alloca(struct cg *g, uint32_t size, const char *name);
/* A slot alive for the whole probe hit (scratch variables). */
LLVMValueRef cg_alloca_var(struct cg *g, uint32_t size, const char *name);
/* A temporary in the heap, always (the callback of cg_for_map finds it at
 * the same offset, *off, of its own lookup of the per-CPU heap). */
LLVMValueRef cg_heap_tmp(struct cg *g, uint32_t size, uint32_t *off);
int cg_tmp_mark(struct cg *g);
void cg_tmp_release(struct cg *g, int mark);
LLVMValueRef cg_gep(struct cg *g, LLVMValueRef p, uint64_t off);
void cg_memset0(struct cg *g, LLVMValueRef p, uint32_t size);
void cg_memcpy(struct cg *g, LLVMValueRef dst, LLVMValueRef src, uint32_t size);
LLVMBasicBlockRef cg_block(struct cg *g, const char *name);
/* Branches on v != 0 into a new block and returns the block for "else". */
LLVMBasicBlockRef cg_if(struct cg *g, LLVMValueRef v, const char *name);
LLVMValueRef cg_store_const_str(struct cg *g, const char *s, size_t len, uint32_t size);
/* Debug info: a basic type, a pointer to t (NULL: void *), a global's
 * (libbpf reads a section's variables from it, BTF DATASEC). */
LLVMMetadataRef cg_di_basic(struct cg *g, const char *name, unsigned bits, unsigned enc);
LLVMMetadataRef cg_di_ptr(struct cg *g, LLVMMetadataRef t);
void cg_di_global(struct cg *g, LLVMValueRef gv, const char *name, uint32_t size);
/* The BPF ISA functions and the target machine are built for: "v3" or "v4". */
const char *cg_bpf_cpu(void);
/* A BTF-defined map: a global in .maps with the debug info libbpf reads. */
LLVMValueRef cg_map_define(struct cg *g, const char *name, int type, uint32_t max,
			   uint32_t key_size, uint32_t value_size);
/* A function whose calls stand for values settled at the function's end. */
LLVMValueRef cg_placeholder(struct cg *g, const char *name, LLVMTypeRef ret);
LLVMValueRef cg_percpu_heap_lookup(struct cg *g);
/* This hit's heap of temporaries: per-CPU, or in a function that may
 * become sleepable a placeholder (slp_heap_ph) that cg_slp_end settles. */
LLVMValueRef cg_heap_ptr(struct cg *g);

/* ---- cg_maps.c: the object's maps and globals; calls cg_ir.c alone ---- */
/* The script's maps (program.h's pr_map and their BTF-defined globals). */
int cg_define_maps(struct cg *g);
LLVMValueRef cg_ringbuf(struct cg *g);
/* Sends the record at rec (size bytes) to the ring buffer; one that finds
 * no room is counted as lost. */
void cg_send(struct cg *g, LLVMValueRef rec, uint32_t size);
#define RINGBUF_BIG   (1u << 22)
#define RINGBUF_SMALL (1u << 18)
/* The ring buffer's size, once every record is known (cg_send). */
void cg_size_ringbuf(struct cg *g);
LLVMValueRef cg_stackmap(struct cg *g);
LLVMValueRef cg_config(struct cg *g);
/* Loss counters (pr_counters in .bss): slots of program.h's counters. */
enum { CG_LOST = PR_LOST, CG_DROPS = PR_DROPS, CG_FAULTS = PR_FAULTS,
       CG_EXIT = PR_EXIT, CG_ABSENT = PR_ABSENT,
       CG_NOENTRY = PR_NOENTRY, CG_NOCALLSITE = PR_NOCALLSITE, CG_RP_REFUSED = PR_RP_REFUSED,
       CG_NCOUNTERS = PR_NCOUNTERS };
void cg_counters(struct cg *g);
void cg_count(struct cg *g, int slot);
void cg_flag(struct cg *g, int slot);
/* A read's result rc: a fault (rc < 0) is counted in CG_FAULTS. */
void cg_count_fault(struct cg *g, LLVMValueRef rc);
/* A per-site value known only once this site's code is made (the action
 * its print(args) prints through): a load by cookie from the function's
 * next late table, filled when every site of the probe is generated
 * (codegen.c, gen_shared).  A constant outside shared sites. */
LLVMValueRef cg_site_late(struct cg *g, uint64_t val);
/* Every late table of the probe just made gets the values of its nsites sites. */
void cg_sitetab_fill(struct cg *g, int nsites);
LLVMValueRef cg_rodata(struct cg *g, const char *name, const void *data, uint32_t size);
LLVMValueRef cg_pid_tgid(struct cg *g);

/* ---- cg_read.c: every read of traced memory ---- */
/* The read helper id (H_READ_*, H_PROBE_READ_STR) of args (dst, size,
 * src), with the program's read policy: sleepable at a uprobe that may
 * sleep, the replay flag during a syscall entry's trial reads, else a
 * fault counted.  Returns the helper's result. */
LLVMValueRef cg_read(struct cg *g, int id, LLVMValueRef args[3]);

/* ---- codegen.c: functions, probe bodies, programs shared by sites ---- */
/* A bpf_for_each_map_elem() callback (map, key, value, ctx) -> 0 to go on,
 * 1 to stop, built with g's usual state (no probe ctx: g->ctxarg is NULL;
 * heap temporaries after the caller's); cg_callback_end finishes it and
 * gives the caller's state back.  Returns the function. */
LLVMValueRef cg_callback_begin(struct cg *g, struct cg_fnstate *st, const char *name,
			       struct loc at);
void cg_callback_end(struct cg *g, struct cg_fnstate *st);
LLVMValueRef cg_callback_fn(struct cg *g, const char *name, int n, const char *const *pnames,
			    LLVMMetadataRef *sp);
/* bpf_for_each_map_elem()'s callback that counts the elements (len()). */
LLVMValueRef cg_count_callback(struct cg *g);
/* A BPF function of the object that no script probe asked for (entry
 * companions); `at` gives its debug location.  Returns its pr_prog, to
 * which the caller gives a probe. */
struct pr_prog *cg_func_begin(struct cg *g, const char *name, const char *sec, struct loc at);
void cg_func_end(struct cg *g);
/* Returns 0 from the program unless (v != 0) == want. */
void cg_ret0_unless(struct cg *g, LLVMValueRef v, bool want);
/* Return 0 once exit() has run (the exit flag in counters). */
void cg_skip_after_exit(struct cg *g);
/* A probe's predicate (return 0 when false) and its body. */
void cg_probe_body(struct cg *g, struct node *pn);

/* ---- cg_emit.c: the module, the target machine, passes, emission ---- */
/* The LLVM module of a script, its debug-info compile unit, its license. */
void cg_module_init(struct cg *g, const struct source *src);
void cg_add_license(struct cg *g);
/* Drops probe functions' debug info above the BTF writer's budget. */
void cg_lean_debug_info(struct cg *g);
/* The O2 pipeline and the BPF ELF in memory (or the object cache's). */
int cg_emit(struct cg *g, unsigned dump);
/* --dump bpf: the program sections disassembled. */
void cg_dump_bpf(const struct program *p);

/* ---- cg_expr.c: expressions ---- */
LLVMValueRef cg_expr(struct cg *g, struct node *n);
/* size bytes of the program's context at off, as an i64 (zero-extended). */
LLVMValueRef cg_ctx_load(struct cg *g, unsigned off, unsigned size);
/* Converts an i64 to the representation of type t (masking, sign). */
LLVMValueRef cg_to_int_type(struct cg *g, LLVMValueRef v, const struct type *t);
LLVMValueRef cg_bool(struct cg *g, LLVMValueRef i1);
bool cg_is_mem(const struct type *t);
/* Writes value v of type t into size bytes at dst (ints: 8 bytes). */
void cg_store_value(struct cg *g, LLVMValueRef dst, LLVMValueRef v,
		    const struct type *t, uint32_t size);
/* cg_store_value into a slot of type dt: a tuple of another layout (a
 * narrower string element) is converted element by element. */
void cg_store_as(struct cg *g, LLVMValueRef dst, const struct type *dt, LLVMValueRef v,
		 const struct type *t, uint32_t size);
LLVMValueRef cg_map_key(struct cg *g, struct node *m, LLVMValueRef bucket);
LLVMValueRef cg_map_read(struct cg *g, struct node *m);
struct cg_var *cg_var(struct cg *g, const char *name, const struct type *t);
/* 1 if strings a and b agree up to a NUL, within both sizes and the first
 * limit bytes; else 0. */
LLVMValueRef cg_str_eq_n(struct cg *g, LLVMValueRef a, const struct type *ta, LLVMValueRef b,
			 const struct type *tb, uint64_t limit);
LLVMValueRef cg_arith(struct cg *g, int op, LLVMValueRef a, LLVMValueRef b, bool sgn);
void cg_comm_into(struct cg *g, LLVMValueRef dst);
/* The value of ustack/kstack of type t (its frames: cg_ustack_cfi). */
LLVMValueRef cg_stack_id(struct cg *g, const struct type *t);

/* ---- cg_stmt.c: statements, calls, aggregations, actions ---- */
void cg_block_stmts(struct cg *g, struct node *blk);
void cg_stmt(struct cg *g, struct node *n);
/* ++/-- on a map or $variable; the value is the new one for ++x, the old
 * one for x++, as in C and bpftrace. */
LLVMValueRef cg_incdec(struct cg *g, struct node *n);
LLVMValueRef cg_call(struct cg *g, struct node *n);
/* A new action in the program's table; *id is its index. */
struct pr_action *action_new(struct cg *g, enum pr_action_kind k, const char *fmt,
			     struct loc loc, int *id);
/* The action id just made (the last), or an identical one made for another
 * site of a probe whose sites may share programs. */
int cg_action_reuse(struct cg *g, int id);

/* ---- cg_func.c: builtins and functions of bpftrace's that cg_expr and
 * cg_stmt do not handle themselves; NULL for a name that is not one ---- */
LLVMValueRef cg_func_ident(struct cg *g, struct node *n);
LLVMValueRef cg_func_call(struct cg *g, struct node *n);
/* In a program that sites share: val(site, arg) of the site whose cookie
 * the program runs with, from a table. */
LLVMValueRef cg_site_value(struct cg *g, const char *name,
			   uint64_t (*val)(struct cg *g, int site, int arg), int arg);

/* ---- cg_dwarf.c: DWARF and USDT variables ---- */
LLVMValueRef cg_read_user(struct cg *g, LLVMValueRef addr, unsigned size);
bool cg_is_dwarf_var(struct cg *g, const struct node *n);
/* The user address of a place (DWARF variable in memory, field, element, *p). */
LLVMValueRef cg_place_addr(struct cg *g, struct node *n);
/* The scalar value stored at a place. */
LLVMValueRef cg_place_value(struct cg *g, struct node *n);
/* print(args) at a uprobe site: fills action id (an ACT_PRINTF) with a
 * "{ .name = %s, ... }" format of the site's variables and emits them. */
void cg_print_args(struct cg *g, int id, struct loc loc);
/* print(*p) of a struct or array in traced-program memory: action id (an
 * ACT_PRINTV) gets a copy of it. */
void cg_print_place(struct cg *g, int id, struct node *m);
/* After every script function: the entry companions DWL_ENTRY_VALUE asked for. */
int cg_entry_companions(struct cg *g);

/* ---- cg_unwind.c: `ustack` unwound through CFI in the kernel (program.h's
 * pr_uw_row tables) ---- */
/* NULL where it cannot be (no kernel BTF, BEGIN/END): then the caller uses
 * bpf_get_stackid.  The value is a T_STACK's. */
LLVMValueRef cg_ustack_cfi(struct cg *g, unsigned frames);
/* The stack map of stacks cut to frames frames ("stacks_N", FMT's
 * stack_n_fds), NULL for whole stacks (cg_stackmap). */
LLVMValueRef cg_stackmap_n(struct cg *g, unsigned frames);

/* ---- cg_syscall.c: a program on raw_syscalls for a syscalls:* wildcard
 * (syscalls.h) ---- */
/* The prologue returns at once for a syscall that is not a site, and keeps
 * its number, site and registers for the two below. */
void cg_sys_prologue(struct cg *g);
/* A field of the syscall's tracepoint: __syscall_nr, an argument, ret. */
LLVMValueRef cg_sys_field(struct cg *g, const struct field *f, const struct type *t);
/* The `probe` builtin: this site's name, size bytes, in .rodata: read-only. */
LLVMValueRef cg_sys_probe_name(struct cg *g, uint32_t size);

/* ---- cg_formap.c: for ($kv : @m) ---- */
void cg_for_map(struct cg *g, struct node *n);

/* ---- cg_watch.c: watchpoint:FUNC+argN ---- */
/* The setup uprobes of the watchpoint:FUNC+argN probes. */
void cg_watch_setups(struct cg *g);
/* unwatch(addr): an ACT_UNWATCH record. */
void cg_unwatch(struct cg *g, LLVMValueRef addr, struct loc loc);

/* ---- cg_sleep.c: user reads at uprobes that fault pages in where the
 * kernel has sleepable uprobe programs ---- */
void cg_slp_begin(struct cg *g);
/* The read (H_READ_USER or _STR) built for both cases, or NULL when the
 * function is not a candidate or id is another helper (cg_read). */
LLVMValueRef cg_slp_read(struct cg *g, int id, LLVMValueRef *args);
/* At the end of a function: decides, settles the placeholders, returns
 * whether the program is sleepable. */
bool cg_slp_end(struct cg *g);
/* After every function: defines the task-local heap map if one is used. */
void cg_slp_finish(struct cg *g);

/* ---- cg_replay.c: a sys_enter_* hit whose str() of an argument faults is
 * kept and run at the matching sys_exit_* ---- */
bool cg_rp_wanted(const struct node *pn, const struct probe *p);
/* The companion on the sys_exit_* event; built before the enter's. */
void cg_rp_exit(struct cg *g, struct node *pn, const struct probe *p, int idx);
/* At the start of the enter's function: the trial reads, the keeping. */
void cg_rp_enter(struct cg *g, struct node *pn, int idx);
/* In a replay at sys_exit: the user address src, or 0 (the read faults,
 * counted in CG_RP_REFUSED) where another may have written it since the
 * kernel read it at the entry.  src itself elsewhere. */
LLVMValueRef cg_rp_guard(struct cg *g, LLVMValueRef src);

#endif
