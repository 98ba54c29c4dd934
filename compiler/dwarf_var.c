// SPDX-License-Identifier: GPL-2.0-only
/*
 * dwarf_var.c - the variables visible at a probe site: parameters and
 * locals in scope (with those of functions inlined there, as perf probe
 * shows them), globals and statics of the compile unit, and externs
 * through the symbol table.  Built lazily, on the first question about a
 * site, from the DIE offsets dw_resolve() recorded.
 */
#define _GNU_SOURCE
#include "dwarf_var.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf_loc.h"
#include "dwarf_fidx.h"
#include "dwarf_prologue.h"
#include "dwarf_spec.h"
#include "dwarf_type.h"
#include "dwarf_walk.h"
#include "lib/types.h"

struct dw_probe {
	struct dw_mod *m;
	Dwarf_Off cu_off, scope_off;
	uint64_t addr;
	char *func;
	bool built;
	struct dw_var *locals;  /* own, then of inlined callees */
	int nlocals, nown;
	struct dw_var *globals;
	int nglobals;
	char *note;             /* why this address, for -v; NULL if nothing to say */
	bool perf_view;         /* perf probe -V's view: no prologue rule */
	uint64_t body;          /* the end of the prologue the site is in; 0 if not in one */
};

struct dw_probe *dwv_probe_new(struct dw_mod *m, Dwarf_Off cu_off, Dwarf_Off scope_off,
			       uint64_t addr, const char *func)
{
	struct dw_probe *p = calloc(1, sizeof(*p));

	if (!p || !(p->func = strdup(func)))
		abort();
	p->m = m;
	p->cu_off = cu_off;
	p->scope_off = scope_off;
	p->addr = addr;
	return p;
}

/* A DIE's name, also through DW_AT_specification (the definition of a
 * C++ class's static member has none of its own). */
static const char *die_name(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	const char *n = dwarf_diename(d);

	return n ? n : dwarf_formstring(dwarf_attr_integrate(d, DW_AT_name, &a));
}

static bool has_callsites(const struct dwl_insn *v, int n)
{
	for (int i = 0; i < n; i++)
		if (v[i].op == DWL_CALLSITES)
			return true;
	return false;
}

/* A location reading what the caller passed: the value a register had at
 * the function's entry, or at the call site. */
static bool needs_caller(const struct dw_loc *l)
{
	if (l->uses_entry_value || has_callsites(l->prog, l->n))
		return true;
	for (int i = 0; i < l->npieces; i++)
		if (has_callsites(l->pieces[i].prog, l->pieces[i].n))
			return true;
	return l->target && needs_caller(l->target);
}

/* At a kprobe the caller's values are not read (no entry probe or call
 * site table there, as in perf probe): the variable is visibly missing,
 * never read as some other register's value. */
static void kernel_loc(struct dw_probe *p, struct dw_var *v)
{
	if (!p->m->kernel || !needs_caller(&v->loc))
		return;
	dwl_loc_free(&v->loc);
	memset(&v->loc, 0, sizeof(v->loc));
	v->loc.kind = DWR_UNSUPPORTED;
	v->loc.why = strdup("its location is the value the caller passed (DW_OP_entry_value), "
			    "which a kprobe in the kernel does not read");
	if (!v->loc.why)
		abort();
}

/* sp_var: d is a variable of the real function itself (not of a copy
 * inlined into it), whose prologue the site may be in. */
static void make_var(struct dw_probe *p, Dwarf_Die *d, struct dwl_ctx *ctx, struct dw_var *v,
		     bool sp_var)
{
	char tn[256];

	memset(v, 0, sizeof(*v));
	v->name = die_name(d);
	v->type = dwt_type_of(p->m->types, d);
	dwt_name_of(d, tn, sizeof(tn));
	v->type_name = strdup(tn);
	v->is_param = dwarf_tag(d) == DW_TAG_formal_parameter;
	dwarf_decl_line(d, &v->decl_line);
	if (sp_var && dwp_applies(d, ctx))
		dwp_var_loc(d, ctx, dwt_decls(p->m->types), &v->loc);
	else
		dwl_var_loc(d, ctx, &v->loc);
	kernel_loc(p, v);
}

struct collect {
	struct dw_probe *p;
	struct dwl_ctx *ctx;
	bool in_inline;
	bool of_sp;             /* the walk is in the real function's own scopes */
	Dwarf_Off stop;         /* outer walk: the probed inlined copy, not entered */
	Dwarf_Die *path;        /* outer walk: the scopes that hold it, */
	int npath;              /* from it out to the compile unit; */
	const char *frame;      /* the function whose scopes are walked */
};

static struct dw_var *new_local(struct dw_probe *p)
{
	p->locals = realloc(p->locals, (p->nlocals + 1) * sizeof(*p->locals));
	if (!p->locals)
		abort();
	return &p->locals[p->nlocals++];
}

/* The outer walk enters the blocks and inlined copies that hold the
 * probed copy, and no other.  Not by the pc: a sibling copy whose
 * addresses interleave with the probed one's holds it too (-O2 schedules
 * two calls' instructions together), and its parameters are another
 * call's, not a frame's around the probed copy (listed, each name came
 * twice); and the copies that do hold the probed one may not hold its
 * entry pc in their ranges. */
static bool outer_enters(const struct collect *c, Dwarf_Die *d)
{
	Dwarf_Off off = dwarf_dieoffset(d);

	if (off == c->stop)
		return false;
	for (int i = 1; i < c->npath; i++)
		if (dwarf_dieoffset(&c->path[i]) == off)
			return true;
	return false;
}

static int collect_cb(Dwarf_Die *d, void *arg)
{
	struct collect *c = arg;
	struct dw_probe *p = c->p;
	int tag = dwarf_tag(d);

	if ((tag == DW_TAG_variable || tag == DW_TAG_formal_parameter) && dwarf_diename(d)) {
		struct dw_var *v = new_local(p);
		make_var(p, d, c->ctx, v, c->of_sp && !c->in_inline);
		v->in_inline = c->in_inline;
		v->in_outer = c->stop != 0;
		v->frame = v->in_outer ? c->frame : NULL;
		return DWW_SIBLING;
	}
	if (c->stop && !outer_enters(c, d))
		return DWW_SIBLING;
	if (c->stop && tag == DW_TAG_inlined_subroutine) {
		/* a frame of its own, not of the real function */
		struct collect f = *c;
		f.of_sp = false;
		f.frame = die_name(d);
		dww_walk_children(d, collect_cb, &f);
		return DWW_SIBLING;
	}
	if (c->stop)
		return DWW_CONT;
	if (dwarf_haspc(d, c->ctx->addr) != 1)
		return DWW_SIBLING;
	if (tag == DW_TAG_lexical_block)
		return DWW_CONT;
	if (tag == DW_TAG_inlined_subroutine) {
		struct collect inner = { p, c->ctx, true, false, 0, NULL, 0, NULL };
		dww_walk_children(d, collect_cb, &inner);
	}
	return DWW_SIBLING;
}

/* An inlined or out-of-line copy may drop a parameter or local entirely:
 * the abstract function still names it, so it reads as optimised out
 * instead of unknown. */
static void add_abstract(struct dw_probe *p, Dwarf_Die *scope, struct dwl_ctx *ctx, bool of_sp)
{
	Dwarf_Attribute a;
	Dwarf_Die o, d;
	int nown = p->nlocals;

	if (!dwarf_attr(scope, DW_AT_abstract_origin, &a) || !dwarf_formref_die(&a, &o) ||
	    dwarf_child(&o, &d) != 0)
		return;
	do {
		int tag = dwarf_tag(&d);
		const char *n = dwarf_diename(&d);
		bool have = false;
		if ((tag != DW_TAG_variable && tag != DW_TAG_formal_parameter) || !n)
			continue;
		for (int i = 0; i < nown && !have; i++)
			have = !p->locals[i].in_inline && !p->locals[i].in_outer &&
			       !strcmp(p->locals[i].name, n);
		if (have)
			continue;
		make_var(p, &d, ctx, new_local(p), of_sp);
	} while (dwarf_siblingof(&d, &d) == 0);
}

static bool site_dies(struct dw_probe *p, Dwarf_Die *cu, Dwarf_Die *scope, Dwarf_Die *sp)
{
	return dwarf_offdie(p->m->dbg, p->cu_off, cu) && dwarf_offdie(p->m->dbg, p->scope_off, scope) &&
	       dws_realfunc(p->m, cu, p->addr, sp);
}

static bool place_in_kernel(const void *m, uint64_t addr, uint64_t *out)
{
	return dws_kernel_addr(m, addr, out);
}

static void site_ctx(struct dw_probe *p, Dwarf_Die *cu, Dwarf_Die *sp, struct dwl_ctx *ctx)
{
	Dwarf_Addr entry;

	/* The kernel's globals are placed when compiling, where kallsyms and
	 * /sys/module say (a kprobe's bpf_get_func_ip is 0 past a function's
	 * entry since Linux 6.2, so the slide cannot be taken at run time). */
	*ctx = (struct dwl_ctx){ .addr = p->addr, .sp_die = sp, .cu_die = cu,
				 .cfi_eh = p->m->cfi_eh, .cfi_dbg = p->m->cfi_dbg,
				 .pie = p->m->pie };
	if (p->m->kernel) {
		ctx->place = place_in_kernel;
		ctx->place_arg = p->m;
	}
	if (dws_entrypc(sp, &entry) == 0) {
		ctx->func_entry = entry;
		if (!p->perf_view && p->addr >= entry)
			ctx->body = dwf_prologue_end(&p->m->funcs, cu, sp, entry);
	}
}

/* Own variables first (dw_vars returns those), then inlined callees'. */
static void build_locals(struct dw_probe *p)
{
	Dwarf_Die cu, scope, sp;

	p->built = true;
	if (!site_dies(p, &cu, &scope, &sp))
		return;
	struct dwl_ctx ctx;
	site_ctx(p, &cu, &sp, &ctx);
	if (dwl_in_prologue(&ctx))
		p->body = ctx.body;
	/* At an inlined copy, gdb shows the variables of the functions it is
	 * inlined into too (its older frames): first, so the copy's own win
	 * a name. */
	bool at_sp = dwarf_dieoffset(&scope) == dwarf_dieoffset(&sp);
	if (!at_sp) {
		struct collect o = { p, &ctx, false, true, dwarf_dieoffset(&scope), NULL, 0,
				     die_name(&sp) };
		o.npath = dwarf_getscopes_die(&scope, &o.path);
		dww_walk_children(&sp, collect_cb, &o);
		free(o.path);
	}
	struct collect c = { p, &ctx, false, at_sp, 0, NULL, 0, NULL };
	dww_walk_children(&scope, collect_cb, &c);
	add_abstract(p, &scope, &ctx, at_sp);
	struct dw_var *v = malloc((p->nlocals ? p->nlocals : 1) * sizeof(*v));
	int k = 0;
	if (!v)
		abort();
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < p->nlocals; i++)
			if (p->locals[i].in_inline == (pass == 1))
				v[k++] = p->locals[i];
	free(p->locals);
	p->locals = v;
	for (p->nown = 0; p->nown < p->nlocals && !v[p->nown].in_inline; p->nown++)
		;
}

int dw_vars(struct dw_probe *p, const struct dw_var **vars)
{
	*vars = NULL;
	if (!p)
		return 0;
	if (!p->built)
		build_locals(p);
	*vars = p->locals;
	return p->nown;
}

static bool symbol_addr(const GElf_Sym *s, void *arg)
{
	*(uint64_t *)arg = s->st_value;
	return true;
}

/* The address of a defined data symbol, for a global this CU only declares. */
static bool object_symbol(struct dw_mod *m, const char *name, uint64_t *addr)
{
	return dws_each_symbol(m, name, STT_OBJECT, symbol_addr, addr);
}

static struct dw_var *new_global(struct dw_probe *p)
{
	p->globals = realloc(p->globals, (p->nglobals + 1) * sizeof(*p->globals));
	if (!p->globals)
		abort();
	return &p->globals[p->nglobals++];
}

/* The definition of variable name among the children of scope and in the
 * namespaces below it (a C++ class's static member is defined at unit or
 * namespace level, named through DW_AT_specification); else, in *decl, a
 * declaration of it.  True if defined. */
static bool global_in(Dwarf_Die *scope, const char *name, Dwarf_Die *def, Dwarf_Die *decl,
		      bool *have_decl, int depth)
{
	Dwarf_Attribute a;
	Dwarf_Die d;

	if (depth > 16 || dwarf_child(scope, &d) != 0)
		return false;
	do {
		int tag = dwarf_tag(&d);
		if (tag == DW_TAG_namespace) {
			if (global_in(&d, name, def, decl, have_decl, depth + 1))
				return true;
			continue;
		}
		const char *n = die_name(&d);
		if (tag != DW_TAG_variable || !n || strcmp(n, name))
			continue;
		if (dwarf_attr(&d, DW_AT_declaration, &a)) {
			if (!*have_decl)
				*decl = d;
			*have_decl = true;
			continue;
		}
		*def = d;
		return true;
	} while (dwarf_siblingof(&d, &d) == 0);
	return false;
}

/* A variable of the site's CU at unit or namespace level; one it only
 * declares (extern) is placed through the symbol table. */
static const struct dw_var *find_global(struct dw_probe *p, const char *name)
{
	Dwarf_Die cu, scope, sp, d, decl;
	struct dwl_ctx ctx;
	bool have_decl = false;
	uint64_t addr;

	for (int i = 0; i < p->nglobals; i++)
		if (!strcmp(p->globals[i].name, name))
			return &p->globals[i];
	if (!site_dies(p, &cu, &scope, &sp))
		return NULL;
	site_ctx(p, &cu, &sp, &ctx);
	if (global_in(&cu, name, &d, &decl, &have_decl, 0)) {
		struct dw_var *v = new_global(p);
		make_var(p, &d, &ctx, v, false);
		v->is_global = true;
		return v;
	}
	if (!have_decl || !object_symbol(p->m, name, &addr))
		return NULL;
	struct dw_var *v = new_global(p);
	make_var(p, &decl, &ctx, v, false);
	dwl_loc_free(&v->loc);
	dwl_addr_loc(addr, &ctx, &v->loc);
	v->is_global = true;
	return v;
}

const struct dw_var *dw_find_var(struct dw_probe *p, const char *name)
{
	const struct dw_var *v;
	int n = dw_vars(p, &v);

	for (int i = n - 1; i >= 0; i--)
		if (!strcmp(v[i].name, name))
			return &v[i];
	for (int i = n; p && i < p->nlocals; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return p ? find_global(p, name) : NULL;
}

/* "struct X" → (DW_TAG_structure_type, "X"); a bare name is a typedef or
 * a base type ("unsigned int" included). */
static int type_tag(const char **name)
{
	static const struct { const char *kw; int tag; } kws[] = {
		{ "struct ", DW_TAG_structure_type }, { "union ", DW_TAG_union_type },
		{ "enum ", DW_TAG_enumeration_type },
	};

	for (size_t i = 0; i < sizeof(kws) / sizeof(kws[0]); i++)
		if (!strncmp(*name, kws[i].kw, strlen(kws[i].kw))) {
			*name += strlen(kws[i].kw);
			return kws[i].tag;
		}
	return 0;
}

static bool type_die_in(Dwarf_Die *cu, int tag, const char *name, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	if (dwarf_child(cu, out) != 0)
		return false;
	do {
		int t = dwarf_tag(out);
		const char *n = dwarf_diename(out);
		bool kind = tag ? t == tag : t == DW_TAG_typedef || t == DW_TAG_base_type;
		if (kind && n && !strcmp(n, name) && !dwarf_attr(out, DW_AT_declaration, &a))
			return true;
	} while (dwarf_siblingof(out, out) == 0);
	return false;
}

const struct type *dw_find_type(const char *path, const char *name, char *err, size_t errlen)
{
	Dwarf_Die cu, d;
	Dwarf_Off off = 0, next;
	size_t hsize;
	int tag = type_tag(&name);
	struct dw_mod *m = dws_open(path, err, errlen);

	if (!m)
		return NULL;
	while (dwarf_nextcu(m->dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(m->dbg, off + hsize, &cu) && type_die_in(&cu, tag, name, &d))
			return dwt_convert(m->types, &d);
		off = next;
	}
	snprintf(err, errlen, "no compile unit of %s defines it", path);
	return NULL;
}

/* The type DIE under typedefs and qualifiers; false for void. */
static bool peel_type(Dwarf_Die *die, Dwarf_Die *t)
{
	Dwarf_Attribute a;
	Dwarf_Die *d = die;

	for (int depth = 0; depth < 16; depth++) {
		if (!dwarf_attr_integrate(d, DW_AT_type, &a) || !dwarf_formref_die(&a, t))
			return false;
		int tag = dwarf_tag(t);
		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
		    tag != DW_TAG_volatile_type && tag != DW_TAG_atomic_type &&
		    tag != DW_TAG_restrict_type)
			return true;
		d = t;
	}
	return false;
}

static bool is_float_die(Dwarf_Die *t)
{
	Dwarf_Attribute a;
	Dwarf_Word enc = 0;

	if (dwarf_tag(t) != DW_TAG_base_type || !dwarf_attr(t, DW_AT_encoding, &a) ||
	    dwarf_formudata(&a, &enc))
		return false;
	return enc == DW_ATE_float || enc == DW_ATE_complex_float;
}

int dw_ret_type(const char *path, uint64_t addr, const struct type **t, char *why, size_t n)
{
	char e[256], tn[128];
	struct dw_mod *m = dws_open(path, e, sizeof(e));
	Dwarf_Die cu, sp, rt;
	Dwarf_Addr entry;

	*t = NULL;
	if (!m || !dws_addrdie(m->dbg, addr, &cu) || !dws_realfunc(m, &cu, addr, &sp) ||
	    dws_entrypc(&sp, &entry) || entry != addr || !peel_type(&sp, &rt))
		return 0;  /* no DWARF for it, or void: retval stays rax */
	const char *fn = dwarf_diename(&sp) ?: "the function";
	int tag = dwarf_tag(&rt);
	dwt_name_of(&sp, tn, sizeof(tn));
	/* x86-64 SysV: floating point comes back in xmm0, which pt_regs lacks. */
	if (is_float_die(&rt)) {
		snprintf(why, n, "%s returns %s, which comes back in xmm0, a register a BPF program "
			 "cannot read", fn, tn);
		return -1;
	}
	if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	    tag == DW_TAG_class_type || tag == DW_TAG_array_type) {
		snprintf(why, n, "%s returns %s by value, which retval cannot read (it is in "
			 "registers or memory the caller chose)", fn, tn);
		return -1;
	}
	*t = dwt_type_of(m->types, &sp);
	if (!*t || (!type_is_int(*t) && (*t)->kind != T_PTR)) {
		*t = NULL;
		snprintf(why, n, "%s returns %s, which retval cannot read", fn, tn);
		return -1;
	}
	return 1;
}

uint64_t dw_probe_addr(const struct dw_probe *p)
{
	return p ? p->addr : 0;
}

uint64_t dw_probe_entry(struct dw_probe *p)
{
	Dwarf_Die cu, scope, sp;
	Dwarf_Addr entry;

	if (!p || !site_dies(p, &cu, &scope, &sp) || dws_entrypc(&sp, &entry))
		return 0;
	return entry;
}

bool dw_probe_kernel(const struct dw_probe *p)
{
	return p && p->m->kernel;
}

const char *dw_probe_func(const struct dw_probe *p)
{
	return p ? p->func : NULL;
}

void dw_probe_dump(FILE *out, struct dw_probe *p)
{
	const struct dw_var *v;
	dw_vars(p, &v);
	int n = p ? p->nlocals : 0;

	/* A frame around an inlined copy often has a variable of the same
	 * name (sk, skb): each says whose it is, and which one args.NAME
	 * does not read. */
	for (int i = 0; i < n; i++) {
		bool shadowed = dw_find_var(p, v[i].name) != &v[i];

		fprintf(out, "    %s%s %s %s", v[i].in_inline ? "inlined " : v[i].in_outer ? "outer " : "",
			v[i].is_param ? "param" : "var", v[i].type_name, v[i].name);
		if (v[i].frame)
			fprintf(out, " (of %s%s)", v[i].frame, shadowed ? ", shadowed" : "");
		else if (shadowed)
			fputs(" (shadowed)", out);
		fputs(": ", out);
		dw_loc_print(out, &v[i].loc);
		fputc('\n', out);
	}
	if (p && p->note)
		fprintf(out, "    note %s\n", p->note);
	if (p && p->body)
		fprintf(out, "    prologue until 0x%llx\n", (unsigned long long)p->body);
}

static void vars_free(struct dw_var *v, int n)
{
	for (int i = 0; i < n; i++) {
		free((char *)v[i].type_name);
		dwl_loc_free(&v[i].loc);
	}
	free(v);
}

void dwv_probe_perf_view(struct dw_probe *p)
{
	p->perf_view = true;
}

void dwv_probe_set_note(struct dw_probe *p, const char *note)
{
	free(p->note);
	if (!(p->note = strdup(note)))
		abort();
}

const char *dw_probe_note(const struct dw_probe *p)
{
	return p ? p->note : NULL;
}

void dw_probe_free(struct dw_probe *p)
{
	if (!p)
		return;
	vars_free(p->locals, p->nlocals);
	vars_free(p->globals, p->nglobals);
	free(p->func);
	free(p->note);
	free(p);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void dwv_list_site(FILE *out, struct dw_probe *p)
{
	const struct dw_var *v;
	int k = 0;

	if (!p) {   /* an address outside every unit */
		fprintf(out, "\t@<(no debug information)>\n");
		return;
	}
	dw_vars(p, &v);
	int n = p->nlocals;
	char **lines = calloc(n ? n : 1, sizeof(*lines));
	Dwarf_Die cu, scope, sp;
	Dwarf_Addr entry = p->addr;

	if (!lines)
		abort();
	if (site_dies(p, &cu, &scope, &sp))
		dws_entrypc(&sp, &entry);
	fprintf(out, "\t@<%s+%llu>\n", site_dies(p, &cu, &scope, &sp) ? dwarf_diename(&sp) : "?",
		(unsigned long long)(p->addr - entry));
	for (int i = 0; i < n; i++)
		if (!v[i].in_outer && dwl_available(&v[i].loc) &&  /* perf lists the copy's own */
		    asprintf(&lines[k], "%s\t%s", v[i].type_name, v[i].name) > 0)
			k++;
	/* perf keeps them in a sorted set. */
	qsort(lines, k, sizeof(*lines), cmp_str);
	for (int i = 0; i < k; i++)
		if (!i || strcmp(lines[i], lines[i - 1]))
			fprintf(out, "\t\t%s\n", lines[i]);
	if (k == 0)
		fprintf(out, "\t\t(No matched variables)\n");
	for (int i = 0; i < k; i++)
		free(lines[i]);
	free(lines);
}
