// SPDX-License-Identifier: GPL-2.0-only
/*
 * dwarf.c - perf probe specs → probe sites; perf probe -L and -V listings.
 *
 * Addresses follow perf probe 6.1 (tools/perf/util/probe-finder.c) rule for
 * rule, so that `uprobe:BIN:SPEC` probes where `perf probe -x BIN SPEC`
 * would: function entry (after the prologue only in a CU without location
 * lists, as perf does when it fetches variables), every inlined instance,
 * every is_stmt line-table row of a line, lazy patterns against the source.
 * Only the compile units a spec needs are read: a function named without
 * wildcard is found through the symbol table and its address's CU.
 * Variables at a site are dwarf_var.c's, their locations dwarf_loc.c's.
 */
#define _GNU_SOURCE
#include "dwarf.h"

#include <dwarf.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dwarf_fidx.h"
#include "dwarf_spec.h"
#include "dwarf_var.h"
#include "dwarf_walk.h"
#include "lib/demangle.h"
#include "lib/elfsym.h"
#include "probe.h"

struct lr;

struct found {
	uint64_t addr;
	Dwarf_Off cu_off, scope_off;
	char *func;
	int shares;             /* the line whose address this is (gdb's choice), 0 if its own */
};

/* A line's address that another line's row maps to first (perf refuses it). */
struct shared {
	uint64_t addr;
	int other;
	char *label;
};

/* One resolution in progress. */
struct rs {
	struct dw_mod *m;
	const struct dw_spec *sp;
	bool ret;
	bool at_entry;          /* no prologue skip (perf probe -V does not) */
	Dwarf_Die cu;
	const char *fname;      /* source file lines must come from */
	int lno;
	int *lazy;              /* matching line numbers of a ;PTN */
	int nlazy;
	bool lazy_read;
	struct found *v;
	int n;
	const char *text;       /* the spec as written, for messages */
	struct lr *lr;          /* -L: the lines found */
	struct shared *sh;      /* a line probe's shared addresses, until flush_shared */
	int nsh;
	char *err;
	size_t errlen;
	int failed;
};

static void rs_fail(struct rs *r, const char *msg)
{
	if (!r->failed)
		snprintf(r->err, r->errlen, "%s", msg);
	r->failed = -1;
}

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	return s ? s + 1 : p ? p : "?";
}

/* Records addr (once) with the scope DIE variables are looked up from. */
static void add_site(struct rs *r, uint64_t addr, Dwarf_Die *scope, const char *label)
{
	Dwarf_Die sp;
	Dwarf_Addr entry;

	for (int i = 0; i < r->n; i++)
		if (r->v[i].addr == addr)
			return;
	if (!dws_realfunc(r->m, &r->cu, addr, &sp))
		return;  /* perf skips tail-call-only places too */
	if (r->ret && (dws_entrypc(&sp, &entry) || entry != addr))
		return;
	r->v = realloc(r->v, (r->n + 1) * sizeof(*r->v));
	if (!r->v)
		abort();
	struct found *f = &r->v[r->n++];
	f->addr = addr;
	f->cu_off = dwarf_dieoffset(&r->cu);
	f->scope_off = dwarf_dieoffset(scope ? scope : &sp);
	f->func = strdup(label ? label : dwarf_diename(&sp) ?: "?");
	f->shares = 0;
}

/* A C++ or Rust function's mangled name (through DW_AT_specification or
 * DW_AT_abstract_origin to the declaration that has it), or NULL. */
static const char *linkage_name(Dwarf_Die *d)
{
	Dwarf_Attribute a;

	if (!dwarf_attr_integrate(d, DW_AT_linkage_name, &a) &&
	    !dwarf_attr_integrate(d, DW_AT_MIPS_linkage_name, &a))
		return NULL;
	return dwarf_formstring(&a);
}

/* A mangled name ("_ZN4shop4Cart5totalEv", Rust's "_R...") is compared with
 * DWARF's linkage names: DW_AT_name is only the bare "total". */
static bool is_mangled(const char *s)
{
	return (s[0] == '_' && (s[1] == 'Z' || s[1] == 'R')) || !strncmp(s, "__Z", 3);
}

static bool name_match(Dwarf_Die *d, const struct dw_spec *sp)
{
	const char *n = is_mangled(sp->func) ? linkage_name(d) : dwarf_diename(d);

	if (!n)
		return false;
	return sp->glob ? fnmatch(sp->func, n, 0) == 0 : strcmp(n, sp->func) == 0;
}

static bool is_func_def(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	Dwarf_Addr pc;

	if (dwarf_tag(d) != DW_TAG_subprogram || dwarf_attr(d, DW_AT_declaration, &a))
		return false;
	return dwarf_attr(d, DW_AT_inline, &a) || dws_entrypc(d, &pc) == 0;
}

static bool is_func_instance(Dwarf_Die *d)
{
	Dwarf_Addr pc;
	Dwarf_Attribute a;
	int tag = dwarf_tag(d);

	if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
		return false;
	return dwarf_entrypc(d, &pc) == 0 || dwarf_attr(d, DW_AT_ranges, &a);
}

/* The innermost inlined subroutine under sp containing addr. */
static bool find_inlinefunc(Dwarf_Die *sp, uint64_t addr, Dwarf_Die *out)
{
	Dwarf_Die d, cur = *sp;
	bool found = false;

	for (;;) {
		bool down = false;
		if (dwarf_child(&cur, &d) != 0)
			break;
		do {
			int tag = dwarf_tag(&d);
			if ((tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block) &&
			    dwarf_haspc(&d, addr) == 1) {
				if (tag == DW_TAG_inlined_subroutine) {
					*out = d;
					found = true;
				}
				cur = d;
				down = true;
				break;
			}
		} while (dwarf_siblingof(&d, &d) == 0);
		if (!down)
			break;
	}
	return found;
}

static const char *call_file(Dwarf_Die *in, Dwarf_Die *cu)
{
	Dwarf_Attribute a;
	Dwarf_Word idx;
	Dwarf_Files *files;
	size_t n;

	if (!dwarf_attr(in, DW_AT_call_file, &a) || dwarf_formudata(&a, &idx) ||
	    dwarf_getsrcfiles(cu, &files, &n) || idx >= n)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

static int attr_int(Dwarf_Die *d, unsigned at)
{
	Dwarf_Attribute a;
	Dwarf_Word v;

	return dwarf_attr(d, at, &a) && dwarf_formudata(&a, &v) == 0 ? (int)v : 0;
}

/* ---- line walking (perf's die_walk_lines) ---- */

typedef int (*line_fn)(struct rs *r, const char *fname, int lineno, uint64_t addr);

struct funclines {
	struct rs *r;
	line_fn fn;
	bool recursive;
	int ret;
};

static int funclines_cb(Dwarf_Die *d, void *arg)
{
	struct funclines *fl = arg;
	Dwarf_Addr addr;

	if (dwarf_tag(d) != DW_TAG_inlined_subroutine)
		return DWW_CONT;
	const char *f = call_file(d, &fl->r->cu);
	int l = attr_int(d, DW_AT_call_line);
	if (f && l > 0 && dws_entrypc(d, &addr) == 0 && (fl->ret = fl->fn(fl->r, f, l, addr)))
		return DWW_END;
	return fl->recursive ? DWW_CONT : DWW_SIBLING;
}

static int walk_funclines(struct rs *r, Dwarf_Die *sp, bool recursive, line_fn fn)
{
	struct funclines fl = { r, fn, recursive, 0 };
	const char *f = dws_decl_file(sp);
	int l;
	Dwarf_Addr addr;

	if (f && dwarf_decl_line(sp, &l) == 0 && dws_entrypc(sp, &addr) == 0 &&
	    (fl.ret = fn(r, f, l, addr)))
		return fl.ret;
	dww_walk_children(sp, funclines_cb, &fl);
	return fl.ret;
}

struct culines {
	struct rs *r;
	line_fn fn;
	int ret;
};

static int culines_cb(Dwarf_Die *sp, void *arg)
{
	struct culines *c = arg;

	c->ret = walk_funclines(c->r, sp, true, c->fn);
	return c->ret ? DWARF_CB_ABORT : DWARF_CB_OK;
}

/* Inside a function: is this row the function's own line (not an inlined body)? */
static bool own_line(struct rs *r, Dwarf_Die *rt, uint64_t addr, int lineno)
{
	Dwarf_Die in;
	int decl = 0, inl = 0;

	if (dwarf_haspc(rt, addr) != 1)
		return false;
	if (!find_inlinefunc(rt, addr, &in))
		return true;
	const char *decf = dws_decl_file(rt), *cf = call_file(&in, &r->cu);
	if (cf && decf && !strcmp(cf, decf) && attr_int(&in, DW_AT_call_line) == lineno)
		return true;
	dwarf_decl_line(rt, &decl);
	dwarf_decl_line(&in, &inl);
	return inl == decl && decf == dws_decl_file(&in);
}

static int walk_lines(struct rs *r, Dwarf_Die *rt, line_fn fn)
{
	Dwarf_Lines *lines;
	size_t n;
	bool is_cu = dwarf_tag(rt) == DW_TAG_compile_unit;

	if (dwarf_getsrclines(&r->cu, &lines, &n) != 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr addr;
		int lineno, ret;
		bool flag;

		if (!l || dwarf_lineno(l, &lineno) || dwarf_lineaddr(l, &addr))
			continue;
		if (dwarf_lineendsequence(l, &flag) || flag ||
		    dwarf_linebeginstatement(l, &flag) || !flag)
			continue;
		if (!is_cu && !own_line(r, rt, addr, lineno))
			continue;
		if ((ret = fn(r, dwarf_linesrc(l, NULL, NULL), lineno, addr)))
			return ret;
	}
	if (!is_cu)
		return walk_funclines(r, rt, false, fn);
	struct culines c = { r, fn, 0 };
	dwarf_getfuncs(&r->cu, culines_cb, &c, 0);
	return c.ret;
}

/* ---- scopes ---- */

struct inline_at {
	uint64_t addr;
	Dwarf_Die found;
	bool ok;
};

static int find_inline_cb(Dwarf_Die *d, void *arg)
{
	struct inline_at *ia = arg;

	if (dwarf_tag(d) == DW_TAG_inlined_subroutine && dwarf_haspc(d, ia->addr) == 1) {
		ia->found = *d;
		ia->ok = true;
		return DWW_END;
	}
	return DWW_CONT;
}

/* perf's cu_walk_functions_at: the real function at addr, then each
 * inlined subroutine nested in the previous one; outermost first.
 * (dwarf_getscopes follows abstract origins instead, a different chain.) */
static int functions_at(struct dw_mod *m, Dwarf_Die *cu, uint64_t addr, Dwarf_Die *out, int max)
{
	int n = 0;

	if (!dws_realfunc(m, cu, addr, &out[0]))
		return 0;
	for (n = 1; n < max; n++) {
		struct inline_at ia = { addr, { 0 }, false };
		dww_walk_children(&out[n - 1], find_inline_cb, &ia);
		if (!ia.ok)
			break;
		out[n] = ia.found;
	}
	return n;
}

/* perf's find_best_scope: among the functions at addr, outermost first,
 * the one named in the spec, else the one declared nearest above the line,
 * else the real function. */
static bool best_scope(struct rs *r, uint64_t addr, Dwarf_Die *out)
{
	Dwarf_Die fns[32];
	int n = functions_at(r->m, &r->cu, addr, fns, 32), diff = 1 << 30;
	bool found = false;

	for (int i = 0; i < n; i++) {
		const char *f = dws_decl_file(&fns[i]);
		int l = 0;
		if (r->fname && (!f || strcmp(f, r->fname)))
			continue;
		if (r->sp->func) {
			if (name_match(&fns[i], r->sp)) {
				*out = fns[i];
				return true;
			}
			continue;
		}
		dwarf_decl_line(&fns[i], &l);
		if (l < r->lno && r->lno - l < diff) {
			diff = r->lno - l;
			*out = fns[i];
			found = true;
		}
	}
	if (!found && n > 0) {
		*out = fns[0];
		found = true;
	}
	return found;
}

static char *line_label(const char *fname, int line)
{
	char *s;

	if (asprintf(&s, "%s:%d", base_name(fname), line) < 0)
		abort();
	return s;
}

/* perf's cu_getsrc_die: the first is_stmt row at or before addr, counted
 * from the lowest row of the last address <= addr. */
static Dwarf_Line *stmt_row(Dwarf_Die *cu, uint64_t addr)
{
	Dwarf_Lines *lines;
	Dwarf_Line *line;
	Dwarf_Addr la;
	size_t n, lo = 0, hi, mid;
	bool flag;

	if (dwarf_getsrclines(cu, &lines, &n) != 0 || n == 0)
		return NULL;
	hi = n - 1;
	while (lo < hi) {
		mid = hi - (hi - lo) / 2;
		if (dwarf_lineaddr(dwarf_onesrcline(lines, mid), &la) != 0)
			return NULL;
		if (addr < la)
			hi = mid - 1;
		else
			lo = mid;
	}
	do {
		if (lo == 0 || !(line = dwarf_onesrcline(lines, --lo)) || dwarf_lineaddr(line, &la))
			return NULL;
	} while (la == addr);
	lo++;
	do {
		if (lo >= n || !(line = dwarf_onesrcline(lines, lo++)) || dwarf_lineaddr(line, &la) ||
		    dwarf_linebeginstatement(line, &flag) || la > addr)
			return NULL;
	} while (!flag);
	return line;
}

/* perf's cu_find_lineinfo: a function's entry maps to its declaration. */
static bool lineinfo(struct rs *r, uint64_t addr, const char **f, int *l)
{
	Dwarf_Die fn;
	Dwarf_Addr entry;

	*f = NULL;
	*l = 0;
	if (dws_realfunc(r->m, &r->cu, addr, &fn) && dws_entrypc(&fn, &entry) == 0 && entry == addr) {
		*f = dws_decl_file(&fn);
		dwarf_decl_line(&fn, l);
	} else {
		Dwarf_Line *ln = stmt_row(&r->cu, addr);
		if (ln && dwarf_lineno(ln, l) == 0 && !(*f = dwarf_linesrc(ln, NULL, NULL)))
			*l = 0;
	}
	return *l > 0;
}

/* The address must map back to the line, else perf refuses the probe. */
static bool representative(struct rs *r, const char *fname, int lineno, uint64_t addr)
{
	const char *f;
	int l;

	return !lineinfo(r, addr, &f, &l) || !f || strcmp(fname, f) || l == lineno;
}

static int line_cb(struct rs *r, const char *fname, int lineno, uint64_t addr)
{
	Dwarf_Die sc;

	if (lineno != r->lno || !fname || dws_tailcmp(fname, r->fname))
		return 0;
	char *label = line_label(fname, lineno);
	if (!representative(r, fname, lineno, addr)) {
		const char *f;
		struct shared *s;
		r->sh = realloc(r->sh, (r->nsh + 1) * sizeof(*r->sh));
		if (!r->sh)
			abort();
		s = &r->sh[r->nsh++];
		s->addr = addr;
		s->label = label;
		/* The first line there, which gdb reports; at a function's
		 * entry that may be this line, and the other is the declaration's. */
		Dwarf_Line *row = stmt_row(&r->cu, addr);
		if (!row || dwarf_lineno(row, &s->other) || s->other == lineno)
			lineinfo(r, addr, &f, &s->other);
		return 0;
	}
	add_site(r, addr, best_scope(r, addr, &sc) ? &sc : NULL, label);
	free(label);
	return 0;
}

static Dwarf_Off scope_at(struct rs *r, uint64_t addr)
{
	Dwarf_Die sc;

	if (best_scope(r, addr, &sc) || dws_realfunc(r->m, &r->cu, addr, &sc))
		return dwarf_dieoffset(&sc);
	return 0;
}

/*
 * The addresses of the line that another line's row maps to first: perf
 * probe refuses them, gdb breaks there (both lines' rows are statements at
 * that address).  One is probed where the line has no address of its own
 * in the same function or inlined instance, as gdb keeps one place per
 * block; what is visible there is what DWARF says of that address.
 */
static void flush_shared(struct rs *r, int first)
{
	for (int i = 0; i < r->nsh; i++) {
		struct shared *s = &r->sh[i];
		Dwarf_Off scope = scope_at(r, s->addr);
		bool own = false;
		for (int k = first; k < r->n && !own; k++)
			own = !r->v[k].shares && r->v[k].scope_off == scope &&
			      r->v[k].cu_off == dwarf_dieoffset(&r->cu);
		if (!own) {
			Dwarf_Die sc;
			int n = r->n;
			add_site(r, s->addr, best_scope(r, s->addr, &sc) ? &sc : NULL, s->label);
			if (r->n > n)
				r->v[n].shares = s->other ? s->other : -1;
		}
		free(s->label);
	}
	free(r->sh);
	r->sh = NULL;
	r->nsh = 0;
}

/* ---- lazy patterns (perf's strlazymatch: glob, whitespace ignored) ---- */

static void squeeze(char *s)
{
	char *d = s;

	for (; *s; s++)
		if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
			*d++ = *s;
	*d = '\0';
}

static const char *source_prefix;   /* -s DIR, as perf probe's --source */

void dw_set_source(const char *dir)
{
	source_prefix = dir;
}

/* perf's get_real_path with a source prefix: prefix/fname, else with
 * fname's leading directories dropped one by one, the first that exists. */
static char *prefixed_path(const char *fname)
{
	char *p;

	for (const char *f = fname; f; f = strchr(f, '/')) {
		while (*f == '/')
			f++;
		if (asprintf(&p, "%s/%s", source_prefix, f) < 0)
			abort();
		if (!access(p, R_OK))
			return p;
		free(p);
	}
	if (asprintf(&p, "%s/%s", source_prefix, fname) < 0)
		abort();
	return p;
}

static char *source_path(struct rs *r, const char *fname)
{
	Dwarf_Attribute a;
	const char *dir;
	char *p;

	if (fname[0] == '/')
		return strdup(fname);
	if (source_prefix)
		return prefixed_path(fname);
	dir = dwarf_attr(&r->cu, DW_AT_comp_dir, &a) ? dwarf_formstring(&a) : NULL;
	if (asprintf(&p, "%s/%s", dir ? dir : ".", fname) < 0)
		abort();
	return p;
}

static int read_lazy(struct rs *r)
{
	if (!r->fname) {
		rs_fail(r, "the function has no source file in its debug information");
		return -1;
	}
	char *path = source_path(r, r->fname), *line = NULL, *pat = strdup(r->sp->lazy);
	size_t cap = 0;
	char why[300];
	FILE *f = dws_open_source(r->m, path, why, sizeof(why));
	int no = 0;

	r->lazy_read = true;
	squeeze(pat);
	if (!f) {
		char msg[900];
		snprintf(msg, sizeof(msg), "cannot open the source file '%s' for the pattern: %s",
			 path, why);
		rs_fail(r, msg);
	}
	while (f && getline(&line, &cap, f) > 0) {
		no++;
		squeeze(line);
		if (fnmatch(pat, line, 0) != 0)
			continue;
		r->lazy = realloc(r->lazy, (r->nlazy + 1) * sizeof(int));
		if (!r->lazy)
			abort();
		r->lazy[r->nlazy++] = no;
	}
	if (f)
		fclose(f);
	free(line);
	free(pat);
	free(path);
	return r->failed;
}

static int lazy_cb(struct rs *r, const char *fname, int lineno, uint64_t addr)
{
	Dwarf_Die sc;
	bool hit = false;

	for (int i = 0; i < r->nlazy && !hit; i++)
		hit = r->lazy[i] == lineno;
	if (!hit || !fname || dws_tailcmp(fname, r->fname))
		return 0;
	r->lno = lineno;
	char *label = line_label(fname, lineno);
	add_site(r, addr, best_scope(r, addr, &sc) ? &sc : NULL, label);
	free(label);
	return 0;
}

static int find_lazy(struct rs *r, Dwarf_Die *rt)
{
	if (!r->lazy_read && read_lazy(r))
		return -1;
	return r->nlazy ? walk_lines(r, rt, lazy_cb) : 0;
}

/* ---- functions ---- */

/* perf's skip_prologue (dwarf_fidx.c). */
static uint64_t skip_prologue(struct rs *r, Dwarf_Die *sp, uint64_t entry)
{
	return dwf_body_start(&r->m->funcs, &r->cu, sp, entry);
}

static void func_site(struct rs *r, Dwarf_Die *inst, uint64_t addr)
{
	if (r->ret && dwarf_tag(inst) == DW_TAG_inlined_subroutine)
		return;  /* an inlined copy has no return to probe */
	add_site(r, addr + r->sp->offset, inst, dwarf_diename(inst));
}

/* perf skips an inlined instance "called" from its own declaration line. */
static bool redundant(Dwarf_Die *inst, Dwarf_Die *origin)
{
	int decl;

	return dwarf_tag(inst) == DW_TAG_inlined_subroutine && dwarf_decl_line(origin, &decl) == 0 &&
	       attr_int(inst, DW_AT_call_line) == decl &&
	       attr_int(inst, DW_AT_call_file) == attr_int(origin, DW_AT_decl_file);
}

struct inst_walk {
	struct rs *r;
	void *origin;           /* the abstract DIE's address, as perf compares */
	int ret;
};

static int instance_cb(Dwarf_Die *d, void *arg)
{
	struct inst_walk *w = arg;
	Dwarf_Attribute a;
	Dwarf_Die o;
	Dwarf_Addr addr;

	if (!is_func_instance(d) || !dwarf_attr(d, DW_AT_abstract_origin, &a) ||
	    !dwarf_formref_die(&a, &o) || o.addr != w->origin)
		return DWW_CONT;
	if (redundant(d, &o))
		return DWW_CONT;
	if (w->r->sp->lazy)
		w->ret = find_lazy(w->r, d);
	else if (dws_entrypc(d, &addr) == 0 && addr)
		func_site(w->r, d, addr);
	return w->ret ? DWW_END : DWW_CONT;
}

static void search_func(struct rs *r, Dwarf_Die *sp)
{
	Dwarf_Addr addr = 0;

	r->fname = dws_decl_file(sp);
	if (r->sp->has_line) {
		int first = r->n;
		dwarf_decl_line(sp, &r->lno);
		r->lno += r->sp->line;
		walk_lines(r, &r->cu, line_cb);
		flush_shared(r, first);
	} else if (is_func_instance(sp)) {
		dws_entrypc(sp, &addr);
		if (!addr)
			return;
		if (r->sp->lazy)
			find_lazy(r, sp);
		else if (!r->sp->has_offset && !r->ret && !r->at_entry)
			func_site(r, sp, skip_prologue(r, sp, addr));
		else
			func_site(r, sp, addr);
	} else {
		struct inst_walk w = { r, sp->addr, 0 };
		dww_walk_children(&r->cu, instance_cb, &w);
	}
}

static int search_cb(Dwarf_Die *sp, void *arg)
{
	struct rs *r = arg;

	if (!is_func_def(sp) || !name_match(sp, r->sp))
		return DWARF_CB_OK;
	if (r->sp->file && dws_tailcmp(r->sp->file, dws_decl_file(sp) ?: ""))
		return DWARF_CB_OK;
	search_func(r, sp);
	return r->sp->glob && !r->failed ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* The CU's own spelling of the spec's file, if the CU has it. */
static const char *cu_file(Dwarf_Die *cu, const char *file)
{
	Dwarf_Files *files;
	size_t n;

	if (dwarf_getsrcfiles(cu, &files, &n))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const char *f = dwarf_filesrc(files, i, NULL, NULL);
		if (f && !dws_tailcmp(f, file))
			return f;
	}
	return NULL;
}

static void search_cu(struct rs *r)
{
	if (r->sp->file && !(r->fname = cu_file(&r->cu, r->sp->file)))
		return;
	if (r->sp->func) {
		dwarf_getfuncs(&r->cu, search_cb, r, 0);
	} else if (r->sp->lazy) {
		find_lazy(r, &r->cu);
		/* Each CU reads its own source path. */
		free(r->lazy);
		r->lazy = NULL;
		r->nlazy = 0;
		r->lazy_read = false;
	} else {
		int first = r->n;
		r->lno = r->sp->line;
		walk_lines(r, &r->cu, line_cb);
		flush_shared(r, first);
	}
}

struct symcus {
	struct dw_mod *m;
	Dwarf_Off *offs;
	int n, max;
};

static bool symbol_cu(const GElf_Sym *s, void *arg)
{
	struct symcus *c = arg;
	Dwarf_Die cu;

	if (!s->st_value || !dws_addrdie(c->m->dbg, s->st_value, &cu))
		return false;
	Dwarf_Off o = dwarf_dieoffset(&cu);
	for (int k = 0; k < c->n; k++)
		if (c->offs[k] == o)
			return false;
	if (c->n < c->max)
		c->offs[c->n++] = o;
	return false;
}

/* The CUs of the function symbols named exactly func: no full CU scan. */
static int symbol_cus(struct dw_mod *m, const char *func, Dwarf_Off *offs, int max)
{
	struct symcus c = { m, offs, 0, max };

	dws_each_symbol(m, func, STT_FUNC, symbol_cu, &c);
	return c.n;
}

static void search_all(struct rs *r)
{
	Dwarf_Off off = 0, next, offs[64];
	size_t hl;
	int n = 0;

	if (r->sp->func && !r->sp->glob)
		n = symbol_cus(r->m, r->sp->func, offs, 64);
	for (int i = 0; i < n && !r->failed; i++)
		if (dwarf_offdie(r->m->dbg, offs[i], &r->cu))
			search_cu(r);
	if ((n > 0 && r->n > 0) || (r->sp->func && !r->sp->glob && !dws_may_name(r->m, r->sp->func)))
		return;
	while (!r->failed && dwarf_nextcu(r->m->dbg, off, &next, &hl, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(r->m->dbg, off + hl, &r->cu))
			search_cu(r);
		off = next;
	}
}

/* perf probes any address; variables come only where DWARF covers it. */
static void search_addr(struct rs *r)
{
	Dwarf_Die sc, sp;
	char label[32];
	uint64_t a = r->sp->addr;

	snprintf(label, sizeof(label), "0x%llx", (unsigned long long)a);
	if (dws_addrdie(r->m->dbg, a, &r->cu) && dws_realfunc(r->m, &r->cu, a, &sp)) {
		/* No name or line to choose by: the frame gdb shows there, the
		 * innermost inlined function, unless one of its address ranges
		 * begins right at the address (then, as gdb has it, it has not
		 * been entered yet: its caller).  Not DW_AT_entry_pc: gcc puts
		 * that inside the code, and gdb stops in the copy there. */
		Dwarf_Die fns[32];
		int n = functions_at(r->m, &r->cu, a, fns, 32);
		while (n > 1 && (a == 0 || dwarf_haspc(&fns[n - 1], a - 1) != 1))
			n--;
		sc = n > 0 ? fns[n - 1] : sp;
		add_site(r, a, &sc, label);
		return;
	}
	r->v = realloc(r->v, sizeof(*r->v));
	if (!r->v)
		abort();
	r->v[0] = (struct found){ .addr = a, .func = strdup(label) };
	r->n = 1;
}

static int file_offset(struct dw_mod *m, uint64_t addr, uint64_t *off)
{
	size_t n;

	if (elf_getphdrnum(m->elf, &n))
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(m->elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    addr >= ph.p_vaddr && addr < ph.p_vaddr + ph.p_filesz) {
			*off = addr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -1;
}

static int cmp_found(const void *a, const void *b)
{
	const struct found *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* -v: a line probed at the address another line's row maps to first. */
static void shared_note(struct probe_site *s, int other)
{
	char note[200], line[32] = "another line";

	if (other > 0)
		snprintf(line, sizeof(line), "line %d", other);
	snprintf(note, sizeof(note), "%s shares address 0x%llx with %s, as gdb places it: "
		 "its hits include %s's there", s->func, (unsigned long long)s->addr, line, line);
	dwv_probe_set_note(s->dw, note);
}

static int make_sites(struct rs *r, struct probe_site **sites, int *nsites)
{
	struct probe_site *s = calloc(r->n ? r->n : 1, sizeof(*s));

	if (!s)
		abort();
	/* Probes go by address; -V lists places in the order perf probe
	 * finds them (DIE order, then line-table order). */
	if (!r->at_entry)
		qsort(r->v, r->n, sizeof(*r->v), cmp_found);
	for (int i = 0; i < r->n; i++) {
		s[i].func = r->v[i].func;
		s[i].addr = r->v[i].addr;
		if (file_offset(r->m, s[i].addr, &s[i].offset))
			s[i].offset = s[i].addr;
		if (r->v[i].cu_off)  /* else an address outside every CU: no DWARF view */
			s[i].dw = dwv_probe_new(r->m, r->v[i].cu_off, r->v[i].scope_off,
						r->v[i].addr, s[i].func);
		if (s[i].dw && r->at_entry)
			dwv_probe_perf_view(s[i].dw);
		if (s[i].dw && r->v[i].shares)
			shared_note(&s[i], r->v[i].shares);
	}
	*sites = s;
	*nsites = r->n;
	return 0;
}

/*
 * The mangled names of the functions a demangled C++ or Rust name in sp
 * matches (all overloads, or one by its parameters: lib/elfsym.h), through
 * the symbol table, each once.  DWARF has no demangled names, only the
 * bare DW_AT_name and the mangled DW_AT_linkage_name.  A function that
 * exists only inlined has no symbol: then DWARF's functions are matched
 * (inlined_names).  Returns the count, 0 with err set if none.
 */
struct inl_names {
	const char *pattern;
	char **v;
	int n;
};

static int inl_name_cb(Dwarf_Die *d, void *arg)
{
	struct inl_names *w = arg;
	const char *ln = is_func_def(d) ? linkage_name(d) : NULL;

	if (!ln || !elfsym_demangled_is(w->pattern, ln))
		return DWARF_CB_OK;
	for (int i = 0; i < w->n; i++)
		if (!strcmp(w->v[i], ln))
			return DWARF_CB_OK;
	w->v = realloc(w->v, (size_t)(w->n + 1) * sizeof(*w->v));
	if (!w->v || !(w->v[w->n++] = strdup(ln)))
		abort();
	return DWARF_CB_OK;
}

/* A function that exists only inlined has no symbol: the mangled names of
 * the functions DWARF defines that the pattern matches (every unit read). */
static int inlined_names(struct dw_mod *m, const char *pattern, char ***names)
{
	struct inl_names w = { .pattern = pattern };
	Dwarf_Off off = 0, next;
	size_t hl;
	Dwarf_Die cu;

	while (dwarf_nextcu(m->dbg, off, &next, &hl, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(m->dbg, off + hl, &cu))
			dwarf_getfuncs(&cu, inl_name_cb, &w, 0);
		off = next;
	}
	*names = w.v;
	return w.n;
}

static int cxx_names(struct dw_mod *m, const struct dw_spec *sp, char ***names, char *err,
		     size_t errlen)
{
	struct elfsym *syms = NULL;
	int n = elfsym_match_demangled(m->path, NULL, sp->func, &syms), k = 0;

	*names = NULL;
	if (n <= 0 && (k = inlined_names(m, sp->func, names)) > 0)
		return k;
	if (n <= 0) {
		snprintf(err, errlen, "no function matches '%s' in %s", sp->func, m->path);
		return 0;
	}
	*names = calloc((size_t)n, sizeof(**names));
	if (!*names)
		abort();
	for (int i = 0; i < n; i++) {
		bool dup = false;
		for (int j = 0; j < k; j++)
			dup |= !strcmp((*names)[j], syms[i].name);
		if (!dup && !((*names)[k++] = strdup(syms[i].name)))
			abort();
	}
	elfsym_free(syms, n);
	return k;
}

static void free_names(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Each function a demangled name matches, by its mangled name. */
static void search_cxx(struct rs *r)
{
	const struct dw_spec *sp = r->sp;
	char **names;
	int n = cxx_names(r->m, sp, &names, r->err, r->errlen);

	if (!n) {
		r->failed = -1;
		return;
	}
	for (int i = 0; i < n && !r->failed; i++) {
		struct dw_spec one = *sp;
		one.func = names[i];
		one.glob = one.cxx = false;
		r->sp = &one;
		search_all(r);
		free(r->lazy);   /* a pattern's lines are read per function */
		r->lazy = NULL;
		r->nlazy = 0;
		r->lazy_read = false;
	}
	r->sp = sp;
	free_names(names, n);
}

static int resolve(struct dw_mod *m, const struct dw_spec *sp, bool is_return, struct rs *r)
{
	r->m = m;
	r->sp = sp;
	r->ret = is_return;
	if (sp->is_addr)
		search_addr(r);
	else if (sp->cxx)
		search_cxx(r);
	else
		search_all(r);
	free(r->lazy);
	if (!r->failed && r->n == 0) {
		snprintf(r->err, r->errlen, "no probe point matches '%s'%s", r->text,
			 is_return ? " (inlined copies have no return)" : "");
		r->failed = -1;
	}
	return r->failed;
}

static void found_free(struct rs *r)
{
	for (int i = 0; i < r->n; i++)
		free(r->v[i].func);
	free(r->v);
	r->v = NULL;
	r->n = 0;
}

static int resolve_spec(const char *path, const char *spec, bool is_return, bool at_entry,
			struct probe_site **sites, int *nsites, char *err, size_t errlen)
{
	struct dw_spec sp;
	struct dw_mod *m = dws_open(path, err, errlen);
	struct rs r = { .err = err, .errlen = errlen, .at_entry = at_entry, .text = spec };

	*sites = NULL;
	*nsites = 0;
	if (!m || dws_parse(spec, &sp, false, err, errlen))
		return -1;
	if (is_return && (sp.has_line || sp.has_offset || sp.lazy)) {
		snprintf(err, errlen, "%%return needs a function, without line, offset or pattern");
		dws_spec_free(&sp);
		return -1;
	}
	int ret = resolve(m, &sp, is_return, &r);
	if (!ret)
		make_sites(&r, sites, nsites);
	else
		found_free(&r);
	free(r.v);
	dws_spec_free(&sp);
	return ret;
}

int dw_resolve(const char *path, const char *spec, bool is_return,
	       struct probe_site **sites, int *nsites, char *err, size_t errlen)
{
	return resolve_spec(path, spec, is_return, false, sites, nsites, err, errlen);
}

uint64_t dw_body_start(const char *path, uint64_t entry)
{
	char err[256];
	struct dw_mod *m = dws_open(path, err, sizeof(err));
	struct rs r = { .m = m, .err = err, .errlen = sizeof(err) };
	Dwarf_Die sp;
	Dwarf_Addr low;

	if (!m || !dws_addrdie(m->dbg, entry, &r.cu) || !dws_realfunc(m, &r.cu, entry, &sp) ||
	    dwarf_lowpc(&sp, &low) || low != entry)
		return entry;
	return skip_prologue(&r, &sp, entry);
}

/* The spec as perf probe's synthesize_perf_probe_point() writes it back:
 * FUNC[+OFF|:LINE][@FILE] or @FILE:LINE, a lazy pattern left out. */
static void print_point(FILE *out, const char *spec)
{
	struct dw_spec sp;
	char e[8];

	if (dws_parse(spec, &sp, false, e, sizeof(e)) || sp.is_addr) {
		dws_spec_free(&sp);  /* freed and zeroed already after a failure */
		fputs(spec, out);
		return;
	}
	if (sp.func) {
		fputs(sp.func, out);
		if (sp.offset)
			fprintf(out, "+%llu", (unsigned long long)sp.offset);
		else if (sp.line)
			fprintf(out, ":%d", sp.line);
	}
	if (sp.file) {
		fprintf(out, "@%s", sp.file);
		if (!sp.func && sp.line)
			fprintf(out, ":%d", sp.line);
	}
	dws_spec_free(&sp);
}

int dw_list_vars(FILE *out, const char *path, const char *spec, bool at_entry, char *err,
		 size_t errlen)
{
	struct probe_site *s;
	int n;

	if (resolve_spec(path, spec, false, at_entry, &s, &n, err, errlen))
		return -1;
	fprintf(out, "Available variables at ");
	print_point(out, spec);
	fputc('\n', out);
	for (int i = 0; i < n; i++) {
		dwv_list_site(out, s[i].dw);
		dw_probe_free(s[i].dw);
		free(s[i].func);
	}
	free(s);
	return 0;
}

/* ---- perf probe -L ---- */

struct lr {
	int start, end, *lines, n;
	char *path;
};

static int lr_cb(struct rs *r, const char *fname, int lineno, uint64_t addr)
{
	struct lr *lr = r->lr;

	if (!fname || dws_tailcmp(fname, r->fname) || lineno < lr->start || lineno > lr->end)
		return 0;
	const char *f;
	int l;
	/* -L is stricter than probing: the file must match too, and an address
	 * without a statement row is dropped (perf then compares with a stale
	 * line number, which in practice never matches). */
	if (!lineinfo(r, addr, &f, &l) || l != lineno || !f || strcmp(fname, f))
		return 0;
	if (!lr->path)
		lr->path = source_path(r, fname);
	for (int i = 0; i < lr->n; i++)
		if (lr->lines[i] == lineno)
			return 0;
	lr->lines = realloc(lr->lines, (lr->n + 1) * sizeof(int));
	if (!lr->lines)
		abort();
	lr->lines[lr->n++] = lineno;
	return 0;
}

static int lr_inst_cb(Dwarf_Die *d, void *arg)
{
	struct inst_walk *w = arg;
	Dwarf_Attribute a;
	Dwarf_Die o;

	if (is_func_instance(d) && dwarf_attr(d, DW_AT_abstract_origin, &a) &&
	    dwarf_formref_die(&a, &o) && o.addr == w->origin && !redundant(d, &o))
		walk_lines(w->r, d, lr_cb);
	return DWW_CONT;
}

static int lr_func_cb(Dwarf_Die *sp, void *arg)
{
	struct rs *r = arg;
	int decl = 0;

	if (!name_match(sp, r->sp) || !is_func_def(sp) ||
	    (r->sp->file && dws_tailcmp(r->sp->file, dws_decl_file(sp) ?: "")))
		return DWARF_CB_OK;
	r->fname = dws_decl_file(sp);
	dwarf_decl_line(sp, &decl);
	r->lno = decl;  /* the offset of relative line numbers */
	r->lr->start = decl + (r->sp->has_line ? r->sp->line : 0);
	r->lr->end = r->sp->line_end ? decl + r->sp->line_end : 1 << 30;
	if (is_func_instance(sp)) {
		walk_lines(r, sp, lr_cb);
	} else {
		struct inst_walk w = { r, sp->addr, 0 };
		dww_walk_children(&r->cu, lr_inst_cb, &w);
	}
	r->failed = 1;  /* not an error: the function is found, stop looking */
	return DWARF_CB_ABORT;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static int print_range(FILE *out, struct dw_mod *m, struct lr *lr, const char *func, int offset,
		       char *why, size_t whylen)
{
	FILE *f = dws_open_source(m, lr->path, why, whylen);
	char *line = NULL;
	size_t cap = 0;
	int l = 0, k = 0, last = lr->n ? lr->lines[lr->n - 1] : lr->start;
	int end = lr->end >= (1 << 30) ? last + 3 : lr->end;  /* perf: 2 more after l++ */

	if (!f)
		return -1;
	if (func)
		fprintf(out, "<%s@%s:%d>\n", func, lr->path, lr->start - offset);
	else
		fprintf(out, "<%s:%d>\n", lr->path, lr->start);
	while (getline(&line, &cap, f) > 0) {
		l++;
		if (l < lr->start)
			continue;
		if (l > end)
			break;
		while (k < lr->n && lr->lines[k] < l)
			k++;
		if (k < lr->n && lr->lines[k] == l)
			fprintf(out, "%7d  %s", l - offset, line);
		else
			fprintf(out, "         %s", line);
	}
	free(line);
	fclose(f);
	return 0;
}

static int list_lines(FILE *out, struct dw_mod *m, const struct dw_spec *sp, const char *label,
		      const char *spec, char *err, size_t errlen);

/* -L of a demangled name: each function it matches, under its demangled
 * name (perf-run -L 'BIN:shop::Cart::total' lists both overloads). */
static int list_cxx(FILE *out, struct dw_mod *m, const struct dw_spec *sp, const char *spec,
		    char *err, size_t errlen)
{
	char **names;
	int n = cxx_names(m, sp, &names, err, errlen), ret = n ? 0 : -1;

	for (int i = 0; i < n && !ret; i++) {
		struct dw_spec one = *sp;
		char *d = dm_demangle(names[i], DM_FULL);
		one.func = names[i];
		one.glob = one.cxx = false;
		ret = list_lines(out, m, &one, d ? d : names[i], spec, err, errlen);
		free(d);
	}
	free_names(names, n);
	return ret;
}

int dw_list_lines(FILE *out, const char *path, const char *spec, char *err, size_t errlen)
{
	struct dw_spec sp;
	struct dw_mod *m = dws_open(path, err, errlen);
	int ret;

	if (!m || dws_parse(spec, &sp, true, err, errlen))
		return -1;
	if (sp.is_addr) {
		/* perf probe -L takes no address either; -V does. */
		snprintf(err, errlen, "-L lists the lines of a function or a file, and '%s' is an "
			 "address: give FUNC, FUNC:N or FILE:N (-V takes an address)", spec);
		ret = -1;
	} else if (sp.cxx)
		ret = list_cxx(out, m, &sp, spec, err, errlen);
	else
		ret = list_lines(out, m, &sp, sp.func, spec, err, errlen);
	dws_spec_free(&sp);
	return ret;
}

/* The lines of one function (or file) of sp, headed by label. */
static int list_lines(FILE *out, struct dw_mod *m, const struct dw_spec *spp, const char *label,
		      const char *spec, char *err, size_t errlen)
{
	const struct dw_spec sp = *spp;
	struct lr lr = { 0 };
	struct rs r = { .err = err, .errlen = errlen };
	Dwarf_Off off = 0, next;
	size_t hl;
	int ret = -1;

	r.m = m;
	r.sp = &sp;
	r.lr = &lr;
	while (!r.failed && dwarf_nextcu(m->dbg, off, &next, &hl, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(m->dbg, off + hl, &r.cu)) {
			if (sp.func) {
				dwarf_getfuncs(&r.cu, lr_func_cb, &r, 0);
			} else if ((r.fname = cu_file(&r.cu, sp.file))) {
				lr.start = sp.has_line ? sp.line : 0;
				lr.end = sp.line_end ? sp.line_end : 1 << 30;
				walk_lines(&r, &r.cu, lr_cb);
				r.failed = lr.n > 0;
			}
		}
		off = next;
	}
	if (lr.n && lr.path) {
		qsort(lr.lines, lr.n, sizeof(int), cmp_int);
		char why[300];
		ret = print_range(out, m, &lr, sp.func ? label : NULL, sp.func ? r.lno : 0, why,
				  sizeof(why));
		if (ret)
			snprintf(err, errlen, "cannot open the source file '%s': %s", lr.path, why);
	} else {
		snprintf(err, errlen, "the source lines of '%s' are not found", spec);
	}
	free(lr.lines);
	free(lr.path);
	return ret;
}
