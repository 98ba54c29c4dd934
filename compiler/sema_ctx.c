// SPDX-License-Identifier: GPL-2.0-only
/*
 * sema_ctx.c - builtin identifiers and the probe's context: argN, sargN,
 * retval, args, DWARF variables and USDT arguments at every site (absent
 * ones marked), $N positional parameters, and the refusals by probe type:
 * 32-bit (elf32) targets, a for-map callback without the probe's ctx.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/bpf.h>

#include "ctypes.h"
#include "dwarf.h"
#include "lib/elfsym.h"
#include "kbtf.h"
#include "lexer.h"
#include "builtin.h"
#include "sema_int.h"

/* ---- builtins ---- */

bool probe_is(struct sctx *c, unsigned kinds)
{
	for (int i = 0; i < c->cur->nprobes; i++)
		if (!(kinds & (1u << c->cur->probes[i]->kind)))
			return false;
	return true;
}

/* The 32-bit (i386) probe of this body, or NULL. */
static const struct probe *elf32_probe(struct sctx *c)
{
	for (int i = 0; i < c->cur->nprobes; i++)
		if (c->cur->probes[i]->elf32)
			return c->cur->probes[i];
	return NULL;
}

/* retval at a uretprobe: the DWARF return type of the probed functions
 * (narrow types sign- or zero-extended from eax/ax/al, bool 0/1) where
 * they all have the same; rax as int64, as in bpftrace, where DWARF is
 * missing or they differ.  Floats and structs are refused (dw_ret_type). */
static const struct type *uretval_type(struct sctx *c, struct node *n)
{
	const struct type *t = NULL;
	bool mixed = false;

	for (int i = 0; i < c->cur->nprobes; i++) {
		const struct probe *p = c->cur->probes[i];
		for (int k = 0; k < p->nsites; k++) {
			const struct type *st;
			char why[512];
			int r = dw_ret_type(p->path, p->sites[k].addr, &st, why, sizeof(why));
			if (r < 0) {
				err(c, n->loc, "%s", why);
				return NULL;
			}
			if (r == 0 || (t && !type_equal(t, st)))
				mixed = true;
			else
				t = st;
		}
	}
	if (t && !mixed)
		return t;
	/* 32-bit code without one type: eax, zero-extended (a 64-bit DWARF
	 * type is edx:eax, see cg_expr.c) */
	return elf32_probe(c) ? type_int(4, false) : type_int(8, true);
}

/* retval at fexit and kretprobes: the functions' BTF result type where
 * they all have the same (probe.ret); else int64, each function's read as
 * it returns it (cg_expr.c: probe.ret, or a wildcard's table by address),
 * rax whole where BTF does not say. */
static const struct type *kretval_type(const struct sctx *c)
{
	const struct type *t = c->cur->probes[0]->ret;

	for (int i = 1; t && i < c->cur->nprobes; i++)
		if (!c->cur->probes[i]->ret || !type_equal(t, c->cur->probes[i]->ret))
			t = NULL;
	return t ? t : type_int(8, true);
}

/* The type of `args` at a uprobe: its fields are looked up per site in
 * DWARF when `args.NAME` is checked. */
static const struct type *dwarf_args_type(void)
{
	static const struct type t = { .kind = T_ARGS, .name = "args" };

	return &t;
}

/* The same at a kprobe at a kernel source line: its variables are in
 * kernel memory (sema_place_is_user). */
const struct type *sema_kdwarf_args_type(void)
{
	static const struct type t = { .kind = T_ARGS, .name = "args" };

	return &t;
}

/* Every site of every probe of the body has the kernel's DWARF view. */
bool kernel_dwarf_sites(const struct sctx *c)
{
	for (int i = 0; i < c->cur->nprobes; i++) {
		const struct probe *p = c->cur->probes[i];
		if (!p->nsites)
			return false;
		for (int j = 0; j < p->nsites; j++)
			if (!dw_probe_kernel(p->sites[j].dw))
				return false;
	}
	return true;
}

/* Why args.NAME cannot be read at site s (one sentence into buf), or NULL
 * if it can. */
static const char *site_lacks(const struct probe_site *s, const char *name, char *buf,
			      size_t len)
{
	const struct dw_var *v = s->dw ? dw_find_var(s->dw, name) : NULL;

	if (!v)
		snprintf(buf, len, "no variable '%s' is visible at %s", name, s->func);
	else if (v->loc.kind == DWR_OPTIMIZED || v->loc.kind == DWR_UNSUPPORTED)
		snprintf(buf, len, "'%s' cannot be read at %s: %s", name, s->func,
			 v->loc.why ? v->loc.why : "no location");
	else
		return NULL;
	return buf;
}

/*
 * Sites of a probe that lack args.NAME while others of the same probe have
 * it (an inlined copy that dropped a variable): marked absent, so that
 * their hits are counted and skipped, never read as 0, and said once.
 * Returns false if some probe of the body has it at no site: then that is
 * the error, as in bpftrace for a field one of the probes lacks.
 */
static bool mark_absent(struct sctx *c, struct node *n)
{
	char why[600], first[600] = "";
	int have = 0, lack = 0;

	for (int i = 0; i < c->cur->nprobes; i++) {
		struct probe *p = c->cur->probes[i];
		int ph = 0;
		for (int j = 0; j < p->nsites; j++) {
			const char *w = site_lacks(&p->sites[j], n->name, why, sizeof(why));
			ph += !w;
			lack += !!w;
			if (w && !first[0])  /* a line's sites share a label: name the address */
				snprintf(first, sizeof(first), "%s, 0x%llx", w,
					 (unsigned long long)p->sites[j].addr);
		}
		if (!ph && p->nsites) {
			err(c, n->loc, "%s", site_lacks(&p->sites[0], n->name, why, sizeof(why)));
			return false;
		}
		have += ph;
	}
	if (!lack)
		return true;
	for (int i = 0; i < c->cur->nprobes; i++)
		for (int j = 0; j < c->cur->probes[i]->nsites; j++)
			c->cur->probes[i]->sites[j].absent |=
				site_lacks(&c->cur->probes[i]->sites[j], n->name, why, sizeof(why)) != NULL;
	if (!c->quiet)
		diag_warn(c->d, n->loc, "'%s' is missing at %d of the probe's %d sites (%s): hits "
			  "there are skipped and counted", n->name, lack, have + lack, first);
	return true;
}

/* args.NAME at uprobes: the variable must be readable, with one type, at
 * every site of every probe of the body that has it (see mark_absent). */
const struct type *check_dwarf_var(struct sctx *c, struct node *n)
{
	const struct type *t = NULL;
	char b1[64], b2[64];

	for (int i = 0; i < c->cur->nprobes; i++)
		for (int j = 0; j < c->cur->probes[i]->nsites; j++)
			if (!c->cur->probes[i]->sites[j].dw) {
				struct probe *p = c->cur->probes[i];
				err(c, n->loc, "args needs debuginfo, and %s has none at %s; read "
				    "arg0..arg5 instead", p->path, p->sites[j].func);
				return NULL;
			}
	if (!mark_absent(c, n))
		return NULL;
	for (int i = 0; i < c->cur->nprobes; i++) {
		struct probe *p = c->cur->probes[i];

		for (int j = 0; j < p->nsites; j++) {
			char why[600];
			const struct dw_var *v = dw_find_var(p->sites[j].dw, n->name);

			if (site_lacks(&p->sites[j], n->name, why, sizeof(why)))
				continue;
			if (!v->type) {
				err(c, n->loc, "the type of '%s' (%s) cannot be read", n->name,
				    v->type_name ? v->type_name : "?");
				return NULL;
			}
			if (t && !type_equal(t, v->type)) {
				err(c, n->loc, "'%s' is %s at one site and %s at another", n->name,
				    tname(t, b1, sizeof(b1)), tname(v->type, b2, sizeof(b2)));
				return NULL;
			}
			t = v->type;
		}
	}
	c->cur->per_site = c->cur->dwarf_site = true;
	return t;
}

/* argN at a USDT probe: the note's N-th argument at every site. */
static const struct type *check_usdt_arg(struct sctx *c, struct node *n, int i)
{
	bool sgn = false;

	for (int k = 0; k < c->cur->nprobes; k++) {
		struct probe *p = c->cur->probes[k];

		for (int j = 0; j < p->nsites; j++) {
			if (i >= p->sites[j].nuargs) {
				err(c, n->loc, "no arg%d: %s has %d argument%s at %s", i,
				    p->name ? p->name : "this probe", p->sites[j].nuargs,
				    p->sites[j].nuargs == 1 ? "" : "s", p->sites[j].func);
				return NULL;
			}
			sgn |= p->sites[j].uargs[i].is_signed;
		}
	}
	c->cur->per_site = c->cur->dwarf_site = true;
	return type_int(8, sgn);
}

/* sarg0, sarg1, ...: the N-th u64 on the stack above the return address. */
static bool is_sarg(const char *s)
{
	if (!isdigit((unsigned char)s[4]) || (s[4] == '0' && s[5]))
		return false;
	for (const char *p = s + 4; *p; p++)
		if (!isdigit((unsigned char)*p) || p - s > 7)
			return false;
	return true;
}

/* Builtins of newer bpftrace (0.18 and later); none was an identifier in
 * 0.17, so no 0.17 program changes meaning.  true and false stay idents
 * (codegen makes the constant) so that both walks of sema see them. */

/* ppid and pcomm, newer bpftrace: n becomes curtask->real_parent->tgid
 * (curtask->group_leader->comm), read through the kernel's BTF. */
static const struct type *task_chain(struct sctx *c, struct node *n, const char *via,
				     const char *field)
{
	struct node *cur = ast_new(N_IDENT, n->loc), *mid = ast_new(N_FIELD, n->loc);

	cur->name = strdup("curtask");
	mid->op = TOK_ARROW;
	mid->a = cur;
	mid->name = strdup(via);
	free(n->name);
	n->kind = N_FIELD;
	n->op = TOK_ARROW;
	n->a = mid;
	n->name = strdup(field);
	return check_field(c, n);
}

const struct type *check_ppid(struct sctx *c, struct node *n)
{
	return task_chain(c, n, "real_parent", "tgid");
}

const struct type *check_pcomm(struct sctx *c, struct node *n)
{
	return task_chain(c, n, "group_leader", "comm");
}

const struct type *check_truth(struct sctx *c, struct node *n)
{
	(void)c, (void)n;
	return type_truth();
}

const struct type *check_probetype(struct sctx *c, struct node *n)
{
	size_t m = 0;

	(void)n;
	for (int i = 0; i < c->cur->nprobes; i++) {
		size_t l = strlen(probe_type_name(c->cur->probes[i]->kind));

		m = l > m ? l : m;
	}
	return type_str(m + 1);
}

/* The body of for ($kv : @m) runs in bpf_for_each_map_elem()'s callback,
 * which has no probe context: what is read from it is refused there. */
static bool needs_ctx(struct sctx *c, const struct node *n)
{
	const struct bi_row *r = bi_lookup(n->name);

	if (!r)
		return false;
	if (r->flags & BI_NEEDS_CTX)
		return true;
	return (r->flags & BI_CTX_SYSRAW) && c->cur->probes[0]->sys_raw;
}

bool ctx_refused(struct sctx *c, struct node *n)
{
	if (!c->formap_depth || !needs_ctx(c, n))
		return false;
	err(c, n->loc, "%s cannot be read inside for ($kv : @map), whose body runs without "
	    "the probe's context; read it into a $variable before the loop", n->name);
	return true;
}

static bool all_entries(const struct probe *p)
{
	for (int k = 0; k < p->nsites; k++)
		if (!p->sites[k].entry)
			return false;
	return p->kind == PK_UPROBE;
}

/*
 * What a probe in 32-bit code cannot read right: its registers are the
 * low halves of pt_regs, its cdecl arguments on the stack, where argN
 * finds them only at a function's first instruction (after the prologue
 * they are at ebp-relative places DWARF knows).  DWARF variables (i386
 * register numbers, 4-byte addresses) and user stacks (4-byte frames) are
 * refused rather than read wrong.
 */
bool elf32_refused(struct sctx *c, struct node *n)
{
	const struct probe *p = elf32_probe(c);
	const char *s = n->name;
	const struct bi_row *r = p ? bi_lookup(s) : NULL;

	if (!r)
		return false;
	if ((r->flags & BI_ELF32_ENTRY) && !s[4] && !all_entries(p)) {
		err(c, n->loc, "%s of 32-bit code (%s) is read from the stack at a function's "
		    "entry only; probe uprobe:%s:FUNC without +OFFS, line or address",
		    s, p->path_shown ? p->path_shown : p->path, p->path_shown ? p->path_shown : p->path);
		return true;
	}
	if (r->flags & BI_ELF32_NOSTACK) {
		err(c, n->loc, "ustack is not unwound in 32-bit code (%s) yet (its frames "
		    "are 4-byte words); use func, kstack or argN", p->path_shown ?
		    p->path_shown : p->path);
		return true;
	}
	if (r->flags & BI_ELF32_NO) {
		err(c, n->loc, "%s is not read in 32-bit code (%s) yet; use arg0.. at the "
		    "function's entry and retval", s, p->path_shown ? p->path_shown : p->path);
		return true;
	}
	return false;
}

/* ---- the identifiers' check hooks (builtin.h) ---- */

const struct type *check_u32(struct sctx *c, struct node *n)
{
	(void)c, (void)n;
	return type_int(4, false);
}

const struct type *check_u64(struct sctx *c, struct node *n)
{
	(void)c, (void)n;
	return type_int(8, false);
}

/* The script's own struct task_struct, if it declares one, types curtask
 * as in bpftrace 0.17; else the kernel's BTF does. */
const struct type *check_curtask(struct sctx *c, struct node *n)
{
	const struct type *own = ct_type(c->ct, "struct task_struct");

	(void)n;
	return own ? type_ptr(own, false) : kbtf_task_ptr();
}

const struct type *check_elapsed(struct sctx *c, struct node *n)
{
	(void)n;
	c->s->uses_config = true;
	return type_int(8, false);
}

const struct type *check_comm(struct sctx *c, struct node *n)
{
	(void)c, (void)n;
	return type_str(16);
}

const struct type *check_stack_ident(struct sctx *c, struct node *n)
{
	c->s->uses_stack = true;
	return type_stack(n->bi == BI_USTACK);
}

const struct type *check_probe_ident(struct sctx *c, struct node *n)
{
	size_t m = 0;
	char buf[1024];

	(void)n;
	/* A wildcard names each match: one program per site, but
	 * a raw syscalls program looks the name up (cg_syscall.c). */
	for (int i = 0; i < c->cur->nprobes; i++) {
		const struct probe *p = c->cur->probes[i];

		c->cur->per_site |= probe_name_per_site(p) && !p->sys_raw;
		if (probe_kwild(p)) {   /* "kprobe:" and a function's name (cg_expr.c) */
			size_t l = strlen(probe_kind_name(p->kind)) + PR_KNAME_SIZE;
			m = l > m ? l : m;
		}
		for (int k = 0; k < (p->nsites ? p->nsites : 1); k++) {
			size_t l = strlen(probe_site_name(p, k, buf, sizeof(buf)));

			m = l > m ? l : m;
		}
	}
	return type_str(m + 1);
}

/* Not a builtin: an enum constant of the script's C declarations or of
 * the kernel's BTF, else an error. */
const struct type *check_no_ident(struct sctx *c, struct node *n)
{
	int64_t ev;

	if (ct_enum_value(c->ct, n->name, &ev) || kbtf_enum_value(n->name, &ev)) {
		fold_to_int(n, ev);
		return type_int(8, true);
	}
	err(c, n->loc, "unknown identifier '%s'", n->name);
	return NULL;
}

/* arg0..arg9 at USDT probes, arg0..arg5 (registers) at uprobes and kprobes. */
const struct type *check_argn(struct sctx *c, struct node *n)
{
	const char *s = n->name;

	if (!s[4] && probe_is(c, K(PK_USDT)))
		return check_usdt_arg(c, n, s[3] - '0');
	if (s[3] <= '5' && !s[4]) {
		if (!probe_is(c, K(PK_UPROBE) | K(PK_KPROBE) | K(PK_RAWTP))) {
			err(c, n->loc, "%s is only available at uprobe and kprobe probes", s);
			return NULL;
		}
		return type_int(8, false);
	}
	return check_no_ident(c, n);
}

const struct type *check_retval(struct sctx *c, struct node *n)
{
	if (probe_is(c, K(PK_FEXIT)) && !c->cur->probes[0]->args) {
		err(c, n->loc, "retval at fexit needs the function's type from kernel BTF");
		return NULL;
	}
	if (!probe_is(c, K(PK_URETPROBE) | K(PK_KRETPROBE)) && !probe_is(c, K(PK_FEXIT))) {
		err(c, n->loc, "retval is only available at uretprobe, kretprobe and fexit probes");
		return NULL;
	}
	return probe_is(c, K(PK_URETPROBE)) ? uretval_type(c, n) : kretval_type(c);
}

/* func at a uprobe site inside a function is the function's start, which
 * is the site's address less its own distance (cg_expr.c): per site. */
static bool inside_functions(const struct sctx *c)
{
	for (int i = 0; i < c->cur->nprobes; i++) {
		const struct probe *p = c->cur->probes[i];

		for (int k = 0; p->kind == PK_UPROBE && p->nsites > 1 && k < p->nsites; k++)
			if (!p->sites[k].entry)
				return true;
	}
	return false;
}

const struct type *check_func(struct sctx *c, struct node *n)
{
	if (probe_is(c, K(PK_UPROBE) | K(PK_URETPROBE) | K(PK_USDT))) {
		c->cur->per_site |= inside_functions(c);
		return type_usym();
	}
	if (probe_is(c, K(PK_KPROBE) | K(PK_KRETPROBE)))
		return type_ksym();
	err(c, n->loc, "func is only available at uprobe and kprobe probes");
	return NULL;
}

/* Every probe of the body has args (a kprobe list: each function's). */
static bool all_have_args(const struct sctx *c)
{
	for (int i = 0; i < c->cur->nprobes; i++)
		if (!c->cur->probes[i]->args)
			return false;
	return true;
}

const struct type *check_args(struct sctx *c, struct node *n)
{
	struct probe *p0 = c->cur->probes[0];

	if (probe_is(c, K(PK_TRACEPOINT) | K(PK_RAWTP) | K(PK_FENTRY) | K(PK_FEXIT)) &&
	    p0->args)
		return p0->args;
	if (probe_is(c, K(PK_UPROBE)))
		return dwarf_args_type();
	if (probe_is(c, K(PK_KPROBE)) && kernel_dwarf_sites(c))
		return sema_kdwarf_args_type();
	if (probe_is(c, K(PK_KPROBE)) && all_have_args(c))
		return p0->args;
	if (probe_is(c, K(PK_KPROBE)))
		err(c, n->loc, "args at a kprobe needs kernel functions' entries (no wildcard or "
		    "offset) and their BTF (/sys/kernel/btf), or a source line and the kernel's "
		    "debuginfo; use arg0..arg5");
	else if (probe_is(c, K(PK_URETPROBE)))
		err(c, n->loc, "args is not available at return probes; use retval");
	else
		err(c, n->loc, "args is not available at this probe");
	return NULL;
}

/* ctx (bpftrace 0.17): the probe's context, a struct pt_regs * in kernel
 * memory at uprobes, USDT probes and kprobes, fields read from the
 * kernel's BTF, a struct bpf_perf_event_data * at perf-event probes;
 * tracepoints have args instead. */
const struct type *check_ctx(struct sctx *c, struct node *n)
{
	const struct type *regs;

	if (probe_is(c, K(PK_TRACEPOINT) | K(PK_RAWTP))) {
		err(c, n->loc, "ctx is not available at tracepoints; use args");
		return NULL;
	}
	/* profile, interval and perf-event probes: the program's context is
	 * struct bpf_perf_event_data, whose fields the verifier maps onto the
	 * kernel's own record; codegen reads them as context loads */
	if (probe_is(c, K(PK_PROFILE) | K(PK_INTERVAL) | K(PK_SOFTWARE) | K(PK_HARDWARE))) {
		regs = kbtf_record_stub("struct bpf_perf_event_data");
		if (!regs)
			err(c, n->loc, "ctx needs struct bpf_perf_event_data from the kernel's BTF");
		return regs ? type_ptr(regs, false) : NULL;
	}
	if (!probe_is(c, K(PK_UPROBE) | K(PK_URETPROBE) | K(PK_USDT) | K(PK_KPROBE) |
		      K(PK_KRETPROBE))) {
		err(c, n->loc, "ctx is only available at uprobe, usdt, kprobe, profile, interval "
		    "and perf-event probes");
		return NULL;
	}
	regs = kbtf_record_stub("struct pt_regs");
	if (!regs) {
		err(c, n->loc, "ctx needs struct pt_regs from the kernel's BTF");
		return NULL;
	}
	return type_ptr(regs, false);
}

const struct type *check_cpid(struct sctx *c, struct node *n)
{
	if (!c->o->has_child) {
		err(c, n->loc, "cpid cannot be used without a traced command (-c or --)");
		return NULL;
	}
	c->s->uses_config = true;
	return type_int(4, false);
}

const struct type *check_username(struct sctx *c, struct node *n)
{
	(void)c, (void)n;
	return type_ufmt(UF_USERNAME, 8, NULL);
}

const struct type *check_sargn(struct sctx *c, struct node *n)
{
	const char *s = n->name;

	if (!is_sarg(s))
		return check_no_ident(c, n);
	if (!probe_is(c, K(PK_UPROBE) | K(PK_URETPROBE) | K(PK_KPROBE) | K(PK_KRETPROBE))) {
		err(c, n->loc, "%s is only available at uprobe and kprobe probes", s);
		return NULL;
	}
	return type_int(8, true);
}

/* An identifier: a builtin, checked by its row's hook (builtin.h), or an
 * enum constant. */
const struct type *check_ident(struct sctx *c, struct node *n)
{
	const struct bi_row *r = bi_lookup(n->name);
	bi_check_fn hook;

	if (r && r->id == BI_DW_USTACK) {
		/* newer bpftrace's DWARF-unwound user stack: ustack, which
		 * unwinds through each object's CFI here */
		free(n->name);
		n->name = strdup("ustack");
		if (!n->name)
			abort();
		r = bi_row(BI_USTACK);
	}
	n->bi = r ? r->id : BI_NONE;
	if (ctx_refused(c, n) || elf32_refused(c, n))
		return NULL;
	hook = sema_ident_hook(n->bi);
	return hook(c, n);
}

bool is_number(const char *s)
{
	char *end;

	if (!*s)
		return false;
	errno = 0;
	(void)strtoll(s, &end, 0);
	return !*end && !errno;
}

const struct type *check_positional(struct sctx *c, struct node *n)
{
	const char *v;

	if (n->name && !strcmp(n->name, "#")) {
		n->kind = N_INT;
		n->ival = c->o->nparams;
		return type_int(8, true);
	}
	v = n->ival >= 1 && (int)n->ival <= c->o->nparams ? c->o->params[n->ival - 1] : "";
	if (is_number(v) || !*v) {
		n->kind = N_INT;
		n->ival = *v ? (uint64_t)strtoll(v, NULL, 0) : 0;
		return type_int(8, true);
	}
	return type_str(strlen(v) + 1);
}

const char *sema_param(const struct sema *s, const struct node *n)
{
	if (n->ival >= 1 && (int)n->ival <= s->nparams)
		return s->params[n->ival - 1];
	return "";
}
