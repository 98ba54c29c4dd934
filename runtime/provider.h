/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * provider.h - one probe type's way of attaching a loaded BPF program; what
 * it attached is links and fds, which detach.c releases for all types at
 * once.  Each prov_*.c file fills one struct provider; run.c
 * picks it by the probe's kind (prov_for() below) and never looks inside.
 * A new way to attach is a file here, its extern and a case in prov_for();
 * a new probe type also touches the compile side and -l: the recipe
 * "Adding a probe type" in docs/ARCHITECTURE.md lists the files.
 */
#ifndef PR_PROVIDER_H
#define PR_PROVIDER_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "compiler/program.h"

/* What one pr_prog holds once attached: libbpf links and raw fds (perf
 * events), all released by dt_release() (detach.h). */
struct prov_att {
	const struct pr_prog *pp;
	struct bpf_program *prog;
	struct bpf_link **links;
	int nlinks;
	int *fds;
	int nfds;
	int count;            /* attach points as bpftrace counts them */
	uint64_t *addrs;      /* watchpoint:FUNC+argN: the address each link watches, */
	uint64_t *unwatched;  /* and those unwatch() removed, which stay unwatched */
	int nunwatched;
};

struct prov_env {
	pid_t pid;            /* -p / traced command, 0 for every process */
	int verbose;
	struct diag *d;
	const struct program *prog; /* every program of the script */
	int kret_fd;          /* the object's PR_KRET_MAP, -1 if it has none, */
	int kname_fd;         /* PR_KNAME_MAP */
};

struct provider {
	const char *name;
	/* Before the object is loaded (NULL if nothing to do): set the
	 * program's attach target, or find out that this kernel lacks the
	 * mechanism and say so (returns -1). */
	int (*prepare)(struct prov_att *a, const struct prov_env *e);
	/* Attaches a->prog as a->pp says.  Reports through e->d at the probe's
	 * location and returns -1 on failure (what was attached stays in a). */
	int (*attach)(struct prov_att *a, const struct prov_env *e);
	/* Once BEGIN has run (NULL if nothing to do). */
	void (*start)(struct prov_att *a);
	/* watchpoint:FUNC+argN: watch addr now (NULL for other types).
	 * Returns 0 (watched, or already), PROV_NOSPC when the CPU has no
	 * breakpoint register left, -1 on another error (said on stderr). */
	int (*watch)(struct prov_att *a, const struct prov_env *e, uint64_t addr);
	/* unwatch(addr): removes a's watchpoints at addr, if any. */
	void (*unwatch)(struct prov_att *a, uint64_t addr);
};

#define PROV_NOSPC 1

extern const struct provider prov_uprobe;
extern const struct provider prov_tracepoint;
extern const struct provider prov_perf;
extern const struct provider prov_special;
extern const struct provider prov_kernel;

/* The helpers below are inline so that the provider module stays one
 * header plus one file per probe type. */

/* The provider of a probe kind. */
static inline const struct provider *prov_for(enum probe_kind k)
{
	switch (k) {
	case PK_UPROBE: case PK_URETPROBE: case PK_USDT:
		return &prov_uprobe;
	case PK_TRACEPOINT:
		return &prov_tracepoint;
	case PK_PROFILE: case PK_INTERVAL: case PK_SOFTWARE: case PK_HARDWARE:
	case PK_WATCHPOINT:
		return &prov_perf;
	case PK_BEGIN: case PK_END:
		return &prov_special;
	default:
		return &prov_kernel;
	}
}

/* Keeps a link in a; destroys it and returns -1 if out of memory. */
static inline int prov_add_link(struct prov_att *a, struct bpf_link *l)
{
	struct bpf_link **n = realloc(a->links, (size_t)(a->nlinks + 1) * sizeof(*n));
	if (!n) {
		bpf_link__destroy(l);
		return -1;
	}
	a->links = n;
	a->links[a->nlinks++] = l;
	return 0;
}

static inline int prov_add_fd(struct prov_att *a, int fd)
{
	int *n = realloc(a->fds, (size_t)(a->nfds + 1) * sizeof(*n));
	if (!n) {
		close(fd);
		return -1;
	}
	a->fds = n;
	a->fds[a->nfds++] = fd;
	return 0;
}

/* Reports a failed attach (err = -errno) at the probe's location. */
static inline void prov_fail(const struct prov_att *a, const struct prov_env *e,
			     const char *what, int err)
{
	diag_error(e->d, a->pp->loc, "cannot attach %s: %s", what, strerror(-err));
}

#endif
