/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * kdwarf.h - the running kernel's DWARF: its vmlinux with debuginfo, found
 * as perf probe finds it, and kprobe sites at source lines (perf probe's
 * kernel syntax FUNC:LINE, FUNC@FILE:LINE, FILE:LINE through dw_resolve).
 *
 * Nothing is read until a probe or -V names a line: a kernel's debuginfo
 * is hundreds of megabytes, and libdw reads only the units it is asked
 * about (the function's, found by name through its address ranges).
 */
#ifndef PR_KDWARF_H
#define PR_KDWARF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The running kernel's vmlinux with DWARF: /usr/lib/debug/boot/vmlinux-R,
 * /usr/lib/debug/lib/modules/R/vmlinux, /lib/modules/R/build/vmlinux,
 * /boot/vmlinux-R (R = uname -r; Debian's linux-image-R-dbg installs the
 * first), a regular file owned by root and writable by no one else, whose
 * build-id is the running kernel's (/sys/kernel/notes).  Returns the path
 * (malloc'd), or NULL with one sentence in why. */
char *kdw_vmlinux(char *why, size_t n);

/* The debuginfo of loaded module name ('-' and '_' alike) of the running
 * kernel: modules.dep's path for it under /usr/lib/debug/lib/modules/R/
 * (Debian's linux-image-R-dbg) or /lib/modules/R/, trusted as
 * kdw_vmlinux's, whose build-id is the loaded module's
 * (/sys/module/M/notes); vmlinux's for a module built in.  Returns the
 * path (malloc'd), or NULL with one sentence in why (not loaded, none). */
char *kdw_module(const char *name, char *why, size_t n);
/* Whether module name is built into the kernel (not loadable). */
bool kdw_module_builtin(const char *name);

struct dw_ksect;
/* Where the kernel loaded module name's sections (/sys/module/M/sections):
 * their number (*out malloc'd, free with kdw_sections_free), -1 if that
 * cannot be read. */
int kdw_module_sections(const char *name, struct dw_ksect **out);
void kdw_sections_free(struct dw_ksect *v, int n);

struct dw_probe;

/* A kprobe site: a kernel function symbol ("MOD:FUNC" in a module) and
 * the offset into it, the
 * link-time address, and the DWARF view there (the variables visible). */
struct kdw_site {
	char *func;
	uint64_t offset;
	uint64_t addr;
	struct dw_probe *dw;    /* owned by the caller once taken; else freed */
};

/* Where spec (perf probe's FUNC:LINE, FUNC@FILE:LINE or FILE:LINE) is in
 * the running kernel, or in its loaded module mod (NULL: vmlinux): every
 * address the line table gives for it, inlined copies included, each as
 * FUNC+OFF of the symbol containing it.  Returns
 * the number of sites (> 0, *out malloc'd, free with kdw_sites_free), or
 * -1 with one sentence in err. */
int kdw_sites(const char *mod, const char *spec, struct kdw_site **out, char *err, size_t n);
void kdw_sites_free(struct kdw_site *s, int n);

/* "MOD:SPEC" (perf probe -m MOD SPEC): cuts spec at that ':' and returns
 * SPEC, or NULL if spec names no module ("FUNC:LINE", "FILE:LINE"). */
char *kdw_split_module(char *spec);

/* Whether a kprobe spec names a source line (FUNC:LINE, ...@FILE...),
 * which only the kernel's DWARF can place. */
int kdw_is_line_spec(const char *spec);

#endif
