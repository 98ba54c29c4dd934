// SPDX-License-Identifier: GPL-2.0-only
/*
 * cg_watch.c - the setup program of watchpoint:FUNC+argN (bpftrace 0.17's
 * second watchpoint form): a uprobe at FUNC's entry that sends argN, the
 * address to watch, to user space (an ACT_WATCH record), where the
 * runtime opens the breakpoint on the traced process and attaches the
 * watchpoint's own program to it (runtime/prov_perf.c).
 *
 * A watchpoint (not asyncwatchpoint) also stops the process (SIGSTOP,
 * delivered before FUNC's first instruction runs), and the runtime lets it
 * go on (SIGCONT) once the watchpoint is set, so that no access is missed.
 * If the record is lost (the ring buffer is full) no one would send that
 * SIGCONT: the program sends it itself, and the record counts as lost.
 * unwatch(addr) is a record too: the runtime removes the watchpoints at addr.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_int.h"

/* x86-64 struct pt_regs offsets of the argument registers di..r9 */
static const unsigned wp_arg_regs[6] = { 112, 104, 96, 88, 72, 64 };

/* The uprobe the setup program attaches to: FUNC's entry in the binary. */
static struct probe *wp_setup_probe(struct cg *g, const struct probe *wp)
{
	struct probe *p = calloc(1, sizeof(*p));
	struct probe **v = realloc(g->prog->probes, (g->prog->nprobes + 1) * sizeof(*v));

	if (!p || !v || !(p->sites = calloc(1, sizeof(*p->sites))))
		abort();
	g->prog->probes = v;
	v[g->prog->nprobes++] = p;
	p->kind = PK_UPROBE;
	p->loc = wp->loc;
	p->path = strdup(wp->path);
	if (!p->path || asprintf(&p->name, "uprobe:%s:%s (sets %s)", wp->path, wp->wp_func,
				 wp->name) < 0)
		abort();
	p->sites[0] = wp->sites[0];
	p->sites[0].func = strdup(wp->sites[0].func);
	p->sites[0].uargs = NULL;
	p->sites[0].dw = NULL;
	p->nsites = 1;
	return p;
}

static void wp_signal(struct cg *g, int sig)
{
	LLVMValueRef v = LLVMConstInt(g->i32, (unsigned)sig, 0);

	cg_helper(g, H_SEND_SIGNAL, &v, 1);
}

/* A one-address record of action kind k (ACT_WATCH, ACT_UNWATCH). */
static struct pr_action *wp_action(struct cg *g, enum pr_action_kind k, struct loc loc, int *id)
{
	struct pr_action *a = action_new(g, k, NULL, loc, id);
	struct pr_arg *args = malloc(sizeof(*args));

	if (!args)
		abort();
	*args = (struct pr_arg){ .type = type_int(8, false), .offset = 8 };   /* the address */
	a->args = args;
	a->nargs = 1;
	a->size = 16;
	return a;
}

void cg_unwatch(struct cg *g, LLVMValueRef addr, struct loc loc)
{
	int id;
	LLVMValueRef rec;

	wp_action(g, ACT_UNWATCH, loc, &id);
	rec = cg_alloca(g, 16, "unwatch");
	LLVMBuildStore(g->b, cg_const(g, id), rec);
	LLVMBuildStore(g->b, addr, cg_gep(g, rec, 8));
	cg_send(g, rec, 16);
}

/* The setup program of watchpoint probe wp, the i-th. */
static void wp_setup(struct cg *g, const struct probe *wp, int i)
{
	const struct probe *saved = g->probe;
	struct probe *p = wp_setup_probe(g, wp);
	char name[64], sec[64];
	int id;
	wp_action(g, ACT_WATCH, wp->loc, &id)->probe = wp;

	snprintf(name, sizeof(name), "wpset%d_uprobe", i);
	snprintf(sec, sizeof(sec), "uprobe/wpset%d", i);
	struct pr_prog *pp = cg_func_begin(g, name, sec, wp->loc);
	pp->bpf_prog_type = 2; /* BPF_PROG_TYPE_KPROBE */
	pp->probe = p;
	pp->site = 0;
	pp->companion = true;
	g->probe = p;

	/* after exit() no record is handled: a process stopped then would
	 * stay stopped */
	if (g->s->has_exit)
		cg_skip_after_exit(g);
	if (!wp->wp_async)
		wp_signal(g, SIGSTOP);
	LLVMValueRef rec = cg_alloca(g, 16, "wprec");
	LLVMBuildStore(g->b, cg_const(g, id), rec);
	LLVMBuildStore(g->b, cg_ctx_load(g, wp_arg_regs[wp->wp_arg], 8), cg_gep(g, rec, 8));
	LLVMValueRef out[4] = { cg_ringbuf(g), rec, cg_const(g, 16), cg_const(g, 0) };
	LLVMBasicBlockRef ok = cg_if(g, cg_helper(g, H_RINGBUF_OUTPUT, out, 4), "wplost");
	cg_count(g, CG_LOST);
	if (!wp->wp_async)
		wp_signal(g, SIGCONT);   /* no one else will */
	LLVMBuildBr(g->b, ok);
	LLVMPositionBuilderAtEnd(g->b, ok);
	g->ringbuf_busy = true;
	cg_func_end(g);
	g->probe = saved;
}

void cg_watch_setups(struct cg *g)
{
	int n = g->prog->nprobes;

	for (int i = 0; i < n; i++) {
		const struct probe *p = g->prog->probes[i];

		if (p->kind == PK_WATCHPOINT && p->wp_func)
			wp_setup(g, p, i);
	}
}
