/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kbtf.h - the running kernel's types, read from its BTF
 * (/sys/kernel/btf/vmlinux through libbpf), as struct type (types.h).
 *
 * Used for `curtask` (struct task_struct *), for the arguments of raw
 * tracepoints (the `btf_trace_NAME` typedefs) and for casts to kernel
 * types at kernel probes.  The BTF is read on first need only, and records
 * are filled lazily (type_complete), so a script that names task_struct
 * does not convert the thousands of records it reaches.  Pointers built
 * here point into kernel memory (is_user false).  Types and the BTF live
 * as long as the process.
 */
#ifndef PR_KBTF_H
#define PR_KBTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct type;

/* `struct task_struct *` in kernel memory.  Reads no BTF until a field of
 * the record is asked for. */
const struct type *kbtf_task_ptr(void);
/* A kernel type by C name: "struct sk_buff", "union ...", "enum ...", or a
 * typedef ("pid_t", "u32").  NULL if the kernel has no BTF or no such type. */
const struct type *kbtf_type(const char *name);
/* The byte offset of field (not a bitfield) in the kernel record rec
 * ("struct inode"), members of unnamed structs and unions included; -1
 * if the kernel's BTF has no such field. */
int kbtf_field_offset(const char *rec, const char *field);
/* The arguments of raw tracepoint `event` as a record: field i at offset
 * 8 * i (the u64 slots of the raw tracepoint context), named as the kernel
 * names them (from __bpf_trace_EVENT), typed from btf_trace_EVENT.
 * Returns NULL and sets errno (ENOENT: no such tracepoint; ENODEV: no
 * kernel BTF) on failure. */
const struct type *kbtf_rawtp_args(const char *event);
/* The parameters of kernel function func (of module mod, from its BTF;
 * NULL: vmlinux's) as a record: field i at offset 8 * i (the u64 slots of
 * an fentry/fexit context; fexit's return value follows the last), named
 * and typed from its BTF prototype.  Returns NULL and sets errno (ENOENT:
 * no such function; ENODEV: no kernel BTF). */
const struct type *kbtf_func_args(const char *mod, const char *func);
/* The type of func's result (module mod's, NULL: vmlinux's), for retval
 * at fexit and kretprobes: an integer, enum, bool or pointer; NULL for
 * void or another type (a struct in two registers), no BTF or no such
 * function.  With all, every function of that name must have the same
 * prototype (kretprobes attach each). */
const struct type *kbtf_func_ret(const char *mod, const char *func, bool all);
/* The same at a kprobe on func's entry, func of module mod (its BTF,
 * /sys/kernel/btf/MOD) or of vmlinux (mod NULL): parameter i is at
 * regs[i] (the struct pt_regs offset of the register the calling
 * convention puts it in), for the first nregs parameters of at most 8
 * bytes each; the record stops before the first that is not so.  A kprobe
 * on a name several functions have attaches each: errno ENOTUNIQ if their
 * parameters differ. */
const struct type *kbtf_kprobe_args(const char *mod, const char *func, const uint32_t *regs,
				    int nregs);
/* The functions of the kernel's BTF matching the fnmatch pattern pat
 * that ftrace can trace (in available_filter_functions, when it can be
 * read): the targets of an fentry/fexit wildcard.  Sorted, each once, in a
 * malloc'd array of malloc'd names; returns their number, or -1 (errno
 * ENODEV) without kernel BTF. */
int kbtf_funcs_matching(const char *pat, char ***out);
/* The value of an enumerator of the kernel's BTF (TCP_ESTABLISHED), as
 * bpftrace 0.17 takes them in expressions; false if there is none. */
bool kbtf_enum_value(const char *name, int64_t *v);
/* A record named cname ("struct __kernel_timespec") whose size and fields
 * come from the kernel's BTF when first needed (type_complete): tracepoint
 * formats name such pointers' targets, most scripts never read them.
 * NULL if cname names no struct or union. */
const struct type *kbtf_record_stub(const char *cname);
/* The BTF id of the kernel's per-CPU variable `name` (a VAR of the
 * .data..percpu section), for percpu_kaddr(); -ENOENT if there is none
 * (-ENODEV: no kernel BTF). */
int kbtf_percpu_var(const char *name);
/* C definitions of the kernel types names[] ("struct list_head", "u32"),
 * with every type they hold by value, as libbpf's btf_dump writes them
 * (pointers' targets only declared): for a script's C declarations that
 * use kernel types, as bpftrace 0.17 takes them.  A malloc'd text; NULL if
 * the kernel has no BTF or none of the names. */
char *kbtf_c_decls(const char *const *names, int n);
/* -lv of fentry:FUNC (module mod's, NULL: vmlinux's): one line per
 * parameter, "    TYPE NAME" in C as bpftrace -lv writes them, and with
 * ret the result's, "    TYPE retval".  -1 if BTF has no such function. */
int kbtf_func_decls(FILE *out, const char *mod, const char *func, bool ret);
/* Is there kernel BTF at all (without loading it)? */
int kbtf_available(void);

#endif
