// SPDX-License-Identifier: GPL-2.0-only
/*
 * prov_perf.c - profile, interval, software and hardware probes: perf
 * events opened through libperf, one BPF perf_event link per event fd.
 *
 * libperf's public API does not hand out the fd of an opened evsel, so we
 * read it from the evsel's fd xyarray through libperf's internal headers
 * (internal/evsel.h, internal/xyarray.h).  Each link gets a dup of the fd
 * (libbpf closes the fd it was given on detach) and the evsel is closed
 * right away: the links alone own the events from then on.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <perf/cpumap.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>
#include <internal/evsel.h>
#include <internal/xyarray.h>

#include "provider.h"

static void pf_attr(const struct probe *p, struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	switch (p->kind) {
	case PK_PROFILE:
		a->type = PERF_TYPE_SOFTWARE;
		a->config = PERF_COUNT_SW_CPU_CLOCK;
		a->freq = 1;
		a->sample_freq = p->freq;
		break;
	case PK_INTERVAL:
		a->type = PERF_TYPE_SOFTWARE;
		a->config = PERF_COUNT_SW_CPU_CLOCK;
		a->sample_period = p->period;
		break;
	case PK_WATCHPOINT:
		a->type = PERF_TYPE_BREAKPOINT;
		a->bp_type = p->wp_type;
		a->bp_addr = p->wp_addr;
		a->bp_len = p->wp_len;
		a->sample_period = 1;
		break;
	default:
		a->type = p->perf_type;
		a->config = p->perf_config;
		a->sample_period = p->period ? p->period : 1;
	}
}

static bool pf_have_hw_pmu(void)
{
	return access("/sys/bus/event_source/devices/cpu", F_OK) == 0 ||
	       access("/sys/bus/event_source/devices/cpu_core", F_OK) == 0 ||
	       access("/sys/bus/event_source/devices/armv8_pmuv3_0", F_OK) == 0;
}

static void pf_open_error(const struct prov_att *a, const struct prov_env *e, int err)
{
	const struct probe *p = a->pp->probe;
	if (p->kind == PK_HARDWARE && (!pf_have_hw_pmu() || err == -ENOENT ||
				       err == -EOPNOTSUPP)) {
		diag_error(e->d, a->pp->loc, "%s: this machine has no hardware PMU; use "
			   "software:cpu-clock", p->spec);
		return;
	}
	diag_error(e->d, a->pp->loc, "%s: cannot open the perf event: %s", p->spec,
		   strerror(-err));
}

/* Links the program to every fd of an opened evsel. */
static int pf_link_all(struct prov_att *a, const struct prov_env *e,
		       struct perf_evsel *ev, int ncpu)
{
	for (int i = 0; i < ncpu; i++) {
		int *fdp = xyarray__entry(ev->fd, (size_t)i, 0);
		int fd = fdp ? dup(*fdp) : -1;
		if (fd < 0) {
			prov_fail(a, e, a->pp->probe->spec, -errno);
			return -1;
		}
		struct bpf_link *l = bpf_program__attach_perf_event(a->prog, fd);
		if (!l) {
			int err = -errno;
			close(fd);
			prov_fail(a, e, a->pp->probe->spec, err);
			return -1;
		}
		if (prov_add_link(a, l))
			return -1;
		/* interval keeps an fd of its own, to restart its period in pf_start */
		if (a->pp->probe->kind == PK_INTERVAL && (fd = dup(*fdp)) >= 0 && prov_add_fd(a, fd))
			return -1;
	}
	return 0;
}

/*
 * The events count from their attach, which comes before BEGIN runs; in
 * bpftrace BEGIN runs first.  Setting the period again restarts the timer
 * with the whole period, so that interval:s:1 fires a second after BEGIN,
 * not a second after the attach.
 */
static void pf_start(struct prov_att *a)
{
	uint64_t period = a->pp->probe->period;
	for (int i = 0; i < a->nfds; i++)
		if (ioctl(a->fds[i], PERF_EVENT_IOC_PERIOD, &period))
			fprintf(stderr, "perf-run: cannot restart %s: %s\n", a->pp->probe->spec,
				strerror(errno));
}

/* Opens the event attr describes and links the program to it.  Returns 0,
 * or -errno of the open (reported unless quiet_nospc and it is ENOSPC), or
 * -1 for another failure (reported). */
static int pf_open(struct prov_att *a, const struct prov_env *e, struct perf_event_attr *attr,
		   bool quiet_nospc)
{
	const struct probe *p = a->pp->probe;
	/* interval fires once per period, not once per CPU: one event on CPU 0;
	 * a watchpoint watches one process on any CPU (cpu -1), or the kernel
	 * on every CPU */
	bool wp = p->kind == PK_WATCHPOINT && !p->wp_kernel;
	struct perf_cpu_map *cpus = wp ? perf_cpu_map__dummy_new() :
				    perf_cpu_map__new(p->kind == PK_INTERVAL ? "0" : NULL);
	struct perf_thread_map *threads = perf_thread_map__new_dummy();
	struct perf_evsel *ev = NULL;
	int ret = -1;

	if (wp && threads)
		perf_thread_map__set_pid(threads, 0, e->pid);
	if (!cpus || !threads || !(ev = perf_evsel__new(attr))) {
		prov_fail(a, e, p->spec, -ENOMEM);
		goto out;
	}
	int err = perf_evsel__open(ev, cpus, threads);
	if (err) {
		err = err < 0 ? err : -EINVAL;
		if (!(quiet_nospc && err == -ENOSPC))
			pf_open_error(a, e, err);
		ret = err;
		goto out;
	}
	ret = pf_link_all(a, e, ev, perf_cpu_map__nr(cpus));
	perf_evsel__close(ev);
out:
	if (ev)
		perf_evsel__delete(ev);
	perf_thread_map__put(threads);
	perf_cpu_map__put(cpus);
	return ret;
}

static int pf_attach(struct prov_att *a, const struct prov_env *e)
{
	const struct probe *p = a->pp->probe;
	struct perf_event_attr attr;

	if (p->kind == PK_HARDWARE && !pf_have_hw_pmu()) {
		pf_open_error(a, e, -ENOENT);
		return -1;
	}
	if (p->kind == PK_WATCHPOINT && p->wp_func) {
		a->count++;   /* opened at each new address its uprobe sends (pf_watch) */
		return 0;
	}
	pf_attr(p, &attr);
	if (pf_open(a, e, &attr, false))
		return -1;
	a->count++;
	return 0;
}

/* Watched already, or unwatch()ed (which lasts, as in bpftrace, where the
 * next call with the same address does not watch it again). */
static bool pf_watching(const struct prov_att *a, uint64_t addr)
{
	for (int i = 0; i < a->nlinks; i++)
		if (a->addrs[i] == addr)
			return true;
	for (int i = 0; i < a->nunwatched; i++)
		if (a->unwatched[i] == addr)
			return true;
	return false;
}

/*
 * watchpoint:FUNC+argN: its uprobe sent addr.  One breakpoint per address
 * (an address already watched is not watched twice), on the traced process,
 * until the CPU's breakpoint registers run out (ENOSPC: 4 on x86-64).  A
 * synchronous watchpoint's process was stopped by the uprobe: it goes on
 * now, whether the watchpoint could be set or not, as in bpftrace.
 */
static int pf_watch(struct prov_att *a, const struct prov_env *e, uint64_t addr)
{
	const struct probe *p = a->pp->probe;
	struct perf_event_attr attr;
	int ret = 0;

	if (!pf_watching(a, addr)) {
		uint64_t *v = realloc(a->addrs, (size_t)(a->nlinks + 1) * sizeof(*v));
		int n = a->nlinks;

		if (!v) {
			ret = -1;
		} else {
			a->addrs = v;
			pf_attr(p, &attr);
			attr.bp_addr = addr;
			ret = pf_open(a, e, &attr, true);
			if (a->nlinks > n)
				a->addrs[n] = addr;
			if (e->verbose && !ret)
				fprintf(stderr, "perf-run: %s: watching 0x%llx in process %d\n",
					p->spec, (unsigned long long)addr, (int)e->pid);
			ret = ret == -ENOSPC ? PROV_NOSPC : ret ? -1 : 0;
		}
	}
	if (!p->wp_async && e->pid > 0 && kill(e->pid, SIGCONT) && errno != ESRCH)
		fprintf(stderr, "perf-run: cannot let process %d go on (SIGCONT): %s\n",
			(int)e->pid, strerror(errno));
	return ret;
}

/* unwatch(addr): the links watching addr go (bpftrace's unwatch: any
 * watchpoint probe at that address, of either form). */
static void pf_unwatch(struct prov_att *a, uint64_t addr)
{
	const struct probe *p = a->pp->probe;
	int k = 0;

	if (p->kind != PK_WATCHPOINT || (!p->wp_func && p->wp_addr != addr))
		return;
	for (int i = 0; p->wp_func && i < a->nlinks; i++) {
		uint64_t *v;

		if (a->addrs[i] != addr)
			continue;
		if ((v = realloc(a->unwatched, (size_t)(a->nunwatched + 1) * sizeof(*v)))) {
			a->unwatched = v;
			v[a->nunwatched++] = addr;
		}
		break;
	}
	for (int i = 0; i < a->nlinks; i++) {
		if (!p->wp_func || a->addrs[i] == addr) {
			bpf_link__destroy(a->links[i]);
			continue;
		}
		a->links[k] = a->links[i];
		a->addrs[k++] = a->addrs[i];
	}
	a->nlinks = k;
}

const struct provider prov_perf = {
	.name = "perf",
	.attach = pf_attach,
	.start = pf_start,
	.watch = pf_watch,
	.unwatch = pf_unwatch,
};
