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

#include <stddef.h>
#include <stdint.h>

/* The running kernel's vmlinux with DWARF: /usr/lib/debug/boot/vmlinux-R,
 * /usr/lib/debug/lib/modules/R/vmlinux, /lib/modules/R/build/vmlinux,
 * /boot/vmlinux-R (R = uname -r; Debian's linux-image-R-dbg installs the
 * first), a regular file owned by root and writable by no one else, whose
 * build-id is the running kernel's (/sys/kernel/notes).  Returns the path
 * (malloc'd), or NULL with one sentence in why. */
char *kdw_vmlinux(char *why, size_t n);

struct dw_probe;

/* A kprobe site: a kernel function symbol and the offset into it, the
 * link-time address, and the DWARF view there (the variables visible). */
struct kdw_site {
	char *func;
	uint64_t offset;
	uint64_t addr;
	struct dw_probe *dw;    /* owned by the caller once taken; else freed */
};

/* Where spec (perf probe's FUNC:LINE, FUNC@FILE:LINE or FILE:LINE) is in
 * the running kernel: every address the line table gives for it, inlined
 * copies included, each as FUNC+OFF of the symbol containing it.  Returns
 * the number of sites (> 0, *out malloc'd, free with kdw_sites_free), or
 * -1 with one sentence in err. */
int kdw_sites(const char *spec, struct kdw_site **out, char *err, size_t n);
void kdw_sites_free(struct kdw_site *s, int n);

/* Whether a kprobe spec names a source line (FUNC:LINE, ...@FILE...),
 * which only the kernel's DWARF can place. */
int kdw_is_line_spec(const char *spec);

#endif
