// SPDX-License-Identifier: GPL-2.0-only
/*
 * loader.c - libbpf open and load.  libbpf's own chatter is only shown with
 * -v; the verifier log goes into one large buffer so that a rejection can
 * be traced back to the script line of the failing instruction through the
 * line info the compiler put in the object's BTF.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "loader.h"
#include "verifier.h"

#define LD_LOG_SIZE (16u << 20)

static int ld_verbose;
/* The program libbpf last said it failed to load ("prog 'NAME': ...
 * load failed"): libbpf stops at the first, so it is the rejected one. */
static char ld_failed_name[128];

static void ld_note_failure(const char *fmt, va_list ap)
{
	char buf[512], name[128];
	va_list cp;
	if (!strstr(fmt, "prog '") || !strstr(fmt, "failed"))
		return;
	va_copy(cp, ap);
	vsnprintf(buf, sizeof(buf), fmt, cp);
	va_end(cp);
	const char *at = strstr(buf, "prog '");
	if (at && sscanf(at, "prog '%127[^']'", name) == 1)
		snprintf(ld_failed_name, sizeof(ld_failed_name), "%s", name);
}

static int ld_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_WARN)
		ld_note_failure(fmt, ap);
	if (!ld_verbose || (level == LIBBPF_DEBUG && ld_verbose < 2))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

int ld_map_fd(struct bpf_object *o, const char *name)
{
	struct bpf_map *m = name ? bpf_object__find_map_by_name(o, name) : NULL;
	return m ? bpf_map__fd(m) : -1;
}

static const struct pr_prog *ld_failed(const struct program *p, struct bpf_object *o)
{
	for (int i = 0; ld_failed_name[0] && i < p->nprogs; i++)
		if (!strcmp(p->progs[i].name, ld_failed_name))
			return &p->progs[i];
	for (int i = 0; i < p->nprogs; i++) {
		struct bpf_program *bp = bpf_object__find_program_by_name(o, p->progs[i].name);
		if (bp && bpf_program__fd(bp) < 0)
			return &p->progs[i];
	}
	return p->nprogs ? &p->progs[0] : NULL;
}

static ld_recompile_fn ld_recompile;
static void *ld_recompile_arg;

void ld_set_recompile(ld_recompile_fn fn, void *arg)
{
	ld_recompile = fn;
	ld_recompile_arg = arg;
}

/* Opens q's object with program `name` alone to load, log into log. */
static struct bpf_object *ld_open_one(const struct program *q, const char *name, char *log)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = "perf_run",
		    .kernel_log_buf = log, .kernel_log_size = LD_LOG_SIZE);
	struct bpf_object *o = bpf_object__open_mem(q->elf, q->elf_size, &oo);
	struct bpf_map *m = o && q->ringbuf_name ?
			    bpf_object__find_map_by_name(o, q->ringbuf_name) : NULL;

	if (m && q->ringbuf_size)
		bpf_map__set_max_entries(m, q->ringbuf_size);
	for (int i = 0; o && i < q->nprogs; i++) {
		struct bpf_program *bp = bpf_object__find_program_by_name(o, q->progs[i].name);
		if (!bp)
			continue;
		bpf_program__set_type(bp, (enum bpf_prog_type)q->progs[i].bpf_prog_type);
		if (q->progs[i].sleepable)
			bpf_program__set_flags(bp, bpf_program__flags(bp) | BPF_F_SLEEPABLE);
		bpf_program__set_autoload(bp, !strcmp(q->progs[i].name, name));
	}
	return o;
}

/* The rejection of a lean object's program `name` explained at its
 * statement: the program compiled again with its line info and loaded
 * alone.  0 if *x holds a place found in that line info, -1 if not (no
 * recompile, the load passed this time, no place). */
static int ld_explain_full(const char *name, struct vf_explain *x)
{
	struct program *q = ld_recompile ? ld_recompile(ld_recompile_arg, name) : NULL;
	char *log = q && q->elf ? calloc(1, LD_LOG_SIZE) : NULL;
	struct bpf_object *o = log ? ld_open_one(q, name, log) : NULL;
	struct loc l;
	int rc = -1;

	if (o && bpf_object__load(o) && log[0] &&
	    vf_insn_loc(q, name, vf_last_insn(log), &l) == 0) {
		if (!vf_explain(q, name, log, x))
			rc = 0;
	}
	if (o)
		bpf_object__close(o);
	free(log);
	if (q)
		pr_program_free(q);
	return rc;
}

static void ld_report(const struct program *p, struct bpf_object *o, const char *log,
		      int err, int verbose, struct diag *d)
{
	const struct pr_prog *pp = ld_failed(p, o);
	struct vf_explain x;

	if (err == -EMFILE || err == -ENFILE) {   /* no verdict: the log is stale or empty */
		diag_error(d, pp ? pp->loc : (struct loc){ 0, 0, 1 },
			   "the kernel refused to load this probe: %s (one per program, map "
			   "and link; raise 'ulimit -Hn')", strerror(-err));
		return;
	}
	if (!log || !*log) {
		diag_error(d, pp ? pp->loc : (struct loc){ 0, 0, 1 },
			   "the kernel refused to load this probe: %s", strerror(-err));
		return;
	}
	if (verbose)
		fprintf(stderr, "%s", log);
	if (vf_explain(p, pp ? pp->name : NULL, log, &x)) {
		diag_error(d, pp ? pp->loc : (struct loc){ 0, 0, 1 },
			   "the kernel verifier rejected this probe");
		return;
	}
	/* A large script's object has no line info (compiler/cg_emit.c,
	 * cg_lean_debug_info): the rejected program compiled again with it places
	 * the error; failing that, the place is the probe, and the sentence
	 * says why. */
	struct vf_explain full;
	if (p->lean_btf && pp && ld_explain_full(pp->name, &full) == 0) {
		diag_error(d, full.loc, "%s", full.sentence);
		free(full.sentence);
		free(x.sentence);
		return;
	}
	diag_error(d, x.loc, "%s%s", x.sentence, p->lean_btf ? " (in this probe: a script this "
		   "large is compiled without line info, so the statement is not known)" : "");
	free(x.sentence);
}

static int ld_set_types(const struct program *p, struct bpf_object *o, struct diag *d)
{
	for (int i = 0; i < p->nprogs; i++) {
		struct bpf_program *bp = bpf_object__find_program_by_name(o, p->progs[i].name);
		if (!bp) {
			diag_error(d, p->progs[i].loc, "internal error: program '%s' is missing "
				   "from the BPF object", p->progs[i].name);
			return -1;
		}
		bpf_program__set_type(bp, (enum bpf_prog_type)p->progs[i].bpf_prog_type);
		if (p->progs[i].sleepable)
			bpf_program__set_flags(bp, bpf_program__flags(bp) | BPF_F_SLEEPABLE);
	}
	return 0;
}

static int ld_size_ringbuf(const struct program *p, struct bpf_object *o, struct diag *d)
{
	struct bpf_map *m = p->ringbuf_name ? bpf_object__find_map_by_name(o, p->ringbuf_name) : NULL;

	if (!m || !p->ringbuf_size)
		return 0;
	if (bpf_map__set_max_entries(m, p->ringbuf_size)) {
		diag_error(d, (struct loc){ 0, 0, 1 }, "cannot size the ring buffer: %s",
			   strerror(errno));
		return -1;
	}
	return 0;
}

/* The verifier log of the last load; kept by ld_open for ld_load. */
static char *ld_log;

struct bpf_program *ld_prog(const struct program *p, struct bpf_object *o, int i)
{
	return bpf_object__find_program_by_name(o, p->progs[i].name);
}

struct bpf_object *ld_open(const struct program *p, int verbose, struct diag *d)
{
	struct bpf_object *o;

	ld_verbose = verbose;
	libbpf_set_print(ld_print);
	if (!ld_log)
		ld_log = calloc(1, LD_LOG_SIZE);
	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = "perf_run",
		    .kernel_log_buf = ld_log, .kernel_log_size = ld_log ? LD_LOG_SIZE : 0);
	o = bpf_object__open_mem(p->elf, p->elf_size, &oo);
	if (!o) {
		diag_error(d, (struct loc){ 0, 0, 1 }, "cannot open the compiled BPF object: %s",
			   strerror(errno));
		free(ld_log);
		ld_log = NULL;
		return NULL;
	}
	if (ld_set_types(p, o, d) || ld_size_ringbuf(p, o, d)) {
		bpf_object__close(o);
		free(ld_log);
		ld_log = NULL;
		return NULL;
	}
	return o;
}

int ld_load(const struct program *p, struct bpf_object *o, int verbose, struct diag *d)
{
	if (ld_log)
		ld_log[0] = 0;
	ld_failed_name[0] = 0;
	int err = bpf_object__load(o);
	if (err)
		ld_report(p, o, ld_log, err, verbose, d);
	free(ld_log);
	ld_log = NULL;
	return err ? -1 : 0;
}
