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

#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "compiler/dwarf.h"
#include "lib/elfsym.h"
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
};

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

static void ls_args(struct ls_ctx *c, const char *name)
{
	char cat[256], ev[256];
	if (sscanf(name, "tracepoint:%255[^:]:%255s", cat, ev) == 2) {
		ls_tp_args(c->out, cat, ev);
	} else if (c->path && (!strncmp(name, "uprobe:", 7) || !strncmp(name, "uretprobe:", 10))) {
		const char *f = strrchr(name, ':');
		if (f)
			ls_func_args(c->out, c->path, f + 1);
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

/* Traceable functions from ftrace's list where readable (it leaves out
 * what kprobes refuse), else every text symbol of kallsyms. */
static void ls_kernel_funcs(struct ls_ctx *c, const char *type)
{
	static const char *const lists[] = {
		"/sys/kernel/tracing/available_filter_functions",
		"/sys/kernel/debug/tracing/available_filter_functions",
	};
	char line[512], name[256], t;
	FILE *f = NULL;
	for (size_t i = 0; !f && i < sizeof(lists) / sizeof(lists[0]); i++)
		f = fopen(lists[i], "re");
	bool ftrace = f != NULL;
	if (!f && !(f = fopen("/proc/kallsyms", "re")))
		return;
	while (fgets(line, sizeof(line), f)) {
		if (ftrace ? sscanf(line, "%255s", name) == 1
			   : sscanf(line, "%*s %c %255s", &t, name) == 2 && (t == 't' || t == 'T'))
			ls_add(c, "%s:%s", type, name);
	}
	fclose(f);
}

/* fentry/fexit targets: the functions of the kernel's BTF. */
static void ls_btf_funcs(struct ls_ctx *c, const char *type)
{
	struct btf *vm = btf__load_vmlinux_btf();
	if (!vm)
		return;
	for (unsigned id = 1; id < btf__type_cnt(vm); id++) {
		const struct btf_type *bt = btf__type_by_id(vm, id);
		if (btf_is_func(bt))
			ls_add(c, "%s:%s", type, btf__name_by_offset(vm, bt->name_off));
	}
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

/* ---- one binary: uprobe:BIN[:FUNC], usdt:BIN[:[PROVIDER:]NAME] ---- */

static char *ls_pid_binary(pid_t pid)
{
	char link[64];
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	return realpath(link, NULL);
}

/* BIN from the front of rest, or the binary of pid when rest has none;
 * *pat is left at what follows.  *shown is how the list names it: as
 * written where the user gave a path ("./app"), as bpftrace lists it,
 * else the path found. */
static char *ls_binary(const char *rest, pid_t pid, const char **pat, char **shown)
{
	const char *colon = strchr(rest, ':');
	char *first = strndup(rest, colon ? (size_t)(colon - rest) : strlen(rest));
	char *path = first && *first ? elfsym_find_binary(first, pid) : NULL;
	if (path) {
		*pat = colon ? colon + 1 : "";
		*shown = strdup(strchr(first, '/') ? first : path);
		free(first);
		return path;
	}
	free(first);
	*pat = rest;
	path = pid > 0 ? ls_pid_binary(pid) : NULL;
	*shown = path ? strdup(path) : NULL;
	return path;
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
	for (int i = 0; i < n; i++)
		ls_add(c, "%s:%s:%s", type, shown, syms[i].name);
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

static int ls_binary_type(struct ls_ctx *c, enum ls_type t, const char *rest, pid_t pid)
{
	const char *fpat;
	char *shown = NULL, *path = ls_binary(rest, pid, &fpat, &shown), *full = NULL;
	if (!path || !shown) {
		free(path);
		fprintf(stderr, "perf-run: no binary '%.*s'; give %s:BIN:PATTERN or -p PID\n",
			(int)strcspn(rest, ":"), rest, ls_types[t].name);
		return 1;
	}
	/* "usdt:BIN:NAME" also finds NAME under any provider. */
	bool any_prov = t == LT_USDT && *fpat && !strchr(fpat, ':');
	if (asprintf(&full, "%s:%s:%s%s", ls_types[t].name, shown, any_prov ? "*:" : "",
		     *fpat ? fpat : "*") < 0) {
		free(path);
		free(shown);
		return 1;
	}
	c->pat = full;
	c->path = path;
	int r = t == LT_USDT ? ls_usdt(c, path, shown) : ls_uprobes(c, ls_types[t].name, path, shown);
	ls_flush(c);
	c->path = NULL;
	free(full);
	free(path);
	free(shown);
	return r;
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
		r |= ls_binary_type(c, LT_UPROBE, "", pid);
		r |= ls_binary_type(c, LT_USDT, "", pid);
		c->pat = pat;
	}
	return r;
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

int ls_list(FILE *out, const char *pattern, pid_t pid, bool verbose)
{
	struct ls_ctx c = { .out = out, .pat = "*", .verbose = verbose };
	const char *rest = NULL;
	char *full = NULL;
	int r;

	const char *bad = pattern ? ls_bad_glob(pattern) : NULL;
	if (bad) {
		fprintf(stderr, "perf-run: -l '%s': %s\n", pattern, bad);
		return 1;
	}
	enum ls_type t = pattern ? ls_type_of(pattern, &rest) : LT_NONE;
	if (t == LT_UPROBE || t == LT_URETPROBE || t == LT_USDT) {
		r = ls_binary_type(&c, t, rest, pid);
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
	free(c.v);
	if (c.nomem) {
		fprintf(stderr, "perf-run: out of memory listing probes\n");
		return 1;
	}
	return r;
}
