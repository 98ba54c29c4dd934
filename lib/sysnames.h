/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sysnames.h - syscall numbers and names: the compiler's syscalls:*
 * wildcards (syscalls.h) and the runtime's syscall_name().
 */
#ifndef PR_SYSNAMES_H
#define PR_SYSNAMES_H

/* The number of the syscall that event "sys_enter_NAME" or
 * "sys_exit_NAME" traces, given NAME; -1 if unknown. */
int sys_nr(const char *name);

/* The name of syscall nr as <sys/syscall.h> has it, NULL if unknown:
 * for newer bpftrace's syscall_name(). */
const char *sys_name(int nr);

#endif
