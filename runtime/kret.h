/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kret.h - retval at a kretprobe wildcard: each function's result kind,
 * from the kernel's BTF, by address, for the one program that serves them
 * all (program.h's PR_KRET_MAP).
 *
 * rax holds an int's result in eax and whatever it held above: without
 * the kind, kretprobe:do_mkdir* gives 4294967279 for -EEXIST (as bpftrace
 * 0.17 does).  A single kretprobe is typed when compiling (probe.ret).
 */
#ifndef PR_KRET_H
#define PR_KRET_H

/* Writes into map fd (u64 address -> u8 kind) the kind of each function
 * of names (vmlinux's BTF; a module's function, or one BTF leaves out, is
 * not written, and its rax is read whole) at each of its addresses in
 * /proc/kallsyms.  Returns how many addresses it wrote, or -errno. */
int kret_fill(int fd, char *const *names, int n);

#endif
