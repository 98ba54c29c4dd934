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

static int tp_attach_one(struct prov_att *a, const struct prov_env *e,
			 const char *cat, const char *event)
{
	bool raw = a->pp->probe->tp_raw;
	struct bpf_link *l = raw ? bpf_program__attach_raw_tracepoint(a->prog, event)
				 : bpf_program__attach_tracepoint(a->prog, cat, event);
	if (!l) {
		int err = -errno;
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
