// SPDX-License-Identifier: GPL-2.0-only
/*
 * list.c - `perf-run -l`: attach points this machine offers, gathered from
 * the same sources the compiler resolves probes with (tracefs formats,
 * ELF symbols, SDT notes, the software/hardware event tables of probe.c)
 * plus the kernel's list of traceable functions.  Names are printed as a
 * script would write them, sorted, one a line, so the output can be
 * pasted into a program or piped to grep.
 */
#define _GNU_SOURCE
#include "compiler/list.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "compiler/dwarf.h"
#include "compiler/kbtf.h"
#include "lib/demangle.h"
#include "lib/elfsym.h"
#include "lib/kscan.h"
#include "lib/pidobj.h"
#include "compiler/probe.h"
#include "compiler/tpformat.h"
#include "compiler/usdt.h"

enum ls_type {
	LT_TRACEPOINT, LT_RAWTP, LT_SOFTWARE, LT_HARDWARE, LT_KPROBE, LT_KRETPROBE,
	LT_FENTRY, LT_FEXIT, LT_UPROBE, LT_URETPROBE, LT_USDT, LT_NONE,
};

/* Names and short forms as probe.c accepts them; `listed` types are the
 * ones a pattern without a type searches. */
static const struct ls_type_name {
	const char *name, *alias, *alias2;
	bool listed;
} ls_types[] = {
	[LT_TRACEPOINT] = { "tracepoint", "t", NULL, true },
	[LT_RAWTP] = { "rawtracepoint", "rt", NULL, false },
	[LT_SOFTWARE] = { "software", "s", NULL, true },
	[LT_HARDWARE] = { "hardware", "h", NULL, true },
	[LT_KPROBE] = { "kprobe", "k", NULL, true },
	[LT_KRETPROBE] = { "kretprobe", "kr", NULL, false },
	[LT_FENTRY] = { "fentry", "kfunc", "f", false },
	[LT_FEXIT] = { "fexit", "kretfunc", "fr", false },
	[LT_UPROBE] = { "uprobe", "u", NULL, false },
	[LT_URETPROBE] = { "uretprobe", "ur", NULL, false },
	[LT_USDT] = { "usdt", "U", NULL, false },
};

/* The lines of one type, sorted and deduplicated before printing. */
struct ls_ctx {
	FILE *out;
	const char *pat;          /* fnmatch pattern over whole names */
	const char *bare_pat;     /* tracepoints also match "cat:event" */
	char **v;
	size_t n, cap;
	bool nomem;
	bool verbose;             /* -lv: each probe's arguments under it */
	const char *path;         /* uprobe listing: the binary, for DWARF */
	bool demangle;            /* C++ and Rust functions by demangled names */
	char *fpat;               /* uprobe listing: the FUNC pattern alone, unquoted */
	bool cxx_only;            /* uprobe:BIN:cpp:PATTERN: only C++ and Rust names */
};

/* Keeps line s (malloc'd, taken). */
static void ls_keep(struct ls_ctx *c, char *s)
{
	if (!s) {
		c->nomem = true;
		return;
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 256;
		char **v = realloc(c->v, cap * sizeof(*v));
		if (!v) {
			free(s);
			c->nomem = true;
			return;
		}
		c->v = v, c->cap = cap;
	}
	c->v[c->n++] = s;
}

static void ls_add(struct ls_ctx *c, const char *fmt, ...)
{
	char *s;
	va_list ap;
	va_start(ap, fmt);
	int r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0 || c->nomem) {
		c->nomem = true;
		return;
	}
	if (fnmatch(c->pat, s, 0) &&
	    (!c->bare_pat || fnmatch(c->bare_pat, strchr(s, ':') + 1, 0))) {
		free(s);
		return;
	}
	ls_keep(c, s);
}

static int ls_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* -lv of a tracepoint: its format's fields but the common ones, as
 * bpftrace prints them ("    const char * filename"). */
static void ls_tp_args(FILE *out, const char *cat, const char *ev)
{
	char path[PATH_MAX], line[1024];
	if (strstr(cat, "..") || strstr(ev, ".."))
		return;
	snprintf(path, sizeof(path), "%s/%s/%s/format", tpf_events_dir(), cat, ev);
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *d = strstr(line, "field:"), *end;
		if (!d || !(end = strchr(d, ';')))
			continue;
		d += 6;
		*end = '\0';
		const char *name = strrchr(d, ' ');
		if (!name || strncmp(name + 1 + strspn(name + 1, "*"), "common_", 7))
			fprintf(out, "    %s\n", d);
	}
	fclose(f);
}

/* -lv of a function: its parameters from DWARF, as bpftrace prints them
 * ("    int i"); nothing where the binary has no DWARF for it. */
static void ls_func_args(FILE *out, const char *path, const char *func)
{
	struct probe_site *sites = NULL;
	const struct dw_var *vars;
	char err[256];
	int n = 0;
	if (dw_resolve(path, func, false, &sites, &n, err, sizeof(err)) == 0 && n > 0 && sites[0].dw) {
		int nv = dw_vars(sites[0].dw, &vars);
		for (int i = 0; i < nv; i++)
			if (vars[i].is_param && !vars[i].in_inline)
				fprintf(out, "    %s %s\n", vars[i].type_name ? vars[i].type_name : "?",
					vars[i].name);
	}
	for (int i = 0; i < n; i++) {
		free(sites[i].func);
		dw_probe_free(sites[i].dw);
	}
	free(sites);
}

/* -lv of a function listed by its demangled name: DWARF's view at its
 * address (DWARF names a C++ method by its bare name). */
static void ls_cxx_args(FILE *out, const char *path, const char *quoted)
{
	char *d = strndup(quoted + 1, strcspn(quoted + 1, "\""));
	struct elfsym *syms = NULL;
	int n = d ? elfsym_match_demangled(path, NULL, d, &syms) : 0;
	if (n > 0) {
		char addr[32];
		snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)syms[0].addr);
		ls_func_args(out, path, addr);
	}
	if (n > 0)
		elfsym_free(syms, n);
	free(d);
}

/* -lv of fentry:FUNC or fentry:MOD:FUNC: the parameters and the result
 * from BTF, as bpftrace prints them ("    struct file * file"). */
static void ls_kfunc_args(FILE *out, const char *spec)
{
	const char *colon = strchr(spec, ':');
	char mod[64];

	if (colon)
		snprintf(mod, sizeof(mod), "%.*s", (int)(colon - spec), spec);
	kbtf_func_decls(out, colon ? mod : NULL, colon ? colon + 1 : spec, true);
}

static void ls_args(struct ls_ctx *c, const char *name)
{
	char cat[256], ev[256];
	const char *q = strchr(name, '"');
	if (sscanf(name, "tracepoint:%255[^:]:%255s", cat, ev) == 2) {
		ls_tp_args(c->out, cat, ev);
	} else if (c->path && q && (!strncmp(name, "uprobe:", 7) || !strncmp(name, "uretprobe:", 10))) {
		ls_cxx_args(c->out, c->path, q);
	} else if (c->path && (!strncmp(name, "uprobe:", 7) || !strncmp(name, "uretprobe:", 10))) {
		const char *f = strrchr(name, ':');
		if (f)
			ls_func_args(c->out, c->path, f + 1);
	} else if (!strncmp(name, "fentry:", 7) || !strncmp(name, "fexit:", 6)) {
		ls_kfunc_args(c->out, strchr(name, ':') + 1);
	}
}

static void ls_flush(struct ls_ctx *c)
{
	if (c->n > 1)   /* c->v is NULL when nothing matched */
		qsort(c->v, c->n, sizeof(*c->v), ls_cmp);
	for (size_t i = 0; i < c->n; i++) {
		if (i && !strcmp(c->v[i], c->v[i - 1]))
			continue;
		fprintf(c->out, "%s\n", c->v[i]);
		if (c->verbose)
			ls_args(c, c->v[i]);
	}
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i]);
	c->n = 0;
}

/* ---- kernel-wide probes ---- */

/* Only what attaches: not ftrace's own events, not perf probe's dynamic
 * events (listed, they failed with EINVAL at attach: reliability F19). */
static int ls_tp_one(const char *cat, const char *ev, void *arg)
{
	if (tpf_bpf_attachable(cat, ev))
		ls_add(arg, "tracepoint:%s:%s", cat, ev);
	return 0;
}

static int ls_rawtp_one(const char *cat, const char *ev, void *arg)
{
	if (tpf_is_tracepoint(cat, ev))
		ls_add(arg, "rawtracepoint:%s", ev);
	return 0;
}

static int ls_tracepoints(struct ls_ctx *c, bool raw)
{
	if (tpf_match("*", "*", raw ? ls_rawtp_one : ls_tp_one, c) < 0) {
		if (errno == EACCES)
			fprintf(stderr, "perf-run: cannot list the tracepoints: tracefs "
				"(/sys/kernel/tracing) is readable by root only; run -l as root\n");
		else
			fprintf(stderr, "perf-run: cannot read the tracepoints: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

static void ls_perf_events(struct ls_ctx *c, bool hw)
{
	const char *name;
	for (int i = 0; (name = probe_perf_event_name(hw, i)); i++)
		ls_add(c, "%s:%s", hw ? "hardware" : "software", name);
}

static bool ls_have_kprobes(void)
{
	return access("/sys/bus/event_source/devices/kprobe", F_OK) == 0 ||
	       access("/sys/kernel/tracing/kprobe_events", F_OK) == 0;
}

struct ls_kfuncs {
	struct ls_ctx *c;
	const char *type;
	bool text_only;   /* kallsyms: t/T symbols only */
};

static int ls_kfunc_one(void *arg, const struct kscan_sym *s)
{
	struct ls_kfuncs *k = arg;

	if (!k->text_only || s->type == 't' || s->type == 'T')
		ls_add(k->c, "%s:%s", k->type, s->name);
	return 0;
}

/* Traceable functions from ftrace's list where readable (it leaves out
 * what kprobes refuse), else every text symbol of kallsyms. */
static void ls_kernel_funcs(struct ls_ctx *c, const char *type)
{
	static const char *const lists[] = {
		"/sys/kernel/tracing/available_filter_functions",
		"/sys/kernel/debug/tracing/available_filter_functions",
	};
	struct ls_kfuncs k = { .c = c, .type = type };
	size_t tl = strlen(type);
	/* "TYPE:FUNCS" (not a bare word, which matches names anywhere):
	 * FUNCS alone goes to kscan, which skips a name whose start differs
	 * before ls_add formats it; ls_add still matches the whole */
	const char *fpat = !c->bare_pat && !strncmp(c->pat, type, tl) && c->pat[tl] == ':'
			   ? c->pat + tl + 1 : NULL;
	int rc = -ENOENT;

	/* -EIO: the list opened but a read failed; what it gave is listed */
	for (size_t i = 0; rc < 0 && rc != -EIO && i < sizeof(lists) / sizeof(lists[0]); i++)
		rc = kscan(lists[i], KSCAN_FILTER, fpat, ls_kfunc_one, &k);
	if (rc < 0 && rc != -EIO) {
		k.text_only = true;
		kscan("/proc/kallsyms", KSCAN_KALLSYMS, fpat, ls_kfunc_one, &k);
	}
}

/* The functions of a loaded module's BTF (split on vmlinux's), as
 * TYPE:MOD:FUNC (bpftrace's kfunc:MOD:FUNC). */
static void ls_btf_module(struct ls_ctx *c, const char *type, struct btf *vm, const char *mod)
{
	char path[PATH_MAX];
	struct btf *b;

	snprintf(path, sizeof(path), "/sys/kernel/btf/%s", mod);
	if (!(b = btf__parse_split(path, vm)))
		return;
	for (unsigned id = btf__type_cnt(vm); id < btf__type_cnt(b); id++) {
		const struct btf_type *bt = btf__type_by_id(b, id);
		if (btf_is_func(bt))
			ls_add(c, "%s:%s:%s", type, mod, btf__name_by_offset(b, bt->name_off));
	}
	btf__free(b);
}

/* fentry/fexit targets: the functions of the kernel's BTF, and of each
 * loaded module's (/sys/kernel/btf: the kernel's own files). */
static void ls_btf_funcs(struct ls_ctx *c, const char *type)
{
	struct btf *vm = btf__load_vmlinux_btf();
	DIR *d;
	struct dirent *e;

	if (!vm)
		return;
	for (unsigned id = 1; id < btf__type_cnt(vm); id++) {
		const struct btf_type *bt = btf__type_by_id(vm, id);
		if (btf_is_func(bt))
			ls_add(c, "%s:%s", type, btf__name_by_offset(vm, bt->name_off));
	}
	for (d = opendir("/sys/kernel/btf"); d && (e = readdir(d));)
		if (e->d_name[0] != '.' && strcmp(e->d_name, "vmlinux"))
			ls_btf_module(c, type, vm, e->d_name);
	if (d)
		closedir(d);
	btf__free(vm);
}

static int ls_kernel_type(struct ls_ctx *c, enum ls_type t)
{
	int ret = 0;
	switch (t) {
	case LT_TRACEPOINT: case LT_RAWTP:
		ret = ls_tracepoints(c, t == LT_RAWTP);
		break;
	case LT_SOFTWARE: case LT_HARDWARE:
		ls_perf_events(c, t == LT_HARDWARE);
		break;
	case LT_KPROBE: case LT_KRETPROBE:
		if (ls_have_kprobes())
			ls_kernel_funcs(c, ls_types[t].name);
		break;
	case LT_FENTRY: case LT_FEXIT:
		ls_btf_funcs(c, ls_types[t].name);
		break;
	default:
		break;
	}
	ls_flush(c);
	return ret;
}

/* ---- binaries: uprobe:BIN[:FUNC], usdt:BIN[:[PROVIDER:]NAME] ---- */

/* A binary to list: the path opened, and the one the list shows: as
 * written where the user gave a path ("./app"), as bpftrace lists it,
 * as the -p process maps it, else the path found. */
struct ls_bin {
	char *path, *shown;
};

static void ls_bins_free(struct ls_bin *v, int n)
{
	for (int i = 0; i < n; i++) {
		free(v[i].path);
		free(v[i].shown);
	}
	free(v);
}

/* Takes path (malloc'd); shown is copied. */
static int ls_bin_add(struct ls_bin **v, int *n, char *path, const char *shown)
{
	struct ls_bin *b = path ? realloc(*v, sizeof(*b) * (size_t)(*n + 1)) : NULL;

	if (!b || !(b[*n].shown = strdup(shown))) {
		if (b)
			*v = b;
		free(path);
		return -1;
	}
	*v = b;
	b[(*n)++].path = path;
	return 0;
}

/* The files a wildcard BIN matches: among the -p process's files (every
 * one for NULL), else here. */
static int ls_match_bins(pid_t pid, const char *pat, struct ls_bin **v, int *n)
{
	struct pid_obj *o;
	int k = pidobj_match(pid, pat, &o), r = 0;

	if (k < 0) {
		fprintf(stderr, "perf-run: cannot read the mappings of process %d: %s\n", (int)pid,
			strerror(errno));
		return -1;
	}
	for (int i = 0; i < k && !r; i++)
		r = ls_bin_add(v, n, strdup(o[i].link), o[i].path);
	pidobj_free(o, k);
	return r;
}

/* The -p process's own: its executable for uprobes; for usdt every file
 * it maps, as bpftrace lists them. */
static int ls_pid_default(enum ls_type t, pid_t pid, struct ls_bin **v, int *n)
{
	const char *why;
	char *exe;

	if (t == LT_USDT)
		return ls_match_bins(pid, NULL, v, n);
	exe = elfsym_pid_exe(pid, &why);
	if (!exe)
		return 0;
	/* named as the process sees it where that differs */
	char *name = pidobj_foreign(pid) ? pidobj_exe_name(pid) : NULL;
	int r = ls_bin_add(v, n, exe, name ? name : exe);
	free(name);
	return r;
}

/* The binaries of rest: BIN before its first ':' (a path, a library
 * name, a wildcard over files, or over the -p process's files), else the
 * -p process's own; *pat is left at what follows. */
static int ls_bins(enum ls_type t, const char *rest, pid_t pid, const char **pat,
		   struct ls_bin **v, int *n)
{
	const char *colon = strchr(rest, ':');
	char *first = strndup(rest, colon ? (size_t)(colon - rest) : strlen(rest)), *path = NULL;
	char *shown = NULL;
	int r;

	*v = NULL;
	*n = 0;
	if (!first)
		return -1;
	*pat = colon ? colon + 1 : "";
	bool wild = strpbrk(first, "*?[") != NULL;
	if (colon && wild) {
		r = ls_match_bins(pid, first, v, n);
	} else if (wild) {   /* "usdt:*": the pattern of the -p process's own */
		*pat = rest;
		r = pid > 0 ? ls_pid_default(t, pid, v, n) : 0;
	} else if ((*first == '/' || (*first && !strchr(first, '/'))) && pid > 0 &&
		   pidobj_foreign(pid) && ((path = pidobj_find(pid, first, &shown)) || *first == '/')) {
		/* the process's own view; a file of that name here is another one */
		r = path ? ls_bin_add(v, n, path, shown) : 0;
	} else if (*first && (path = elfsym_find_binary(first, pid))) {
		r = ls_bin_add(v, n, path, strchr(first, '/') ? first : path);
	} else {
		*pat = *first || !colon ? rest : colon + 1;
		r = pid > 0 ? ls_pid_default(t, pid, v, n) : 0;
	}
	free(shown);
	free(first);
	return r;
}

/* A C++ or Rust function, listed as `uprobe:BIN:"demangled name"` when
 * the pattern matches that line, its demangled name (whole, or perf's
 * short one: "shop::Cart::*"), or its mangled line. */
static void ls_cxx(struct ls_ctx *c, const char *type, const char *shown, const char *mangled,
		   const char *d)
{
	char *raw = NULL, *sh = NULL;
	bool ok = (c->fpat && !fnmatch(c->fpat, d, 0));
	if (!ok && c->fpat && (sh = dm_demangle(mangled, DM_SHORT)))
		ok = !fnmatch(c->fpat, sh, 0);
	if (!ok && !c->cxx_only && asprintf(&raw, "%s:%s:%s", type, shown, mangled) >= 0)
		ok = !fnmatch(c->pat, raw, 0);
	free(sh);
	free(raw);
	if (!ok)
		return;
	char *line = NULL;
	if (asprintf(&line, "%s:%s:%s\"%s\"", type, shown, c->cxx_only ? "cpp:" : "", d) < 0)
		line = NULL;
	ls_keep(c, line);
}

static int ls_uprobes(struct ls_ctx *c, const char *type, const char *path, const char *shown)
{
	struct elfsym *syms = NULL;
	int n = elfsym_match(path, "*", &syms);
	if (n < 0) {
		fprintf(stderr, "perf-run: cannot read the symbols of '%s': %s\n", path,
			strerror(errno));
		return 1;
	}
	for (int i = 0; i < n && !c->nomem; i++) {
		char *d = c->demangle ? dm_demangle(syms[i].name, DM_FULL) : NULL;
		if (d)
			ls_cxx(c, type, shown, syms[i].name, d);
		else if (!c->cxx_only)
			ls_add(c, "%s:%s:%s", type, shown, syms[i].name);
		free(d);
	}
	elfsym_free(syms, n);
	return 0;
}

static int ls_usdt(struct ls_ctx *c, const char *path, const char *shown)
{
	struct usdt_note *notes;
	int n = usdt_notes(path, &notes);
	if (n < 0) {
		fprintf(stderr, "perf-run: cannot read '%s' as an ELF file: %s\n", path,
			strerror(errno));
		return 1;
	}
	for (int i = 0; i < n; i++)
		ls_add(c, "usdt:%s:%s:%s", shown, notes[i].provider, notes[i].name);
	usdt_notes_free(notes, n);
	return 0;
}

/* One binary's probes of type t matching fpat. */
static int ls_one_binary(struct ls_ctx *c, enum ls_type t, const struct ls_bin *b,
			 const char *fpat, bool quiet)
{
	char *full = NULL;
	/* "usdt:BIN:NAME" and "usdt:BIN::NAME" find NAME under any provider. */
	bool any_prov = t == LT_USDT && *fpat && (*fpat == ':' || !strchr(fpat, ':'));
	if (asprintf(&full, "%s:%s:%s%s", ls_types[t].name, b->shown, any_prov ? "*:" : "",
		     *fpat ? fpat + (*fpat == ':') : "*") < 0)
		return 1;
	c->pat = full;
	c->path = b->path;
	/* a wildcard's files that are not ELF are none of its binaries */
	if (quiet && !elfsym_is_x86_64(b->path) && !elfsym_is_i386(b->path)) {
		free(full);
		c->path = NULL;
		return 0;
	}
	/* the FUNC part alone, for demangled names: without its quotes
	 * (uprobe:BIN:"ns::f()") and its language ("cpp:") */
	const char *lang = strncmp(fpat, "cpp:", 4) && strncmp(fpat, "c++:", 4) ? NULL : fpat + 4;
	c->cxx_only = lang && c->demangle;
	c->fpat = strdup(*(lang ? lang : fpat) ? (lang ? lang : fpat) : "*");
	if (c->fpat) {
		char *o = c->fpat;
		for (const char *q = c->fpat; *q; q++)
			if (*q != '"')
				*o++ = *q;
		*o = 0;
	}
	int r = t == LT_USDT ? ls_usdt(c, b->path, b->shown)
			     : ls_uprobes(c, ls_types[t].name, b->path, b->shown);
	ls_flush(c);   /* -lv reads each function's parameters from c->path */
	free(c->fpat);
	c->fpat = NULL;
	c->path = NULL;
	free(full);
	return r;
}

/* quiet: a wildcard type, where a binary type whose BIN names nothing is
 * no error ("*:sched:sched_switch"). */
static int ls_binary_type(struct ls_ctx *c, enum ls_type t, const char *rest, pid_t pid,
			  bool quiet)
{
	const char *fpat, *pat = c->pat;
	struct ls_bin *b;
	int nb, r = 0;

	if (ls_bins(t, rest, pid, &fpat, &b, &nb) < 0) {
		ls_bins_free(b, nb);
		fprintf(stderr, "perf-run: out of memory listing probes\n");
		return 1;
	}
	if (!nb && !quiet)
		fprintf(stderr, "perf-run: no binary '%.*s'; give %s:BIN:PATTERN or -p PID\n",
			(int)strcspn(rest, ":"), rest, ls_types[t].name);
	for (int i = 0; i < nb; i++)
		r |= ls_one_binary(c, t, &b[i], fpat, quiet || nb > 1);
	c->pat = pat;
	ls_bins_free(b, nb);
	return nb || quiet ? r : 1;
}

/* ---- the front door ---- */

static enum ls_type ls_type_of(const char *pat, const char **rest)
{
	size_t n = strcspn(pat, ":");
	if (!pat[n])
		return LT_NONE;
	for (size_t t = 0; t < LT_NONE; t++) {
		const struct ls_type_name *tn = &ls_types[t];
		const char *names[] = { tn->name, tn->alias, tn->alias2 };
		for (int i = 0; i < 3; i++)
			if (names[i] && strlen(names[i]) == n && !strncmp(pat, names[i], n)) {
				*rest = pat + n + 1;
				return (enum ls_type)t;
			}
	}
	return LT_NONE;
}

static int ls_all(struct ls_ctx *c, pid_t pid)
{
	int r = 0;
	for (size_t t = 0; t < LT_NONE; t++)
		if (ls_types[t].listed)
			r |= ls_kernel_type(c, (enum ls_type)t);
	if (pid > 0) {
		const char *pat = c->pat;
		r |= ls_binary_type(c, LT_UPROBE, "", pid, false);
		r |= ls_binary_type(c, LT_USDT, "", pid, false);
		c->pat = pat;
	}
	return r;
}

/* A wildcard type ("*:BIN:*", "t*:sched:*"): each type it matches,
 * kernel ones and the binaries' (uprobe, usdt), as bpftrace lists them. */
static int ls_wild_type(struct ls_ctx *c, const char *tpat, const char *rest, pid_t pid)
{
	int r = 0;

	for (size_t t = 0; t < LT_NONE; t++) {
		char *full = NULL;

		if ((!ls_types[t].listed && t != LT_UPROBE && t != LT_USDT) ||
		    fnmatch(tpat, ls_types[t].name, 0))
			continue;
		if (t == LT_UPROBE || t == LT_USDT) {
			r |= ls_binary_type(c, (enum ls_type)t, rest, pid, true);
			continue;
		}
		if (asprintf(&full, "%s:%s", ls_types[t].name, *rest ? rest : "*") < 0)
			return 1;
		c->pat = full;
		r |= ls_kernel_type(c, (enum ls_type)t);
		c->pat = "*";
		free(full);
	}
	return r;
}

/* Characters no attach point holds, which bpftrace's lexer refuses too
 * (a space, ',' and '{' end one in a script); "..." quotes are taken
 * away as the script's lexer takes them.  ~ ( ) < > & are C++ names'
 * (uprobe:BIN:shop::Cart::~Cart*).  NULL after a message. */
static char *ls_clean(const char *pattern)
{
	char *out = malloc(strlen(pattern) + 1), *o = out;
	bool quoted = false;

	if (!out)
		return NULL;
	for (const char *p = pattern; *p; p++) {
		if (*p == '"') {
			quoted = !quoted;
			continue;
		}
		if (!quoted && (!isgraph((unsigned char)*p) || strchr(",{};'`$=|", *p))) {
			if (isgraph((unsigned char)*p))
				fprintf(stderr, "perf-run: -l '%s': '%c' cannot be in an attach point\n",
					pattern, *p);
			else
				fprintf(stderr, "perf-run: -l '%s': an attach point holds no white space "
					"or control character\n", pattern);
			free(out);
			return NULL;
		}
		*o++ = *p;
	}
	*o = '\0';
	if (quoted) {
		fprintf(stderr, "perf-run: -l '%s': a '\"' is not closed\n", pattern);
		free(out);
		return NULL;
	}
	return out;
}

/* What is wrong with a glob fnmatch() would take without a word (an
 * unclosed '[' is matched literally, a final '\\' never), or NULL. */
static const char *ls_bad_glob(const char *p)
{
	for (; *p; p++) {
		if (*p == '\\' && !*++p)
			return "it ends with a lone '\\'";
		if (*p != '[')
			continue;
		const char *q = p + 1;
		if (*q == '!' || *q == '^')
			q++;
		if (*q == ']')
			q++;   /* a ']' first is one of the set */
		while (*q && *q != ']')
			q++;
		if (!*q)
			return "a '[' is not closed by ']'";
		p = q;
	}
	return NULL;
}

int ls_list(FILE *out, const char *pattern, pid_t pid, bool verbose, bool demangle)
{
	struct ls_ctx c = { .out = out, .pat = "*", .verbose = verbose, .demangle = demangle };
	const char *rest = NULL, *given = pattern;
	char *full = NULL, *clean = pattern ? ls_clean(pattern) : NULL;
	int r;

	if (pattern && !clean)
		return 1;
	pattern = clean;
	const char *bad = pattern ? ls_bad_glob(pattern) : NULL;
	if (bad) {
		fprintf(stderr, "perf-run: -l '%s': %s\n", given, bad);
		free(clean);
		return 1;
	}
	enum ls_type t = pattern ? ls_type_of(pattern, &rest) : LT_NONE;
	size_t tlen = pattern ? strcspn(pattern, ":") : 0;
	if (t == LT_NONE && pattern && pattern[tlen] && strcspn(pattern, "*?[") < tlen) {
		char *tpat = strndup(pattern, tlen);
		r = tpat ? ls_wild_type(&c, tpat, pattern + tlen + 1, pid) : 1;
		free(tpat);
	} else if (t == LT_UPROBE || t == LT_URETPROBE || t == LT_USDT) {
		r = ls_binary_type(&c, t, rest, pid, false);
	} else if (t != LT_NONE) {
		if (asprintf(&full, "%s:%s", ls_types[t].name, *rest ? rest : "*") < 0)
			return 1;
		c.pat = full;
		r = ls_kernel_type(&c, t);
	} else {
		/* A word without wildcards is looked for anywhere in the name. */
		if (pattern && !strpbrk(pattern, "*?[") && asprintf(&full, "*%s*", pattern) < 0)
			return 1;
		if (pattern)
			c.pat = c.bare_pat = full ? full : pattern;
		r = ls_all(&c, pattern ? 0 : pid);
	}
	free(full);
	free(clean);
	free(c.v);
	if (c.nomem) {
		fprintf(stderr, "perf-run: out of memory listing probes\n");
		return 1;
	}
	return r;
}

/* ---- -L / -V ---- */

/* dw_list_vars at one function found by its demangled name: DWARF names a
 * C++ method by its bare name ("add"), so it is asked at the address, and
 * its header names the function as demangled. */
static int ls_vars_at(FILE *out, const char *bin, const struct elfsym *f, char *err, size_t n)
{
	char addr[32], *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m)
		return snprintf(err, n, "out of memory"), -1;
	snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)f->addr);
	int r = dw_list_vars(m, bin, addr, false, err, n);
	fclose(m);
	const char *nl = text ? strchr(text, '\n') : NULL;
	if (!r && nl) {
		char *d = dm_demangle(f->name, DM_FULL);
		fprintf(out, "Available variables at %s%s", d ? d : f->name, nl);
		free(d);
	} else if (!r && text) {
		fputs(text, out);
	}
	free(text);
	return r;
}

/* A copy of s without its double quotes (-V 'BIN:"ns::f() const"': the
 * script lexer drops them from attach points, the shell leaves them). */
static char *unquoted(const char *s)
{
	char *c = strdup(s), *o = c;

	for (const char *q = s; c && *q; q++)
		if (*q != '"')
			*o++ = *q;
	if (c)
		*o = 0;
	return c;
}

int ls_dwarf(FILE *out, const char *bin, const char *spec, bool lines, char *err, size_t errlen)
{
	char *plain = unquoted(spec);
	const char *name = plain ? probe_cxx_name(plain) : NULL;
	struct elfsym *syms = NULL;
	int n, r = 0;

	if (!name) {
		free(plain);
		return lines ? dw_list_lines(out, bin, spec, err, errlen)
			     : dw_list_vars(out, bin, spec, false, err, errlen);
	}
	if (lines) {  /* the dwarf module finds it by its demangled name */
		r = dw_list_lines(out, bin, name, err, errlen);
		free(plain);
		return r;
	}
	n = elfsym_match_demangled(bin, NULL, name, &syms);
	if (n <= 0)
		snprintf(err, errlen, "no function matches '%s' in %s", name, bin);
	for (int i = 0; i < n && !r; i++)
		r = ls_vars_at(out, bin, &syms[i], err, errlen);
	if (n > 0)
		elfsym_free(syms, n);
	free(plain);
	return n <= 0 ? -1 : r;
}
