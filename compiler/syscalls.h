/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * syscalls.h - a wildcard over syscall tracepoints attached once.
 *
 * Each tracepoint:syscalls:* event is its own perf event, and the kernel
 * tears each one down under a mutex with two RCU grace periods: 360 of
 * them took 16 s to detach (bpftrace: 27 s), and 190 ms to attach.  A
 * wildcard that matches many sys_enter_* (or sys_exit_*) events becomes
 * one BPF program on the raw_syscalls:sys_enter (sys_exit) tracepoint,
 * which finds its site from the syscall number in a table (cg_syscall.c).
 *
 * Syscall numbers come from the C library's headers at build time, then
 * from a short list of newer x86-64 syscalls.  An event whose number is
 * not known stays a perf event, in the probe sys_split() took the others from.
 */
#ifndef PR_SYSCALLS_H
#define PR_SYSCALLS_H

#include "compiler/probe.h"
#include "lib/sysnames.h"

/* Wildcards that match fewer events keep one perf event each: the raw
 * program runs on every syscall of the system, matched or not. */
#define SYS_RAW_MIN 8

/* Takes the sys_enter_* events of p whose numbers are known into raw[0],
 * a probe with the same name and fields made a raw program (sys_raw,
 * sys_site), if there are SYS_RAW_MIN of them, and the sys_exit_* ones
 * into raw[1] likewise; NULL where not.  p keeps the other sites, perhaps
 * none.  Returns -1 if out of memory (the caller frees raw[]). */
int sys_split(struct probe *p, struct probe *raw[2]);

#endif
