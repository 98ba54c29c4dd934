/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * kdwarf.c - the running kernel's DWARF, see kdwarf.h.
 */
#define _GNU_SOURCE
#include "kdwarf.h"

#include <ctype.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "dwarf.h"
#include "lib/elfsym.h"
#include "lib/safefile.h"
#include "probe.h"

#define KDW_NT_GNU_BUILD_ID 3

/* The running kernel's build-id from /sys/kernel/notes (its ELF notes,
 * raw); its length, or 0 if there is none to read. */
static size_t running_build_id(unsigned char *id, size_t max)
{
	unsigned char buf[4096];
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	ssize_t len = fd < 0 ? -1 : read(fd, buf, sizeof(buf));
	size_t at = 0;

	if (fd >= 0)
		close(fd);
	while (len > 0 && at + 12 <= (size_t)len) {
		uint32_t nsz, dsz, type;
		memcpy(&nsz, buf + at, 4);
		memcpy(&dsz, buf + at + 4, 4);
		memcpy(&type, buf + at + 8, 4);
		size_t name = at + 12, desc = name + ((nsz + 3u) & ~3u);
		if (desc + dsz > (size_t)len)
			break;
		if (type == KDW_NT_GNU_BUILD_ID && nsz == 4 && !memcmp(buf + name, "GNU", 4) &&
		    dsz <= max) {
			memcpy(id, buf + desc, dsz);
			return dsz;
		}
		at = desc + ((dsz + 3u) & ~3u);
	}
	return 0;
}

/* Whether the ELF open at fd has the build-id id (or there is none to
 * compare with: a kernel without notes). */
static bool same_build_id(int fd, const unsigned char *id, size_t n)
{
	Elf *e;
	const void *fid;
	ssize_t fn;
	bool same;

	if (!n)
		return true;
	elf_version(EV_CURRENT);
	if (!(e = elf_begin(fd, ELF_C_READ_MMAP, NULL)))
		return false;
	fn = dwelf_elf_gnu_build_id(e, &fid);
	same = fn == (ssize_t)n && !memcmp(fid, id, n);
	elf_end(e);
	return same;
}

/* Takes path if it is a trusted regular file of the running kernel's
 * build; else says why in why (the first reason kept). */
static bool usable(const char *path, const unsigned char *id, size_t idn, char *why, size_t n)
{
	struct stat st;
	char r[128];
	int fd = sf_open_regular(path, &st);
	bool ok = false;

	if (fd < 0)
		return false;
	if (!sf_trusted(&st, 0, r, sizeof(r)))
		snprintf(why, n, "%s is not trusted (%s)", path, r);
	else if (!(ok = same_build_id(fd, id, idn)))
		snprintf(why, n, "%s is not the running kernel's build (its build-id differs)", path);
	close(fd);
	return ok;
}

char *kdw_vmlinux(char *why, size_t n)
{
	static const char *const fmt[] = {
		"/usr/lib/debug/boot/vmlinux-%s",
		"/usr/lib/debug/lib/modules/%s/vmlinux",
		"/lib/modules/%s/build/vmlinux",
		"/boot/vmlinux-%s",
	};
	unsigned char id[64];
	size_t idn = running_build_id(id, sizeof(id));
	struct utsname u;
	char *path;

	if (uname(&u)) {
		snprintf(why, n, "uname: %s", strerror(errno));
		return NULL;
	}
	snprintf(why, n, "no vmlinux with debuginfo for kernel %s (install "
		 "linux-image-%s-dbg, or the package of your distribution that puts it in "
		 "/usr/lib/debug/boot/vmlinux-%s)", u.release, u.release, u.release);
	for (size_t i = 0; i < sizeof(fmt) / sizeof(fmt[0]); i++) {
		if (asprintf(&path, fmt[i], u.release) < 0)
			return NULL;
		if (usable(path, id, idn, why, n))
			return path;
		free(path);
	}
	return NULL;
}

int kdw_is_line_spec(const char *spec)
{
	const char *c = strchr(spec, ':');

	return strchr(spec, '@') || (c && isdigit((unsigned char)c[1]));
}

/* The symbol of syms (sorted by address) containing addr, or NULL. */
static const struct elfsym *containing(const struct elfsym *syms, int n, uint64_t addr)
{
	int lo = 0, hi = n - 1, best = -1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		if (syms[mid].addr <= addr)
			best = mid, lo = mid + 1;
		else
			hi = mid - 1;
	}
	/* same-address aliases: the first with a size that covers addr */
	while (best > 0 && syms[best - 1].addr == syms[best].addr)
		best--;
	for (int i = best; i >= 0 && i < n && syms[i].addr <= addr; i++)
		if (addr < syms[i].addr + (syms[i].size ? syms[i].size : 1))
			return &syms[i];
	return NULL;
}

int kdw_sites(const char *spec, struct kdw_site **out, char *err, size_t n)
{
	char *vm = kdw_vmlinux(err, n);
	struct probe_site *ps = NULL;
	struct elfsym *syms = NULL;
	int nps = 0, nsyms = -1, k = 0;

	*out = NULL;
	if (!vm)
		return -1;
	if (dw_open_kernel(vm, err, n) || dw_resolve(vm, spec, false, &ps, &nps, err, n))
		goto done;
	if ((nsyms = elfsym_every(vm, &syms)) < 0) {
		snprintf(err, n, "cannot read the symbols of %s", vm);
		goto done;
	}
	if (!(*out = calloc((size_t)nps, sizeof(**out))))
		abort();
	for (int i = 0; i < nps; i++) {
		const struct elfsym *s = containing(syms, nsyms, ps[i].addr);
		if (!s) {
			snprintf(err, n, "%s: address 0x%llx is in no function symbol of %s", spec,
				 (unsigned long long)ps[i].addr, vm);
			kdw_sites_free(*out, k);
			*out = NULL;
			k = 0;
			goto done;
		}
		if (!((*out)[k].func = strdup(s->name)))
			abort();
		(*out)[k].addr = ps[i].addr;
		(*out)[k].dw = ps[i].dw;
		ps[i].dw = NULL;
		(*out)[k++].offset = ps[i].addr - s->addr;
	}
done:
	for (int i = 0; i < nps; i++) {
		free(ps[i].func);
		dw_probe_free(ps[i].dw);
	}
	free(ps);
	if (nsyms > 0)
		elfsym_free(syms, nsyms);
	free(vm);
	return k ? k : -1;
}

void kdw_sites_free(struct kdw_site *s, int n)
{
	for (int i = 0; i < n; i++) {
		free(s[i].func);
		dw_probe_free(s[i].dw);
	}
	free(s);
}
