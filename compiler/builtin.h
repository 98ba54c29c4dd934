/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * builtin.h - one row per builtin of the language: its name, its id, its
 * argument count as a function, what it is (flags), and the functions of
 * the type checker that check it as an identifier and as a call.
 *
 * Sema looks a name up once (bi_lookup), stores the id in the node
 * (node->bi) and calls the row's hooks; every later pass (code generator,
 * replay) switches on the id or asks the flags, never on the name.
 * Adding a builtin: a row here, its check hook in sema_*.c, a case in the
 * code generator's switch on the id (cg_expr.c ident, cg_func.c
 * cg_func_call, cg_stmt.c cg_call), a test.  argN and sargN are one row
 * each: "arg" or "sarg" then a digit.
 */
#ifndef PR_BUILTIN_H
#define PR_BUILTIN_H

#include <stdbool.h>

/* What a builtin is. */
enum {
	BI_IDENT        = 1u << 0,   /* an identifier: pid */
	BI_CALL         = 1u << 1,   /* a function: str(p) */
	BI_AS_IDENT     = 1u << 2,   /* f() without arguments is the identifier (newer bpftrace) */
	BI_NEEDS_CTX    = 1u << 3,   /* reads the probe's context: refused in a for-map body */
	BI_CTX_SYSRAW   = 1u << 4,   /* ... only at a raw syscalls program (probe) */
	BI_ACTION       = 1u << 5,   /* sends a record to user space (has_actions) */
	BI_NEWER        = 1u << 6,   /* from bpftrace after 0.17 */
	BI_AGG          = 1u << 7,   /* an aggregation: only as @m = f(...) */
	BI_STACK        = 1u << 8,   /* reads a stack (kstack, ustack) */
	BI_ELF32_ENTRY  = 1u << 9,   /* 32-bit code: read at a function's entry only */
	BI_ELF32_NO     = 1u << 10,  /* 32-bit code: not read yet */
	BI_ELF32_NOSTACK = 1u << 11, /* 32-bit code: not unwound yet (4-byte frames) */
};

/*
 * The table: X(ID, "name", min args, max args, flags, ident hook, call hook).
 * A hook is a check_* function of sema, declared by sema_int.h from this
 * table; check_no_ident and check_no_call stand for a form the builtin does
 * not have.  Arguments count only for a call.
 */
#define BI_TABLE(X) \
	/* identifiers of the task and the CPU (sema_ctx.c) */ \
	X(PID, "pid", 0, 0, BI_IDENT | BI_AS_IDENT, check_u32, check_no_call) \
	X(TID, "tid", 0, 0, BI_IDENT | BI_AS_IDENT, check_u32, check_no_call) \
	X(UID, "uid", 0, 0, BI_IDENT | BI_AS_IDENT, check_u32, check_no_call) \
	X(GID, "gid", 0, 0, BI_IDENT | BI_AS_IDENT, check_u32, check_no_call) \
	X(CPU, "cpu", 0, 0, BI_IDENT | BI_AS_IDENT, check_u32, check_no_call) \
	X(RAND, "rand", 0, 0, BI_IDENT | BI_AS_IDENT, check_u32, check_no_call) \
	X(NSECS, "nsecs", 0, 0, BI_IDENT | BI_AS_IDENT, check_u64, check_no_call) \
	X(CGROUP, "cgroup", 0, 0, BI_IDENT | BI_AS_IDENT, check_u64, check_no_call) \
	X(CURTASK, "curtask", 0, 0, BI_IDENT | BI_AS_IDENT, check_curtask, check_no_call) \
	X(ELAPSED, "elapsed", 0, 0, BI_IDENT | BI_AS_IDENT, check_elapsed, check_no_call) \
	X(COMM, "comm", 0, 0, BI_IDENT | BI_AS_IDENT, check_comm, check_no_call) \
	X(CPID, "cpid", 0, 0, BI_IDENT | BI_AS_IDENT, check_cpid, check_no_call) \
	X(NUMAID, "numaid", 0, 0, BI_IDENT | BI_AS_IDENT, check_u32, check_no_call) \
	X(USERNAME, "username", 0, 0, BI_IDENT | BI_AS_IDENT, check_username, check_no_call) \
	X(PPID, "ppid", 0, 0, BI_IDENT | BI_NEWER, check_ppid, check_no_call) \
	X(PCOMM, "pcomm", 0, 0, BI_IDENT | BI_NEWER, check_pcomm, check_no_call) \
	X(TRUE, "true", 0, 0, BI_IDENT | BI_NEWER, check_truth, check_no_call) \
	X(FALSE, "false", 0, 0, BI_IDENT | BI_NEWER, check_truth, check_no_call) \
	X(JIFFIES, "jiffies", 0, 0, BI_IDENT | BI_AS_IDENT | BI_NEWER, check_u64, check_no_call) \
	X(NCPUS, "ncpus", 0, 0, BI_IDENT | BI_AS_IDENT | BI_NEWER, check_u64, check_no_call) \
	/* the probe and its context (sema_ctx.c) */ \
	X(PROBE, "probe", 0, 0, BI_IDENT | BI_AS_IDENT | BI_CTX_SYSRAW, \
	  check_probe_ident, check_no_call) \
	X(PROBETYPE, "probetype", 0, 0, BI_IDENT | BI_AS_IDENT | BI_NEWER, \
	  check_probetype, check_no_call) \
	X(ARGN, "argN", 0, 0, BI_IDENT | BI_NEEDS_CTX | BI_ELF32_ENTRY, check_argn, check_no_call) \
	X(SARGN, "sargN", 0, 0, BI_IDENT | BI_NEEDS_CTX | BI_ELF32_NO, check_sargn, check_no_call) \
	X(RETVAL, "retval", 0, 0, BI_IDENT | BI_AS_IDENT | BI_NEEDS_CTX, \
	  check_retval, check_no_call) \
	X(FUNC, "func", 0, 0, BI_IDENT | BI_AS_IDENT | BI_NEEDS_CTX, check_func, check_no_call) \
	X(ARGS, "args", 0, 0, BI_IDENT | BI_NEEDS_CTX | BI_ELF32_NO, check_args, check_no_call) \
	X(CTX, "ctx", 0, 0, BI_IDENT | BI_NEEDS_CTX, check_ctx, check_no_call) \
	X(USTACK, "ustack", 1, 2, BI_IDENT | BI_CALL | BI_AS_IDENT | \
	  BI_NEEDS_CTX | BI_STACK | BI_ELF32_NOSTACK, \
	  check_stack_ident, check_stack_call) \
	X(KSTACK, "kstack", 1, 2, BI_IDENT | BI_CALL | BI_AS_IDENT | BI_NEEDS_CTX | BI_STACK, \
	  check_stack_ident, check_stack_call) \
	X(DW_USTACK, "dw_ustack", 1, 2, BI_IDENT | BI_CALL | BI_AS_IDENT | BI_NEWER, \
	  check_stack_ident, check_dw_ustack) \
	X(REG, "reg", 1, 1, BI_CALL | BI_NEEDS_CTX | BI_ELF32_NO, check_no_ident, check_reg) \
	X(UADDR, "uaddr", 1, 1, BI_CALL | BI_NEEDS_CTX, check_no_ident, check_uaddr) \
	/* output and actions (sema_call.c) */ \
	X(PRINTF, "printf", 1, 17, BI_CALL | BI_ACTION, check_no_ident, check_printf) \
	X(SYSTEM, "system", 1, 17, BI_CALL | BI_ACTION, check_no_ident, check_printf) \
	X(CAT, "cat", 1, 17, BI_CALL | BI_ACTION, check_no_ident, check_printf) \
	X(ERRORF, "errorf", 1, 17, BI_CALL | BI_ACTION, check_no_ident, check_printf) \
	X(DEBUGF, "debugf", 1, 4, BI_CALL | BI_NEWER, check_no_ident, check_debugf) \
	X(PRINT, "print", 1, 3, BI_CALL | BI_ACTION, check_no_ident, check_print) \
	X(JOIN, "join", 1, 2, BI_CALL | BI_ACTION, check_no_ident, check_join) \
	X(TIME, "time", 0, 1, BI_CALL | BI_ACTION, check_no_ident, check_time) \
	X(EXIT, "exit", 0, 1, BI_CALL | BI_ACTION, check_no_ident, check_exit) \
	X(CLEAR, "clear", 1, 1, BI_CALL | BI_ACTION, check_no_ident, check_clear) \
	X(ZERO, "zero", 1, 1, BI_CALL | BI_ACTION, check_no_ident, check_clear) \
	X(DELETE, "delete", 1, 1, BI_CALL, check_no_ident, check_delete) \
	X(HAS_KEY, "has_key", 2, 2, BI_CALL | BI_NEWER, check_no_ident, check_has_key) \
	X(LEN, "len", 1, 1, BI_CALL | BI_NEWER, check_no_ident, check_len) \
	X(GETOPT, "getopt", 1, 2, BI_CALL | BI_NEWER, check_no_ident, check_getopt) \
	X(OFFSETOF, "offsetof", 2, 2, BI_CALL | BI_NEWER, check_no_ident, check_offsetof) \
	/* aggregations: only as @m = f(...) (sema.c, check_agg) */ \
	X(COUNT, "count", 0, 0, BI_CALL | BI_AGG, check_no_ident, check_agg_call) \
	X(SUM, "sum", 1, 1, BI_CALL | BI_AGG, check_no_ident, check_agg_call) \
	X(AVG, "avg", 1, 1, BI_CALL | BI_AGG, check_no_ident, check_agg_call) \
	X(MIN, "min", 1, 1, BI_CALL | BI_AGG, check_no_ident, check_agg_call) \
	X(MAX, "max", 1, 1, BI_CALL | BI_AGG, check_no_ident, check_agg_call) \
	X(STATS, "stats", 1, 1, BI_CALL | BI_AGG, check_no_ident, check_agg_call) \
	X(HIST, "hist", 1, 2, BI_CALL | BI_AGG, check_no_ident, check_agg_call) \
	X(LHIST, "lhist", 4, 4, BI_CALL | BI_AGG, check_no_ident, check_agg_call) \
	X(TSERIES, "tseries", 3, 4, BI_CALL | BI_AGG | BI_NEWER, check_no_ident, check_agg_call) \
	/* values (sema_call.c) */ \
	X(STR, "str", 1, 2, BI_CALL, check_no_ident, check_str) \
	X(KSYM, "ksym", 1, 1, BI_CALL, check_no_ident, check_ksym) \
	X(USYM, "usym", 1, 1, BI_CALL, check_no_ident, check_usym) \
	X(BSWAP, "bswap", 1, 1, BI_CALL, check_no_ident, check_bswap) \
	X(STRNCMP, "strncmp", 3, 3, BI_CALL, check_no_ident, check_strncmp) \
	X(STRCONTAINS, "strcontains", 2, 2, BI_CALL, check_no_ident, check_strcontains) \
	X(STRFTIME, "strftime", 2, 2, BI_CALL, check_no_ident, check_strftime) \
	X(PTON, "pton", 1, 1, BI_CALL, check_no_ident, check_pton) \
	X(CGROUP_PATH, "cgroup_path", 1, 2, BI_CALL, check_no_ident, check_cgroup_path) \
	X(SYSCALL_NAME, "syscall_name", 1, 1, BI_CALL | BI_NEWER, \
	  check_no_ident, check_syscall_name) \
	X(STRERROR, "strerror", 1, 1, BI_CALL, check_no_ident, check_strerror) \
	/* memory, addresses and the task (sema_addr.c) */ \
	X(BUF, "buf", 1, 2, BI_CALL, check_no_ident, check_buf) \
	X(KADDR, "kaddr", 1, 1, BI_CALL, check_no_ident, check_kaddr) \
	X(PERCPU_KADDR, "percpu_kaddr", 1, 2, BI_CALL | BI_NEWER, \
	  check_no_ident, check_percpu_kaddr) \
	X(UPTR, "uptr", 1, 1, BI_CALL, check_no_ident, check_addr_space) \
	X(KPTR, "kptr", 1, 1, BI_CALL, check_no_ident, check_addr_space) \
	X(NTOP, "ntop", 1, 2, BI_CALL, check_no_ident, check_ntop) \
	X(MACADDR, "macaddr", 1, 1, BI_CALL, check_no_ident, check_macaddr) \
	X(SIGNAL, "signal", 1, 1, BI_CALL, check_no_ident, check_signal) \
	X(OVERRIDE, "override", 1, 1, BI_CALL, check_no_ident, check_override) \
	X(UNWATCH, "unwatch", 1, 1, BI_CALL | BI_ACTION, check_no_ident, check_unwatch) \
	X(PATH, "path", 1, 1, BI_CALL, check_no_ident, check_path) \
	X(CGROUPID, "cgroupid", 1, 1, BI_CALL, check_no_ident, check_cgroupid)

enum bi_id {
	BI_NONE,
#define BI_ENUM(id, name, min, max, flags, ident, call) BI_##id,
	BI_TABLE(BI_ENUM)
#undef BI_ENUM
	BI__COUNT
};

struct bi_row {
	const char *name;
	enum bi_id id;
	int min_args, max_args;
	unsigned flags;
};

/* The row of the builtin NAME (argN and sargN: "arg" or "sarg" then a
 * digit), or NULL. */
const struct bi_row *bi_lookup(const char *name);
/* The row of id (BI_NONE: a row of no flags). */
const struct bi_row *bi_row(enum bi_id id);
/* Whether the builtin of id has all of flags. */
bool bi_is(enum bi_id id, unsigned flags);

#endif
