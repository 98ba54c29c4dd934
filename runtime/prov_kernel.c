// SPDX-License-Identifier: GPL-2.0-only
/*
 * prov_kernel.c - kernel function probes (kprobe, kretprobe, fentry,
 * fexit) and raw tracepoints.  Kernels built without kprobes, or that
 * refuse fentry programs, are found out before loading (prepare), so the
 * user gets one sentence naming the missing mechanism instead of a
 * verifier or attach error.  A kprobe wildcard is one kprobe_multi link
 * where the kernel has them (kmulti.h), else one kprobe per function.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "kmulti.h"
#include "kret.h"
#include "lib/kplace.h"
#include "provider.h"

static bool kn_have_kprobes(void)
{
	return access("/sys/bus/event_source/devices/kprobe", F_OK) == 0 ||
	       access("/sys/kernel/tracing/kprobe_events", F_OK) == 0 ||
	       access("/sys/kernel/debug/tracing/kprobe_events", F_OK) == 0;
}

static const char *kn_func(const struct probe *p)
{
	return p->nsites ? p->sites[0].func : p->event;
}

/* Loads a two-instruction fentry program at BTF id `id` of the kernel
 * BTF object btf_fd (0: vmlinux): the only reliable way to know whether
 * this kernel accepts fentry/fexit.  Returns 0 or -errno. */
static int kn_try_fentry(int btf_fd, int id, enum bpf_attach_type at)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = at,
		    .attach_btf_id = (__u32)id, .attach_btf_obj_fd = (__u32)btf_fd);
	int fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "pr_fentry_check", "GPL", insns, 2, &o);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* The BTF id of function func among b's own types (from id `from` on: a
 * module's split BTF holds vmlinux's too), or -ENOENT. */
static int kn_btf_func(const struct btf *b, const char *func, uint32_t from)
{
	for (uint32_t id = from; id < btf__type_cnt(b); id++) {
		const struct btf_type *t = btf__type_by_id(b, id);
		if (btf_is_func(t) && !strcmp(btf__name_by_offset(b, t->name_off), func))
			return (int)id;
	}
	return -ENOENT;
}

/* A module's function for fentry/fexit (kfunc:MOD:FUNC): the module's
 * kernel BTF object (fd) and FUNC's id in it.  libbpf 1.1 takes a name
 * only, and looks it up in vmlinux's BTF, then in each module's in the
 * kernel's order, so shadow names an object before MOD's that has a
 * function of that name too. */
struct kn_modfunc {
	int fd, id;
	char shadow[64];
};

static int kn_module_func(struct btf *vm, const char *mod, const char *func,
			  struct kn_modfunc *m)
{
	__u32 id = 0;

	*m = (struct kn_modfunc){ .fd = -1 };
	if (kn_btf_func(vm, func, 1) > 0)
		snprintf(m->shadow, sizeof(m->shadow), "vmlinux");
	while (!bpf_btf_get_next_id(id, &id)) {
		char name[64] = "";
		struct bpf_btf_info info = { .name = (__u64)(uintptr_t)name,
					     .name_len = sizeof(name) };
		__u32 len = sizeof(info);
		int fd = bpf_btf_get_fd_by_id(id);

		if (fd < 0)
			continue;   /* unloaded meanwhile */
		if (bpf_obj_get_info_by_fd(fd, &info, &len) || !info.kernel_btf ||
		    !strcmp(name, "vmlinux")) {
			close(fd);
			continue;
		}
		struct btf *b = btf__load_from_kernel_by_id_split(id, vm);
		int fid = b ? kn_btf_func(b, func, btf__type_cnt(vm)) : -ENOENT;

		btf__free(b);
		if (!strcmp(name, mod)) {
			m->fd = fd;
			m->id = fid;
			return fid > 0 ? 0 : -ENOENT;
		}
		if (fid > 0 && !m->shadow[0])
			snprintf(m->shadow, sizeof(m->shadow), "module %s", name);
		close(fd);
	}
	return errno == EPERM ? -EPERM : -ENOENT;   /* the walk needs CAP_SYS_ADMIN */
}

/* func's place: vmlinux's BTF (*btf_fd 0), or for "MOD:FUNC" the
 * module's (*btf_fd open, to close).  Reports the error. */
static int kn_fentry_target(struct prov_att *a, const struct prov_env *e, const char *func,
			    int *btf_fd, int *id)
{
	const struct probe *p = a->pp->probe;
	const char *colon = strchr(func, ':');
	struct btf *vm = btf__load_vmlinux_btf();
	struct kn_modfunc m;
	int rc;

	*btf_fd = 0;
	if (!vm) {
		diag_error(e->d, a->pp->loc, "%s: this kernel has no BTF (/sys/kernel/btf/vmlinux), "
			   "which fentry/fexit need; use a kprobe", p->spec);
		return -1;
	}
	if (!colon) {
		if ((*id = kn_btf_func(vm, func, 1)) < 0)
			diag_error(e->d, a->pp->loc, "%s: the kernel's BTF has no function '%s'",
				   p->spec, func);
		btf__free(vm);
		return *id < 0 ? -1 : 0;
	}
	char mod[64];

	snprintf(mod, sizeof(mod), "%.*s", (int)(colon - func), func);
	rc = kn_module_func(vm, mod, colon + 1, &m);
	btf__free(vm);
	if (rc == -EPERM)
		diag_error(e->d, a->pp->loc, "%s: finding module %s's BTF object needs "
			   "CAP_SYS_ADMIN (the kernel lists BTF objects to it only); run as root",
			   p->spec, mod);
	else if (rc)
		diag_error(e->d, a->pp->loc, "%s: module %s's BTF has no function '%s' "
			   "(/sys/kernel/btf/%s)", p->spec, mod, colon + 1, mod);
	else if (m.shadow[0])
		diag_error(e->d, a->pp->loc, "%s: %s has a function '%s' too, and libbpf 1.1 "
			   "attaches fentry/fexit to the first of that name it finds; use "
			   "kprobe:%s:%s", p->spec, m.shadow, colon + 1, mod, colon + 1);
	if (rc || m.shadow[0]) {
		if (m.fd >= 0)
			close(m.fd);
		return -1;
	}
	*btf_fd = m.fd;
	*id = m.id;
	return 0;
}

static int kn_prepare_fentry(struct prov_att *a, const struct prov_env *e)
{
	const struct probe *p = a->pp->probe;
	enum bpf_attach_type at = p->kind == PK_FENTRY ? BPF_TRACE_FENTRY : BPF_TRACE_FEXIT;
	const char *func = kn_func(p), *colon = strchr(func, ':');
	int fd, id, err;

	if (kn_fentry_target(a, e, func, &fd, &id))
		return -1;
	err = kn_try_fentry(fd, id, at);
	if (fd > 0)
		close(fd);
	if (err) {
		diag_error(e->d, a->pp->loc, "%s: this kernel refuses fentry/fexit programs "
			   "(loading one fails: %s); use a tracepoint or a uprobe", p->spec,
			   strerror(-err));
		return -1;
	}
	bpf_program__set_expected_attach_type(a->prog, at);
	/* a module's function by its name alone: kn_fentry_target made sure
	 * libbpf finds the module's first */
	return bpf_program__set_attach_target(a->prog, 0, colon ? colon + 1 : func) ? -1 : 0;
}

#define KN_EI_LIST "/sys/kernel/debug/error_injection/list"

/* Whether func is in the kernel's error-injection list ("name\tTYPE"
 * lines), the only functions at which bpf_override_return() may attach;
 * -1 if there is no list (no debugfs, or a kernel without
 * CONFIG_FUNCTION_ERROR_INJECTION). */
static int kn_injectable(const char *func)
{
	FILE *f = fopen(KN_EI_LIST, "re");
	char line[512];
	int found = 0;

	if (!f && errno == ENOENT && access("/sys/kernel/debug", F_OK) == 0 &&
	    !mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL))
		f = fopen(KN_EI_LIST, "re");
	if (!f)
		return -1;
	size_t n = strlen(func);
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, func, n) && isspace((unsigned char)line[n]);
	fclose(f);
	return found;
}

/* override() at func+off: the kernel attaches it only at the entry of an
 * error-injectable function, and says no more than EINVAL otherwise. */
static int kn_check_override(const struct prov_att *a, const struct prov_env *e,
			     const char *func, uint64_t off)
{
	const struct probe *p = a->pp->probe;
	int inj;

	if (!p->override)
		return 0;
	if (off) {
		diag_error(e->d, a->pp->loc, "%s: override() works only at a function's entry, "
			   "not at an offset into it", p->spec);
		return -1;
	}
	if ((inj = kn_injectable(func)) > 0)
		return 0;
	if (inj < 0)
		diag_error(e->d, a->pp->loc, "%s: override() needs the kernel's error-injection "
			   "list (%s), which this kernel does not have (CONFIG_FUNCTION_ERROR_INJECTION "
			   "is off, or debugfs is not mounted)", p->spec, KN_EI_LIST);
	else
		diag_error(e->d, a->pp->loc, "%s: override() works only at functions in the "
			   "kernel's error-injection list (%s), and %s is not in it", p->spec,
			   KN_EI_LIST, func);
	return -1;
}

/* A wildcard through one kprobe_multi link (probe.kmulti, decided when
 * compiling): its program must be loaded for it.  override() stays on
 * single kprobes, each checked against the error-injection list. */
static bool kn_multi(const struct prov_att *a)
{
	return a->pp->probe->kmulti && !a->pp->probe->override;
}

static int kn_prepare(struct prov_att *a, const struct prov_env *e)
{
	const struct probe *p = a->pp->probe;
	switch (p->kind) {
	case PK_KPROBE: case PK_KRETPROBE:
		if (kn_have_kprobes()) {
			if (kn_multi(a))
				bpf_program__set_expected_attach_type(a->prog,
								      BPF_TRACE_KPROBE_MULTI);
			for (int i = 0; i < p->nsites; i++)   /* wildcards: at attach */
				if (!strpbrk(p->sites[i].func, "*?[") &&
				    kn_check_override(a, e, p->sites[i].func, p->sites[i].offset))
					return -1;
			return 0;
		}
		diag_error(e->d, a->pp->loc, "%s: this kernel has no kprobes (CONFIG_KPROBES is "
			   "off); use a tracepoint or a uprobe", p->spec);
		return -1;
	case PK_FENTRY: case PK_FEXIT:
		return kn_prepare_fentry(a, e);
	default:
		return 0;
	}
}

/* One kprobe at sym+off, counted; the error (-errno) is the caller's to
 * report. */
static int kn_kprobe_at(struct prov_att *a, const char *sym, uint64_t off)
{
	LIBBPF_OPTS(bpf_kprobe_opts, o, .retprobe = a->pp->probe->kind == PK_KRETPROBE,
		    .offset = (size_t)off);
	struct bpf_link *l = bpf_program__attach_kprobe_opts(a->prog, sym, &o);

	if (!l)
		return -errno;
	if (prov_add_link(a, l))
		return -ENOMEM;
	a->count++;
	return 0;
}

/* A name the kernel refused as several symbols' (EADDRNOTAVAIL, kplace.h):
 * one kprobe on each function of that name, as perf probe adds one on
 * each, each named from a symbol whose name is its own. */
static int kn_kprobe_shared(struct prov_att *a, const struct prov_env *e, const char *func,
			    uint64_t off)
{
	struct kplace *pl;
	int n = kplace_find("/proc/kallsyms", func, off, &pl), rc = 0;

	if (n <= 0) {
		if (n == -EPERM)
			diag_error(e->d, a->pp->loc, "cannot attach %s: several kernel symbols are "
				   "named so, and /proc/kallsyms hides their addresses "
				   "(kernel.kptr_restrict is 2; set it to 1)", func);
		else
			prov_fail(a, e, func, n ? n : -EADDRNOTAVAIL);
		return -1;
	}
	/* a function of the name the kernel will not probe (notrace, in the
	 * blacklist) is skipped and said, as a wildcard's are */
	int ok = 0, first = 0, err;
	char what[512] = "";

	for (int i = 0; i < n; i++) {
		if (!(err = kn_kprobe_at(a, pl[i].sym, pl[i].off))) {
			ok++;
			if (e->verbose)
				fprintf(stderr, "perf-run: %s: a name several kernel symbols have: "
					"the function at %#" PRIx64 " probed as %s+%#" PRIx64 "\n",
					func, pl[i].addr, pl[i].sym, pl[i].off);
			continue;
		}
		if (!first) {
			first = err;
			snprintf(what, sizeof(what), "%s (the one at %s+%#" PRIx64 ")", func,
				 pl[i].sym, pl[i].off);
		}
		if (err == -ENOMEM)
			break;
	}
	if (!ok || first == -ENOMEM) {
		prov_fail(a, e, what, first);
		rc = -1;
	} else if (first) {
		fprintf(stderr, "perf-run: %s: %d of the %d kernel functions of that name cannot "
			"be probed (%s: %s), skipped\n", func, n - ok, n, what, strerror(-first));
	}
	kplace_free(pl, n);
	return rc;
}

static int kn_kprobe_one(struct prov_att *a, const struct prov_env *e, const char *func,
			 uint64_t off)
{
	int rc;

	if (kn_check_override(a, e, func, off))
		return -1;
	if ((rc = kn_kprobe_at(a, func, off)) == -EADDRNOTAVAIL)
		return kn_kprobe_shared(a, e, func, off);
	if (rc)
		prov_fail(a, e, func, rc);
	return rc ? -1 : 0;
}

/* The functions of wildcard site i of p that the kernel lets it trace
 * (kmulti.h: available_filter_functions, as bpftrace 0.17 matches, less
 * the kprobe blacklist for single kprobes), so kprobe:vfs_* skips the
 * vfs_ symbols that would refuse the attach (6.12: vfs_caches_init and
 * vfs_caches_init_early, __init code freed after boot), and says how many
 * it skipped. */
static int kn_glob_funcs(struct prov_att *a, const struct prov_env *e, int i,
			 struct km_funcs *f)
{
	const struct probe *p = a->pp->probe;
	const char *pat = p->sites[i].func;
	/* the compiler read kallsyms for a probe of one wildcard */
	struct km_from from = { p->ksyms, p->have_ksyms && p->nsites == 1 ? p->nksyms : -1,
				p->ksym_addrs, !kn_multi(a) };
	char spec[512];
	int ret = km_match(pat, &from, f);

	if (p->nsites > 1)   /* one of a list: named alone */
		snprintf(spec, sizeof(spec), "%s:%s", probe_kind_name(p->kind), pat);
	if (ret) {
		prov_fail(a, e, p->nsites > 1 ? spec : p->spec, ret);
		return -1;
	}
	km_report_skipped(f, p->nsites > 1 ? spec : p->spec, e->verbose);
	return 0;
}

/* Every function of p's sites (names and wildcards) in one list. */
static int kn_multi_funcs(struct prov_att *a, const struct prov_env *e, struct km_funcs *all)
{
	const struct probe *p = a->pp->probe;
	int ret = 0;

	memset(all, 0, sizeof(*all));
	for (int i = 0; i < p->nsites && !ret; i++) {
		struct km_funcs f;

		if (!strpbrk(p->sites[i].func, "*?[")) {
			ret = km_add(all, p->sites[i].func);
			continue;
		}
		if (kn_glob_funcs(a, e, i, &f))
			return -1;
		for (int k = 0; k < f.n && !ret; k++)
			ret = km_add(all, f.names[k]);
		km_funcs_free(&f);
	}
	if (ret)
		prov_fail(a, e, p->spec, ret);
	km_sort(all);
	return ret ? -1 : 0;
}

/* Why the link of f was refused, as one diagnostic: a listed name that
 * ftrace cannot trace refuses the whole link (the program, loaded for
 * it, cannot take a kprobe instead: the kernel refuses that since 6.5). */
static void kn_multi_refused(struct prov_att *a, const struct prov_env *e,
			     const struct km_funcs *f, int err)
{
	const struct probe *p = a->pp->probe;
	char *names = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&names, &len);
	int n = out ? km_not_traceable(f, out) : 0;

	if (out)
		fclose(out);
	if (n > 0)
		diag_error(e->d, a->pp->loc, "cannot attach %s with a kprobe_multi link: ftrace "
			   "cannot trace %s (not in available_filter_functions); give %s a "
			   "probe of %s own, or PERF_RUN_KPROBE_MULTI=0 attaches one kprobe each",
			   p->spec, names, n == 1 ? "it" : "them", n == 1 ? "its" : "their");
	else
		diag_error(e->d, a->pp->loc, "cannot attach %s to %d kernel functions with a "
			   "kprobe_multi link: %s (PERF_RUN_KPROBE_MULTI=0 attaches one "
			   "kprobe each)", p->spec, f->n, strerror(err));
	free(names);
}

/* What differs between a wildcard's functions, for its program to look
 * up by address (kret.h), before it attaches: each one's name (`probe`)
 * and, at a kretprobe, its result's kind (retval). */
static int kn_kret_kinds(struct prov_att *a, const struct prov_env *e,
			 const struct km_funcs *f)
{
	const char *spec = a->pp->probe->spec;
	int n;

	if (e->kname_fd >= 0 && (n = kret_names(e->kname_fd, f->names, f->n)) < 0) {
		diag_error(e->d, a->pp->loc, "%s: cannot write its functions' names for "
			   "`probe`: %s", spec, strerror(-n));
		return -1;
	}
	if (a->pp->probe->kind != PK_KRETPROBE || e->kret_fd < 0)
		return 0;
	if ((n = kret_fill(e->kret_fd, f->names, f->n)) < 0) {
		diag_error(e->d, a->pp->loc, "%s: cannot read its functions' result types from "
			   "the kernel's BTF: %s", spec, strerror(-n));
		return -1;
	}
	if (e->verbose)
		fprintf(stderr, "perf-run: %s: retval typed from BTF at %d of its functions' "
			"addresses\n", spec, n);
	return 0;
}

/* One kprobe_multi link for all the functions of p's sites. */
static int kn_kprobe_multi(struct prov_att *a, const struct prov_env *e)
{
	const struct probe *p = a->pp->probe;
	struct km_funcs f;
	struct bpf_link *l;
	int ret = 0;

	if (kn_multi_funcs(a, e, &f))
		return -1;
	if (!f.n) {
		km_funcs_free(&f);
		return 0;
	}
	struct km_from from = { p->ksyms, p->have_ksyms && p->nsites == 1 ? p->nksyms : -1,
				p->ksym_addrs, false };
	int n;

	if (kn_kret_kinds(a, e, &f)) {
		km_funcs_free(&f);
		return -1;
	}
	if ((l = km_attach(a->prog, &f, &from, p->kind == PK_KRETPROBE, &n))) {
		if (!(ret = prov_add_link(a, l)))
			a->count += n;
		if (e->verbose && !ret)
			fprintf(stderr, "perf-run: %s: %d functions%s, one kprobe_multi link\n",
				p->spec, n, n > f.n ? " (some share a name)" : "");
	} else {
		kn_multi_refused(a, e, &f, errno);
		ret = -1;
	}
	km_funcs_free(&f);
	return ret;
}

/* Whether the program runs at site i: all sites, or its own (a kprobe at
 * a source line reads DWARF variables whose locations differ by site). */
static bool kn_site_of(const struct pr_prog *pp, int i)
{
	if (pp->sites) {
		for (int k = 0; k < pp->nsites; k++)
			if (pp->sites[k] == i)
				return true;
		return false;
	}
	return pp->site < 0 || pp->site == i;
}

/* A wildcard site without kprobe_multi: one kprobe per function. */
static int kn_kprobe_glob(struct prov_att *a, const struct prov_env *e, int i)
{
	struct km_funcs f;
	int ret = kn_glob_funcs(a, e, i, &f);

	if (!ret)
		ret = kn_kret_kinds(a, e, &f);
	for (int k = 0; k < f.n && !ret; k++)
		ret = kn_kprobe_one(a, e, f.names[k], 0);
	km_funcs_free(&f);   /* zeroed by km_match() if it failed */
	return ret;
}

static int kn_attach(struct prov_att *a, const struct prov_env *e)
{
	const struct probe *p = a->pp->probe;
	struct bpf_link *l;

	switch (p->kind) {
	case PK_KPROBE: case PK_KRETPROBE:
		if (kn_multi(a))
			return kn_kprobe_multi(a, e);
		for (int i = 0; i < p->nsites; i++) {
			const struct probe_site *s = &p->sites[i];
			if (!kn_site_of(a->pp, i))
				continue;   /* a program of another site (a source line's) */
			int r = strpbrk(s->func, "*?[") ? kn_kprobe_glob(a, e, i)
							 : kn_kprobe_one(a, e, s->func, s->offset);
			if (r)
				return -1;
		}
		return 0;
	case PK_RAWTP:
		l = bpf_program__attach_raw_tracepoint(a->prog, p->event);
		break;
	default:
		l = bpf_program__attach_trace(a->prog);
	}
	if (!l) {
		prov_fail(a, e, p->spec, -errno);
		return -1;
	}
	if (prov_add_link(a, l))
		return -1;
	a->count++;
	return 0;
}

const struct provider prov_kernel = {
	.name = "kernel",
	.prepare = kn_prepare,
	.attach = kn_attach,
};
