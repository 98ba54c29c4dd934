// SPDX-License-Identifier: GPL-2.0-only
/*
 * prov_tracepoint.c - tracepoint:CAT:NAME through the tracepoint PMU
 * (bpf_program__attach_tracepoint), or as raw tracepoint NAME where the
 * program reads no trace record (probe.h, tp_raw).  A wildcard that
 * matched several tracepoints lists them as sites "cat:event"; each is one
 * attach point, except for a syscalls:* wildcard made one raw_syscalls
 * program.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>

#include "provider.h"

/* libbpf finds tracepoint ids under tracefs: mount it where it is missing. */
static void tp_mount_tracefs(void)
{
	if (access("/sys/kernel/tracing/events", F_OK) == 0 ||
	    access("/sys/kernel/debug/tracing/events", F_OK) == 0)
		return;
	mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL);
}

/* The kernel's BPF_TRACE_MAX_PROGS: programs on one perf event
 * (perf_event_attach_bpf_prog answers E2BIG beyond it). */
#define TP_MAX_PROGS 64

/* Whether site i of tracepoint probe p (i < 0: the probe itself, which has
 * no sites) is the perf event cat:event. */
static bool tp_is(const struct probe *p, int i, const char *cat, const char *event)
{
	if (p->kind != PK_TRACEPOINT || p->sys_raw || p->tp_raw || !p->category)
		return false;
	if (i < 0)
		return p->event && !strcmp(p->category, cat) && !strcmp(p->event, event);
	const char *name = p->sites[i].func, *colon = strchr(name, ':');
	if (!colon)
		return !strcmp(p->category, cat) && !strcmp(name, event);
	return strlen(cat) == (size_t)(colon - name) &&
	       !strncmp(name, cat, (size_t)(colon - name)) && !strcmp(colon + 1, event);
}

/* How many of the script's programs go on the perf event cat:event. */
static int tp_users(const struct program *prog, const char *cat, const char *event)
{
	int n = 0;
	for (int j = 0; prog && j < prog->nprogs; j++) {
		const struct pr_prog *pp = &prog->progs[j];
		const struct probe *p = pp->probe;
		int k = pp->sites ? pp->nsites : p->nsites == 0 ? 1 :
			pp->site < 0 ? p->nsites : 1;
		for (int i = 0; i < k; i++) {
			int site = p->nsites == 0 ? -1 : pp->sites ? pp->sites[i] :
				   pp->site < 0 ? i : pp->site;
			n += tp_is(p, site, cat, event);
		}
	}
	return n;
}

/* E2BIG from a tracepoint's perf event: its program slots are full. */
static void tp_too_many(const struct prov_att *a, const struct prov_env *e,
			const char *cat, const char *event)
{
	int n = tp_users(e->prog, cat, event);
	if (n > TP_MAX_PROGS)
		diag_error(e->d, a->pp->loc, "cannot attach tracepoint:%s:%s: the kernel runs "
			   "at most %d BPF programs on one tracepoint and this script puts %d "
			   "there; combine these probes into one", cat, event, TP_MAX_PROGS, n);
	else
		diag_error(e->d, a->pp->loc, "cannot attach tracepoint:%s:%s: the kernel runs "
			   "at most %d BPF programs on one tracepoint, this script puts %d there "
			   "and other tracers hold the rest; stop one of them or combine these "
			   "probes", cat, event, TP_MAX_PROGS, n);
}

static int tp_attach_one(struct prov_att *a, const struct prov_env *e,
			 const char *cat, const char *event)
{
	bool raw = a->pp->probe->tp_raw;
	struct bpf_link *l = raw ? bpf_program__attach_raw_tracepoint(a->prog, event)
				 : bpf_program__attach_tracepoint(a->prog, cat, event);
	if (!l) {
		int err = -errno;
		if (err == -E2BIG && !raw) {
			tp_too_many(a, e, cat, event);
			return -1;
		}
		diag_error(e->d, a->pp->loc, "cannot attach tracepoint:%s:%s%s: %s", cat, event,
			   raw ? " as a raw tracepoint" : "", strerror(-err));
		return -1;
	}
	if (prov_add_link(a, l))
		return -1;
	a->count++;
	return 0;
}

static int tp_attach_site(struct prov_att *a, const struct prov_env *e, const char *name)
{
	char cat[256];
	const char *colon = strchr(name, ':');
	if (!colon || colon - name >= (long)sizeof(cat))
		return tp_attach_one(a, e, a->pp->probe->category, name);
	memcpy(cat, name, (size_t)(colon - name));
	cat[colon - name] = 0;
	return tp_attach_one(a, e, cat, colon + 1);
}

/* A syscalls:* wildcard's one program (syscalls.h) stands for every site. */
static int tp_attach_raw(struct prov_att *a, const struct prov_env *e)
{
	const struct probe *p = a->pp->probe;
	const char *tp = p->sys_raw == SYS_ENTER ? "sys_enter" : "sys_exit";
	struct bpf_link *l = bpf_program__attach_raw_tracepoint(a->prog, tp);

	if (!l) {
		diag_error(e->d, a->pp->loc, "cannot attach raw_syscalls:%s for %s: %s", tp,
			   p->name, strerror(errno));
		return -1;
	}
	if (prov_add_link(a, l))
		return -1;
	a->count += p->nsites;
	return 0;
}

static int tp_attach(struct prov_att *a, const struct prov_env *e)
{
	const struct probe *p = a->pp->probe;

	if (p->sys_raw)
		return tp_attach_raw(a, e);
	tp_mount_tracefs();
	if (p->nsites == 0)
		return tp_attach_one(a, e, p->category, p->event);
	int from = a->pp->site < 0 ? 0 : a->pp->site;
	int to = a->pp->site < 0 ? p->nsites : a->pp->site + 1;
	for (int i = from; i < to && i < p->nsites; i++)
		if (tp_attach_site(a, e, p->sites[i].func))
			return -1;
	return 0;
}

const struct provider prov_tracepoint = {
	.name = "tracepoint",
	.attach = tp_attach,
};
