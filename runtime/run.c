// SPDX-License-Identifier: GPL-2.0-only
/*
 * run.c - the runtime's driver: load, attach through the providers, run
 * BEGIN, loop over ring buffer records, and on the way out detach, run
 * END and print the maps.  Every stop condition (exit(), Ctrl-C, the
 * traced command or -p process ending) leads through the same exit path,
 * so END and the maps are never skipped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "child.h"
#include "detach.h"
#include "events.h"
#include "exporter.h"
#include "loader.h"
#include "mapprint.h"
#include "mapwalk.h"
#include "out_perfdata.h"
#include "out_pprof.h"
#include "profile.h"
#include "provider.h"
#include "run.h"
#include "stackids.h"
#include "symbols.h"
#include "unwind.h"
#include "watchdog.h"

#define RT_POLL_MS 100

static volatile sig_atomic_t rt_stop_sig;
static volatile sig_atomic_t rt_dump_maps;   /* SIGUSR1: print the maps, go on */

/* A pipe the signal handlers write a byte to, read by rt_wait(): a signal
 * that comes just before the wait still ends it (a plain sleep missed the
 * exit of a short command for up to RT_POLL_MS). */
static int rt_wake[2] = { -1, -1 };

static void rt_poke(void)
{
	int e = errno;
	if (rt_wake[1] >= 0 && write(rt_wake[1], "", 1) < 0) {
		/* full: a wake-up is pending anyway */
	}
	errno = e;
}

static void rt_on_signal(int sig)
{
	rt_stop_sig = sig;
	rt_poke();
}

struct rt {
	struct program *p;
	const struct rt_opts *o;
	struct diag *d;
	struct bpf_object *obj;
	struct prov_att *att;
	int *map_fds;
	struct ring_buffer *rb;
	struct sym *sym;
	double sym_next;   /* when to read the traced command's mappings again */
	int sym_step;      /* ms between those reads, 0 until it has exec'd */
	int child_execs;   /* the child's execs when rt_child_exec last ran */
	struct ev_ctx ev;
	bool detached;     /* rt_detach ran: no more watchpoints are set */
	struct uw *uw;     /* ustack's unwind tables (unwind.h), NULL if none */
	struct stackids *si;   /* ustack ids given back (stackids.h), NULL if none */
	int stack_n_fds[FMT_MAX_FRAMES];   /* "stacks_N" maps (fmt_ctx), -1 if none */
	void *counters;    /* the program's .bss, mapped read-only; NULL if none */
	size_t counters_len;
	int wd;            /* the watchdog's pipe (watchdog.h), -1 if none */
	struct exporter *ex;   /* --listen (exporter.h), NULL if not */
};

static double rt_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void rt_on_usr1(int sig)
{
	(void)sig;
	rt_dump_maps = 1;
	rt_poke();
}

static void rt_on_child(int sig)
{
	(void)sig;   /* only to end the wait early: the child stopped or exited */
	rt_poke();
}

/* SA_RESTART keeps writes to a slow pipe whole; rt_wait() still ends at
 * once, through rt_wake. */
static void rt_signals(void)
{
	struct sigaction sa;
	if (rt_wake[0] < 0 && pipe2(rt_wake, O_NONBLOCK | O_CLOEXEC))
		rt_wake[0] = rt_wake[1] = -1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = rt_on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = rt_on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = rt_on_child;
	sigaction(SIGCHLD, &sa, NULL);
	/* a reader that went away (| head) is EPIPE from the write, which
	 * ends the run as Ctrl-C does: END, the loss summary, the command
	 * killed, every probe detached; SIGPIPE would skip all of that */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

/* What the providers go by (the maps' fds once the object is loaded). */
static struct prov_env rt_env(const struct rt *r)
{
	return (struct prov_env){ r->o->pid, r->o->verbose, r->d, r->p,
				  ld_map_fd(r->obj, PR_KRET_MAP), ld_map_fd(r->obj, PR_KNAME_MAP) };
}

/* Finds each program and lets its provider set it up before the load. */
static int rt_prepare(struct rt *r)
{
	const struct program *p = r->p;
	struct prov_env env = rt_env(r);

	r->att = calloc((size_t)p->nprogs + 1, sizeof(*r->att));
	if (!r->att)
		return -1;
	for (int i = 0; i < p->nprogs; i++) {
		struct prov_att *a = &r->att[i];
		a->pp = &p->progs[i];
		a->prog = ld_prog(p, r->obj, i);
		const struct provider *pv = prov_for(a->pp->probe->kind);
		if (pv->prepare && pv->prepare(a, &env))
			return -1;
	}
	return 0;
}

static int rt_write_config(struct rt *r)
{
	int fd = ld_map_fd(r->obj, r->p->config_map_name);
	uint32_t zero = 0;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);   /* bpf_ktime_get_ns()'s clock */
	struct pr_config cfg = {
		.start_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec,
		.target_pid = (uint64_t)(r->o->pid > 0 ? r->o->pid : 0),
	};
	if (fd < 0)
		return 0;
	if (bpf_map_update_elem(fd, &zero, &cfg, BPF_ANY)) {
		diag_error(r->d, (struct loc){ 0, 0, 1 }, "cannot write the config map: %s",
			   strerror(errno));
		return -1;
	}
	return 0;
}

static bool rt_is_uprobe(const struct prov_att *a)
{
	enum probe_kind k = a->pp->probe->kind;
	return k == PK_UPROBE || k == PK_URETPROBE || k == PK_USDT;
}

/* The kernel runs the consumers of one uprobe newest first: uprobes are
 * attached last to first, so that probes on one address run in script
 * order, as in bpftrace. */
static int rt_attach(struct rt *r, int *count)
{
	struct prov_env env = rt_env(r);
	int n = r->p->nprogs;
	*count = 0;
	for (int j = 0; j < 2 * n; j++) {
		int i = j < n ? j : 2 * n - 1 - j;
		struct prov_att *a = &r->att[i];
		if (rt_is_uprobe(a) != (j >= n))
			continue;
		if (prov_for(a->pp->probe->kind)->attach(a, &env))
			return -1;
		if (!a->pp->companion)
			*count += a->count;
	}
	return 0;
}

/* ev_ctx's watch: the watchpoint program of probe p watches addr.  After
 * exit() or the detach nothing is attached any more, but a stopped process
 * is still let go. */
static int rt_watch(void *arg, const struct probe *p, uint64_t addr)
{
	struct rt *r = arg;
	struct prov_env env = rt_env(r);

	for (int i = 0; i < r->p->nprogs; i++) {
		struct prov_att *a = &r->att[i];
		const struct provider *pv = prov_for(p->kind);

		if (a->pp->probe != p || a->pp->companion || !pv->watch)
			continue;
		if (r->detached || r->ev.exit_requested) {
			if (!p->wp_async && r->o->pid > 0)
				kill(r->o->pid, SIGCONT);
			return 0;
		}
		return pv->watch(a, &env, addr) == PROV_NOSPC ? EV_WATCH_NOSPC : 0;
	}
	return 0;
}

/* ev_ctx's unwatch: no watchpoint watches addr any more. */
static void rt_unwatch(void *arg, uint64_t addr)
{
	struct rt *r = arg;

	for (int i = 0; i < r->p->nprogs && !r->detached; i++) {
		const struct provider *pv = prov_for(r->att[i].pp->probe->kind);

		if (pv->unwatch && !r->att[i].pp->companion)
			pv->unwatch(&r->att[i], addr);
	}
}

static void rt_detach(struct rt *r, bool keep_end)
{
	r->detached = true;
	if (r->att)
		dt_release(r->att, r->p->nprogs, keep_end ? PK_END : -1);
}

/* Reads every record committed so far.  One consume can stop short while
 * producers on other CPUs keep committing, so repeat until a pass finds
 * nothing (bounded, in case they never stop). */
static void rt_drain(struct rt *r)
{
	for (int i = 0; r->rb && i < 1000; i++) {
		int n = ring_buffer__consume(r->rb);
		if (n == 0 || (n < 0 && n != -EINTR))
			break;
	}
	ev_flush(&r->ev);
}

static void rt_drain_cb(void *arg)
{
	rt_drain(arg);
}

/* BEGIN or END: run each such program once; what they send stays in the
 * ring buffer until the next drain. */
static void rt_run_progs(struct rt *r, enum probe_kind k)
{
	for (int i = 0; i < r->p->nprogs; i++) {
		if (r->p->progs[i].probe->kind != k || !r->att[i].prog)
			continue;
		LIBBPF_OPTS(bpf_test_run_opts, t);
		if (bpf_prog_test_run_opts(bpf_program__fd(r->att[i].prog), &t))
			fprintf(stderr, "perf-run: cannot run %s: %s\n",
				k == PK_BEGIN ? "BEGIN" : "END", strerror(errno));
	}
}

/* BEGIN or END: run each such program once, then print what it sent. */
static void rt_run_special(struct rt *r, enum probe_kind k)
{
	rt_run_progs(r, k);
	rt_drain(r);
}

/* Each provider's start hook, once BEGIN has run. */
static void rt_start_probes(struct rt *r)
{
	for (int i = 0; i < r->p->nprogs; i++) {
		const struct provider *pv = prov_for(r->p->progs[i].probe->kind);
		if (pv->start)
			pv->start(&r->att[i]);
	}
}

static bool rt_target_gone(const struct rt *r)
{
	if (r->o->child || r->o->pid <= 0)
		return false;
	return kill(r->o->pid, 0) && errno == ESRCH;
}

/* Whether the traced command has left our fork for its own program
 * (only asked when its execs cannot be counted). */
static bool rt_child_execed(const struct child *c)
{
	char exe[4096], self[4096], link[64];
	if (c->traced || c->mr)
		return c->execs > 0;
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)c->pid);
	ssize_t n = readlink(link, exe, sizeof(exe) - 1);
	ssize_t m = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0 || m <= 0)
		return false;
	exe[n] = self[m] = 0;
	return strcmp(exe, self) != 0;
}

/* The traced command's mappings, read again while it lives: user stacks
 * and usym() are printed after it has exited, when /proc no longer has
 * them.  Where the kernel announces its mappings (child.h's maps_new),
 * read when it has mapped something new, at most every 10 ms, and from
 * the announcements once it has gone (rt_child_gone).  Otherwise read
 * right after the exec, then at growing intervals (libraries arrive in the
 * first milliseconds, dlopen() later), and the last read is left to chance. */
static void rt_track_child(struct rt *r)
{
	struct child *c = r->o->child;
	if (!c || c->exited || rt_now_ms() < r->sym_next || !rt_child_execed(c))
		return;
	if (c->mr) {
		if (!c->maps_new)
			return;
		c->maps_new = 0;   /* read from /proc: better than the records while it lives */
		sym_refresh(r->sym, c->pid);
		r->sym_step = 10;
	} else {
		sym_refresh(r->sym, c->pid);
		r->sym_step = r->sym_step ? r->sym_step * 2 : 5;
		if (r->sym_step > 1000)
			r->sym_step = 1000;
	}
	r->sym_next = rt_now_ms() + r->sym_step;
}

/* The command has exited: its mappings from the perf records, which hold
 * all it mapped.  Not only when records came after the last read of /proc:
 * that read may have found the process already dead (a short command,
 * exited but not yet reaped), and then gave nothing. */
static void rt_child_gone(struct rt *r)
{
	struct child *c = r->o->child;
	if (!c || !c->exited)
		return;
	/* as a shell would say it: a crash is not an ordinary end of the run */
	if (WIFSIGNALED(c->status))
		fprintf(stderr, "perf-run: the command '%s' was killed by signal %d (%s)%s\n",
			c->name ? c->name : child_path(c), WTERMSIG(c->status),
			strsignal(WTERMSIG(c->status)), WCOREDUMP(c->status) ? ", core dumped" : "");
	if (!c->mr)
		return;
	char *text = child_maps_text(c);
	sym_refresh_text(r->sym, c->pid, text);
	free(text);
}

/* --command-status: the status perf stat and perf record give, that of
 * the command, when it ended on its own (not stopped by exit() or a
 * signal to perf-run, when perf-run killed it): its exit code, or 128+N
 * if a signal N killed it, as a shell reports it. */
static int rt_command_status(const struct rt *r)
{
	const struct child *c = r->o->child;

	if (!c || !c->exited || r->ev.exit_requested || rt_stop_sig)
		return 0;
	if (WIFEXITED(c->status))
		return WEXITSTATUS(c->status);
	return WIFSIGNALED(c->status) ? 128 + WTERMSIG(c->status) : 0;
}

/* symbols.h's fallback for the traced command: its mappings from the perf
 * mmap records, when they hold some not yet given (a short command's
 * records can be read after it has died, before rt_loop sees it go). */
static char *rt_child_maps(void *arg)
{
	struct rt *r = arg;
	struct child *c = r->o->child;

	if (!c->mr)
		return NULL;
	child_poll(c);
	return c->maps_new ? child_maps_text(c) : NULL;
}

/* child.h's on_exec: the child runs a new program (the first exec leaves
 * only our fork, whose mappings need not be kept). */
static void rt_child_exec(void *arg, pid_t pid)
{
	struct rt *r = arg;
	int execs = r->o->child->execs;
	if (execs != r->child_execs && r->child_execs > 0)
		sym_exec(r->sym, pid);
	r->child_execs = execs;
	if (!r->o->child->exited)
		sym_refresh(r->sym, pid);
	sym_fallback(r->sym, pid, rt_child_maps, r);
	if (!r->sym_step)
		r->sym_step = 5;
	r->sym_next = rt_now_ms() + r->sym_step;
}

/* Poll timeout: short while the child's mappings are still being read. */
static int rt_poll_ms(const struct rt *r)
{
	const struct child *c = r->o->child;
	if (!c || c->exited || !r->sym_step || (c->mr && !c->maps_new))
		return RT_POLL_MS;
	double left = r->sym_next - rt_now_ms();
	return left < 1 ? 1 : left > RT_POLL_MS ? RT_POLL_MS : (int)left;
}

/* Waits up to timeout_ms for records or a signal, then reads the records:
 * their count, or ring_buffer__consume()'s error. */
static int rt_wait(struct rt *r, int timeout_ms)
{
	const struct child *c = r->o->child;
	struct pollfd pf[5] = {
		{ .fd = rt_wake[0], .events = POLLIN },
		{ .fd = r->rb ? ring_buffer__epoll_fd(r->rb) : -1, .events = POLLIN },
		{ .fd = c && !c->exited ? c->pidfd : -1, .events = POLLIN },   /* its exit */
		{ .fd = uw_poll_fd(r->uw), .events = POLLIN },   /* objects ustack met unread */
		{ .fd = ex_fd(r->ex), .events = POLLIN },   /* --listen's connections */
	};
	char buf[64];

	poll(pf, 5, ex_timeout(r->ex, timeout_ms));   /* fds of -1 are left out */
	while (rt_wake[0] >= 0 && read(rt_wake[0], buf, sizeof(buf)) > 0)
		;
	uw_poll(r->uw);
	int n = r->rb ? ring_buffer__consume(r->rb) : 0;
	ex_run(r->ex, pf[4].revents != 0);   /* after the records: a scrape never delays them */
	return n;
}

static void rt_loop(struct rt *r)
{
	struct child *c = r->o->child;
	while (!rt_stop_sig && !r->ev.exit_requested && r->ev.write_errno != EPIPE) {
		rt_track_child(r);
		int n = rt_wait(r, rt_poll_ms(r));
		if (n < 0 && n != -EINTR)
			break;
		if (n > 0)
			ev_flush(&r->ev);
		si_collect(r->si, r->ev.clears, rt_drain_cb, r);
		if (rt_dump_maps) {   /* as bpftrace: the maps as they are now */
			rt_dump_maps = 0;
			ev_print_maps(&r->ev, false);
			ev_flush(&r->ev);
		}
		if (r->ev.exit_flag && *r->ev.exit_flag) {
			rt_detach(r, true);   /* nothing more after exit() */
			rt_drain(r);   /* up to its record, or one buffer's worth */
			r->ev.exit_requested = true;
		}
		/* the command's last events are in the buffer when it is reaped:
		 * they are read in rt_finish, before END */
		if (c && child_poll(c)) {
			rt_child_gone(r);
			break;
		}
		if (rt_target_gone(r))
			break;
	}
}

/* The loss counters: the program's .bss array, PR_LOST.. (zeros if absent). */
static void rt_counters(struct rt *r, uint64_t c[PR_NCOUNTERS])
{
	struct bpf_map *m = r->p->counters_map_name ?
		bpf_object__find_map_by_name(r->obj, r->p->counters_map_name) : NULL;
	uint32_t zero = 0, size = m ? bpf_map__value_size(m) : 0;

	memset(c, 0, sizeof(uint64_t) * PR_NCOUNTERS);
	if (size < sizeof(uint64_t) * PR_NCOUNTERS)
		return;
	uint64_t *v = calloc(1, size);
	if (v && !bpf_map_lookup_elem(bpf_map__fd(m), &zero, v))
		memcpy(c, v, sizeof(uint64_t) * PR_NCOUNTERS);
	free(v);
}

/* Whether script map i holds max_entries keys: the one a failed update
 * was meant for (the drops counter is shared by every map). */
static bool rt_map_full(struct rt *r, int i)
{
	const struct pr_map *m = &r->p->maps[i];
	struct mw_walk w;

	if (m->array || r->map_fds[i] < 0)
		return false;   /* an array's every index exists: never full */
	/* distinct keys: a walk that restarts or cycles counts none twice */
	mw_init(&w, r->map_fds[i], m->key_size, m->max_entries);
	while (w.nkeys < w.max_entries && mw_next(&w))
		;
	bool full = w.nkeys >= w.max_entries;
	mw_free(&w);
	return full;
}

/* Hits the kernel skipped without running the program (recursion_misses):
 * one BPF tracing program at a time per CPU, so a tracepoint that fires
 * inside another program (signal:signal_generate under signal(), a lock
 * or allocation tracepoint under a helper) is not run there. */
static void rt_report_misses(struct rt *r)
{
	for (int i = 0; i < r->p->nprogs; i++) {
		const struct pr_prog *pp = &r->p->progs[i];
		uint64_t n = 0;

		for (int k = i; k < r->p->nprogs && r->p->progs[k].probe == pp->probe; k++, i = k - 1) {
			struct bpf_program *bp = bpf_object__find_program_by_name(r->obj,
										  r->p->progs[k].name);
			struct bpf_prog_info info;
			uint32_t len = sizeof(info);

			memset(&info, 0, sizeof(info));
			if (bp && bpf_program__fd(bp) >= 0 &&
			    !bpf_obj_get_info_by_fd(bpf_program__fd(bp), &info, &len))
				n += info.recursion_misses;
		}
		if (n)
			fprintf(stderr, "%llu hit%s of %s skipped by the kernel: another BPF "
				"program was running on that CPU\n", (unsigned long long)n,
				n == 1 ? "" : "s", pp->probe->name);
	}
}

/* Nothing is lost silently: records the ring buffer had no room for, and
 * map updates refused because the map was full or, with room left, because
 * the kernel had no element ready: hash maps take one on insert from a
 * per-CPU cache that the kernel refills later (after interrupts are back
 * on), and refuses an insert from inside another update of the map. */
static void rt_report_losses(struct rt *r)
{
	uint64_t c[PR_NCOUNTERS];
	rt_counters(r, c);
	uint64_t lost = c[PR_LOST], drops = c[PR_DROPS], faults = c[PR_FAULTS];
	if (lost)
		fprintf(stderr, "%llu events lost\n", (unsigned long long)lost);
	if (drops) {
		int n = 0;

		fprintf(stderr, "%llu map updates dropped", (unsigned long long)drops);
		for (int i = 0; i < r->p->nmaps; i++) {   /* an LRU map evicts instead */
			const struct pr_map *m = &r->p->maps[i];
			uint64_t mine = r->ev.map_drops ? r->ev.map_drops[i] : 0;
			bool full = m->bpf_type != BPF_MAP_TYPE_LRU_HASH &&
				    m->bpf_type != BPF_MAP_TYPE_LRU_PERCPU_HASH && rt_map_full(r, i);
			if (full)
				fprintf(stderr, "%s%s has %u entries", n++ ? ", " : ": map full: ",
					m->name, m->max_entries);
			else if (mine)   /* full then and cleared since, as its prints said */
				fprintf(stderr, "%s%s: %llu, not full now (%u entries at most)",
					n++ ? ", " : ": ", m->name, (unsigned long long)mine,
					m->max_entries);
		}
		if (si_full(r->si))
			fprintf(stderr, "%sustack has %u distinct user stacks (its most)",
				n++ ? ", " : ": map full: ", PR_UW_MAX_STACKS);
		if (!n)
			fputs(": no map is full; the kernel had no element ready on that CPU "
			      "(new keys inserted faster than it refills them, as with interrupts "
			      "off, or from inside another update of the map)", stderr);
		fputc('\n', stderr);
	}
	if (faults)
		fprintf(stderr, "%llu memory read%s failed (read as 0, strings as \"\")\n",
			(unsigned long long)faults, faults == 1 ? "" : "s");
	if (c[PR_RP_REFUSED])
		fprintf(stderr, "%llu of them at a system call's return, refused: another thread or "
			"a shared mapping could have changed the memory while the call ran\n",
			(unsigned long long)c[PR_RP_REFUSED]);
	if (c[PR_ABSENT])
		fprintf(stderr, "%llu hit%s skipped at sites that lack a variable the probe reads\n",
			(unsigned long long)c[PR_ABSENT], c[PR_ABSENT] == 1 ? "" : "s");
	if (c[PR_NOENTRY])
		fprintf(stderr, "%llu hit%s skipped in calls that began before the probes were attached "
			"(their entry values are unknown)\n",
			(unsigned long long)c[PR_NOENTRY], c[PR_NOENTRY] == 1 ? "" : "s");
	if (c[PR_NOCALLSITE])
		fprintf(stderr, "%llu hit%s skipped in calls from a call site that does not give a "
			"parameter's value (DW_OP_GNU_parameter_ref: the caller did not keep it, or called "
			"through a pointer or from another module)\n",
			(unsigned long long)c[PR_NOCALLSITE], c[PR_NOCALLSITE] == 1 ? "" : "s");
	if (r->ev.system_skipped)
		fprintf(stderr, "perf-run: %llu queued system() command%s not run: the run was stopped\n",
			(unsigned long long)r->ev.system_skipped, r->ev.system_skipped == 1 ? "" : "s");
	if (r->ev.bad)
		fprintf(stderr, "perf-run: %llu records could not be decoded\n",
			(unsigned long long)r->ev.bad);
	rt_report_misses(r);
	if (r->ev.write_errno == EPIPE)
		fprintf(stderr, "perf-run: the output's reader closed it; %llu record%s not "
			"written\n", (unsigned long long)r->ev.unwritten,
			r->ev.unwritten == 1 ? "" : "s");
	else if (r->ev.write_errno)
		fprintf(stderr, "perf-run: writing output: %s; %llu record%s not written\n",
			strerror(r->ev.write_errno), (unsigned long long)r->ev.unwritten,
			r->ev.unwritten == 1 ? "" : "s");
}

/*
 * exit() sets a flag in the program's .bss besides sending its record, which
 * a full ring buffer can drop: then the run would go on.  The flag is read
 * from .bss mapped into memory (libbpf 1.1 maps it only for skeletons);
 * once it is seen, at most a full ring buffer's bytes can have been sent
 * before it.
 */
static void rt_watch_exit(struct rt *r)
{
	struct bpf_map *c = r->p->counters_map_name ?
		bpf_object__find_map_by_name(r->obj, r->p->counters_map_name) : NULL;
	struct bpf_map *rb = r->p->ringbuf_name ?
		bpf_object__find_map_by_name(r->obj, r->p->ringbuf_name) : NULL;
	long page = sysconf(_SC_PAGESIZE);

	if (!c || bpf_map__value_size(c) < sizeof(uint64_t) * PR_NCOUNTERS ||
	    !(bpf_map__map_flags(c) & BPF_F_MMAPABLE))
		return;
	size_t len = (bpf_map__value_size(c) + page - 1) / page * page;
	void *v = mmap(NULL, len, PROT_READ, MAP_SHARED, bpf_map__fd(c), 0);
	if (v == MAP_FAILED)
		return;
	r->counters = v;
	r->counters_len = len;
	r->ev.exit_flag = (const volatile uint64_t *)v + PR_EXIT;
	if (bpf_map__value_size(c) >= sizeof(uint64_t) * (PR_NCOUNTERS + (size_t)r->p->nmaps) &&
	    (r->ev.drops_said = calloc((size_t)r->p->nmaps + 1, sizeof(uint64_t))))
		r->ev.map_drops = (const volatile uint64_t *)v + PR_NCOUNTERS;
	r->ev.flag_budget = rb ? bpf_map__max_entries(rb) : 0;
}

/* A ustack pc's object, for the symbolizer (sym_tags). */
static bool rt_tag_key(void *arg, unsigned tag, struct pr_uw_key *k)
{
	return uw_tag_key(((struct rt *)arg)->uw, tag, k);
}

static int rt_setup_output(struct rt *r)
{
	r->map_fds = calloc((size_t)r->p->nmaps + 1, sizeof(int));
	r->sym = sym_new();
	if (!r->map_fds || !r->sym)
		return -1;
	sym_tags(r->sym, rt_tag_key, r);
	for (int i = 0; i < r->p->nmaps; i++)
		r->map_fds[i] = ld_map_fd(r->obj, r->p->maps[i].bpf_name);
	r->ev = (struct ev_ctx){
		.p = r->p, .out = r->o->out, .json = r->o->format == RT_JSON,
		.folded = r->o->format == RT_FOLDED || r->o->format == RT_FOLDED_PERF,
		.fold_perf = r->o->format == RT_FOLDED_PERF, .map_fds = r->map_fds,
		.fc = { .sym = r->sym, .prog = r->p, .stack_fd = ld_map_fd(r->obj, r->p->stack_map_name),
			.ustack_fd = ld_map_fd(r->obj, r->p->ustack_map_name),
			.stack_indent = 8, .src_lines = r->o->verbose > 0,
			.demangle = !r->p->no_demangle },
	};
	for (int i = 0; i < FMT_MAX_FRAMES; i++) {
		char name[32];
		snprintf(name, sizeof(name), "stacks_%d", i);
		r->stack_n_fds[i] = i ? ld_map_fd(r->obj, name) : -1;
	}
	r->ev.fc.stack_n_fds = r->stack_n_fds;
	int nfold = 0;
	for (int i = 0; i < r->p->nmaps; i++)
		nfold += mp_foldable(&r->p->maps[i]);
	r->ev.fold_names = r->ev.folded && nfold > 1;
	if ((r->o->format == RT_PERF || r->o->format == RT_PPROF) &&
	    !(r->ev.prof = pf_new(r->p, r->o->format == RT_PERF ? "perf.data" : "pprof")))
		return -1;
	int rbfd = ld_map_fd(r->obj, r->p->ringbuf_name);
	if (rbfd >= 0 && !(r->rb = ring_buffer__new(rbfd, ev_record, &r->ev, NULL))) {
		diag_error(r->d, (struct loc){ 0, 0, 1 }, "cannot open the ring buffer: %s",
			   strerror(errno));
		return -1;
	}
	rt_watch_exit(r);
	r->ev.stop = &rt_stop_sig;
	r->ev.watch = rt_watch;
	r->ev.unwatch = rt_unwatch;
	r->ev.watch_arg = r;
	return 0;
}

/* -f perf, -f pprof: the samples kept from every print, into the -o file
 * (opened at start, so a bad path fails before anything runs; a pipe or
 * /dev/null takes it as well).  -1 if it
 * could not be written, said. */
static int rt_write_profile(struct rt *r)
{
	const struct pf *pf = r->ev.prof;
	int fd = r->o->prof_fd;

	pf_report(r->ev.prof);
	errno = 0;   /* the file is as opened (empty): written from its start */
	int err = r->o->format == RT_PERF ? pdata_write(pf, fd, r->o->cmdline) : pprof_write(pf, fd);
	if (err) {
		fprintf(stderr, "perf-run: cannot write '%s': %s\n", r->o->prof_path,
			strerror(errno ? errno : EIO));
		return -1;
	}
	if (!r->o->quiet)
		fprintf(stderr, "perf-run: wrote %zu samples (%zu locations, %zu objects) to %s\n",
			pf->ns, pf->nloc, pf->nobj, r->o->prof_path);
	return 0;
}

/* Returns -1 if output was lost to a write error. */
static int rt_finish(struct rt *r)
{
	rt_detach(r, true);
	r->ev.no_system = rt_stop_sig != 0;   /* stopped: run no queued command */
	r->ev.stop = NULL;   /* the probes are gone: read to the end */
	rt_drain(r);   /* what came before the stop; after an exit() it is dropped */
	r->ev.exit_requested = false;   /* END still prints, as in bpftrace */
	r->ev.exit_flag = NULL;
	rt_run_special(r, PK_END);
	rt_detach(r, false);
	if (!r->ev.p->no_exit_print)
		ev_print_maps(&r->ev, true);
	ev_flush(&r->ev);
	int lost_file = r->ev.prof ? rt_write_profile(r) : 0;
	rt_report_losses(r);
	uw_report(r->uw);
	if (r->o->verbose && sym_let_go(r->sym))
		fprintf(stderr, "perf-run: symbols: %llu processes let go to keep %d at once\n",
			(unsigned long long)sym_let_go(r->sym), SYM_MAX_PROCS);
	if (r->si && r->o->verbose) {
		uint64_t runs, freed;
		double ms;
		si_stats(r->si, &runs, &freed, &ms);
		fprintf(stderr, "perf-run: ustack ids: %llu given back in %llu collections "
			"(%.1f ms)\n", (unsigned long long)freed, (unsigned long long)runs, ms);
	}
	return r->ev.write_errno || lost_file ? -1 : 0;
}

/* Whether a watchpoint stops the -p process (SIGSTOP) until it is set. */
static bool rt_stops_target(const struct rt *r)
{
	bool sync_wp = false;
	for (int i = 0; i < r->p->nprobes; i++) {
		const struct probe *p = r->p->probes[i];
		sync_wp |= p->kind == PK_WATCHPOINT && p->wp_func && !p->wp_async;
	}
	return sync_wp && r->o->pid > 0;
}

static void rt_let_go(struct rt *r)
{
	if (rt_stops_target(r) && wd_stopped(r->o->pid))
		kill(r->o->pid, SIGCONT);
	wd_done(r->wd);   /* the watchdog need not */
	r->wd = -1;
}

static void rt_cleanup(struct rt *r)
{
	ex_free(r->ex);   /* first: a scrape reads the maps closed below */
	rt_detach(r, false);
	rt_let_go(r);
	ring_buffer__free(r->rb);
	if (r->counters)
		munmap(r->counters, r->counters_len);
	free(r->ev.drops_said);
	if (r->o->child) {
		child_kill(r->o->child);
		r->o->child->on_exec = NULL;
	}
	bpf_object__close(r->obj);
	pf_free(r->ev.prof);
	sym_free(r->sym);
	uw_free(r->uw);
	si_free(r->si);
	free(r->map_fds);
	free(r->att);
}

/* ustack through CFI: the tables of every object in sight, built before
 * the load (their map is sized to them), filled after it. */
static int rt_unwind(struct rt *r)
{
	if (!r->p->uw_rows_name)
		return 0;
	r->uw = uw_build(r->p, r->obj, r->o->pid, r->o->child ? child_path(r->o->child) : NULL,
			 r->o->verbose, !r->o->quiet);
	if (!r->uw) {
		diag_error(r->d, (struct loc){ 0, 0, 1 }, "cannot build the unwind tables of ustack");
		return -1;
	}
	return 0;
}

static int rt_unwind_fill(struct rt *r)
{
	if (!r->uw || !uw_fill(r->uw, r->p, r->obj))
		return 0;
	diag_error(r->d, (struct loc){ 0, 0, 1 }, "cannot fill the unwind tables of ustack: %s",
		   strerror(errno));
	return -1;
}

/* --listen: bound before anything is loaded, so a port in use costs nothing. */
static int rt_listen(struct rt *r)
{
	char err[256];

	if (!r->o->listen)
		return 0;
	if (!(r->ex = ex_start(r->o->listen, r->o->max_series, r->o->verbose, err, sizeof(err)))) {
		fprintf(stderr, "perf-run: %s\n", err);
		return -1;
	}
	return 0;
}

/* Everything up to the moment the probes are live; -1 if any step failed. */
static int rt_start(struct rt *r)
{
	int count;
	ld_set_recompile(r->o->recompile, r->o->recompile_arg);
	if (rt_listen(r) || !(r->obj = ld_open(r->p, r->o->verbose, r->d)) || rt_prepare(r) ||
	    rt_unwind(r) || ld_load(r->p, r->obj, r->o->verbose, r->d) || rt_write_config(r) ||
	    rt_unwind_fill(r) || rt_setup_output(r))
		return -1;
	r->si = si_new(r->p, r->obj, r->map_fds);
	ex_serve(r->ex, &(struct ex_src){ r->p, r->map_fds, &r->ev.fc,
		 r->counters ? (const volatile uint64_t *)r->counters : NULL, r->ev.map_drops });
	rt_signals();
	/* BEGIN runs before anything is attached, as in bpftrace: what it
	 * sends (a tool's header) is in the ring buffer before any probe's
	 * record, even those of events in the middle of attaching (the
	 * command's exec, perf-run's own reads of /proc).  rt_run prints it,
	 * once the command has been exec'd (a command that cannot run means
	 * no BEGIN output) */
	if (!r->o->dry_run)
		rt_run_progs(r, PK_BEGIN);
	if (rt_attach(r, &count))
		return -1;
	if (!r->o->quiet) {
		fprintf(stderr, "Attached %d probe%s in %.1f ms\n", count, count == 1 ? "" : "s",
			rt_now_ms() - r->o->start_ms);
		if (r->ev.json)   /* bpftrace's -f json announces it on stdout too */
			fprintf(r->o->out, "{\"type\": \"attached_probes\", \"data\": "
				"{\"probes\": %d}}\n", count);
	}
	if (r->ex)   /* always: with port 0 it is the one place the port is said */
		fprintf(stderr, "perf-run: serving metrics at %s\n", ex_url(r->ex));
	if (r->o->pid > 0 && !r->o->child)
		sym_prepare(r->sym, r->o->pid);
	if (r->o->child) {
		r->o->child->on_exec = rt_child_exec;
		r->o->child->arg = r;
	}
	return 0;
}

/* Lets the command exec: 0 once it has, -1 (reported) if it could not. */
static int rt_child_start(struct rt *r)
{
	struct child *c = r->o->child;
	return c && !r->ev.exit_requested && !rt_stop_sig ? child_release(c) : 0;
}

int rt_run(struct program *p, const struct rt_opts *o, struct diag *d)
{
	struct rt r = { .p = p, .o = o, .d = d, .wd = -1 };
	struct child *c = o->child;
	int ret = 1;

	/* forked before anything is loaded or attached: it holds nothing */
	if (rt_stops_target(&r) && !o->dry_run)
		r.wd = wd_start(o->pid);
	int started = rt_start(&r) == 0;

	if (started && o->dry_run) {
		ret = 0;   /* --dry-run, as bpftrace: loaded and attached, nothing run */
	} else if (started && c && c->traced && rt_child_start(&r)) {
		/* it could not exec: nothing ran, BEGIN included */
	} else if (started) {
		/* BEGIN has run (rt_start), before the command's first
		 * instruction; an exit() in it means the command never runs */
		rt_drain(&r);
		rt_start_probes(&r);
		int failed = 0;
		if (c && (r.ev.exit_requested || rt_stop_sig))
			child_kill(c);
		else if (c && !c->traced)
			failed = rt_child_start(&r);
		else if (c)
			child_resume(c);
		if (!failed)
			rt_loop(&r);
		/* exit(code): the status is code's low byte, as exit(3) makes it;
		 * a closed pipe is 141, the status of bpftrace killed by SIGPIPE */
		int fin = rt_finish(&r);
		ret = fin && r.ev.write_errno == EPIPE ? 128 + SIGPIPE :
		      fin || failed ? 1 : (int)(r.ev.exit_code & 0xff);
		if (ret == 0 && o->command_status)
			ret = rt_command_status(&r);
	}
	rt_cleanup(&r);
	return ret;
}
