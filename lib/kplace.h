/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kplace.h - kernel functions whose name other symbols share, named as a
 * kprobe can name them.
 *
 * The kernel looks a kprobe's symbol up in /proc/kallsyms, and refuses
 * one that names several symbols (EADDRNOTAVAIL: 6.6, and the stable
 * kernels it went to, Debian 12's 6.1 among them): counted over vmlinux
 * and every loaded module for "NAME", over the module alone for
 * "MOD:NAME".  So `kprobe:m_start` (static in four units of 6.12's
 * vmlinux) or a vmlinux function a loaded module also has (kvm_resume,
 * once kvm is loaded) cannot be named.  It can be reached from another
 * symbol: the kernel finds the function that contains SYMBOL+OFFSET
 * itself, so a kretprobe there is still at a function's entry.
 */
#ifndef PR_KPLACE_H
#define PR_KPLACE_H

#include <stdint.h>

/* One function's place: sym+off, sym a name the kernel resolves to one
 * symbol ("NAME" in vmlinux, "MOD:NAME" in a module). */
struct kplace {
	char *sym;
	uint64_t off;
	uint64_t addr;   /* where it is (for messages and order) */
};

/* The places of func+off, func "NAME" or "MOD:NAME", in the kallsyms
 * file at path (/proc/kallsyms): each text symbol named NAME in vmlinux
 * (in module MOD for "MOD:NAME"; in every loaded module if vmlinux has
 * none), named from the nearest text symbol at or before it, in the same
 * object, whose name is its own.  Sorted by address.  Returns how many
 * (0: no text symbol of that name), -EPERM if kallsyms hides addresses
 * (kptr_restrict), -ESRCH if a place has no such symbol before it, or
 * -errno. */
int kplace_find(const char *path, const char *func, uint64_t off, struct kplace **out);
void kplace_free(struct kplace *p, int n);

#endif
