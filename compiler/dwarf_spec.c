// SPDX-License-Identifier: GPL-2.0-only
/*
 * dwarf_spec.c - opening binaries with their DWARF (in the file, or by
 * build-id under /usr/lib/debug and in the debuginfod cache), once per
 * path, and parsing perf probe's spec syntax.
 */
#define _GNU_SOURCE
#include "dwarf_spec.h"
#include "lib/elfsym.h"

#include <dwarf.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "dwarf.h"
#include "dwarf_fidx.h"
#include "dwarf_type.h"
#include "lib/safefile.h"

static struct dw_mod *mods;

static bool has_debug_info(Elf *elf)
{
	GElf_Shdr sh;

	return elfsym_section(elf, ".debug_info", &sh) != NULL;
}

/* CRC-32 of the whole file (zlib's is the one .gnu_debuglink uses). */
static uint32_t file_crc32(int fd)
{
	unsigned char buf[65536];
	uLong crc = crc32(0L, Z_NULL, 0);
	ssize_t n;
	off_t off = 0;

	while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
		crc = crc32(crc, buf, (uInt)n);
		off += n;
	}
	return (uint32_t)crc;
}

static void to_hex(const void *id, size_t n, char *hex)
{
	const unsigned char *b = id;

	for (size_t i = 0; i < n; i++)
		sprintf(hex + 2 * i, "%02x", b[i]);
	hex[2 * n] = '\0';
}

/* A candidate debug file is taken only if it has DWARF and is the one built
 * with this binary: its build-id equals the binary's (when both have one;
 * else crc, from .gnu_debuglink, must be the file's CRC-32).  A debug file
 * of another build gives wrong variable locations and types, silently. */
static int open_candidate(const char *path, const void *id, ssize_t n, const GElf_Word *crc,
			  uid_t owner, Elf **delf)
{
	struct stat st;
	int fd = sf_open_regular(path, &st);
	const void *did;
	ssize_t dn;
	char want[2 * 64 + 1], got[2 * 64 + 1], why[64];

	*delf = NULL;
	if (fd < 0)
		return -1;
	/* build-ids and CRCs only catch accidents: anyone who can write
	 * beside a binary can forge both, and a debug file places probes */
	if (!sf_trusted(&st, owner, why, sizeof(why))) {
		fprintf(stderr, "perf-run: warning: ignoring %s: it is %s (a debug file must be "
			"owned by root, by you or by the binary's owner, and writable by no one "
			"else)\n", path, why);
		goto skip;
	}
	*delf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!*delf || !has_debug_info(*delf))
		goto skip;
	dn = dwelf_elf_gnu_build_id(*delf, &did);
	if (n > 0 && dn > 0 && (dn != n || memcmp(did, id, (size_t)n))) {
		to_hex(id, (size_t)n, want);
		to_hex(did, dn <= 64 ? (size_t)dn : 64, got);
		fprintf(stderr, "perf-run: warning: ignoring %s: its build-id %s is not the "
			"binary's %s\n", path, got, want);
		goto skip;
	}
	if (crc && (n <= 0 || dn <= 0)) {
		uint32_t c = file_crc32(fd);

		if (c != *crc) {
			fprintf(stderr, "perf-run: warning: ignoring %s: its CRC 0x%08x is not the "
				"0x%08x that .gnu_debuglink names\n", path, c, (unsigned)*crc);
			goto skip;
		}
	}
	return fd;
skip:
	if (*delf)
		elf_end(*delf);
	*delf = NULL;
	close(fd);
	return -1;
}

/* .gnu_debuglink's file, where gdb looks for it: beside the binary, in
 * .debug/ beside it, and under the debug root at the binary's directory. */
static int open_gnu_debuglink(Elf *elf, const char *bin, const char *root, const void *id,
			      ssize_t n, uid_t owner, Elf **delf)
{
	GElf_Word crc;
	const char *name = dwelf_elf_gnu_debuglink(elf, &crc);
	const char *slash = strrchr(bin, '/');
	int dirlen = slash ? (int)(slash - bin) : 1;
	const char *dir = slash ? bin : ".";
	char path[4096];

	if (!name || !*name || strchr(name, '/'))
		return -1;
	for (int k = 0; k < 3; k++) {
		if (k == 0)
			snprintf(path, sizeof(path), "%.*s/%s", dirlen, dir, name);
		else if (k == 1)
			snprintf(path, sizeof(path), "%.*s/.debug/%s", dirlen, dir, name);
		else
			snprintf(path, sizeof(path), "%s%.*s/%s", root, dirlen, dir, name);
		if (!strcmp(path, bin))
			continue;   /* the stripped binary itself */
		int fd = open_candidate(path, id, n, &crc, owner, delf);
		if (fd >= 0)
			return fd;
	}
	return -1;
}

/* Separate debuginfo by build-id: distribution -dbgsym packages (under
 * $PERF_RUN_DEBUGINFO_DIR instead of /usr/lib/debug when set, so that tests
 * and unpacked packages need no root-owned tree), then by .gnu_debuglink,
 * then the debuginfod cache. */
static int open_debuglink(Elf *elf, const char *bin, uid_t owner, Elf **delf)
{
	const void *id = NULL;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &id);
	char hex[2 * 64 + 1], path[512];
	const char *root = getenv("PERF_RUN_DEBUGINFO_DIR");
	const char *home = getenv("HOME");
	int fd;

	if (n > 64)
		n = -1;
	if (!root || !*root)
		root = "/usr/lib/debug";
	if (n > 0) {
		to_hex(id, (size_t)n, hex);
		snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", root, hex, hex + 2);
		if ((fd = open_candidate(path, id, n, NULL, owner, delf)) >= 0)
			return fd;
	}
	if ((fd = open_gnu_debuglink(elf, bin, root, id, n, owner, delf)) >= 0 || n <= 0)
		return fd;
	snprintf(path, sizeof(path), "%s/.cache/debuginfod_client/%s/debuginfo",
		 home ? home : "/root", hex);
	return open_candidate(path, id, n, NULL, owner, delf);
}

int dw_debug_fd(const char *bin)
{
	Elf *delf = NULL;
	int fd = open(bin, O_RDONLY | O_CLOEXEC), dfd = -1;
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	struct stat st;
	if (elf && !fstat(fd, &st))
		dfd = open_debuglink(elf, bin, st.st_uid, &delf);
	if (delf)
		elf_end(delf);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return dfd;
}

static void mod_close(struct dw_mod *m)
{
	dwf_free(m->funcs);  /* its DIEs point into m->dbg */
	for (int i = 0; i < m->nksect; i++)
		free(m->ksect[i].name);
	free(m->ksect);
	if (m->dwfl) {          /* its elf, dbg and CFI are dwfl's */
		dwfl_end(m->dwfl);
		m->elf = NULL, m->dbg = NULL, m->cfi_dbg = NULL;
	}
	if (m->dbg)
		dwarf_end(m->dbg);
	if (m->cfi_eh)
		dwarf_cfi_end(m->cfi_eh);
	if (m->delf)
		elf_end(m->delf);
	if (m->elf)
		elf_end(m->elf);
	if (m->dfd >= 0)
		close(m->dfd);
	if (m->fd >= 0)
		close(m->fd);
	dwt_free(m->types);
	free(m->path);
	free(m);
}

/* libdwfl looks no further than the file itself for its DWARF: a path
 * the module's .gnu_debuglink names is not followed. */
static int rel_no_debuginfo(Dwfl_Module *mod, void **user, const char *name, Dwarf_Addr base,
			    const char *file, const char *debuglink, GElf_Word crc, char **path)
{
	(void)mod, (void)user, (void)name, (void)base, (void)file, (void)debuglink, (void)crc;
	(void)path;
	return -1;
}

/* A relocatable object (a kernel module's debuginfo): its DWARF's
 * addresses are relocations against its sections, which libdwfl's
 * offline reporting lays out and applies (libdw alone reads them as 0). */
static int mod_load_rel(struct dw_mod *m, char *err, size_t errlen)
{
	static const Dwfl_Callbacks cb = {
		.find_debuginfo = rel_no_debuginfo,
		.section_address = dwfl_offline_section_address,
	};
	Dwarf_Addr bias;
	int fd = dup(m->fd);   /* dwfl closes its own */

	elf_end(m->elf);
	m->elf = NULL;
	if (fd < 0 || !(m->dwfl = dwfl_begin(&cb)) ||
	    !(m->dwmod = dwfl_report_offline(m->dwfl, "module", m->path, fd)) ||
	    dwfl_report_end(m->dwfl, NULL, NULL) || !(m->dbg = dwfl_module_getdwarf(m->dwmod, &bias))) {
		if (fd >= 0 && !m->dwmod)
			close(fd);
		snprintf(err, errlen, "cannot read the DWARF of '%s': %s", m->path, dwfl_errmsg(-1));
		return -1;
	}
	m->elf = dwfl_module_getelf(m->dwmod, &bias);
	m->cfi_dbg = dwfl_module_dwarf_cfi(m->dwmod, &bias);
	m->types = dwt_new();
	return 0;
}

static int mod_load(struct dw_mod *m, char *err, size_t errlen)
{
	GElf_Ehdr eh;

	struct stat st;
	m->fd = sf_open_regular(m->path, &st);
	if (m->fd < 0) {
		snprintf(err, errlen, "cannot open '%s': %s", m->path,
			 errno == ENODEV ? "not a regular file" : strerror(errno));
		return -1;
	}
	m->elf = elf_begin(m->fd, ELF_C_READ_MMAP, NULL);
	if (!m->elf || !gelf_getehdr(m->elf, &eh)) {
		snprintf(err, errlen, "'%s' is not an ELF file", m->path);
		return -1;
	}
	m->pie = eh.e_type == ET_DYN;
	if (eh.e_type == ET_REL)
		return mod_load_rel(m, err, errlen);
	Elf *dwelf = m->elf;
	if (!has_debug_info(m->elf)) {
		m->dfd = open_debuglink(m->elf, m->path, st.st_uid, &m->delf);
		if (m->dfd < 0) {
			snprintf(err, errlen, "'%s' has no debug information (no .debug_info and "
				 "no debuginfo found by build-id or .gnu_debuglink)", m->path);
			return -1;
		}
		dwelf = m->delf;
	}
	m->dbg = dwarf_begin_elf(dwelf, DWARF_C_READ, NULL);
	if (!m->dbg) {
		snprintf(err, errlen, "cannot read the DWARF of '%s': %s", m->path, dwarf_errmsg(-1));
		return -1;
	}
	m->cfi_eh = dwarf_getcfi_elf(m->elf);
	m->cfi_dbg = dwarf_getcfi(m->dbg);  /* owned by m->dbg */
	m->types = dwt_new();
	return 0;
}

/* Who owns fd, if it is neither root nor the effective user; else 0. */
static unsigned foreign_owner(int fd)
{
	struct stat st;

	if (fd < 0 || fstat(fd, &st))
		return 0;
	return st.st_uid && st.st_uid != geteuid() ? (unsigned)st.st_uid : 0;
}

FILE *dws_open_source(struct dw_mod *m, const char *path, char *why, size_t len)
{
	unsigned uid = foreign_owner(m->fd), duid = foreign_owner(m->dfd);
	struct stat st;
	FILE *f;

	if (uid || duid) {
		snprintf(why, len, "%s'%s' is owned by uid %u (neither root nor you): the paths its "
			 "debug information names are not followed", uid ? "" : "the debug file of ",
			 m->path, uid ? uid : duid);
		return NULL;
	}
	/* As root, a link is not followed (a user may own the build tree);
	 * O_NONBLOCK: a FIFO must not hang the open. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (geteuid() ? 0 : O_NOFOLLOW));
	if (fd < 0) {
		snprintf(why, len, "%s", errno == ELOOP ? "it is a symbolic link, not followed as root"
							 : strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > DWS_MAX_SOURCE) {
		if (S_ISREG(st.st_mode))
			snprintf(why, len, "it is larger than %d MiB", DWS_MAX_SOURCE >> 20);
		else
			snprintf(why, len, "it is not a regular file");
		close(fd);
		return NULL;
	}
	fcntl(fd, F_SETFL, 0);
	if (!(f = fdopen(fd, "r"))) {
		snprintf(why, len, "%s", strerror(errno));
		close(fd);
	}
	return f;
}

struct dw_mod *dws_open(const char *path, char *err, size_t errlen)
{
	for (struct dw_mod *m = mods; m; m = m->next)
		if (!strcmp(m->path, path))
			return m;
	elf_version(EV_CURRENT);
	struct dw_mod *m = calloc(1, sizeof(*m));
	if (!m)
		abort();
	m->fd = m->dfd = -1;
	m->path = strdup(path);
	if (!m->path || mod_load(m, err, errlen)) {
		mod_close(m);
		return NULL;
	}
	m->next = mods;
	mods = m;
	return m;
}

int dw_open_kernel(const char *path, const struct dw_kplace *at, char *err, size_t errlen)
{
	struct dw_mod *m = dws_open(path, err, errlen);

	if (!m)
		return -1;
	if (!m->kernel) {
		m->kernel = true;
		dwt_set_kernel(m->types);
	}
	m->kslide = at->slide;
	m->kslide_known = at->slide_known;
	if (m->dwfl && !m->ksect && at->nsects > 0) {
		if (!(m->ksect = calloc((size_t)at->nsects, sizeof(*m->ksect))))
			abort();
		for (int i = 0; i < at->nsects; i++, m->nksect++) {
			m->ksect[i].addr = at->sects[i].addr;
			if (!(m->ksect[i].name = strdup(at->sects[i].name)))
				abort();
		}
	}
	return 0;
}

bool dws_kernel_addr(const struct dw_mod *m, uint64_t addr, uint64_t *out)
{
	Dwarf_Addr off = addr;
	GElf_Word shndx;
	const char *name = NULL;
	int i;

	if (!m->dwfl) {
		*out = addr + m->kslide;
		return m->kslide_known;
	}
	if ((i = dwfl_module_relocate_address(m->dwmod, &off)) >= 0)
		name = dwfl_module_relocation_info(m->dwmod, (unsigned)i, &shndx);
	for (int k = 0; name && k < m->nksect; k++)
		if (!strcmp(m->ksect[k].name, name)) {
			*out = m->ksect[k].addr + off;
			return true;
		}
	return false;
}

static int by_addr(const void *a, const void *b)
{
	const struct elfsym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int dw_module_functions(const char *path, struct elfsym **out)
{
	char err[256];
	struct dw_mod *m = dws_open(path, err, sizeof(err));
	int n = m && m->dwmod ? dwfl_module_getsymtab(m->dwmod) : -1, k = 0;
	struct elfsym *v;

	*out = NULL;
	if (n < 0 || !(v = calloc((size_t)n + 1, sizeof(*v))))
		return -1;
	for (int i = 0; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(m->dwmod, i, &sym, &addr, &shndx, NULL,
							   NULL);
		if (!name || !*name || GELF_ST_TYPE(sym.st_info) != STT_FUNC || shndx == SHN_UNDEF)
			continue;
		if (!(v[k].name = strdup(name)))
			abort();
		v[k].addr = addr;
		v[k++].size = sym.st_size;
	}
	qsort(v, (size_t)k, sizeof(*v), by_addr);
	*out = v;
	return k;
}

void dw_close_all(void)
{
	while (mods) {
		struct dw_mod *m = mods;
		mods = m->next;
		mod_close(m);
	}
}

/* Steps back over "/." components and repeated slashes ending at s[i]
 * (i is the length still to compare); a leading "./" goes too. */
static size_t skip_dots(const char *s, size_t i)
{
	for (;;) {
		if (i >= 2 && s[i - 1] == '.' && s[i - 2] == '/' && (s[i] == '/' || !s[i]))
			i -= 2;
		else if (i == 1 && s[0] == '.' && s[1] == '/')
			i = 0;
		else if (i >= 2 && s[i - 1] == '/' && s[i - 2] == '/')
			i--;
		else
			return i;
	}
}

int dws_tailcmp(const char *a, const char *b)
{
	size_t i = strlen(a), j = strlen(b);

	for (;;) {
		i = skip_dots(a, i);
		j = skip_dots(b, j);
		if (i == 0 || j == 0)
			return 0;
		if (a[--i] != b[--j])
			return 1;
	}
}

/* "42", "42-50", "42+8" (the last two only for -L). */
static int parse_lines(const char *s, struct dw_spec *sp, bool ranges, char *err, size_t errlen)
{
	char *end;

	sp->has_line = true;
	sp->line = (int)strtol(s, &end, 10);
	if (ranges && (*end == '-' || *end == '+')) {
		char op = *end;
		long v = strtol(end + 1, &end, 10);
		sp->line_end = op == '-' ? (int)v : sp->line + (int)v - 1;  /* A+N: N lines */
	}
	if (end == s || *end) {
		snprintf(err, errlen, "'%s' is not a line number", s);
		return -1;
	}
	return 0;
}

static int parse_part(char c, char *arg, struct dw_spec *sp, bool ranges, char *err, size_t errlen)
{
	char *end;

	switch (c) {
	case ':':
		return parse_lines(arg, sp, ranges, err, errlen);
	case '+':
		sp->has_offset = true;
		sp->offset = strtoull(arg, &end, 0);
		if (end == arg || *end) {
			snprintf(err, errlen, "'%s' is not an offset", arg);
			return -1;
		}
		return 0;
	case '@':
		if (sp->file) {
			snprintf(err, errlen, "SRC@SRC is not allowed");
			return -1;
		}
		sp->file = strdup(arg);
		return 0;
	case '%':
		if (!strcmp(arg, "return"))
			snprintf(err, errlen, "%%return ends the spec and takes no line, offset or pattern after it");
		else
			snprintf(err, errlen, "'%%%s' is not supported (only %%return, at the end)", arg);
		return -1;
	}
	return -1;
}

bool dws_cxx_name(const char *s)
{
	return strstr(s, "::") || strpbrk(s, "(<~ ") || !strncmp(s, "operator", 8);
}

/* Where the FUNC (or FILE) part of spec s ends: at the first of ";:+@%",
 * but in a C++ name ("ns::C::f(int) const:12", "f<a::b>:3") not at a
 * "::" nor inside its parameters or template arguments.  NULL if none. */
static char *func_end(char *s, bool file_spec)
{
	int depth = 0;

	if (file_spec || !dws_cxx_name(s))
		return strpbrk(s, ";:+@%");
	for (char *p = s; *p; p++) {
		if (*p == '(' || *p == '<')
			depth++;
		else if ((*p == ')' || *p == '>') && depth > 0)
			depth--;
		else if (*p == ':' && p[1] == ':')
			p++;
		else if (!depth && strchr(";:+@%", *p))
			return p;
	}
	return NULL;
}

int dws_parse(const char *s, struct dw_spec *sp, bool ranges, char *err, size_t errlen)
{
	char *buf = strdup(s), *arg = buf, *p;
	const char *seps = ranges ? ":+@%;" : ";:+@%";
	bool file_spec = false;
	int r = 0;

	memset(sp, 0, sizeof(*sp));
	if (!buf)
		abort();
	/* perf's rule: a file if no "+@%" and a '.' comes before ':' or ';'. */
	if (!strpbrk(arg, "+@%") && (p = strpbrk(arg, ";:")) && memchr(arg, '.', p - arg))
		file_spec = true;
	if (ranges) {  /* -L: the name before ':' is a file if it has '.' or '/' and no '@' */
		size_t n = strcspn(arg, ":");
		file_spec = !memchr(arg, '@', n) && (memchr(arg, '.', n) || memchr(arg, '/', n));
	}
	p = func_end(arg, file_spec);
	char c = p ? *p : 0;
	if (p)
		*p++ = '\0';
	if (*arg) {
		if (file_spec)
			sp->file = strdup(arg);
		else if (!strncmp(arg, "0x", 2)) {
			char *end;
			sp->is_addr = true;
			sp->addr = strtoull(arg, &end, 0);
			if (*end) {
				snprintf(err, errlen, "'%s' is not an address", arg);
				r = -1;
			}
		} else {
			sp->func = strdup(arg);
			sp->cxx = dws_cxx_name(arg);
			/* a parameter list's '*' is a pointer, not a wildcard */
			sp->glob = strcspn(arg, "*?[") < strcspn(arg, "(");
		}
	}
	while (p && !r) {
		if (c == ';') {
			sp->lazy = strdup(p);
			break;
		}
		arg = p;
		/* In a -L range the '+' of "A+N" belongs to the line part. */
		p = c == ':' && ranges ? NULL : strpbrk(arg, seps);
		char nc = p ? *p : 0;
		if (p)
			*p++ = '\0';
		r = parse_part(c, arg, sp, ranges, err, errlen);
		c = nc;
	}
	if (!r && !sp->func && !sp->file && !sp->is_addr) {
		snprintf(err, errlen, "'%s' names no function, file or address", s);
		r = -1;
	}
	free(buf);
	if (r)
		dws_spec_free(sp);
	return r;
}

void dws_spec_free(struct dw_spec *sp)
{
	free(sp->func);
	free(sp->file);
	free(sp->lazy);
	memset(sp, 0, sizeof(*sp));
}

int dws_entrypc(Dwarf_Die *d, Dwarf_Addr *addr)
{
	Dwarf_Attribute a;
	Dwarf_Addr base, end;

	if (dwarf_entrypc(d, addr) == 0)
		return 0;
	if (!dwarf_attr(d, DW_AT_ranges, &a))
		return -1;
	return dwarf_ranges(d, 0, &base, addr, &end) < 0 ? -1 : 0;
}

bool dws_realfunc(struct dw_mod *m, Dwarf_Die *cu, uint64_t addr, Dwarf_Die *out)
{
	return dwf_realfunc(&m->funcs, cu, addr, out);
}

/* dwarf_addrdie needs .debug_aranges, which clang does not emit: then the
 * CU DIEs' own ranges (no DIE below a CU is read). */
bool dws_addrdie(Dwarf *dbg, uint64_t addr, Dwarf_Die *cu)
{
	Dwarf_Off off = 0, next;
	size_t hl;

	if (dwarf_addrdie(dbg, addr, cu))
		return true;
	while (dwarf_nextcu(dbg, off, &next, &hl, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dbg, off + hl, cu) && dwarf_haspc(cu, addr) == 1)
			return true;
		off = next;
	}
	return false;
}

/* DWARF 5 numbers the primary source file 0, which libdw 0.188's
 * dwarf_decl_file takes for "none" (clang compiling a relative path). */
const char *dws_decl_file(Dwarf_Die *d)
{
	const char *f = dwarf_decl_file(d);
	Dwarf_Attribute a;
	Dwarf_Word idx;
	Dwarf_Die cu;
	Dwarf_Files *files;
	size_t n;

	if (f || !dwarf_attr_integrate(d, DW_AT_decl_file, &a) || dwarf_formudata(&a, &idx) ||
	    idx != 0 || !dwarf_diecu(d, &cu, NULL, NULL) || dwarf_getsrcfiles(&cu, &files, &n) || n == 0)
		return f;
	return dwarf_filesrc(files, 0, NULL, NULL);
}

bool dws_may_name(struct dw_mod *m, const char *name)
{
	size_t len = strlen(name);
	Elf *elf = dwarf_getelf(m->dbg);
	GElf_Shdr sh;
	Elf_Scn *scn = elf ? elfsym_section(elf, ".debug_str", &sh) : NULL;
	Elf_Data *d;

	/* a name of up to 3 bytes may be kept in the DIE itself (gcc's
	 * DW_FORM_string where an offset would be as long) */
	if (len < 4 || !scn || (sh.sh_flags & SHF_COMPRESSED) || !(d = elf_rawdata(scn, NULL)) ||
	    !d->d_buf)
		return true;
	/* the linker merges a string into the tail of a longer one ("count"
	 * may be the end of "discount"): any NUL-ended occurrence counts */
	return memmem(d->d_buf, d->d_size, name, len + 1) != NULL;
}

/* In a relocatable object a symbol's value is an offset into its
 * section, which libdwfl has placed (its sh_addr, updated in place). */
static bool rel_value(const struct dw_mod *m, Elf *elf, GElf_Sym *sym)
{
	GElf_Shdr sh;

	if (!m->dwfl)
		return true;
	if (sym->st_shndx >= SHN_LORESERVE || !gelf_getshdr(elf_getscn(elf, sym->st_shndx), &sh))
		return false;
	sym->st_value += sh.sh_addr;
	return true;
}

bool dws_each_symbol(struct dw_mod *m, const char *name, int type,
		     bool (*fn)(const GElf_Sym *sym, void *arg), void *arg)
{
	Elf *elfs[2] = { m->elf, m->delf };

	for (int e = 0; e < 2; e++) {
		Elf_Scn *scn = NULL;
		while (elfs[e] && (scn = elf_nextscn(elfs[e], scn))) {
			GElf_Shdr sh;
			Elf_Data *data;
			if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
			    !(data = elf_getdata(scn, NULL)) || !sh.sh_entsize)
				continue;
			for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
				GElf_Sym sym;
				const char *nm;
				if (gelf_getsym(data, (int)i, &sym) && GELF_ST_TYPE(sym.st_info) == type &&
				    sym.st_shndx != SHN_UNDEF &&
				    (nm = elf_strptr(elfs[e], sh.sh_link, sym.st_name)) &&
				    !strcmp(nm, name) && rel_value(m, elfs[e], &sym) && fn(&sym, arg))
					return true;
			}
		}
	}
	return false;
}
