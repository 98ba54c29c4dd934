/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * kdwarf.c - the running kernel's DWARF, see kdwarf.h.
 */
#define _GNU_SOURCE
#include "kdwarf.h"

#include <ctype.h>
#include <dirent.h>
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
#include "lib/kscan.h"
#include "lib/safefile.h"
#include "probe.h"

#define KDW_NT_GNU_BUILD_ID 3

/* A build-id from the kernel's raw ELF notes at path (/sys/kernel/notes,
 * a module's /sys/module/M/notes/.note.gnu.build-id); its length, or 0
 * if there is none to read. */
static size_t running_build_id(const char *path, unsigned char *id, size_t max)
{
	unsigned char buf[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
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
	size_t idn = running_build_id("/sys/kernel/notes", id, sizeof(id));
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

/* A module's name as the kernel keeps it ('-' is '_') in mod[64]; false
 * if name is none (it becomes a path under /sys/module: no '/', no "..").
 */
static bool mod_norm(const char *name, char *mod)
{
	size_t n = strlen(name);

	if (!n || n >= 64 || strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789_-") != n)
		return false;
	for (size_t i = 0; i <= n; i++)
		mod[i] = name[i] == '-' ? '_' : name[i];
	return true;
}

/* Whether line, an entry of modules.dep ("kernel/fs/9p/9p.ko.xz: deps"),
 * is module mod's; its path is cut at the ':' if so. */
static bool dep_is(char *line, const char *mod)
{
	char *colon = strchr(line, ':'), *base, *ko;

	if (!colon)
		return false;
	*colon = '\0';
	base = strrchr(line, '/') ? strrchr(line, '/') + 1 : line;
	if (!(ko = strstr(base, ".ko")) || (size_t)(ko - base) != strlen(mod))
		return false;
	for (size_t i = 0; base + i < ko; i++)
		if ((base[i] == '-' ? '_' : base[i]) != mod[i])
			return false;
	return true;
}

/* Module mod's path under /lib/modules/R as modules.dep gives it, without
 * a compression suffix ("kernel/fs/9p/9p.ko"); NULL if it is not there. */
static char *module_relpath(const char *release, const char *mod)
{
	char path[512], *line = NULL, *found = NULL;
	size_t cap = 0;
	struct stat st;
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/lib/modules/%s/modules.dep", release);
	if ((fd = sf_open_regular(path, &st)) < 0)
		return NULL;
	if (!sf_trusted(&st, 0, path, sizeof(path)) || !(f = fdopen(fd, "r"))) {
		close(fd);
		return NULL;
	}
	while (!found && getline(&line, &cap, f) > 0)
		if (dep_is(line, mod) && (found = strdup(line)))
			*strstr(found, ".ko") = '\0';
	free(line);
	fclose(f);
	return found;
}

enum mod_state { MOD_ABSENT, MOD_BUILTIN, MOD_LOADED };

/* Whether module mod (normalised) is loaded (it has sections), built
 * into the kernel (only parameters in /sys/module), or neither. */
static enum mod_state module_state(const char *mod)
{
	char dir[128];
	struct stat st;

	snprintf(dir, sizeof(dir), "/sys/module/%s/sections", mod);
	if (!stat(dir, &st))
		return MOD_LOADED;
	snprintf(dir, sizeof(dir), "/sys/module/%s", mod);
	return stat(dir, &st) ? MOD_ABSENT : MOD_BUILTIN;
}

bool kdw_module_builtin(const char *name)
{
	char mod[64];

	return mod_norm(name, mod) && module_state(mod) == MOD_BUILTIN;
}

char *kdw_module(const char *name, char *why, size_t n)
{
	char mod[64], dir[128], *rel = NULL, *path = NULL;
	unsigned char id[64];
	struct utsname u;

	if (!mod_norm(name, mod)) {
		snprintf(why, n, "'%s' is not a module's name", name);
		return NULL;
	}
	switch (module_state(mod)) {
	case MOD_BUILTIN:
		return kdw_vmlinux(why, n);   /* its DWARF is vmlinux's */
	case MOD_ABSENT:
		snprintf(why, n, "module %s is not loaded: load it (modprobe %s) before probing its "
			 "lines, which have no address until then", name, name);
		return NULL;
	case MOD_LOADED:
		break;
	}
	if (uname(&u)) {
		snprintf(why, n, "uname: %s", strerror(errno));
		return NULL;
	}
	snprintf(dir, sizeof(dir), "/sys/module/%s/notes/.note.gnu.build-id", mod);
	size_t idn = running_build_id(dir, id, sizeof(id));
	snprintf(why, n, "no debuginfo for module %s of kernel %s (install linux-image-%s-dbg, or "
		 "the package of your distribution that puts it in /usr/lib/debug/lib/modules/%s/)",
		 name, u.release, u.release, u.release);
	if (!(rel = module_relpath(u.release, mod)))
		return NULL;
	static const char *const fmt[] = {
		"/usr/lib/debug/lib/modules/%s/%s.ko",
		"/lib/modules/%s/%s.ko",
	};
	for (size_t i = 0; i < sizeof(fmt) / sizeof(fmt[0]) && !path; i++) {
		if (asprintf(&path, fmt[i], u.release, rel) < 0)
			abort();
		if (!usable(path, id, idn, why, n)) {
			free(path);
			path = NULL;
		}
	}
	free(rel);
	return path;
}

int kdw_module_sections(const char *name, struct dw_ksect **out)
{
	char mod[64], dir[128], path[512], buf[32];
	struct dw_ksect *v = NULL;
	struct dirent *de;
	int n = 0;
	DIR *d;

	*out = NULL;
	if (!mod_norm(name, mod))
		return -1;
	snprintf(dir, sizeof(dir), "/sys/module/%s/sections", mod);
	if (!(d = opendir(dir)))
		return -1;
	while ((de = readdir(d))) {
		int fd;
		ssize_t len;
		if (de->d_name[0] != '.' || !strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		if (!(v = realloc(v, (size_t)(n + 1) * sizeof(*v))) || !(v[n].name = strdup(de->d_name)))
			abort();
		v[n++].addr = strtoull(buf, NULL, 16);
	}
	closedir(d);
	*out = v;
	return n;
}

void kdw_sections_free(struct dw_ksect *v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

char *kdw_split_module(char *spec)
{
	char *colon = strchr(spec, ':');

	if (!colon || isdigit((unsigned char)colon[1]) || memchr(spec, '@', (size_t)(colon - spec)))
		return NULL;
	*colon = '\0';
	return colon + 1;
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

/* KASLR's slide: where the running kernel has start_kernel (a function
 * every kernel has once; /proc/kallsyms, 0 where kptr_restrict hides it)
 * less where vmlinux's function symbols (syms) have it; false if not known. */
static bool kaslr_slide(const struct elfsym *syms, int n, uint64_t *slide)
{
	uint64_t run = 0;

	if (kscan_addr("start_kernel", &run))
		return false;
	for (int i = 0; i < n; i++)
		if (!strcmp(syms[i].name, "start_kernel")) {
			*slide = run - syms[i].addr;
			return true;
		}
	return false;
}

/* Whether syms[i]'s name is another function's too. */
static bool shared_name(const struct elfsym *syms, int n, int i)
{
	for (int k = 0; k < n; k++)
		if (k != i && !strcmp(syms[k].name, syms[i].name))
			return true;
	return false;
}

/* The symbol a kprobe names for a site, and the site's offset from it: the
 * function containing it, or, where other functions share its name (static
 * ones of several units), the nearest one before it whose name is its own.
 * The kernel looks a kprobe's name up in kallsyms (in a module's symbols
 * for "MOD:NAME"): a shared name is refused since 6.6 and was the first
 * such function before.  The kernel finds the function containing
 * SYMBOL+OFF itself, so the offset may pass the symbol's end.  A name
 * only a loaded module shares is found at attach, where the kernel refuses
 * it (prov_kernel.c, kplace.h).  NULL if none (the name as the kprobe
 * gives it: "MOD:NAME" in a module). */
static char *site_symbol(const char *mod, const struct elfsym *syms, int n, uint64_t addr,
			 uint64_t *offset)
{
	const struct elfsym *s = containing(syms, n, addr);
	char *name;

	if (!s)
		return NULL;
	for (int i = (int)(s - syms); i >= 0; i--)
		if (syms[i].addr <= addr && !shared_name(syms, n, i)) {
			*offset = addr - syms[i].addr;
			if (!mod)
				return strdup(syms[i].name);
			if (asprintf(&name, "%s:%s", mod, syms[i].name) < 0)
				abort();
			return name;
		}
	return NULL;
}

int kdw_sites(const char *mod, const char *spec, struct kdw_site **out, char *err, size_t n)
{
	char *vm;
	struct probe_site *ps = NULL;
	struct elfsym *syms = NULL;
	struct dw_ksect *sects = NULL;
	int nps = 0, nsyms = -1, nsects = 0, k = 0;

	*out = NULL;
	if (mod && kdw_module_builtin(mod))
		mod = NULL;   /* its functions are vmlinux's, by their own names */
	if (!(vm = mod ? kdw_module(mod, err, n) : kdw_vmlinux(err, n)))
		return -1;
	if (mod && (nsects = kdw_module_sections(mod, &sects)) < 0) {
		snprintf(err, n, "cannot read where module %s is loaded (/sys/module/%s/sections)",
			 mod, mod);
		goto done;
	}
	if (!mod && (nsyms = elfsym_every(vm, &syms)) < 0) {
		snprintf(err, n, "cannot read the symbols of %s", vm);
		goto done;
	}
	struct dw_kplace at = { .sects = sects, .nsects = nsects };
	at.slide_known = !mod && kaslr_slide(syms, nsyms, &at.slide);
	if (dw_open_kernel(vm, &at, err, n) || dw_resolve(vm, spec, false, &ps, &nps, err, n))
		goto done;
	if (mod && (nsyms = dw_module_functions(vm, &syms)) < 0) {
		snprintf(err, n, "cannot read the symbols of %s", vm);
		goto done;
	}
	if (!(*out = calloc((size_t)nps, sizeof(**out))))
		abort();
	for (int i = 0; i < nps; i++) {
		struct kdw_site *o = &(*out)[k];
		if (!(o->func = site_symbol(mod, syms, nsyms, ps[i].addr, &o->offset))) {
			snprintf(err, n, "%s: address 0x%llx is in no function symbol of %s", spec,
				 (unsigned long long)ps[i].addr, vm);
			kdw_sites_free(*out, k);
			*out = NULL;
			k = 0;
			goto done;
		}
		o->addr = ps[i].addr;
		o->dw = ps[i].dw;
		ps[i].dw = NULL;
		k++;
	}
done:
	for (int i = 0; i < nps; i++) {
		free(ps[i].func);
		dw_probe_free(ps[i].dw);
	}
	free(ps);
	if (nsyms > 0)
		elfsym_free(syms, nsyms);
	kdw_sections_free(sects, nsects);
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
