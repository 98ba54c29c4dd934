/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kret.h - what differs between the functions of a kprobe wildcard,
 * whose one program serves them all, in tables by function address
 * (bpf_get_func_ip) the runtime fills before it attaches:
 *
 * - retval at a kretprobe (program.h's PR_KRET_MAP): rax holds an int's
 *   result in eax and whatever it held above, so without each function's
 *   kind kretprobe:do_mkdir* gives 4294967279 for -EEXIST (as bpftrace
 *   0.17 does).  A single kretprobe is typed when compiling (probe.ret).
 * - `probe` (PR_KNAME_MAP): bpftrace names each function's hits
 *   kprobe:vfs_read, not kprobe:vfs_*.
 */
#ifndef PR_KRET_H
#define PR_KRET_H

/* Writes into map fd (u64 address -> u8 kind) the kind of each function
 * of names (vmlinux's BTF; a module's function, or one BTF leaves out, is
 * not written, and its rax is read whole) at each of its addresses in
 * /proc/kallsyms.  Returns how many addresses it wrote, or -errno. */
int kret_fill(int fd, char *const *names, int n);
/* Writes into map fd (u64 address -> char[PR_KNAME_SIZE]) the name of each
 * function of names at each of its addresses in /proc/kallsyms (vmlinux's
 * and modules').  Returns how many addresses it wrote, or -errno. */
int kret_names(int fd, char *const *names, int n);

#endif
