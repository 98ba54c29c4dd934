/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * profile.c - stack-keyed maps as samples for the profile writers
 * (profile.h).  A map's print is read while its stack ids and the traced
 * processes are still there: each (pid, address) becomes one location,
 * named once through symbols.c, with the object that holds it; a sample
 * is a value, its locations leaf first (kernel, then user), and its other
 * keys as labels.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "profile.h"
#include "symbols.h"

struct pf *pf_new(const struct program *p, const char *format)
{
	struct pf *pf = calloc(1, sizeof(*pf));

	if (!pf)
		return NULL;
	pf->format = format;
	pf->nmaps = p->nmaps;
	pf->said = calloc((size_t)p->nmaps + 1, sizeof(*pf->said));
	pf->lost = calloc((size_t)p->nmaps + 1, sizeof(*pf->lost));
	if (!pf->said || !pf->lost) {
		pf_free(pf);
		return NULL;
	}
	return pf;
}

void pf_free(struct pf *pf)
{
	if (!pf)
		return;
	for (size_t i = 0; i < pf->ns; i++) {
		for (int j = 0; j < pf->s[i].nlabels; j++) {
			free(pf->s[i].labels[j].key);
			free(pf->s[i].labels[j].str);
		}
		free(pf->s[i].labels);
		free(pf->s[i].locs);
	}
	for (size_t i = 0; i < pf->nloc; i++) {
		for (int j = 0; j < pf->loc[i].nfunc; j++) {
			free(pf->loc[i].func[j].sysname);
			free(pf->loc[i].func[j].name);
			free(pf->loc[i].func[j].file);
		}
		free(pf->loc[i].func);
	}
	for (size_t i = 0; i < pf->nobj; i++)
		free(pf->obj[i].file);
	for (int i = 0; i < pf->ncol; i++)
		free(pf->col[i].name);
	free(pf->s);
	free(pf->loc);
	free(pf->hash);
	free(pf->obj);
	free(pf->col);
	free(pf->proc);
	free(pf->said);
	free(pf->lost);
	free(pf);
}

static const struct type *pf_agg(const struct pr_map *m)
{
	return m->value && m->value->kind == T_AGG ? m->value : NULL;
}

/* The kind of value a sample can carry, or NULL with why it cannot. */
static const char *pf_unit(const struct pr_map *m, const char **why)
{
	const struct type *a = pf_agg(m);

	*why = NULL;
	if (!a) {
		bool num = m->value && (m->value->kind == T_INT || m->value->kind == T_BOOL ||
					m->value->kind == T_ENUM);
		*why = num ? NULL : "its values are not numbers";
		return num ? "value" : NULL;
	}
	switch (a->agg) {
	case AGG_COUNT: case AGG_HIST: case AGG_LHIST: case AGG_AVG: case AGG_STATS:
		return "count";
	case AGG_SUM:
		return "value";
	default:
		*why = "its values (min, max, tseries) do not add up along a stack";
		return NULL;
	}
}

static int pf_nkeys(const struct pr_map *m, const struct field **f, struct field *one)
{
	if (!m->key)
		return 0;
	if (m->key->kind == T_TUPLE) {
		*f = m->key->fields;
		return m->key->nfields;
	}
	memset(one, 0, sizeof(*one));
	one->type = m->key;
	*f = one;
	return 1;
}

static bool pf_has_stack(const struct pr_map *m)
{
	const struct field *f = NULL;
	struct field one;
	int n = pf_nkeys(m, &f, &one);

	for (int i = 0; i < n; i++)
		if (f[i].type && f[i].type->kind == T_STACK)
			return true;
	return false;
}

bool pf_takes(const struct pr_map *m)
{
	const char *why;
	return pf_has_stack(m) && pf_unit(m, &why);
}

/* Once per map: why it is printed as text rather than written. */
static void pf_say(struct pf *pf, int map, const struct pr_map *m, const char *why)
{
	if (map < 0 || map >= pf->nmaps || pf->said[map])
		return;
	pf->said[map] = true;
	fprintf(stderr, "perf-run: %s is not in the %s file: %s; it is printed as text\n",
		m->name, pf->format, why);
}

static int64_t pf_value(const struct pr_map *m, const struct mp_entry *e)
{
	const struct type *a = pf_agg(m);
	int64_t v = 0;

	if (!a)
		return e->value;
	switch (a->agg) {
	case AGG_HIST: case AGG_LHIST:
		for (int i = 0; i < e->nbuckets; i++)
			v += (int64_t)e->buckets[i];
		return v;
	case AGG_AVG: case AGG_STATS:
		return (int64_t)e->count;
	default:
		return e->value;
	}
}

/* ---- locations ---- */

static uint64_t pf_mix(pid_t pid, uint64_t ip)
{
	uint64_t h = ip ^ ((uint64_t)(uint32_t)pid * 0x9e3779b97f4a7c15ull);
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 33);
}

static int pf_grow_hash(struct pf *pf)
{
	size_t cap = pf->hash_cap ? pf->hash_cap * 2 : 4096;
	uint32_t *h = calloc(cap, sizeof(*h));

	if (!h)
		return -1;
	for (size_t i = 0; i < pf->nloc; i++) {
		size_t j = pf_mix(pf->loc[i].pid, pf->loc[i].key) & (cap - 1);
		while (h[j])
			j = (j + 1) & (cap - 1);
		h[j] = (uint32_t)i + 1;
	}
	free(pf->hash);
	pf->hash = h;
	pf->hash_cap = cap;
	return 0;
}

static int pf_obj_of(struct pf *pf, pid_t pid, const struct sym_map *sm)
{
	for (size_t i = 0; i < pf->nobj; i++) {
		struct pf_obj *o = &pf->obj[i];
		if (o->pid == pid && o->start == sm->start && !strcmp(o->file, sm->file))
			return (int)i;
	}
	struct pf_obj *o = realloc(pf->obj, (pf->nobj + 1) * sizeof(*o));
	if (!o)
		return -1;
	pf->obj = o;
	o = &pf->obj[pf->nobj];
	*o = (struct pf_obj){ .pid = pid, .file = strdup(sm->file), .start = sm->start,
			      .end = sm->end, .pgoff = sm->pgoff, .build_id_len = sm->build_id_len };
	memcpy(o->build_id, sm->build_id, sizeof(o->build_id));
	if (!o->file)
		return -1;
	return (int)pf->nobj++;
}

/* raw is the name in the ELF; c demangles it as ustack prints it. */
static int pf_add_func(struct pf_loc *l, const char *raw, const char *file, int line,
		       const struct fmt_ctx *c)
{
	struct pf_func *f = realloc(l->func, (size_t)(l->nfunc + 1) * sizeof(*f));
	const char *name = fmt_symname(c, raw, false);

	if (!f)
		return -1;
	l->func = f;
	f[l->nfunc] = (struct pf_func){ .name = strdup(name), .file = file && *file ?
					strdup(file) : NULL, .line = line };
	if (strcmp(name, raw))
		f[l->nfunc].sysname = strdup(raw);
	if (f[l->nfunc].name)
		l->nfunc++;
	return 0;
}

/* The build-id of the running kernel, from its ELF notes in sysfs. */
static int pf_kernel_build_id(unsigned char *id)
{
	unsigned char buf[4096];
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;

	if (fd >= 0)
		close(fd);
	for (ssize_t at = 0; n > 0 && at + 12 <= n;) {
		uint32_t nsz, dsz, type;
		memcpy(&nsz, buf + at, 4);
		memcpy(&dsz, buf + at + 4, 4);
		memcpy(&type, buf + at + 8, 4);
		ssize_t name = at + 12, desc = name + ((nsz + 3) & ~3u);
		if (desc + (ssize_t)dsz > n)
			break;
		if (type == 3 && nsz == 4 && !memcmp(buf + name, "GNU", 4) && dsz <= 20) {
			memcpy(id, buf + desc, dsz);   /* NT_GNU_BUILD_ID */
			return (int)dsz;
		}
		at = desc + ((dsz + 3) & ~3u);
	}
	return 0;
}

/* The kernel's one object: perf and pprof name it so. */
static int pf_kernel_obj(struct pf *pf)
{
	for (size_t i = 0; i < pf->nobj; i++)
		if (pf->obj[i].pid == -1)
			return (int)i;
	struct sym_map sm = { .file = "[kernel.kallsyms]", .end = UINT64_MAX };
	sm.build_id_len = pf_kernel_build_id(sm.build_id);
	return pf_obj_of(pf, -1, &sm);
}

/* The functions at a user address: those inlined there innermost first,
 * then the one they are in.  A return address is looked up one byte back,
 * inside the call. */
static void pf_name_user(struct pf *pf, struct pf_loc *l, const struct fmt_ctx *c, bool leaf)
{
	struct sym *sym = c->sym;
	uint64_t off, at = l->key - !leaf;   /* tagged: named from its own object */
	struct sym_frame inl[FMT_MAX_INLINED + 1];
	bool note = sym_user_note(l->key) != NULL;
	const char *name = sym_user(sym, l->pid, note ? l->key : at, &off);
	struct sym_map sm;

	l->note = note;
	if (!name)
		return;
	int ni = note ? 0 : sym_user_inlined(sym, l->pid, at, inl, FMT_MAX_INLINED + 1);
	for (int i = 0; i < ni; i++)
		pf_add_func(l, inl[i].name, inl[i].file, inl[i].line, c);
	pf_add_func(l, name, note ? NULL : inl[ni].file, note ? 0 : inl[ni].line, c);
	if (!note && !sym_user_map(sym, l->pid, at, &sm))
		l->obj = pf_obj_of(pf, l->pid, &sm);
}

/* The location of (pid, ip), made and named on first sight; -1 if out of
 * memory. */
static int64_t pf_loc(struct pf *pf, pid_t pid, uint64_t ip, bool leaf, const struct fmt_ctx *c)
{
	if (pf->nloc * 2 >= pf->hash_cap && pf_grow_hash(pf))
		return -1;
	size_t j = pf_mix(pid, ip) & (pf->hash_cap - 1);
	for (; pf->hash[j]; j = (j + 1) & (pf->hash_cap - 1)) {
		const struct pf_loc *l = &pf->loc[pf->hash[j] - 1];
		if (l->pid == pid && l->key == ip)
			return pf->hash[j] - 1;
	}
	if (pf->nloc == pf->cap_loc) {
		size_t cap = pf->cap_loc ? pf->cap_loc * 2 : 1024;
		struct pf_loc *l = realloc(pf->loc, cap * sizeof(*l));
		if (!l)
			return -1;
		pf->loc = l;
		pf->cap_loc = cap;
	}
	struct pf_loc *l = &pf->loc[pf->nloc];
	*l = (struct pf_loc){ .pid = pid, .ip = pid < 0 ? ip : pr_uw_addr(ip), .key = ip, .obj = -1 };
	uint64_t off;
	const char *name = NULL;
	if (pid < 0 && c->sym && (name = sym_kernel(c->sym, ip, &off)))
		pf_add_func(l, name, NULL, 0, NULL);
	if (pid < 0)
		l->obj = pf_kernel_obj(pf);
	else if (c->sym)
		pf_name_user(pf, l, c, leaf);
	pf->hash[j] = (uint32_t)pf->nloc + 1;
	return (int64_t)pf->nloc++;
}

/* ---- samples ---- */

/* A stack key's addresses, leaf first; 0 if its stack is gone. */
static int pf_stack_ips(const struct type *t, uint64_t v, const struct fmt_ctx *c,
			uint64_t *ips)
{
	uint32_t id = (uint32_t)v;
	int n = 0, fd = fmt_stack_fd(c, t);

	memset(ips, 0, FMT_MAX_FRAMES * sizeof(*ips));
	if ((t->is_user && id == PR_UW_ID_FULL) || fd < 0 || (int32_t)id < 0 ||
	    bpf_map_lookup_elem(fd, &id, ips))
		return 0;
	while (n < FMT_MAX_FRAMES && ips[n] && (!t->frames || n < t->frames))
		n++;
	return n;
}

static void pf_set_comm(struct pf *pf, pid_t pid, const char *comm)
{
	if (pid <= 0 || pf_comm(pf, pid))
		return;
	struct pf_proc *p = realloc(pf->proc, (pf->nproc + 1) * sizeof(*p));
	if (!p)
		return;
	pf->proc = p;
	p[pf->nproc].pid = pid;
	snprintf(p[pf->nproc].comm, PF_COMM, "%s", comm);
	pf->nproc++;
}

const char *pf_comm(const struct pf *pf, pid_t pid)
{
	for (size_t i = 0; i < pf->nproc; i++)
		if (pf->proc[i].pid == pid)
			return pf->proc[i].comm;
	return NULL;
}

/* The command name of a process the samples name: the kernel's while it
 * lives, else the name of the file its outermost frame is in (the
 * executable, once it has gone). */
static void pf_find_comm(struct pf *pf, pid_t pid, const struct pf_sample *s)
{
	char path[64], comm[PF_COMM] = "";

	if (pid <= 0 || pf_comm(pf, pid))
		return;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, comm, sizeof(comm) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n > 0) {
		comm[strcspn(comm, "\n")] = 0;
	} else if (s->nu) {
		const struct pf_loc *root = &pf->loc[s->locs[s->nk + s->nu - 1]];
		const char *f = root->obj >= 0 ? pf->obj[root->obj].file : NULL;
		const char *base = f ? strrchr(f, '/') : NULL;
		snprintf(comm, sizeof(comm), "%s", base ? base + 1 : f ? f : "");
	}
	if (*comm)
		pf_set_comm(pf, pid, comm);
}

static int pf_col(struct pf *pf, int map, const struct pr_map *m)
{
	const char *why;
	for (int i = 0; i < pf->ncol; i++)
		if (pf->col[i].map == map)
			return i;
	struct pf_col *c = realloc(pf->col, (size_t)(pf->ncol + 1) * sizeof(*c));
	if (!c)
		return -1;
	pf->col = c;
	c[pf->ncol] = (struct pf_col){ .map = map, .name = strdup(m->name), .unit = pf_unit(m, &why) };
	if (!c[pf->ncol].name)
		return -1;
	if (pf_agg(m) && (pf_agg(m)->agg == AGG_AVG || pf_agg(m)->agg == AGG_STATS))
		fprintf(stderr, "perf-run: %s: an average does not add up along a stack; "
			"the %s file has its counts\n", m->name, pf->format);
	return pf->ncol++;
}

static int pf_push_label(struct pf_sample *s, int i, const char *str, int64_t num)
{
	struct pf_label *l = realloc(s->labels, (size_t)(s->nlabels + 1) * sizeof(*l));
	char key[16];

	if (!l)
		return -1;
	s->labels = l;
	snprintf(key, sizeof(key), "key%d", i + 1);
	l[s->nlabels] = (struct pf_label){ .key = strdup(key), .str = str ? strdup(str) : NULL,
					   .num = num };
	s->nlabels++;
	return 0;
}

/* A key that is not a stack: a label, numbers as numbers, the rest as
 * the text a map key prints as.  A 16-byte string is taken as the
 * command's name (comm) where the kernel no longer has one. */
static void pf_label(struct pf_sample *s, int i, const struct field *f, const char *key,
		     const struct fmt_ctx *c, char *comm)
{
	const struct type *t = f->type;
	if (t->kind == T_INT || t->kind == T_BOOL) {
		int64_t v = fmt_int(t, key + f->offset);
		pf_push_label(s, i, NULL, v);
		return;
	}
	struct fmt_buf b;
	struct fmt_ctx kc = *c;
	kc.key = true;
	fmt_init(&b);
	fmt_value(&b, t, key + f->offset, &kc);
	pf_push_label(s, i, b.s ? b.s : "", 0);
	if (t->kind == T_STR && t->size == PF_COMM && !*comm && b.s)
		snprintf(comm, PF_COMM, "%s", b.s);
	fmt_free(&b);
}

static int pf_grow_samples(struct pf *pf)
{
	if (pf->ns < pf->cap_s)
		return 0;
	size_t cap = pf->cap_s ? pf->cap_s * 2 : 256;
	struct pf_sample *s = realloc(pf->s, cap * sizeof(*s));
	if (!s)
		return -1;
	pf->s = s;
	pf->cap_s = cap;
	return 0;
}

/* Adds the locations of one stack key to s: the first kernel and the first
 * user stack of the key are its frames. */
static int pf_add_stack(struct pf *pf, struct pf_sample *s, const struct type *t, uint64_t v,
			const struct fmt_ctx *c)
{
	uint64_t ips[FMT_MAX_FRAMES];
	int n = pf_stack_ips(t, v, c, ips);
	pid_t pid = t->is_user ? (pid_t)(v >> 32) : -1;
	uint32_t *locs = realloc(s->locs, (s->nk + s->nu + (uint32_t)n + 1) * sizeof(*locs));

	if (!locs)
		return -1;
	s->locs = locs;
	if (!t->is_user)   /* kernel frames go first: any user ones move up */
		memmove(locs + s->nk + n, locs + s->nk, s->nu * sizeof(*locs));
	for (int i = 0; i < n; i++) {
		int64_t l = pf_loc(pf, pid, ips[i], i == 0, c);
		if (l < 0)
			return -1;
		locs[(t->is_user ? s->nk + s->nu : s->nk) + (uint32_t)i] = (uint32_t)l;
	}
	if (t->is_user) {
		s->nu += (uint32_t)n;
		s->pid = pid;
	} else {
		s->nk += (uint32_t)n;
	}
	return 0;
}

static uint64_t pf_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One entry as a sample; 1 if it has no stack left, -1 if out of memory. */
static int pf_entry(struct pf *pf, int col, const struct pr_map *m, const struct mp_entry *e,
		    uint64_t now, const struct fmt_ctx *c)
{
	const struct field *f = NULL;
	struct field one;
	int nkeys = pf_nkeys(m, &f, &one);
	bool kseen = false, useen = false;
	char comm[PF_COMM] = "";

	if (pf_grow_samples(pf))
		return -1;
	struct pf_sample *s = &pf->s[pf->ns];
	*s = (struct pf_sample){ .col = col, .value = pf_value(m, e), .pid = -1, .time = now };
	for (int i = 0; i < nkeys; i++) {
		const struct type *t = f[i].type;
		uint64_t v;
		if (t->kind != T_STACK) {
			pf_label(s, i, &f[i], e->key, c, comm);
			continue;
		}
		if (t->is_user ? useen : kseen)
			continue;   /* a second stack of a kind: the first one's frames only */
		memcpy(&v, e->key + f[i].offset, 8);
		if (pf_add_stack(pf, s, t, v, c))
			return -1;
		*(t->is_user ? &useen : &kseen) = true;
	}
	if (!s->nk && !s->nu) {
		for (int j = 0; j < s->nlabels; j++) {
			free(s->labels[j].key);
			free(s->labels[j].str);
		}
		free(s->labels);
		free(s->locs);
		return 1;
	}
	if (*comm)
		pf_set_comm(pf, s->pid, comm);
	pf_find_comm(pf, s->pid, s);
	pf->ns++;
	return 0;
}

bool pf_add(struct pf *pf, int map, const struct pr_map *m, const struct mp_data *d,
	    const struct fmt_ctx *c)
{
	const char *why = NULL;

	if (!pf_has_stack(m))
		why = "it is keyed by something other than a stack";
	else
		pf_unit(m, &why);
	if (why) {
		pf_say(pf, map, m, why);
		return false;
	}
	int col = pf_col(pf, map, m);
	uint64_t now = pf_now_ns();
	for (int i = 0; col >= 0 && i < d->n; i++) {
		int r = pf_entry(pf, col, m, &d->e[i], now, c);
		if (r < 0) {
			fprintf(stderr, "perf-run: %s: out of memory for the %s file\n", m->name,
				pf->format);
			break;
		}
		if (r > 0 && map >= 0 && map < pf->nmaps)
			pf->lost[map]++;
	}
	return true;
}

void pf_report(struct pf *pf)
{
	for (int i = 0; i < pf->ncol; i++) {
		int map = pf->col[i].map;
		if (map >= 0 && map < pf->nmaps && pf->lost[map])
			fprintf(stderr, "perf-run: %s: %llu entr%s whose stack was gone "
				"(no frames left) are not in the %s file\n", pf->col[i].name,
				(unsigned long long)pf->lost[map], pf->lost[map] == 1 ? "y" : "ies",
				pf->format);
	}
}
