// SPDX-License-Identifier: GPL-2.0-only
/*
 * probe.c - attach point text → struct probe.
 *
 * Each probe type has one parse function in the table at the bottom; it
 * splits the text, finds the binary or tracepoint, and expands wildcards
 * into sites.  Plain function uprobes come from ELF symbols (no DWARF read,
 * the fast path); anything in perf probe's syntax that needs source lines,
 * offsets within a function or variables goes to dwarf.c.
 */
#define _GNU_SOURCE
#include "duration.h"
#include "probe.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dwarf.h"
#include "lib/demangle.h"
#include "lib/elfsym.h"
#include "lib/pidobj.h"
#include "lib/kfeature.h"
#include "lib/kscan.h"
#include "insn.h"
#include "kbtf.h"
#include "kdwarf.h"
#include "tpformat.h"
#include "lib/types.h"
#include "usdt.h"

struct pctx {
	const char *text;
	struct loc loc;
	const struct probe_opts *o;
	struct diag *d;
	struct probe *p;
};

static int fail(struct pctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct pctx *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_verror(c->d, c->loc, fmt, ap);
	va_end(ap);
	return -1;
}

static int add_site(struct probe *p, const char *func, uint64_t addr, uint64_t offset)
{
	struct probe_site *s = realloc(p->sites, sizeof(*s) * (size_t)(p->nsites + 1));
	if (!s)
		return -1;
	p->sites = s;
	s = &s[p->nsites++];
	memset(s, 0, sizeof(*s));
	s->func = strdup(func);
	s->addr = addr;
	s->offset = offset;
	return s->func ? 0 : -1;
}

/* ---- BEGIN / END ---- */

static int parse_special(struct pctx *c, const char *rest)
{
	(void)rest;
	c->p->name = strdup(c->p->kind == PK_BEGIN ? "BEGIN" : "END");
	return 0;
}

/* ---- uprobe / uretprobe ---- */

static bool is_plain_symbol(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.*?[]$", *s))
			return false;
	return true;
}

/* After a "cpp:" or "c++:" (bpftrace's language of a uprobe's function,
 * whose name is then matched demangled): what follows it, or NULL. */
static const char *lang_prefix(const char *s)
{
	if (!strncmp(s, "cpp:", 4) || !strncmp(s, "c++:", 4))
		return s + 4;
	return NULL;
}

/*
 * A C++ or Rust name as demangled: "::" (a scope: never perf probe's
 * FUNC:LINE or FILE:LINE separator), "(" a parameter list, "<" template
 * arguments, "~" a destructor, or a space ("shop::Cart::total() const",
 * written in quotes).  Such a spec is matched against demangled names.
 */
static bool is_cxx_name(const char *s)
{
	return strstr(s, "::") || strpbrk(s, "(<~ ") || !strncmp(s, "operator", 8);
}

const char *probe_cxx_name(const char *spec)
{
	if (lang_prefix(spec))
		return lang_prefix(spec);
	return is_cxx_name(spec) && !strpbrk(spec, ";@") ? spec : NULL;
}

/* A library named without a path, for a 32-bit traced command (-c) or
 * default binary: the i386 one of that name, not the x86-64 one found by
 * ld.so's 64-bit search (which that process never maps). */
static char *lib_for_command(struct pctx *c, const char *bin, char *path)
{
	char *p32;

	if (!path || !bin || strchr(bin, '/') || !c->o->default_bin ||
	    !elfsym_is_i386(c->o->default_bin) || elfsym_is_i386(path) ||
	    !(p32 = elfsym_find_lib_i386(bin)))
		return path;
	free(path);
	return p32;
}

/* -p names a process that sees another file tree (a container's mount
 * namespace): paths and library names are its, looked up through it. */
static bool foreign(const struct pctx *c)
{
	return c->o->pid > 0 && !c->o->child && pidobj_foreign(c->o->pid);
}

/* Splits "BIN:SPEC" where SPEC may itself hold ':' ("app.c:42").  BIN is
 * taken when it names a file or a library; otherwise the whole text is SPEC
 * of the default binary (-p / traced command). */
static char *split_bin(struct pctx *c, const char *rest, const char **spec)
{
	const char *colon = strchr(rest, ':');
	if (colon == rest) {   /* uprobe::FUNC, bpftrace's empty binary: the default one */
		rest++;
		colon = NULL;
	}
	/* "::" is a C++ scope, never the end of BIN (uprobe:ns::f with -c);
	 * nor is "cpp:"/"c++:", the language of the name, where there is a
	 * default binary (uprobe:cpp:ns::f).  Not in usdt: BIN::NAME is an
	 * empty provider there. */
	if (colon && c->p->kind != PK_USDT && (colon[1] == ':' ||
		      ((c->o->default_bin || c->o->pid > 0) && lang_prefix(rest) == colon + 1)))
		colon = NULL;
	if (colon) {
		char *bin = strndup(rest, (size_t)(colon - rest)), *path = NULL;
		/* an absolute path or a library as the process sees it; a file
		 * of that name here is another one */
		if (bin && (*bin == '/' || (*bin && !strchr(bin, '/'))) && foreign(c)) {
			path = pidobj_find(c->o->pid, bin, &c->p->path_shown);
			if (path || *bin == '/') {
				if (!path)
					fail(c, "cannot find '%s' in the files of process %d, which has "
					     "another mount namespace or root: %s", bin, (int)c->o->pid,
					     errno == ELOOP ? "a symbolic link on the way leads out "
					     "of its root, to another file here" : strerror(errno));
				free(bin);
				*spec = colon + 1;
				return path;
			}
		}
		path = bin ? elfsym_find_binary(bin, c->o->pid) : NULL;
		path = lib_for_command(c, bin, path);
		if (path || (bin && strchr(bin, '/'))) {
			if (!path)
				fail(c, "cannot find '%s': %s; give the path of an executable or library",
				     bin, strerror(errno));
			else if (strchr(bin, '/'))
				c->p->path_shown = strdup(bin);
			free(bin);
			*spec = colon + 1;
			return path;
		}
		free(bin);
	}
	*spec = rest;
	/* the -p process's executable named as it sees it, where that differs */
	if (foreign(c) && !c->p->path_shown)
		c->p->path_shown = pidobj_exe_name(c->o->pid);
	if (c->o->default_bin)
		return strdup(c->o->default_bin);
	const char *why = NULL;
	if (c->o->pid > 0) {
		char *exe = elfsym_pid_exe(c->o->pid, &why);
		if (exe)
			return exe;
	}
	if (why) {   /* -p was given: say why it gives no binary */
		fail(c, "'%s' names no binary, and process %d %s; write uprobe:BIN:%s", rest,
		     (int)c->o->pid, why, rest);
	} else if (colon) {
		char *bin = strndup(rest, (size_t)(colon - rest));
		fail(c, "cannot find binary or library '%s'; give its path (./%s) or install it", bin, bin);
		free(bin);
	} else {
		fail(c, "'%s' names no binary; write uprobe:BIN:%s, or give -p PID or a command to trace",
		     rest, rest);
	}
	return NULL;
}

/*
 * Refuses a uprobe at sym+off unless off starts an instruction: the kernel
 * would write int3 over the middle of one, and the traced program would
 * run a different instruction (or the probe would silently never fire).
 * With --unsafe, a warning.  Only offsets pay for decoding.
 */
static int check_boundary(struct pctx *c, int fd, const struct elfsym *sym, uint64_t off,
			  const char *label)
{
	enum insn_where w;
	uint64_t start = 0, next = 0;
	const char *f = sym->name;
	char msg[768], at[300];

	if (!label) {
		snprintf(at, sizeof(at), "%s+%llu", f, (unsigned long long)off);
		label = at;
	}
	if (!off || fd < 0)
		return 0;
	if (insn_locate_fd(fd, sym->offset, sym->size, off, c->p->elf32, &w, &start, &next))
		return fail(c, "cannot read %s of %s: %s", f, c->p->path, strerror(errno));
	if (w == INSN_BOUNDARY)
		return 0;
	if (w == INSN_INSIDE)
		snprintf(msg, sizeof(msg), "%s is inside the instruction at %s+%llu (%llu bytes); "
			 "use %s+%llu or %s+%llu", label, f,
			 (unsigned long long)start, (unsigned long long)(next - start), f,
			 (unsigned long long)start, f, (unsigned long long)next);
	else
		snprintf(msg, sizeof(msg), "cannot decode the instruction at %s+%llu, so %s may "
			 "be inside an instruction", f, (unsigned long long)start, label);
	if (c->o->unsafe) {
		diag_warn(c->d, c->loc, "%s (allowed by --unsafe)", msg);
		return 0;
	}
	return fail(c, "%s", msg);
}

/* The binary open for check_boundary(), or -1 if it is not x86-64 or
 * i386 code (nothing to check).  Returns -1 if it cannot be opened. */
static int open_code(struct pctx *c, int *fd)
{
	*fd = -1;
	if (!elfsym_is_x86_64(c->p->path) && !c->p->elf32)
		return 0;
	*fd = open(c->p->path, O_RDONLY | O_CLOEXEC);
	return *fd < 0 ? fail(c, "cannot open '%s': %s", c->p->path, strerror(errno)) : 0;
}

/* A stripped binary's functions from the symbol table of its separate
 * debug file (found and checked as for DWARF); 0 if there is none. */
static int debug_symbols(const char *path, const char *spec, struct elfsym **syms)
{
	char name[64];
	int dfd = dw_debug_fd(path);
	if (dfd < 0)
		return 0;
	snprintf(name, sizeof(name), "/proc/self/fd/%d", dfd);
	int n = elfsym_match_debug(path, name, spec, syms);
	close(dfd);
	return n;
}

/* Demangled names matching spec, from the debug file of a stripped
 * binary if it has one, else from its own tables. */
static int demangled_symbols(const char *path, bool stripped, const char *spec,
			     struct elfsym **syms)
{
	int n = 0, dfd = stripped ? dw_debug_fd(path) : -1;

	if (dfd >= 0) {
		char name[64];
		snprintf(name, sizeof(name), "/proc/self/fd/%d", dfd);
		n = elfsym_match_demangled(path, name, spec, syms);
		close(dfd);
	}
	return n > 0 ? n : elfsym_match_demangled(path, NULL, spec, syms);
}

/* Functions of the binary named by spec: a C++ or Rust name (cxx) by
 * their demangled names; another by their names as the ELF file has them,
 * then, if none has that name, by demangled ones (bpftrace's "foo" is
 * every overload foo(), foo(int)). */
static int find_symbols(struct pctx *c, const char *spec, bool cxx, bool stripped,
			struct elfsym **syms)
{
	int n = 0;

	if (!cxx) {
		/* a stripped binary's own .dynsym has only what it exports */
		n = stripped ? debug_symbols(c->p->path, spec, syms) : 0;
		if (n <= 0)   /* none there, or the debug file unreadable: the binary's own */
			n = elfsym_match(c->p->path, spec, syms);
		if (n != 0)
			return n;
		free(*syms);
	}
	return demangled_symbols(c->p->path, stripped, spec, syms);
}

static int symbol_sites(struct pctx *c, const char *spec, uint64_t off, bool cxx)
{
	struct elfsym *syms = NULL;
	int fd = -1;
	if (off && open_code(c, &fd))
		return -1;
	bool stripped = !elfsym_has_symtab(c->p->path);
	int n = find_symbols(c, spec, cxx, stripped, &syms), r = 0;
	if (n <= 0 && fd >= 0)
		close(fd);
	if (n < 0)
		return fail(c, "cannot read '%s' as an ELF file: %s", c->p->path, strerror(errno));
	if (n == 0 && c->o->missing_ok)   /* OpenSSL 3 lacks some the ssl tools name */
		return 0;   /* no sites: the caller skips it and says so once */
	if (n == 0 && !elfsym_is_x86_64(c->p->path) && !c->p->elf32)
		return fail(c, "no function matches '%s' in %s: it is not x86 code (a foreign "
			    "ELF file), whose functions are not probed", spec, c->p->path);
	if (n == 0 && stripped)
		return fail(c, "no function matches '%s' in %s: it is stripped (no .symtab) and no "
			    "debug file was found for it (build-id, .gnu_debuglink), so only its "
			    "dynamic symbols are known; list them with: perf-run -l 'uprobe:%s:*'",
			    spec, c->p->path, c->p->path);
	if (n == 0)
		return fail(c, "no function matches '%s' in %s; list them with: perf-run -l 'uprobe:%s:*'",
			    spec, c->p->path, c->p->path);
	for (int i = 0; i < n && !r; i++) {
		uint64_t addr = syms[i].addr + off, offset = syms[i].offset + off;
		if (off && syms[i].size && off >= syms[i].size) {
			r = fail(c, "offset +0x%llx is past the end of %s, which is %llu bytes long",
				 (unsigned long long)off, syms[i].name,
				 (unsigned long long)syms[i].size);
			break;
		}
		if (check_boundary(c, fd, &syms[i], off, NULL)) {
			r = -1;
			break;
		}
		/* elfsym_match() gave each symbol's offset; only an offset
		 * past a symbol of unknown size can leave its segment (and
		 * reopening the file per symbol made f* on 10,000 functions
		 * cost a second). */
		if (off && !syms[i].size && elfsym_offset(c->p->path, addr, &offset))
			offset = syms[i].offset + off;
		if (add_site(c->p, syms[i].name, addr, offset))
			r = fail(c, "out of memory");
		else
			c->p->sites[c->p->nsites - 1].entry = !off;
	}
	if (fd >= 0)
		close(fd);
	elfsym_free(syms, n);
	return r;
}

static int dwarf_sites(struct pctx *c, const char *spec, bool quiet)
{
	char err[512] = "";
	struct probe_site *sites = NULL;
	int n = 0;
	bool ret = c->p->kind == PK_URETPROBE;
	if (dw_resolve(c->p->path, spec, ret, &sites, &n, err, sizeof(err)) || n == 0) {
		free(sites);
		return quiet ? -1 : fail(c, "%s", err[0] ? err : "no place matches this probe");
	}
	c->p->sites = sites;
	c->p->nsites = n;
	return 0;
}

/*
 * A symbol DWARF does not name (libc's malloc is an alias of __libc_malloc)
 * still has the DWARF view of the function at its address, read at the
 * entry where the location lists begin.
 */
static void alias_views(struct pctx *c)
{
	for (int i = 0; i < c->p->nsites; i++) {
		struct probe_site *site = &c->p->sites[i], *ds = NULL;
		char addr[32], err[256];
		int n = 0;

		if (site->dw)
			continue;
		snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)site->addr);
		if (dw_resolve(c->p->path, addr, false, &ds, &n, err, sizeof(err)) == 0 && n > 0) {
			site->dw = ds[0].dw;
			ds[0].dw = NULL;
		}
		for (int k = 0; k < n; k++) {
			free(ds[k].func);
			dw_probe_free(ds[k].dw);
		}
		free(ds);
	}
}

/* A wildcard's functions with args are probed where a single one is: past
 * an unoptimised function's prologue, whose stack slots hold no argument
 * yet at the entry (the values read there were the previous call's). */
static void body_starts(struct pctx *c)
{
	for (int i = 0; i < c->p->nsites; i++) {
		struct probe_site *site = &c->p->sites[i];
		uint64_t a = dw_body_start(c->p->path, site->addr);

		if (a > site->addr) {
			site->offset += a - site->addr;
			site->addr = a;
		}
	}
}

/* Removes site i of p (its order kept: sites are sorted by address). */
static void drop_site(struct probe *p, int i)
{
	free(p->sites[i].func);
	dw_probe_free(p->sites[i].dw);
	memmove(&p->sites[i], &p->sites[i + 1], sizeof(*p->sites) * (size_t)(p->nsites - i - 1));
	p->nsites--;
}

/* The sites a wildcard (or a name of several overloads) skipped, in
 * names (one per line): one line that counts them, -v names each. */
static void say_skipped(struct pctx *c, int n, char *names)
{
	FILE *out = c->d->out ? c->d->out : stderr;

	fprintf(out, "perf-run: %s: skipped %d function%s whose first instruction the kernel "
		"cannot place a uprobe on (a LOCK, segment, VEX or EVEX prefix)%s\n", c->text, n,
		n == 1 ? "" : "s", c->o->verbose ? "" : "; -v names them");
	for (char *l = names, *nl; c->o->verbose && l && *l; l = nl + 1) {
		if (!(nl = strchr(l, '\n')))
			break;
		*nl = 0;
		fprintf(out, "perf-run: %s: skipped %s\n", c->text, l);
	}
}

/* What the kernel makes of the instruction at site s of the file mapped at
 * code (size bytes), past up to 8 NOPs it refuses, which s is moved over. */
static enum insn_uprobe site_insn(const uint8_t *code, uint64_t size, struct probe_site *s,
				  bool elf32)
{
	enum insn_uprobe k = INSN_UPROBE_NOP;
	size_t len = 0;

	for (int hops = 0; k == INSN_UPROBE_NOP && hops < 8; hops++) {
		uint64_t n = s->offset < size ? size - s->offset : 0;
		k = n ? insn_uprobe_check(code + s->offset, n < 16 ? (size_t)n : 16, elf32, &len)
		      : INSN_UPROBE_OK;
		if (k == INSN_UPROBE_NOP) {
			s->addr += len;
			s->offset += len;
		}
	}
	return k;
}

/* The one function a spec names starts with what the kernel cannot take. */
static int refuse_site(struct pctx *c, const struct probe_site *s, enum insn_uprobe k,
		       const char *shown)
{
	if (k == INSN_UPROBE_VEX)
		return fail(c, "the instruction at 0x%llx (%s) is VEX or EVEX-encoded (AVX), which "
			    "the kernel's uprobes refuse or run wrongly; probe the instruction after it",
			    (unsigned long long)s->addr, shown);
	return fail(c, "the instruction at 0x%llx (%s) has a LOCK or segment prefix, where the "
		    "kernel cannot place a uprobe (it would attach and never fire); probe the "
		    "instruction after it", (unsigned long long)s->addr, shown);
}

/* Every site on an instruction the kernel's uprobes take: past a NOP they
 * refuse (the same state, one instruction on; the DWARF view stays the
 * NOP's).  A site on an instruction with a LOCK or segment prefix would
 * attach and never fire, one on a VEX-encoded one fail the attach (of the
 * whole uprobe_multi link), one on an EVEX-encoded one run wrongly:
 * refused where the spec names one function, skipped (and said) where it
 * names several, so that uprobe:libc:* attaches. */
static int kernel_placeable(struct pctx *c)
{
	struct stat st;
	const uint8_t *code;
	int fd, r = 0, skipped = 0;
	char *names = NULL;
	size_t nlen = 0;

	if (open_code(c, &fd) || fd < 0)
		return fd < 0 ? 0 : -1;
	/* one mapping, not a read per site: a wildcard has thousands */
	if (fstat(fd, &st) || st.st_size <= 0 ||
	    (code = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
		close(fd);
		return 0;   /* unreadable here: the attach says why */
	}
	close(fd);
	bool several = c->p->nsites > 1;
	FILE *nf = several && c->o->verbose ? open_memstream(&names, &nlen) : NULL;
	for (int i = 0; i < c->p->nsites && !r; i++) {
		struct probe_site *s = &c->p->sites[i];
		enum insn_uprobe k = site_insn(code, (uint64_t)st.st_size, s, c->p->elf32);

		if (k == INSN_UPROBE_OK)
			continue;
		char *dm = c->o->demangle ? dm_demangle(s->func, DM_FULL) : NULL;
		const char *shown = dm ? dm : s->func;
		if (!several) {
			r = refuse_site(c, s, k, shown);
		} else {
			skipped++;
			if (nf)
				fprintf(nf, "%s at 0x%llx (%s)\n", shown, (unsigned long long)s->addr,
					k == INSN_UPROBE_VEX ? "VEX or EVEX prefix" : "LOCK or segment prefix");
			drop_site(c->p, i--);
		}
		free(dm);
	}
	munmap((void *)code, (size_t)st.st_size);
	if (nf)
		fclose(nf);
	if (!r && skipped && !c->p->nsites)
		r = fail(c, "every function this matches (%d) starts with an instruction the "
			 "kernel cannot place a uprobe on (a LOCK, segment, VEX or EVEX prefix)", skipped);
	else if (!r && skipped)
		say_skipped(c, skipped, names);
	free(names);
	return r;
}

/* A raw address must start an instruction of the function that holds it;
 * one outside every function symbol cannot be checked. */
static int check_address(struct pctx *c, const char *text, uint64_t addr)
{
	struct elfsym *syms;
	int fd, n, r = -2;
	char label[300];

	if (open_code(c, &fd))
		return -1;
	if (fd < 0)
		return 0;
	if ((n = elfsym_every(c->p->path, &syms)) < 0) {   /* a static's name may repeat */
		close(fd);
		return fail(c, "cannot read '%s' as an ELF file: %s", c->p->path, strerror(errno));
	}
	for (int i = 0; i < n && r == -2; i++) {
		if (addr < syms[i].addr || addr >= syms[i].addr + syms[i].size)
			continue;
		snprintf(label, sizeof(label), "%s (%s+%llu)", text, syms[i].name,
			 (unsigned long long)(addr - syms[i].addr));
		r = check_boundary(c, fd, &syms[i], addr - syms[i].addr, label);
	}
	close(fd);
	elfsym_free(syms, n);
	if (r != -2)
		return r;
	if (c->o->unsafe)
		return 0;
	return fail(c, "address %s is in no function symbol of %s, so whether it starts an "
		    "instruction cannot be checked; pass --unsafe to probe it anyway", text, c->p->path);
}

/* "func+0x10" without DWARF: symbol plus offset. */
static bool symbol_plus_offset(const char *spec, char **sym, uint64_t *off)
{
	const char *plus = strchr(spec, '+');
	if (!plus || plus == spec)
		return false;
	char *end;
	/* strtoull() would take "-4" as a huge offset that wraps backwards. */
	if (!isdigit((unsigned char)plus[1]))
		return false;
	*off = strtoull(plus + 1, &end, 0);
	if (*end || end == plus + 1)
		return false;
	*sym = strndup(spec, (size_t)(plus - spec));
	return *sym && is_plain_symbol(*sym);
}

/* Whether a symbol has the demangled name (a C++ function that exists
 * only inlined has none). */
static bool has_demangled(struct pctx *c, const char *name)
{
	struct elfsym *syms = NULL;
	int n = demangled_symbols(c->p->path, !elfsym_has_symtab(c->p->path), name, &syms);

	if (n > 0)
		elfsym_free(syms, n);
	else
		free(syms);
	return n != 0;
}

/*
 * A function by its demangled name ("shop::Cart::total": every overload;
 * "shop::Cart::add(int)": one; "shop::Cart::*"), after an optional "cpp:"
 * or "c++:", with an optional +OFFS.  A lone ':' after the name would be
 * perf probe's relative line, which needs the function's DWARF name.
 */
static int cxx_sites(struct pctx *c, const char *spec)
{
	const char *name = lang_prefix(spec) ? lang_prefix(spec) : spec;
	char *sym = strdup(name), *plus, *end;
	uint64_t off = 0;
	int r;

	if (!sym)
		return fail(c, "out of memory");
	/* "+4" at the end, not operator+ */
	plus = strrchr(sym, '+');
	if (plus && plus > sym && plus[-1] != '+' && isdigit((unsigned char)plus[1])) {
		off = strtoull(plus + 1, &end, 0);
		if (*end)
			off = 0;
		else
			*plus = 0;
	}
	const char *lc = strrchr(sym, ':');
	if (!*sym) {
		r = fail(c, "missing function after '%.*s'", (int)(name - spec), spec);
	} else if (lc && lc > sym && lc[-1] != ':' && isdigit((unsigned char)lc[1])) {
		r = dwarf_sites(c, name, false);  /* FUNC:N: the dwarf module finds FUNC */
	} else if (off && c->p->kind != PK_UPROBE) {
		r = fail(c, "a return probe takes no offset");
	} else if (!off && c->p->kind == PK_UPROBE && !has_demangled(c, sym) &&
		   !dwarf_sites(c, sym, true)) {
		r = 0;  /* only inlined: its copies, as a C FUNC (else symbol_sites says why) */
	} else {
		r = symbol_sites(c, sym, off, true);
		if (!r && c->o->use_args && c->p->kind == PK_UPROBE) {
			if (!off)
				body_starts(c);
			alias_views(c);
		}
	}
	free(sym);
	return r;
}

/* The kernel installs a uprobe in executable mappings of its file only
 * (bpftrace's too): a -p process that maps the file without exec (read as
 * data, not loaded) gets hits only once it maps the code executable. */
static void warn_noexec(struct pctx *c, const struct stat *st)
{
	if (c->o->pid <= 0 || c->o->child ||
	    pidobj_mapping(c->o->pid, st->st_dev, st->st_ino) != PIDOBJ_NOEXEC)
		return;
	diag_warn(c->d, c->loc, "process %d maps %s only without exec (as data): this probe "
		  "will not fire until it maps the code executable (dlopen)", (int)c->o->pid,
		  c->p->path_shown ? c->p->path_shown : c->p->path);
}

static int parse_uprobe(struct pctx *c, const char *rest)
{
	const char *spec;
	struct probe *p = c->p;
	p->demangle = c->o->demangle;
	p->path = split_bin(c, rest, &spec);
	if (!p->path)
		return -1;
	if (access(p->path, R_OK))
		return fail(c, "cannot read '%s': %s", p->path, strerror(errno));
	p->elf32 = elfsym_is_i386(p->path);
	struct stat st;
	if (!stat(p->path, &st) && S_ISDIR(st.st_mode))
		return fail(c, "'%s' is a directory; give the path of an executable or library",
			    p->path);
	warn_noexec(c, &st);
	char *s = strdup(spec);
	size_t n = strlen(s);
	int r;
	if (n > 7 && !strcmp(s + n - 7, "%return")) {
		s[n - 7] = '\0';
		p->kind = PK_URETPROBE;
	}
	char *sym = NULL;
	uint64_t off = 0;
	if (!*s) {
		r = fail(c, "missing function after '%s:'", p->path);
	} else if (!strncmp(s, "0x", 2) && (!s[2] || s[2 + strspn(s + 2, "0123456789abcdefABCDEF")])) {
		r = fail(c, "'%s' is not an address; write one in hexadecimal, e.g. 0x1139", s);
	} else if (!strncmp(s, "0x", 2) && is_plain_symbol(s + 2)) {
		uint64_t addr = strtoull(s, NULL, 16), offset;
		/* With args, the DWARF view at the address (the same place). */
		r = -1;
		if (elfsym_offset(p->path, addr, &offset))
			r = fail(c, "address %s is not in a loaded segment of %s", s, p->path);
		else if (check_address(c, s, addr))
			r = -1;
		else if (!c->o->use_args || p->kind != PK_UPROBE || dwarf_sites(c, s, true))
			r = add_site(p, s, addr, offset);
		else
			r = 0;
	} else if (probe_cxx_name(s)) {
		r = cxx_sites(c, s);
	} else if (is_plain_symbol(s)) {
		/* A body that reads args wants perf probe's place after the prologue,
		 * where DWARF locations hold; otherwise the symbol's entry, where arg0..
		 * are the ABI registers (as in bpftrace). */
		r = -1;
		if (c->o->use_args && p->kind == PK_UPROBE && !strpbrk(s, "*?["))
			r = dwarf_sites(c, s, true);
		if (r && !(r = symbol_sites(c, s, 0, false)) && c->o->use_args && p->kind == PK_UPROBE) {
			body_starts(c);
			alias_views(c);
		}
	} else if (p->kind == PK_UPROBE && symbol_plus_offset(s, &sym, &off)) {
		/* With args, the DWARF view at func's address + OFFS. */
		if (!(r = symbol_sites(c, sym, off, false)) && c->o->use_args)
			alias_views(c);
	} else {
		r = dwarf_sites(c, s, false);
		/* perf probe's FUNC[@SRC]+OFFS: DWARF gave the address, not
		 * whether an instruction starts there. */
		for (int i = 0; !r && strchr(s, '+') && i < p->nsites; i++)
			r = check_address(c, s, p->sites[i].addr);
	}
	free(sym);
	/* a uretprobe is a uprobe at the entry too (it takes the return address there) */
	if (!r && (p->kind == PK_UPROBE || p->kind == PK_URETPROBE))
		r = kernel_placeable(c);
	/* a wildcard that matched one function is named by it, as in bpftrace */
	const char *fn = !r && strpbrk(s, "*?[") && p->nsites == 1 ? p->sites[0].func : s;
	char *dm = fn != s && p->demangle ? dm_demangle(fn, DM_FULL) : NULL;
	if (!r && asprintf(&p->name, "%s:%s:%s", p->kind == PK_URETPROBE ? "uretprobe" : "uprobe",
			   probe_path_shown(p), dm ? dm : fn) < 0)
		r = -1;
	free(dm);
	free(s);
	return r;
}

static int parse_uretprobe(struct pctx *c, const char *rest)
{
	int r = parse_uprobe(c, rest);
	c->p->kind = PK_URETPROBE;
	if (!r && !strncmp(c->p->name, "uprobe:", 7)) {
		char *n;
		if (asprintf(&n, "uret%s", c->p->name + 1) < 0)
			return -1;
		free(c->p->name);
		c->p->name = n;
	}
	return r;
}

/* ---- tracepoint ---- */

struct tp_walk {
	struct pctx *c;
	int n;
	int skipped;               /* events a BPF tracepoint cannot attach to */
	char skipped_name[256];    /* the last of them, category:event */
};

static int tp_found(const char *cat, const char *ev, void *arg)
{
	struct tp_walk *w = arg;
	char name[512];
	if (!tpf_bpf_attachable(cat, ev)) {
		w->skipped++;   /* a wildcard leaves it out; one name is refused */
		snprintf(w->skipped_name, sizeof(w->skipped_name), "%s:%s", cat, ev);
		return 0;
	}
	snprintf(name, sizeof(name), "%s:%s", cat, ev);
	w->n++;
	return add_site(w->c->p, name, 0, 0);
}

/* A wildcard's site "category:event": the category (to free) and, in
 * *event, the event; NULL if out of memory or there is no colon. */
static char *site_category(const char *site, const char **event)
{
	char *cat = strdup(site), *colon = cat ? strchr(cat, ':') : NULL;

	if (!colon) {
		free(cat);
		return NULL;
	}
	*colon = 0;
	*event = colon + 1;
	return cat;
}

/* Fields that every matched tracepoint has at the same place with the same type. */
static const struct type *common_fields(struct probe *p)
{
	const struct type *first = NULL;
	struct field keep[128];
	int nkeep = 0;
	for (int i = 0; i < p->nsites; i++) {
		const char *ev;
		char *cat = site_category(p->sites[i].func, &ev);
		const struct type *t = cat ? tpf_read(cat, ev) : NULL;
		free(cat);
		if (!t)
			continue;
		if (!first) {
			first = t;
			for (int f = 0; f < t->nfields && nkeep < 128; f++)
				keep[nkeep++] = t->fields[f];
			continue;
		}
		for (int f = 0; f < nkeep; f++) {
			const struct field *o = type_field(t, keep[f].name);
			if (!o || o->offset != keep[f].offset || !type_equal(o->type, keep[f].type))
				keep[f--] = keep[--nkeep];
		}
	}
	return type_record("tracepoint fields", false, first ? first->size : 0, keep, nkeep);
}

/* "/", "." and "..": names under tracefs's events/ that would reach
 * other files (tracepoint:../..:x read tracefs's own files). */
static bool tp_bad_name(const char *s)
{
	return strchr(s, '/') || !strcmp(s, ".") || !strcmp(s, "..");
}

static int parse_tracepoint(struct pctx *c, const char *rest)
{
	struct probe *p = c->p;
	const char *colon = strchr(rest, ':');
	if (!colon || !colon[1])
		return fail(c, "expected tracepoint:CATEGORY:EVENT, e.g. tracepoint:syscalls:sys_enter_write");
	p->category = strndup(rest, (size_t)(colon - rest));
	p->event = strdup(colon + 1);
	if (!p->category || !p->event)
		return fail(c, "out of memory");
	if (tp_bad_name(p->category) || tp_bad_name(p->event))   /* both become paths */
		return fail(c, "a tracepoint's category and event are names, not paths: "
			    "'%s:%s' is not one", p->category, p->event);
	if (!tpf_events_dir())
		return fail(c, "tracefs is not available; mount it: mount -t tracefs nodev /sys/kernel/tracing");
	struct tp_walk w = {c, 0, 0, ""};
	if (tpf_match(p->category, p->event, tp_found, &w))
		return fail(c, "cannot read the tracepoints: %s", strerror(errno));
	bool ftrace = !strncmp(w.skipped_name, "ftrace:", 7);
	if (w.n == 0 && w.skipped)
		return fail(c, "tracepoint:%s is %s, which a BPF tracepoint program cannot attach to; "
			    "%s", w.skipped_name,
			    ftrace ? "ftrace's own event" : "a dynamic event (perf probe's kprobe or uprobe)",
			    ftrace ? "choose another tracepoint" :
			    "probe the function itself with kprobe: or uprobe:");
	if (w.n == 0)
		return fail(c, "no tracepoint %s:%s; list them with: perf-run -l 'tracepoint:%s:*'",
			    p->category, p->event, p->category);
	if (w.skipped)
		diag_warn(c->d, c->loc, "tracepoint:%s:%s leaves out %d event%s that a BPF tracepoint "
			  "program cannot attach to (ftrace's own, and dynamic events such as perf "
			  "probe's)", p->category, p->event, w.skipped, w.skipped == 1 ? "" : "s");
	if (p->nsites == 1) {
		char *ev = strchr(p->sites[0].func, ':') + 1;
		free(p->category);
		free(p->event);
		p->category = strndup(p->sites[0].func, (size_t)(ev - 1 - p->sites[0].func));
		p->event = strdup(ev);
	}
	if (c->o->no_context) {
		p->args = type_record("tracepoint fields", false, 0, NULL, 0);
	} else if (p->nsites == 1) {
		p->args = tpf_read(p->category, p->event);
	} else {
		p->args = common_fields(p);
	}
	if (!p->args)
		return fail(c, "cannot read the format of tracepoint %s:%s: %s", p->category, p->event,
			    strerror(errno));
	return asprintf(&p->name, "tracepoint:%s:%s", p->category, p->event) < 0 ? -1 : 0;
}

static int parse_rawtp(struct pctx *c, const char *rest)
{
	if (!*rest)
		return fail(c, "expected rawtracepoint:NAME, e.g. rawtracepoint:sched_switch");
	c->p->event = strdup(rest);
	/* Typed by BTF where the kernel has it; else arg0.. stay available. */
	c->p->args = kbtf_rawtp_args(rest);
	if (!c->p->args && errno == ENOENT)
		return fail(c, "no raw tracepoint '%s' in the kernel's BTF; list tracepoints with: "
			    "perf-run -l 'tracepoint:*'", rest);
	return asprintf(&c->p->name, "rawtracepoint:%s", rest) < 0 ? -1 : 0;
}

/* ---- profile / interval ---- */

/* interval:1s, interval:1000000000 (nanoseconds): newer bpftrace's forms
 * without a unit field; bpftrace 0.17 takes none. */
static int parse_period(struct pctx *c, const char *rest, const char *what, uint64_t *ns,
			uint64_t *hz)
{
	size_t n = strlen(rest), digits = strspn(rest, "0123456789");

	*hz = 0;
	if (digits == n && n) {
		errno = 0;
		*ns = strtoull(rest, NULL, 10);
		if (errno == ERANGE)
			return fail(c, "'%s' is too large for %s", rest, what);
	} else if (dur_parse(rest, n, ns) != DUR_OK) {
		return fail(c, "expected %s:UNIT:N with UNIT one of hz, s, ms, us, or %s:DURATION "
			    "such as %s:1s", what, what, what);
	}
	if (!*ns)
		return fail(c, "'%s' is not a positive number", rest);
	return 0;
}

static int parse_rate(struct pctx *c, const char *rest, const char *what, uint64_t *ns, uint64_t *hz)
{
	const char *colon = strchr(rest, ':');
	char *end;
	if (!colon)
		return parse_period(c, rest, what, ns, hz);
	errno = 0;
	unsigned long long n = strtoull(colon + 1, &end, 10), mult;
	/* strtoull() takes "-5" as a huge number: only digits are a count. */
	if (*end || !n || !isdigit((unsigned char)colon[1]))
		return fail(c, "'%s' is not a positive number", colon + 1);
	size_t ul = (size_t)(colon - rest);
	*ns = *hz = 0;
	if (ul == 2 && !strncmp(rest, "hz", 2))
		mult = 0;
	else if (ul == 1 && rest[0] == 's')
		mult = 1000000000ull;
	else if (ul == 2 && !strncmp(rest, "ms", 2))
		mult = 1000000ull;
	else if (ul == 2 && !strncmp(rest, "us", 2))
		mult = 1000ull;
	else
		return fail(c, "unknown unit '%.*s'; use hz, s, ms or us", (int)ul, rest);
	if (errno == ERANGE || (mult && n > UINT64_MAX / mult))
		return fail(c, "'%s' is too large for %s:%.*s", colon + 1, what, (int)ul, rest);
	if (mult)
		*ns = n * mult;
	else
		*hz = n;
	return 0;
}

static int parse_profile(struct pctx *c, const char *rest)
{
	struct probe *p = c->p;
	if (parse_rate(c, rest, "profile", &p->period, &p->freq))
		return -1;
	p->perf_type = PERF_TYPE_SOFTWARE;
	p->perf_config = PERF_COUNT_SW_CPU_CLOCK;
	return asprintf(&p->name, "profile:%s", rest) < 0 ? -1 : 0;
}

static int parse_interval(struct pctx *c, const char *rest)
{
	struct probe *p = c->p;
	if (parse_rate(c, rest, "interval", &p->period, &p->freq))
		return -1;
	if (p->freq)
		p->period = 1000000000ull / p->freq, p->freq = 0;
	p->perf_type = PERF_TYPE_SOFTWARE;
	p->perf_config = PERF_COUNT_SW_CPU_CLOCK;
	return asprintf(&p->name, "interval:%s", rest) < 0 ? -1 : 0;
}

/* ---- software / hardware ---- */

struct perf_name {
	const char *name, *alias;
	uint64_t config;
	uint64_t period;
};

static const struct perf_name sw_events[] = {
	{"cpu-clock", "cpu", PERF_COUNT_SW_CPU_CLOCK, 1000000},
	{"task-clock", NULL, PERF_COUNT_SW_TASK_CLOCK, 1000000},
	{"page-faults", "faults", PERF_COUNT_SW_PAGE_FAULTS, 100},
	{"context-switches", "cs", PERF_COUNT_SW_CONTEXT_SWITCHES, 1000},
	{"cpu-migrations", "migrations", PERF_COUNT_SW_CPU_MIGRATIONS, 1},
	{"minor-faults", NULL, PERF_COUNT_SW_PAGE_FAULTS_MIN, 100},
	{"major-faults", NULL, PERF_COUNT_SW_PAGE_FAULTS_MAJ, 1},
	{"alignment-faults", NULL, PERF_COUNT_SW_ALIGNMENT_FAULTS, 1},
	{"emulation-faults", NULL, PERF_COUNT_SW_EMULATION_FAULTS, 1},
	{"dummy", NULL, PERF_COUNT_SW_DUMMY, 1},
	{"bpf-output", NULL, PERF_COUNT_SW_BPF_OUTPUT, 1},
	{NULL, NULL, 0, 0},
};

static const struct perf_name hw_events[] = {
	{"cpu-cycles", "cycles", PERF_COUNT_HW_CPU_CYCLES, 1000000},
	{"instructions", NULL, PERF_COUNT_HW_INSTRUCTIONS, 1000000},
	{"cache-references", NULL, PERF_COUNT_HW_CACHE_REFERENCES, 1000000},
	{"cache-misses", NULL, PERF_COUNT_HW_CACHE_MISSES, 1000000},
	{"branch-instructions", "branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 100000},
	{"branch-misses", NULL, PERF_COUNT_HW_BRANCH_MISSES, 100000},
	{"bus-cycles", NULL, PERF_COUNT_HW_BUS_CYCLES, 100000},
	{"frontend-stalls", "stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, 1000000},
	{"backend-stalls", "stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND, 1000000},
	{"ref-cycles", NULL, PERF_COUNT_HW_REF_CPU_CYCLES, 1000000},
	{NULL, NULL, 0, 0},
};

const char *probe_perf_event_name(bool hardware, int i)
{
	const struct perf_name *tab = hardware ? hw_events : sw_events;
	int n = (int)((hardware ? sizeof(hw_events) : sizeof(sw_events)) / sizeof(tab[0])) - 1;

	return i >= 0 && i < n ? tab[i].name : NULL;
}

bool probe_name_per_site(const struct probe *p)
{
	return p->nsites > 1 && (p->kind == PK_TRACEPOINT || p->kind == PK_UPROBE ||
				 p->kind == PK_URETPROBE || p->kind == PK_USDT);
}

bool probe_kwild(const struct probe *p)
{
	for (int i = 0; (p->kind == PK_KPROBE || p->kind == PK_KRETPROBE) && i < p->nsites; i++)
		if (strpbrk(p->sites[i].func, "*?["))
			return true;
	return false;
}

const char *probe_path_shown(const struct probe *p)
{
	return p->path_shown ? p->path_shown : p->path ? p->path : "";
}

const char *probe_site_name(const struct probe *p, int site, char *buf, size_t n)
{
	if (!probe_name_per_site(p) || site < 0 || site >= p->nsites)
		return p->name ? p->name : "";
	if (p->kind == PK_TRACEPOINT) {
		snprintf(buf, n, "tracepoint:%s", p->sites[site].func);
		return buf;
	}
	/* C++ and Rust functions as bpftrace 0.17 prints them in func */
	char *dm = p->demangle && p->kind != PK_USDT ? dm_demangle(p->sites[site].func, DM_FULL)
						      : NULL;
	snprintf(buf, n, "%s:%s:%s", probe_kind_name(p->kind), probe_path_shown(p),
		 dm ? dm : p->sites[site].func);
	free(dm);
	return buf;
}

static int parse_perf_event(struct pctx *c, const char *rest, const struct perf_name *tab,
			    uint32_t type, const char *kind)
{
	struct probe *p = c->p;
	char *ev = strdup(rest), *colon = strchr(ev, ':');
	uint64_t period = 0;
	if (colon) {
		char *end;
		*colon = '\0';
		period = strtoull(colon + 1, &end, 10);
		if (*end || !period || !isdigit((unsigned char)colon[1])) {
			fail(c, "'%s' is not a positive event count", colon + 1);
			free(ev);
			return -1;
		}
	}
	const struct perf_name *e = tab;
	while (e->name && strcmp(e->name, ev) && (!e->alias || strcmp(e->alias, ev)))
		e++;
	if (!e->name) {
		fail(c, "unknown %s event '%s'; list them with: perf-run -l '%s:*'", kind, ev, kind);
		free(ev);
		return -1;
	}
	p->perf_type = type;
	p->perf_config = e->config;
	p->period = period ? period : e->period;
	p->event = strdup(e->name);
	free(ev);
	return asprintf(&p->name, "%s:%s:%llu", kind, e->name, (unsigned long long)p->period) < 0 ? -1 : 0;
}

static int parse_software(struct pctx *c, const char *rest)
{
	return parse_perf_event(c, rest, sw_events, PERF_TYPE_SOFTWARE, "software");
}

static int parse_hardware(struct pctx *c, const char *rest)
{
	return parse_perf_event(c, rest, hw_events, PERF_TYPE_HARDWARE, "hardware");
}

/* ---- watchpoints ---- */

/* LEN:MODE of a watchpoint: the length 1, 2, 4 or 8, and r, w, x or a mix of
 * r and w, as in the kernel's hw_breakpoint. */
static int parse_wp_len_mode(struct pctx *c, const char *kind, const char *lenp)
{
	struct probe *p = c->p;
	char *end;
	const char *mode;

	p->wp_len = (uint32_t)strtoul(lenp, &end, 10);
	if (*end != ':' || (p->wp_len != 1 && p->wp_len != 2 && p->wp_len != 4 && p->wp_len != 8))
		return fail(c, "%s: the length must be 1, 2, 4 or 8", kind);
	mode = end + 1;
	for (const char *m = mode; *m; m++) {
		uint32_t bit = *m == 'r' ? 1 : *m == 'w' ? 2 : *m == 'x' ? 4 : 0;
		if (!bit || (p->wp_type & bit))
			return fail(c, "%s: the mode is r, w, x or rw, not '%s'", kind, mode);
		p->wp_type |= bit;
	}
	if (!p->wp_type || ((p->wp_type & 4) && p->wp_type != 4))
		return fail(c, "%s: the mode is r, w, x or rw, not '%s'", kind, mode);
	return 0;
}

/*
 * [BIN:]FUNC+argN (bpftrace's second form; BIN is perf-run's, bpftrace
 * takes the traced command's binary): a uprobe at FUNC's entry reads argN
 * as the address to watch, and the runtime opens the breakpoint on the
 * traced process then (prov_perf.c).  head is the text before :LEN:MODE.
 */
static int parse_wp_func(struct pctx *c, const char *kind, char *head)
{
	struct probe *p = c->p;
	const char *spec;
	char *plus, *end;

	if (c->o->pid <= 0)
		return fail(c, "%s needs a process: give -p PID or a command (-c)", kind);
	if (!(p->path = split_bin(c, head, &spec)))
		return -1;
	plus = strrchr(spec, '+');
	if (!plus || strncmp(plus + 1, "arg", 3) || !isdigit((unsigned char)plus[4]))
		return fail(c, "%s: expected FUNCTION+argN:LENGTH:MODE, e.g. %s:increment+arg1:4:w",
			    kind, kind);
	p->wp_arg = (int)strtol(plus + 4, &end, 10);
	if (*end || p->wp_arg > 5)
		return fail(c, "%s: x86-64 passes arg0 to arg5 in registers; '%s' is not one of them",
			    kind, plus + 1);
	if (!(p->wp_func = strndup(spec, (size_t)(plus - spec))))
		return -1;
	if (!*p->wp_func)
		return fail(c, "%s: name one function before +%s", kind, plus + 1);
	if (symbol_sites(c, p->wp_func, 0, false))
		return -1;
	if (p->nsites == 0)
		return fail(c, "%s: no function matches '%s' in %s", kind, p->wp_func, p->path);
	/* a wildcard (bpftrace 0.17 takes one) of one function is that function */
	if (p->nsites > 1 && strpbrk(p->wp_func, "*?["))
		return fail(c, "%s: %d functions match '%s' in %s; name the one to watch at",
			    kind, p->nsites, p->wp_func, p->path);
	if (p->nsites > 1)
		return fail(c, "%s: %d functions are named '%s' in %s; give the binary's path of "
			    "the one to watch at", kind, p->nsites, p->wp_func, p->path);
	return 0;
}

/* watchpoint:ADDR:LEN:MODE: a breakpoint perf event on the traced process;
 * watchpoint:[BIN:]FUNC+argN:LEN:MODE and asyncwatchpoint: the address is
 * FUNC's argN at each call (parse_wp_func). */
static int parse_watchpoint(struct pctx *c, const char *rest)
{
	struct probe *p = c->p;
	bool async = p->spec && (!strncmp(p->spec, "async", 5) || !strncmp(p->spec, "aw:", 3));
	const char *kind = async ? "asyncwatchpoint" : "watchpoint";
	char *head = strdup(rest), *lenp, *modep;
	int r;

	if (!head)
		return -1;
	p->wp_async = async;
	modep = strrchr(head, ':');
	if (modep)
		*modep = '\0';
	lenp = modep ? strrchr(head, ':') : NULL;
	if (!lenp || lenp == head) {
		free(head);
		return fail(c, "expected %s:ADDRESS:LENGTH:MODE or %s:FUNCTION+argN:LENGTH:MODE, "
			    "e.g. %s:0x10000000:8:rw", kind, kind, kind);
	}
	*modep = ':';
	*lenp = '\0';
	if (parse_wp_len_mode(c, kind, lenp + 1)) {
		free(head);
		return -1;
	}
	if (strchr(head, '+')) {
		/* named as bpftrace names it: kind:BIN:FUNC:N:LEN:MODE */
		r = parse_wp_func(c, kind, head);
		if (!r && asprintf(&p->name, "%s:%s:%s:%d:%u:%s", kind, probe_path_shown(p),
				   p->wp_func, p->wp_arg, p->wp_len, modep + 1) < 0)
			r = -1;
		free(head);
		return r;
	}
	if (async) {   /* bpftrace 0.17 refuses an address there too */
		free(head);
		return fail(c, "asyncwatchpoint requires a function name (%s:FUNCTION+argN:LEN:MODE); "
			    "watch an address with watchpoint:ADDR:LEN:MODE", kind);
	}
	p->wp_addr = strtoull(head, &lenp, 0);
	if (*lenp || !p->wp_addr || !isdigit((unsigned char)head[0])) {
		free(head);
		return fail(c, "expected %s:ADDRESS:LENGTH:MODE, e.g. %s:0x10000000:8:rw", kind, kind);
	}
	free(head);
	/* without a process, an address in the kernel's half watches the
	 * kernel on every CPU, as in bpftrace */
	p->wp_kernel = c->o->pid <= 0 && p->wp_addr >= 0xffff800000000000ull;
	if (c->o->pid <= 0 && !p->wp_kernel)
		return fail(c, "%s needs a process: give -p PID or a command (-c), or watch a "
			    "kernel address", kind);
	return asprintf(&p->name, "%s:0x%llx:%u:%s", kind, (unsigned long long)p->wp_addr,
			p->wp_len, p->wp_type == 3 ? "rw" : p->wp_type == 1 ? "r" :
			p->wp_type == 2 ? "w" : "x") < 0 ? -1 : 0;
}

/* ---- kernel functions ---- */

struct ksym_one {
	char *name;
	uint64_t addr;
};

struct ksym_find {
	const char *mod;
	bool collect;   /* false: stop at the first match */
	bool found;
	struct ksym_one *v;
	int n;
};

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym_one *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->addr > y->addr) - (x->addr < y->addr);
}

static int ksym_seen(void *ctx, const struct kscan_sym *s)
{
	struct ksym_find *k = ctx;
	struct ksym_one *v;

	if (s->type != 't' && s->type != 'T')
		return 0;
	if (k->mod && strcmp(k->mod, "vmlinux") ? !s->mod || strcmp(s->mod, k->mod)
						 : k->mod && s->mod)
		return 0;
	k->found = true;
	if (!k->collect)
		return 1;
	if (!(v = realloc(k->v, sizeof(*v) * (size_t)(k->n + 1))))
		return -ENOMEM;
	k->v = v;
	v[k->n] = (struct ksym_one){ strdup(s->name), s->addr };
	return v[k->n].name ? (k->n++, 0) : -ENOMEM;
}

/* k's symbols into p's ksyms, sorted by name, each name once: its address
 * in ksym_addrs, 0 for a name several functions have (static ones) or
 * where kptr_restrict hides addresses. */
static int ksyms_keep(struct probe *p, struct ksym_find *k)
{
	int n = 0;

	p->ksyms = calloc((size_t)k->n + 1, sizeof(*p->ksyms));
	p->ksym_addrs = calloc((size_t)k->n + 1, sizeof(*p->ksym_addrs));
	if (!p->ksyms || !p->ksym_addrs) {
		for (int i = 0; i < k->n; i++)
			free(k->v[i].name);
		free(k->v);
		return -ENOMEM;
	}
	if (k->n)
		qsort(k->v, (size_t)k->n, sizeof(*k->v), ksym_cmp);
	for (int i = 0; i < k->n; i++) {
		if (n && !strcmp(p->ksyms[n - 1], k->v[i].name)) {
			p->ksym_addrs[n - 1] = 0;
			free(k->v[i].name);
			continue;
		}
		p->ksyms[n] = k->v[i].name;
		p->ksym_addrs[n++] = k->v[i].addr;
	}
	free(k->v);
	p->nksyms = n;
	return 0;
}

/* A text symbol matching pattern; of module mod when mod is set (kallsyms
 * tags a module's symbols "[mod]"; "vmlinux" is the kernel itself).  With
 * collect, reads all of /proc/kallsyms and keeps every match in
 * collect->ksyms (a kprobe wildcard's attach counts what it skips); else
 * stops at the first. */
static bool kallsyms_has(const char *pattern, const char *mod, struct probe *collect)
{
	struct ksym_find k = { .mod = mod, .collect = collect != NULL };
	int rc = kscan("/proc/kallsyms", KSCAN_KALLSYMS, pattern, ksym_seen, &k);

	if (collect && !ksyms_keep(collect, &k) && rc >= 0)
		collect->have_ksyms = true;
	return k.found;
}

/* struct pt_regs offsets of the x86-64 argument registers: di, si, dx,
 * cx, r8, r9. */
static const uint32_t kprobe_arg_regs[6] = { 112, 104, 96, 88, 72, 64 };

/* kprobe_multi links where the kernel has them, unless
 * PERF_RUN_KPROBE_MULTI=0 forces one kprobe per function (to compare
 * them: tests/bench/). */
static bool kmulti_allowed(void)
{
	const char *env = getenv("PERF_RUN_KPROBE_MULTI");

	return !(env && !strcmp(env, "0")) && kfeature_kprobe_multi();
}

/* A kprobe wildcard without offset goes through one kprobe_multi link. */
static bool kmulti_wanted(const struct probe *p, const char *func)
{
	if ((p->kind != PK_KPROBE && p->kind != PK_KRETPROBE) || p->period ||
	    !strpbrk(func, "*?["))
		return false;
	return kmulti_allowed();
}

bool probe_kmulti_plain(const struct probe *p)
{
	return (p->kind == PK_KPROBE || p->kind == PK_KRETPROBE) && !p->period &&
	       !p->unmatched && p->nsites == 1 && !p->sites[0].offset && p->event &&
	       !strcmp(p->event, p->sites[0].func) && !strchr(p->event, ':');
}

/* Appends ",text" to *s. */
static int append_name(char **s, const char *text)
{
	char *t;

	if (asprintf(&t, "%s,%s", *s, text) < 0)
		return -1;
	free(*s);
	*s = t;
	return 0;
}

int probe_kmulti_join(struct probe *into, struct probe *p)
{
	/* one program reads retval one way: as one result type */
	bool same_ret = into->ret == p->ret ||
			(into->ret && p->ret && type_equal(into->ret, p->ret));

	if (!probe_kmulti_plain(p) || p->kind != into->kind || !same_ret ||
	    (!into->kmulti && !(probe_kmulti_plain(into) && kmulti_allowed())))
		return 0;
	if (add_site(into, p->sites[0].func, 0, 0) || append_name(&into->spec, p->spec) ||
	    append_name(&into->name, p->name))
		return -1;
	into->kmulti = true;
	return 1;
}

/* kprobe:FUNC:LINE, FUNC@FILE:LINE, FILE:LINE (perf probe's kernel
 * syntax; after MOD: in a loaded module, as perf probe -m MOD), or a
 * function only inlined: one kprobe at FUNC+OFF per address the DWARF of
 * the kernel or of the module gives for it (kdwarf.h); -1 with one
 * sentence in err. */
static int kernel_dwarf_sites(struct pctx *c, const char *mod, const char *spec, const char *rest,
			      char *err, size_t errlen)
{
	struct probe *p = c->p;
	struct kdw_site *ks;
	int n;

	if ((n = kdw_sites(mod, spec, &ks, err, errlen)) < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		if (add_site(p, ks[i].func, 0, ks[i].offset)) {
			kdw_sites_free(ks, n);
			return -1;
		}
		/* the variables there (args.NAME, print(args)), read at the
		 * link-time address the DWARF describes */
		p->sites[p->nsites - 1].addr = ks[i].addr;
		p->sites[p->nsites - 1].dw = ks[i].dw;
		ks[i].dw = NULL;
	}
	kdw_sites_free(ks, n);
	if (asprintf(&p->name, "%s:%s", probe_kind_name(p->kind), rest) < 0)
		abort();
	return 0;
}

static int parse_kernel_line(struct pctx *c, const char *mod, const char *spec, const char *rest)
{
	struct probe *p = c->p;
	char err[512];

	if (p->kind != PK_KPROBE)
		return fail(c, "a source line takes a kprobe, not a %s", probe_kind_name(p->kind));
	if (p->period)
		return fail(c, "a source line and an offset cannot be given together");
	if (kernel_dwarf_sites(c, mod, spec, rest, err, sizeof(err)))
		return fail(c, "%s", err);
	return 0;
}

/* A function the kernel has only inlined (no symbol in kallsyms): with the
 * kernel's DWARF, a kprobe at each inlined copy's entry, as perf probe
 * places them; 0 if so, else -1 (the caller says it is not found). */
static int kernel_inlined(struct pctx *c, const char *mod, const char *spec, const char *rest)
{
	char err[512], *vm;

	if (c->p->kind != PK_KPROBE || c->p->period || c->o->missing_ok ||
	    strpbrk(spec, "*?[") ||
	    !(vm = mod ? kdw_module(mod, err, sizeof(err)) : kdw_vmlinux(err, sizeof(err))))
		return -1;
	free(vm);
	return kernel_dwarf_sites(c, mod, spec, rest, err, sizeof(err));
}

static int parse_kernel(struct pctx *c, const char *rest)
{
	struct probe *p = c->p;
	char *spec = strdup(rest);
	if (!spec)
		return -1;
	p->event = spec;   /* the allocation, freed with the probe */
	size_t n = strlen(spec);
	if (n > 7 && !strcmp(spec + n - 7, "%return")) {
		spec[n - 7] = '\0';
		if (p->kind == PK_KPROBE)
			p->kind = PK_KRETPROBE;
	}
	char *plus = strchr(spec, '+');
	if (plus) {
		*plus = '\0';
		p->period = strtoull(plus + 1, NULL, 0); /* offset into the function */
	}
	/* kprobe:MODULE:FUNC (newer bpftrace); kprobe:vmlinux:FUNC is FUNC */
	char *mod = NULL, *after = kdw_split_module(spec);
	if (after) {
		mod = spec;
		spec = after;
		if (!*mod || !*spec)
			return fail(c, "expected MODULE:FUNCTION after '%s'", probe_kind_name(p->kind));
	}
	if (!*spec)
		return fail(c, "expected a kernel function after '%s'", probe_kind_name(p->kind));
	const char *dwmod = mod && strcmp(mod, "vmlinux") ? mod : NULL, *func = spec;
	if (kdw_is_line_spec(spec))
		return parse_kernel_line(c, dwmod, spec, rest);
	bool wild = !mod && (p->kind == PK_KPROBE || p->kind == PK_KRETPROBE) &&
		    strpbrk(spec, "*?[");
	bool found = kallsyms_has(spec, mod, wild ? p : NULL);   /* reads /proc/kallsyms */
	if (!found && !kernel_inlined(c, dwmod, spec, rest))
		return 0;
	if (!found && c->o->missing_ok)
		p->unmatched = true;   /* dcsnoop's lookup_fast.constprop.* on 6.1 */
	else if (!found)
		return mod ? fail(c, "no kernel function matches '%s' in module %s (/proc/kallsyms)",
				  spec, mod)
			   : fail(c, "no kernel function matches '%s' in /proc/kallsyms", spec);
	/* fentry/fexit read their arguments as typed u64 slots, from BTF (a
	 * module's own for kfunc:MOD:FUNC). */
	if ((p->kind == PK_FENTRY || p->kind == PK_FEXIT) && !strpbrk(func, "*?["))
		p->args = kbtf_func_args(dwmod, func);
	/* At a function's entry the arguments are in the calling convention's
	 * registers, typed from BTF (a module's own for kprobe:MOD:FUNC):
	 * args.NAME without debuginfo.  Read only if the body reads args
	 * (loading the kernel's BTF costs). */
	if (p->kind == PK_KPROBE && c->o->use_args && !p->period && !strpbrk(func, "*?[") &&
	    !(p->args = kbtf_kprobe_args(dwmod, func, kprobe_arg_regs, 6)) && errno == ENOTUNIQ) {
		fail(c, "args at %s: the kernel's functions named %s (one kprobe each) have "
		     "different parameters in its BTF; use arg0..arg5, or a source line with the "
		     "kernel's debuginfo", rest, func);
		return -1;   /* mod is p->event's, freed with the probe */
	}
	/* retval at fexit, or at a kretprobe the body reads it at, typed by
	 * the function's BTF result (an int's upper half of rax is not its
	 * own): a kretprobe on a name several functions have attaches each. */
	if ((p->kind == PK_FEXIT || (p->kind == PK_KRETPROBE && c->o->use_retval &&
				     !p->period)) && !strpbrk(func, "*?["))
		p->ret = kbtf_func_ret(dwmod, func, p->kind == PK_KRETPROBE);
	if (mod && strcmp(mod, "vmlinux")) {
		/* the kernel looks "MODULE:FUNC" up in that module's symbols */
		char *full;
		if (asprintf(&full, "%s:%s", mod, spec) < 0)
			return -1;
		spec = full;
		p->event = spec;
		free(mod);
	} else if (mod) {
		if (!(spec = strdup(spec)))
			return -1;
		p->event = spec;
		free(mod);
	}
	if (add_site(p, spec, 0, p->period))
		return -1;
	p->kmulti = !p->unmatched && kmulti_wanted(p, spec);
	return asprintf(&p->name, "%s:%s", probe_kind_name(p->kind), rest) < 0 ? -1 : 0;
}

/* ---- usdt ---- */

/* A binary a usdt attach point names: the path opened and probed, and
 * the one `probe` and -l show. */
struct usdt_bin {
	char *path, *shown;
};

static void usdt_bins_free(struct usdt_bin *v, int n)
{
	for (int i = 0; i < n; i++) {
		free(v[i].path);
		free(v[i].shown);
	}
	free(v);
}

static int usdt_bin_add(struct usdt_bin **v, int *n, const char *path, const char *shown)
{
	struct usdt_bin *b = realloc(*v, sizeof(*b) * (size_t)(*n + 1));

	if (!b)
		return -1;
	*v = b;
	b[*n].path = strdup(path);
	b[*n].shown = strdup(shown);
	if (!b[*n].path || !b[*n].shown) {
		free(b[*n].path);
		free(b[*n].shown);
		return -1;
	}
	(*n)++;
	return 0;
}

/* The files a wildcard BIN matches: those the -p process maps whose path
 * (as it sees it) matches pat, every one for NULL (its executable and
 * each library, as bpftrace searches them, each opened through its
 * map_files link); else regular files here (ELF or not is for the notes
 * reader to say). */
static int usdt_match_bins(struct pctx *c, pid_t pid, const char *pat, struct usdt_bin **v, int *n)
{
	struct pid_obj *o;
	int k = pidobj_match(pid, pat, &o), r = 0;

	if (k < 0)
		return pid > 0 ? fail(c, "cannot read the mappings of process %d: %s", (int)pid,
				      strerror(errno)) : fail(c, "out of memory");
	if (!k && pid <= 0)
		return fail(c, "no file matches '%s'", pat);
	for (int i = 0; i < k && !r; i++)
		r = usdt_bin_add(v, n, o[i].link, o[i].path);
	pidobj_free(o, k);
	return r ? fail(c, "out of memory") : 0;
}

/* The binaries of usdt:BIN:SPEC, and *spec after BIN: one named, every
 * file a wildcard BIN matches (among the -p process's files, or here),
 * and with BIN left out ("usdt::PROV:NAME", "usdt:::NAME") every file
 * of the -p process, else the traced command's.  The count, or -1. */
static int usdt_bins(struct pctx *c, const char *rest, const char **spec, struct usdt_bin **v)
{
	const char *colon = strchr(rest, ':');
	bool by_pid = c->o->pid > 0 && !c->o->child;
	int n = 0, r;

	*v = NULL;
	if (colon && (colon == rest ? by_pid : memchr(rest, '*', (size_t)(colon - rest)) ||
		      memchr(rest, '?', (size_t)(colon - rest)) ||
		      memchr(rest, '[', (size_t)(colon - rest)))) {
		char *pat = colon == rest ? NULL : strndup(rest, (size_t)(colon - rest));
		*spec = colon + 1;
		r = colon != rest && !pat ? fail(c, "out of memory") :
			usdt_match_bins(c, by_pid ? c->o->pid : 0, pat, v, &n);
		free(pat);
		return r ? (usdt_bins_free(*v, n), -1) : n;
	}
	char *path = split_bin(c, rest, spec);
	if (!path)
		return -1;
	r = usdt_bin_add(v, &n, path, c->p->path_shown ? c->p->path_shown : path);
	free(path);
	return r ? fail(c, "out of memory") : n;
}

/* PROVIDER:NAME, or NAME alone or after an empty provider (any). */
struct usdt_want {
	char *prov, *name, *buf;
};

static int usdt_want(const char *spec, struct usdt_want *w)
{
	char *colon;

	w->buf = strdup(spec);
	if (!w->buf)
		return -1;
	colon = strchr(w->buf, ':');
	w->prov = colon ? w->buf : NULL;
	w->name = colon ? colon + 1 : w->buf;
	if (colon)
		*colon = '\0';
	if (w->prov && !*w->prov)
		w->prov = NULL;
	return 0;
}

static bool usdt_matches(const struct usdt_want *w, const struct usdt_note *n)
{
	return !fnmatch(w->name, n->name, 0) && (!w->prov || !fnmatch(w->prov, n->provider, 0));
}

/* bpftrace refuses a NAME without provider that several providers have:
 * "namespace ... not specified"; a wildcard NAME takes them all. */
static int usdt_one_provider(struct pctx *c, const struct usdt_want *w, const struct probe *p)
{
	if (w->prov || strpbrk(w->name, "*?["))
		return 0;
	/* every site is PROVIDER:NAME of the one NAME: another text is another provider */
	for (const struct probe *q = p; q; q = q->more)
		for (int i = 0; i < q->nsites; i++)
			if (strcmp(q->sites[i].func, p->sites[0].func))
				return fail(c, "USDT probe '%s' is in several providers (%s and %s); "
					    "name one (PROVIDER:%s) or write '*:%s' for all of them",
					    w->name, p->sites[0].func, q->sites[i].func, w->name, w->name);
	return 0;
}

/* Two notes of one probe at one address (a marker duplicated where code
 * is merged) are one place: attached twice, each hit would count twice. */
static bool usdt_have_site(const struct probe *p, const struct usdt_note *n)
{
	for (int i = 0; i < p->nsites; i++)
		if (p->sites[i].offset == n->offset &&
		    !strncmp(p->sites[i].func, n->provider, strlen(n->provider)) &&
		    p->sites[i].func[strlen(n->provider)] == ':' &&
		    !strcmp(p->sites[i].func + strlen(n->provider) + 1, n->name))
			return true;
	return false;
}

/* The sites of one binary's notes that w matches, into p (path set). */
static int usdt_sites(struct pctx *c, struct probe *p, const struct usdt_want *w, bool quiet)
{
	struct usdt_note *notes;
	int n = usdt_notes(p->path, &notes), r = 0;

	if (n < 0)
		return quiet ? 0 : fail(c, "cannot read '%s' as an ELF file: %s", p->path,
					strerror(errno));
	for (int i = 0; i < n && !r; i++) {
		char full[512], err[256];
		struct probe_site *s;

		if (!usdt_matches(w, &notes[i]) || usdt_have_site(p, &notes[i]))
			continue;
		snprintf(full, sizeof(full), "%s:%s", notes[i].provider, notes[i].name);
		if (add_site(p, full, notes[i].addr, notes[i].offset)) {
			r = fail(c, "out of memory");
			break;
		}
		s = &p->sites[p->nsites - 1];
		s->ref_ctr_offset = notes[i].sem_offset;
		if ((s->nuargs = usdt_parse_args(notes[i].args, &s->uargs, err, sizeof(err))) < 0)
			r = fail(c, "%s", err);
	}
	usdt_notes_free(notes, n);
	return r;
}

/* One probe per binary that has a matching note: c->p for the first
 * (it takes each binary in turn until one has), the others chained on
 * its `more`. */
static int usdt_probes(struct pctx *c, const struct usdt_bin *b, int nb, const struct usdt_want *w)
{
	struct probe *last = NULL;
	int r = 0;

	for (int i = 0; i < nb && !r; i++) {
		struct probe *p = c->p->nsites ? calloc(1, sizeof(*p)) : c->p;

		if (!p || (p != c->p && !(p->spec = strdup(c->text)))) {
			probe_free(p != c->p ? p : NULL);
			return fail(c, "out of memory");
		}
		p->kind = PK_USDT;
		p->loc = c->loc;
		free(p->path);
		free(p->path_shown);
		p->path = strdup(b[i].path);
		p->path_shown = strcmp(b[i].path, b[i].shown) ? strdup(b[i].shown) : NULL;
		r = p->path ? usdt_sites(c, p, w, nb > 1) : fail(c, "out of memory");
		/* bpftrace names a USDT probe by its note's provider:name */
		if (!r && p->nsites &&
		    asprintf(&p->name, "usdt:%s:%s", probe_path_shown(p), p->sites[0].func) < 0)
			r = fail(c, "out of memory");
		if (p == c->p) {
			last = p->nsites ? p : NULL;
		} else if (r || !p->nsites) {
			probe_free(p);
		} else {
			last->more = p;
			last = p;
		}
	}
	return r;
}

static int parse_usdt(struct pctx *c, const char *rest)
{
	const char *spec;
	struct usdt_bin *b;
	struct usdt_want w;
	int nb = usdt_bins(c, rest, &spec, &b), r;

	if (nb < 0)
		return -1;
	if (usdt_want(spec, &w)) {
		usdt_bins_free(b, nb);
		return fail(c, "out of memory");
	}
	r = usdt_probes(c, b, nb, &w);
	if (!r && !c->p->nsites)
		r = nb == 1 ? fail(c, "no USDT probe '%s' in %s; list them with: perf-run -l 'usdt:%s:*'",
				   spec, c->p->path, probe_path_shown(c->p))
			    : fail(c, "no USDT probe '%s' in the %d files '%.*s' names; list them with: "
				   "perf-run -l 'usdt:%.*s:*'", spec, nb,
				   (int)(spec - rest - 1), rest, (int)(spec - rest - 1), rest);
	if (!r)
		r = usdt_one_provider(c, &w, c->p);
	free(w.buf);
	usdt_bins_free(b, nb);
	return r;
}

struct provider_syntax {
	const char *name, *alias, *alias2;
	enum probe_kind kind;
	int (*parse)(struct pctx *c, const char *rest);
	bool bare; /* takes no ':' part */
};

static const struct provider_syntax syntaxes[] = {
	/* newer bpftrace spells them begin and end */
	{"BEGIN", "begin", NULL, PK_BEGIN, parse_special, true},
	{"END", "end", NULL, PK_END, parse_special, true},
	{"uprobe", "u", NULL, PK_UPROBE, parse_uprobe, false},
	{"uretprobe", "ur", NULL, PK_URETPROBE, parse_uretprobe, false},
	{"usdt", "U", NULL, PK_USDT, parse_usdt, false},
	{"tracepoint", "t", NULL, PK_TRACEPOINT, parse_tracepoint, false},
	{"rawtracepoint", "rt", NULL, PK_RAWTP, parse_rawtp, false},
	{"profile", "p", NULL, PK_PROFILE, parse_profile, false},
	{"interval", "i", NULL, PK_INTERVAL, parse_interval, false},
	{"software", "s", NULL, PK_SOFTWARE, parse_software, false},
	{"hardware", "h", NULL, PK_HARDWARE, parse_hardware, false},
	{"kprobe", "k", NULL, PK_KPROBE, parse_kernel, false},
	{"kretprobe", "kr", NULL, PK_KRETPROBE, parse_kernel, false},
	{"fentry", "kfunc", "f", PK_FENTRY, parse_kernel, false},
	{"fexit", "kretfunc", "fr", PK_FEXIT, parse_kernel, false},
	{"watchpoint", "w", NULL, PK_WATCHPOINT, parse_watchpoint, false},
	{"asyncwatchpoint", "aw", NULL, PK_WATCHPOINT, parse_watchpoint, false},
};

const char *probe_kind_name(enum probe_kind k)
{
	for (size_t i = 0; i < sizeof(syntaxes) / sizeof(syntaxes[0]); i++)
		if (syntaxes[i].kind == k)
			return syntaxes[i].name;
	return "?";
}

const char *probe_type_name(enum probe_kind k)
{
	return k == PK_BEGIN || k == PK_END ? "special" : probe_kind_name(k);
}

int probe_resolve(const char *text, struct loc loc, const struct probe_opts *o,
		  struct diag *d, struct probe **out)
{
	struct probe *p = calloc(1, sizeof(*p));
	struct pctx c = {text, loc, o, d, p};
	size_t n = strcspn(text, ":");
	*out = NULL;
	if (!p)
		return -1;
	p->loc = loc;
	p->spec = strdup(text);
	for (size_t i = 0; i < sizeof(syntaxes) / sizeof(syntaxes[0]); i++) {
		const struct provider_syntax *s = &syntaxes[i];
		bool match = (strlen(s->name) == n && !strncmp(text, s->name, n)) ||
			     (s->alias && strlen(s->alias) == n && !strncmp(text, s->alias, n)) ||
			     (s->alias2 && strlen(s->alias2) == n && !strncmp(text, s->alias2, n));
		if (!match)
			continue;
		if (s->bare != (text[n] == '\0')) {
			fail(&c, s->bare ? "%s takes no arguments" : "expected '%s:' followed by what to probe",
			     s->name);
			probe_free(p);
			return -1;
		}
		p->kind = s->kind;
		if (s->parse(&c, text[n] ? text + n + 1 : "") || !p->name) {
			probe_free(p);
			return -1;
		}
		*out = p;
		return 0;
	}
	fail(&c, "unknown probe type '%.*s'; expected uprobe, uretprobe, usdt, tracepoint, "
		 "rawtracepoint, profile, interval, software, hardware, kprobe, kretprobe, "
		 "fentry, fexit, watchpoint, asyncwatchpoint, BEGIN or END", (int)n, text);
	probe_free(p);
	return -1;
}

void probe_free(struct probe *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->nsites; i++) {
		free(p->sites[i].func);
		free(p->sites[i].uargs);
		dw_probe_free(p->sites[i].dw);
	}
	free(p->sites);
	probe_free(p->more);
	free(p->spec);
	free(p->name);
	free(p->path);
	free(p->path_shown);
	free(p->category);
	free(p->event);
	free(p->sys_site);
	free(p->wp_func);
	for (int i = 0; i < p->nksyms; i++)
		free(p->ksyms[i]);
	free(p->ksyms);
	free(p->ksym_addrs);
	free(p);
}

void probe_use_raw_tp(struct probe *p)
{
	if (p->kind != PK_TRACEPOINT || p->sys_raw || p->nsites == 0)
		return;
	for (int i = 0; i < p->nsites; i++) {
		const char *ev;
		char *cat = site_category(p->sites[i].func, &ev);
		bool tp = cat && tpf_is_tracepoint(cat, ev);

		free(cat);
		if (!tp)
			return;
	}
	p->tp_raw = true;
}

void probe_dump(FILE *out, const struct probe *p)
{
	fprintf(out, "%s (%s)\n", p->name, probe_kind_name(p->kind));
	if (p->sys_raw)
		fprintf(out, "  one program on raw_syscalls:%s\n",
			p->sys_raw == SYS_ENTER ? "sys_enter" : "sys_exit");
	if (p->tp_raw)
		fprintf(out, "  raw tracepoints (the program reads no trace record)\n");
	if (p->path)
		fprintf(out, "  binary %s\n", p->path);
	if (p->kmulti)
		fprintf(out, "  one kprobe_multi link for every matching function\n");
	else if (p->kind == PK_KPROBE || p->kind == PK_KRETPROBE)
		fprintf(out, "  one kprobe per function\n");
	if (p->kind == PK_TRACEPOINT && p->args)
		for (int i = 0; i < p->args->nfields; i++) {
			char buf[128];
			fprintf(out, "  field %s %s at %u\n", type_str_name(p->args->fields[i].type, buf, sizeof(buf)),
				p->args->fields[i].name, p->args->fields[i].offset);
		}
	if (p->freq)
		fprintf(out, "  every cpu at %llu Hz\n", (unsigned long long)p->freq);
	else if (p->period)
		fprintf(out, "  period %llu\n", (unsigned long long)p->period);
	for (int i = 0; i < p->nsites; i++) {
		const struct probe_site *s = &p->sites[i];
		fprintf(out, "  site %s", s->func);
		for (int nr = 0; nr < p->nsys; nr++)
			if (p->sys_site[nr] == i)
				fprintf(out, " nr %d", nr);
		if (p->path)
			fprintf(out, " addr 0x%llx offset 0x%llx", (unsigned long long)s->addr,
				(unsigned long long)s->offset);
		else if ((p->kind == PK_KPROBE || p->kind == PK_KRETPROBE) && s->offset)
			fprintf(out, "+%llu", (unsigned long long)s->offset);
		fputc('\n', out);
		if (s->dw)
			dw_probe_dump(out, s->dw);
	}
}
