// SPDX-License-Identifier: GPL-2.0-only
/*
 * compile.c - the compiler's front door: parse, resolve every attach
 * point, check, generate, and hand the runtime a struct program.
 *
 * Each stage's --dump output is printed as soon as that stage is done, so
 * a dump is there even when a later stage fails.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <string.h>

#include "ast.h"
#include "builtin.h"
#include "codegen.h"
#include "config.h"
#include "dwarf.h"
#include "kbtf.h"
#include "parser.h"
#include "program.h"
#include "sema.h"
#include "syscalls.h"
#include "tpformat.h"

/* Does the expression or statement list n name the builtin id?  Before
 * sema: the id is looked up here, not yet stored in the node. */
static bool names(const struct node *n, enum bi_id id)
{
	for (; n; n = n->next) {
		/* kstack, kstack(n) and kstack(perf) alike */
		if (n->kind == N_IDENT || n->kind == N_CALL) {
			const struct bi_row *r = bi_lookup(n->name);

			if (r && r->id == id)
				return true;
		}
		if (n->kind != N_ATTACH &&
		    (names(n->a, id) || names(n->b, id) || names(n->c, id) ||
		     names(n->list, id)))
			return true;
	}
	return false;
}

static bool probe_names(const struct node *probe, enum bi_id id)
{
	return names(probe->a, id) || names(probe->b, id);
}

/* "$N" in an attach point becomes the Nth positional parameter, as in
 * bpftrace, so one script serves any function: uprobe:$1. */
static char *expand_params(const char *text, struct loc loc, const struct pr_compile_opts *o,
			   struct diag *d)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	for (const char *c = text; *c; c++) {
		if (*c != '$' || !isdigit((unsigned char)c[1])) {
			fputc(*c, f);
			continue;
		}
		char *end;
		long i = strtol(c + 1, &end, 10);
		if (i < 1 || i > o->nparams) {
			fclose(f);
			free(out);
			diag_error(d, loc, "attach point uses $%ld, but %d parameter%s given after the script",
				   i, o->nparams, o->nparams == 1 ? " was" : "s were");
			return NULL;
		}
		fputs(o->params[i - 1], f);
		c = end - 1;
	}
	fclose(f);
	return out;
}

/* Room for n more probes in p->probes. */
static int probes_room(struct program *p, int *cap, int n)
{
	if (p->nprobes + n <= *cap)
		return 0;
	struct probe **np = realloc(p->probes, (size_t)(p->nprobes + n + 8) * sizeof(*np));

	if (!np)
		return -1;
	p->probes = np;
	*cap = p->nprobes + n + 8;
	return 0;
}

/* A tracepoint wildcard whose matches lay out their fields differently
 * (sys_enter_exec*: argv at 24 in execve, 32 in execveat) and whose body
 * reads args: one probe per tracepoint, each typed by its own format, as
 * bpftrace does.  Returns 1 if pr was split (and freed), 0 if not. */
static int split_tracepoint(struct program *p, struct sema_probe *s, struct probe *pr,
			    struct loc loc, const struct probe_opts *po, struct diag *d, int *cap)
{
	bool differ = false;

	if (pr->kind != PK_TRACEPOINT || pr->nsites < 2 || pr->sys_raw || !po->use_args)
		return 0;
	for (int i = 0; i < pr->nsites && !differ; i++) {
		char *cat = strdup(pr->sites[i].func), *ev = cat ? strchr(cat, ':') : NULL;
		const struct type *t;

		if (!ev) {
			free(cat);
			return 0;
		}
		*ev++ = 0;
		t = tpf_read(cat, ev);
		differ = t && t->nfields > pr->args->nfields;
		free(cat);
	}
	if (!differ || probes_room(p, cap, pr->nsites) < 0)
		return 0;
	for (int i = 0; i < pr->nsites; i++) {
		struct probe *one = NULL;
		char *text = NULL;

		if (asprintf(&text, "tracepoint:%s", pr->sites[i].func) < 0 ||
		    probe_resolve(text, loc, po, d, &one) < 0) {
			free(text);
			continue;
		}
		free(text);
		p->probes[p->nprobes++] = one;
		s->nprobes++;
	}
	probe_free(pr);
	return 1;
}

/* An fentry/fexit wildcard (kfunc:vfs_*): one probe per matching function
 * of the kernel's BTF that ftrace can trace, each typed by its own
 * prototype, as bpftrace 0.17 attaches them (a program is loaded for one
 * target; the kernel has no multi-function fentry link).  The body's
 * args.NAME must then be a parameter every match has, by name and type
 * (sema).  Returns 1 if pr was split (and freed), 0 if not, -1 on error. */
static int split_fentry(struct program *p, struct sema_probe *s, struct probe *pr,
			struct loc loc, const struct probe_opts *po, struct diag *d, int *cap)
{
	const char *pat = pr->nsites ? pr->sites[0].func : NULL;
	int plen = (int)strcspn(pr->spec, ":"), n, rc = 0;
	char **names;

	if ((pr->kind != PK_FENTRY && pr->kind != PK_FEXIT) || !pat || !strpbrk(pat, "*?["))
		return 0;
	n = kbtf_funcs_matching(pat, &names);
	if (n <= 0) {
		diag_error(d, loc, n < 0 ? "%s: the kernel has no BTF, which fentry/fexit need"
			   : "%s: no function of the kernel's BTF that ftrace can trace matches",
			   pr->spec);
		probe_free(pr);
		return -1;
	}
	if (probes_room(p, cap, n) < 0)
		rc = -1;
	for (int i = 0; i < n; i++) {
		struct probe *one = NULL;
		char *text = NULL;

		if (!rc && (asprintf(&text, "%.*s:%s", plen, pr->spec, names[i]) < 0 ||
			    probe_resolve(text, loc, po, d, &one) < 0))
			rc = -1;
		else if (!rc) {
			p->probes[p->nprobes++] = one;
			s->nprobes++;
		}
		free(text);
		free(names[i]);
	}
	free(names);
	probe_free(pr);
	return rc < 0 ? -1 : 1;
}

/* Adds pr to the program, or the probes sys_split() makes of it; the
 * tracepoints left attach as raw tracepoints where the program allows. */
static int add_split(struct program *p, struct sema_probe *s, struct probe *pr,
		     bool no_context, struct loc loc, const struct probe_opts *po, struct diag *d,
		     int *cap)
{
	struct probe *raw[2];
	/* a raw_syscalls program's kernel stack starts at its own caller,
	 * not at perf_syscall_enter as each syscall tracepoint's does */
	int rc = po->kstack ? (raw[0] = raw[1] = NULL, 0) : sys_split(pr, raw);

	if (no_context)
		probe_use_raw_tp(pr);
	for (int k = 0; k < 2; k++)
		if (raw[k] && rc == 0) {
			p->probes[p->nprobes++] = raw[k];
			s->nprobes++;
		} else {
			probe_free(raw[k]);
		}
	if (pr->nsites == 0 && (raw[0] || raw[1]) && rc == 0) {
		probe_free(pr);
		return 0;
	}
	if (rc == 0 && !no_context && split_tracepoint(p, s, pr, loc, po, d, cap))
		return 0;
	p->probes[p->nprobes++] = pr;
	s->nprobes++;
	return rc;
}

/* uprobes on functions a binary lacks, in a script that names other attach
 * points: skipped as bpftrace skips them, and named in one warning. */
struct skips {
	struct loc first;
	int n, nkernel;
	FILE *f;
	char *text;
	size_t len;
};

static void skip_add(struct skips *k, const struct node *a, bool kernel)
{
	k->nkernel += kernel;
	if (!k->n++)
		k->first = a->loc;
	fprintf(k->f, "%s%s", k->n > 1 ? ", " : "", a->name);
}

/* Says what was skipped; an error (returns -1) if nothing is left to
 * attach.  rc: the resolution's result so far (no report after errors). */
static int skip_report(struct skips *k, const struct program *p, int rc, struct diag *d)
{
	int ret = 0;
	fclose(k->f);
	if (rc == 0 && k->n && !p->nprobes) {
		diag_error(d, k->first, "no probe to attach: %s none of the functions named",
			   k->nkernel == k->n ? "the kernel has" : k->nkernel ? "the kernel and binaries have"
			   : "the binaries have");
		ret = -1;
	} else if (rc == 0 && k->n) {
		diag_warn(d, k->first, "skipped %d attach point%s whose function the %s: %s",
			  k->n, k->n == 1 ? "" : "s",
			  k->nkernel == k->n ? "kernel lacks" : k->nkernel ? "kernel or binary lacks"
			  : "binary lacks", k->text);
	}
	free(k->text);
	return ret;
}

/* The kprobes of one probe's attach points (p->probes from first on)
 * that can share one kprobe_multi link join the first such, as a
 * wildcard's functions do: kprobe:a,kprobe:b attaches in one call and
 * detaches in one close.  Not when the body reads args (typed per
 * function) or probe (the attach point's own name). */
static int join_kprobes(struct program *p, struct sema_probe *s, int first)
{
	int into[2] = { -1, -1 }, k = first, rc = 0;

	for (int i = first; i < p->nprobes; i++) {
		struct probe *pr = p->probes[i];
		int r = pr->kind == PK_KRETPROBE, j = 0;

		if (pr->kind == PK_KPROBE || pr->kind == PK_KRETPROBE) {
			j = into[r] >= 0 ? probe_kmulti_join(p->probes[into[r]], pr) : 0;
			if (!j && into[r] < 0 && probe_kmulti_plain(pr))
				into[r] = k;
		}
		if (j < 0)
			rc = -1;
		if (j > 0) {
			probe_free(pr);
			s->nprobes--;
			continue;
		}
		p->probes[k++] = pr;
	}
	p->nprobes = k;
	return rc;
}

static int resolve_probes(struct node *root, const struct pr_compile_opts *o,
			  struct program *p, struct sema_probe **out, int *nout,
			  struct diag *d)
{
	int nprobe = 0, nattach = 0, k = 0, rc = 0, cap;
	struct sema_probe *sp;
	int *first;

	for (struct node *n = root->list; n; n = n->next)
		if (n->kind == N_PROBE) {
			nprobe++;
			nattach += ast_count(n->list);
		}
	sp = calloc(nprobe ? nprobe : 1, sizeof(*sp));
	first = calloc(nprobe ? nprobe : 1, sizeof(*first));
	/* sys_split() can make three probes of one attach point,
	 * split_tracepoint() one per tracepoint (it makes room). */
	cap = nattach ? 3 * nattach : 1;
	p->probes = calloc(cap, sizeof(*p->probes));
	if (!sp || !p->probes || !first) {
		free(sp);
		free(first);
		return -1;
	}
	struct skips sk = { .f = open_memstream(&sk.text, &sk.len) };
	if (!sk.f)
		return -1;
	for (struct node *n = root->list; n; n = n->next) {
		struct probe_opts po = { .pid = o->pid, .child = o->has_child, .default_bin = o->default_bin,
					 .missing_ok = nattach > 1, .unsafe = o->unsafe,
					 .demangle = !p->no_demangle, .verbose = o->verbose > 0 };
		struct sema_probe *s;

		if (n->kind != N_PROBE)
			continue;
		first[k] = p->nprobes;
		s = &sp[k++];
		s->node = n;
		po.use_args = probe_names(n, BI_ARGS);
		po.use_retval = probe_names(n, BI_RETVAL);
		/* kstack keeps the raw tracepoint (codegen skips BPF's own
		 * frames), but not the raw_syscalls program (add_split). */
		po.kstack = probe_names(n, BI_KSTACK);
		po.no_context = !po.use_args;
		for (struct node *a = n->list; a; a = a->next) {
			struct probe *pr = NULL, *more;
			char *text = expand_params(a->name, a->loc, o, d);

			if (!text || probe_resolve(text, a->loc, &po, d, &pr) < 0) {
				free(text);
				rc = -1;
				continue;
			}
			free(text);
			if (((pr->kind == PK_UPROBE || pr->kind == PK_URETPROBE) && !pr->nsites) ||
			    pr->unmatched) {
				skip_add(&sk, a, pr->unmatched);
				probe_free(pr);
				continue;
			}
			/* a usdt in several binaries: one probe each */
			for (; pr; pr = more) {
				more = pr->more;
				pr->more = NULL;
				int fe = split_fentry(p, s, pr, a->loc, &po, d, &cap);
				if (fe)
					rc = fe < 0 ? -1 : rc;
				else if (probes_room(p, &cap, 3) < 0 ||
					 add_split(p, s, pr, po.no_context, a->loc, &po, d, &cap) < 0)
					rc = -1;
			}
		}
		if (!po.use_args && !probe_names(n, BI_PROBE) &&
		    join_kprobes(p, s, first[k - 1]) < 0)
			rc = -1;
	}
	for (int i = 0; i < k; i++)
		sp[i].probes = &p->probes[first[i]];
	free(first);
	if (skip_report(&sk, p, rc, d))
		rc = -1;
	*out = sp;
	*nout = nprobe;
	return rc;
}

/* -v: how the DWARF sites were chosen where it is not plain. */
static void site_notes(const struct program *p)
{
	for (int i = 0; i < p->nprobes; i++)
		for (int k = 0; k < p->probes[i]->nsites; k++) {
			const char *note = dw_probe_note(p->probes[i]->sites[k].dw);
			if (note)
				fprintf(stderr, "perf-run: %s: %s\n", p->probes[i]->spec, note);
		}
}

/* -v: how many programs the sites of a uprobe or usdt wildcard share. */
static void share_notes(const struct program *p)
{
	for (int i = 0; i < p->nprobes; i++) {
		const struct probe *pr = p->probes[i];
		int n = 0;

		if (pr->nsites < 2 || (pr->kind != PK_UPROBE && pr->kind != PK_URETPROBE &&
				       pr->kind != PK_USDT))
			continue;
		for (int k = 0; k < p->nprogs; k++)
			n += p->progs[k].probe == pr && !p->progs[k].companion;
		fprintf(stderr, "perf-run: %s: %d sites, %d program%s\n", pr->spec, pr->nsites, n,
			n == 1 ? "" : "s");
	}
}

/*
 * Each program, map and link holds a file descriptor while the trace
 * runs.  Their number is known only after code generation (sites share
 * programs), but each probe needs at least a program (and a link unless
 * it is BEGIN or END) and each map one: a script past the hard limit
 * failed only at load, after compiling for minutes (10,000 probes with a
 * map each: 37 s, then EMFILE).  Said before compiling instead.
 */
static int fd_budget(const struct program *p, int nmaps, const struct pr_compile_opts *o,
		     struct diag *d)
{
	struct rlimit rl;
	long need = nmaps + 64;   /* the ring buffer, internal maps, stdio, libs */

	if (o->dump || getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_max == RLIM_INFINITY)
		return 0;
	for (int i = 0; i < p->nprobes; i++)
		need += p->probes[i]->kind == PK_BEGIN || p->probes[i]->kind == PK_END ? 1 : 2;
	if ((rlim_t)need <= rl.rlim_max)
		return 0;
	diag_error(d, (struct loc){ 0, 0, 1 }, "this script needs at least %ld file descriptors "
		   "(one per program, map and link; %d probes, %d maps) and the hard limit is "
		   "%llu: raise it ('ulimit -Hn', as root) or use fewer probes or maps", need,
		   p->nprobes, nmaps, (unsigned long long)rl.rlim_max);
	return -1;
}

struct program *pr_compile(const struct source *src, const struct pr_compile_opts *o,
			   struct diag *d)
{
	struct program *p = calloc(1, sizeof(*p));
	struct sema_opts so = { .params = o->params, .nparams = o->nparams, .unsafe = o->unsafe,
				.has_child = o->has_child, .named = o->named,
				.nnamed = o->nnamed };
	struct sema_probe *sp = NULL;
	struct sema s = { 0 };
	struct node *root;
	int nsp = 0, rc;

	if (!p)
		return NULL;
	p->src = src;
	p->keep_debug = o->keep_debug;
	root = parse_program(src, d);
	if (!root || d->errors)
		goto fail;
	p->no_demangle = o->no_demangle || !cfg_demangle(root);
	rc = resolve_probes(root, o, p, &sp, &nsp, d);
	if (o->verbose)
		site_notes(p);
	if (o->dump & PR_DUMP_PROBES)
		for (int i = 0; i < p->nprobes; i++)
			probe_dump(stdout, p->probes[i]);
	if (rc < 0)
		goto fail;
	rc = sema_check(root, sp, nsp, &so, d, &s);
	if (o->dump & PR_DUMP_AST) {
		ast_type_printer = sema_type_printer;
		ast_dump(stdout, root);
	}
	if (rc < 0 || fd_budget(p, s.nmaps, o, d))
		goto fail;
	if (cg_generate(sp, nsp, &s, src, o->dump, p, d) < 0)
		goto fail;
	if (o->verbose)
		share_notes(p);
	if (o->verbose && p->cached)
		fprintf(stderr, "perf-run: BPF object reused from the cache (PERF_RUN_NO_CACHE=1 to compile)\n");
	fflush(stdout);
	sema_free(&s);
	free(sp);
	ast_free(root);
	return p;
fail:
	fflush(stdout);
	sema_free(&s);
	free(sp);
	if (root)
		ast_free(root);
	pr_program_free(p);
	return NULL;
}

void pr_program_free(struct program *p)
{
	if (!p)
		return;
	free(p->elf);
	for (int i = 0; i < p->nprogs; i++) {
		free(p->progs[i].name);
		free(p->progs[i].sites);
	}
	free(p->progs);
	for (int i = 0; i < p->nprobes; i++)
		probe_free(p->probes[i]);
	free(p->probes);
	for (int i = 0; i < p->nactions; i++) {
		free(p->actions[i].fmt);
		free(p->actions[i].args);
	}
	free(p->actions);
	for (int i = 0; i < p->nmaps; i++) {
		free(p->maps[i].name);
		free(p->maps[i].bpf_name);
	}
	free(p->maps);
	free(p->ringbuf_name);
	free(p->stack_map_name);
	free(p->uw_rows_name);
	free(p->uw_objs_name);
	free(p->ustack_map_name);
	free(p->counters_map_name);
	free(p->config_map_name);
	free(p);
}
