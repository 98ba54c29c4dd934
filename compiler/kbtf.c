// SPDX-License-Identifier: GPL-2.0-only
/*
 * kbtf.c - kernel BTF → struct type, for curtask, raw tracepoint arguments
 * and casts to kernel types.
 *
 * The vmlinux BTF (about 130,000 types) is loaded once, on first need, and
 * kept for the life of the process: type and field names point into it.
 * Each BTF id is converted at most once (a table indexed by id); records
 * are created empty with a fill hook (types.h) and get their fields only
 * when a script reads one, so `curtask->pid` converts task_struct and its
 * direct member types, not everything they reach.
 */
#define _GNU_SOURCE
#include "kbtf.h"

#include <errno.h>
#include <stdarg.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "lib/types.h"

#define KBTF_PATH "/sys/kernel/btf/vmlinux"

static struct btf *vm;
static int vm_errno;

/* A BTF types are converted from: vmlinux's, or a module's (split BTF:
 * its ids continue vmlinux's, whose types it reaches by their own ids). */
struct kbtf_obj {
	struct btf *b;
	const struct type **by_id;   /* converted types, indexed by BTF id */
	char *mod;                   /* NULL: vmlinux */
};
/* vmlinux's and the modules' a script names (kprobe:MOD:FUNC's args) */
enum { KBTF_OBJS = 64, KBTF_ID_BITS = 24 };
static struct kbtf_obj objs[KBTF_OBJS];
static int nobjs;
/* The object ids are read in: vmlinux's but while a module's type is
 * converted or filled.  A record's fill_id says which (KBTF_FILL_ID). */
static struct kbtf_obj *cur = objs;
#define KBTF_FILL_ID(o, id) ((uint32_t)((o) - objs) << KBTF_ID_BITS | (id))
static const struct type *task_rec; /* the stub of curtask, filled by name */

/* Strings made here ("struct task_struct") live with the process, like the
 * BTF whose names the rest of the types borrow. */
static const char *keep_name(const char *kw, const char *name)
{
	char *s;

	if (asprintf(&s, "%s %s", kw, *name ? name : "(anonymous)") < 0)
		abort();
	return s;
}

static struct btf *kbtf_load(void)
{
	if (vm || vm_errno)
		return vm;
	vm = btf__load_vmlinux_btf();
	if (!vm) {
		vm_errno = errno ? errno : ENODEV;
		return NULL;
	}
	objs[0] = (struct kbtf_obj){ vm, calloc(btf__type_cnt(vm), sizeof(*objs[0].by_id)),
				     NULL };
	if (!objs[0].by_id || btf__type_cnt(vm) >> KBTF_ID_BITS)
		abort();
	nobjs = 1;
	return vm;
}

int kbtf_percpu_var(const char *name)
{
	struct btf *b = kbtf_load();
	int id, n;

	if (!b)
		return -ENODEV;
	id = btf__find_by_name_kind(b, name, BTF_KIND_VAR);
	if (id <= 0)
		return -ENOENT;
	/* a VAR of the per-CPU section, not any global */
	n = (int)btf__type_cnt(b);
	for (int i = 1; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(b, (uint32_t)i);
		const struct btf_var_secinfo *v;

		if (!btf_is_datasec(t) || strcmp(btf__name_by_offset(b, t->name_off), ".data..percpu"))
			continue;
		v = btf_var_secinfos(t);
		for (int j = 0; j < btf_vlen(t); j++)
			if ((int)v[j].type == id)
				return id;
		return -ENOENT;
	}
	return -ENOENT;
}

int kbtf_available(void)
{
	return access(KBTF_PATH, R_OK) == 0;
}

static const struct type *convert(uint32_t id);

/* Skips typedefs, qualifiers and type tags. */
static uint32_t resolve(uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(cur->b, id);

	while (t && (btf_is_typedef(t) || btf_is_mod(t))) {
		id = t->type;
		t = btf__type_by_id(cur->b, id);
	}
	return t ? id : 0;
}

static const char *name_of(const struct btf_type *t)
{
	const char *n = btf__name_by_offset(cur->b, t->name_off);

	return n ? n : "";
}

static void add_field(struct field **f, int *n, int *cap, const struct field *x)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		*f = realloc(*f, (size_t)*cap * sizeof(**f));
		if (!*f)
			abort();
	}
	(*f)[(*n)++] = *x;
}

/* Members of record `id` at bit offset `base`; an unnamed struct or union
 * member is flattened into its parent, as C lets a script name its fields. */
static void add_members(uint32_t id, uint64_t base, struct field **f, int *n, int *cap)
{
	const struct btf_type *t = btf__type_by_id(cur->b, id);
	const struct btf_member *m = btf_members(t);

	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *mn = btf__name_by_offset(cur->b, m->name_off);
		uint32_t mt = resolve(m->type);
		uint64_t bit = base + btf_member_bit_offset(t, (uint32_t)i);
		unsigned bits = btf_member_bitfield_size(t, (uint32_t)i);
		const struct btf_type *mtt = btf__type_by_id(cur->b, mt);

		if ((!mn || !*mn) && mtt && btf_is_composite(mtt)) {
			add_members(mt, bit, f, n, cap);
			continue;
		}
		const struct type *ft = convert(m->type);
		if (!ft || !mn || !*mn)
			continue;
		struct field x = { .name = mn, .type = ft, .offset = (uint32_t)(bit / 8) };
		if (bits)
			type_bitfield(&x, bit, bits);
		add_field(f, n, cap, &x);
	}
}

/* Makes curtask's stub the record of BTF id `id`, so that curtask and a
 * task_struct reached through other types are one type. */
static void bind_task(struct type *t, uint32_t id)
{
	t->fill_id = id;
	t->size = btf__type_by_id(vm, id)->size;
	objs[0].by_id[id] = t;
}

static void fill_record(struct type *t)
{
	struct field *f = NULL;
	int n = 0, cap = 0;

	if (!kbtf_load())
		return;
	if (!t->fill_id) {
		/* curtask's stub, made before the BTF was read. */
		int id = btf__find_by_name_kind(vm, "task_struct", BTF_KIND_STRUCT);

		if (id <= 0)
			return;
		bind_task(t, (uint32_t)id);
	}
	struct kbtf_obj *was = cur;   /* a module's record is filled from its BTF */

	cur = &objs[t->fill_id >> KBTF_ID_BITS];
	add_members(t->fill_id & ((1u << KBTF_ID_BITS) - 1), 0, &f, &n, &cap);
	cur = was;
	free((void *)t->fields);
	t->fields = f ? f : calloc(1, sizeof(*f));
	t->nfields = n;
}

static const struct type *record(uint32_t id, const struct btf_type *t)
{
	bool is_union = btf_is_union(t);
	struct type *r;

	if (task_rec && !task_rec->fill_id && cur == objs && !is_union &&
	    !strcmp(name_of(t), "task_struct")) {
		bind_task((struct type *)task_rec, id);
		return task_rec;
	}
	r = (struct type *)type_record(keep_name(is_union ? "union" : "struct",
							      name_of(t)),
						    is_union, t->size, NULL, 0);

	r->fill = fill_record;
	r->fill_id = KBTF_FILL_ID(cur, id);
	return r;
}

/* A forward declaration: the full definition of the same name, if any. */
static const struct type *forward(const struct btf_type *t)
{
	int kind = btf_kflag(t) ? BTF_KIND_UNION : BTF_KIND_STRUCT;
	int id = btf__find_by_name_kind(cur->b, name_of(t), kind);

	if (id > 0)
		return convert((uint32_t)id);
	return type_record(keep_name(kind == BTF_KIND_UNION ? "union" : "struct", name_of(t)),
			   kind == BTF_KIND_UNION, 0, NULL, 0);
}

static const struct type *enumeration(const struct btf_type *t)
{
	int n = btf_vlen(t);
	struct enumerator *v = calloc(n ? (size_t)n : 1, sizeof(*v));
	bool sign = btf_kflag(t);

	if (!v)
		abort();
	for (int i = 0; i < n; i++) {
		if (btf_is_enum64(t)) {
			const struct btf_enum64 *e = btf_enum64(t) + i;

			v[i].name = btf__name_by_offset(cur->b, e->name_off);
			v[i].value = (int64_t)btf_enum64_value(e);
		} else {
			const struct btf_enum *e = btf_enum(t) + i;

			v[i].name = btf__name_by_offset(cur->b, e->name_off);
			v[i].value = sign ? e->val : (int64_t)(uint32_t)e->val;
		}
	}
	const struct type *r = type_enum(keep_name("enum", name_of(t)), t->size, sign, v, n);
	free(v);
	return r;
}

static const struct type *integer(const struct btf_type *t)
{
	if (t->size == 16)
		return type_array(type_int(8, false), 2);
	if (t->size != 1 && t->size != 2 && t->size != 4 && t->size != 8)
		return NULL;
	/* plain `char` is signed on x86-64, as DWARF and C say: its arrays
	 * (comm) are strings; unsigned char's are numbers */
	bool is_char = btf_is_int(t) && t->size == 1 && !strcmp(name_of(t), "char");
	if (is_char)
		return type_char();
	return type_int(t->size, is_char ||
			(btf_is_int(t) && (btf_int_encoding(t) & BTF_INT_SIGNED)));
}

static const struct type *convert_new(uint32_t id, const struct btf_type *t)
{
	const struct type *e;

	switch (btf_kind(t)) {
	case BTF_KIND_INT: case BTF_KIND_FLOAT:
		return integer(t);
	case BTF_KIND_PTR:
		if (btf_is_func_proto(btf__type_by_id(cur->b, resolve(t->type))))
			return type_ptr(type_void(), false);
		e = convert(t->type);
		return type_ptr(e ? e : type_void(), false);
	case BTF_KIND_ARRAY:
		e = convert(btf_array(t)->type);
		return e ? type_array(e, btf_array(t)->nelems) : NULL;
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		return record(id, t);
	case BTF_KIND_FWD:
		return forward(t);
	case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
		return enumeration(t);
	default:
		return NULL;
	}
}

static const struct type *convert(uint32_t id)
{
	struct kbtf_obj *was = cur;
	const struct type *r;

	id = resolve(id);
	if (id == 0)
		return type_void();
	/* a vmlinux type a module's reaches is vmlinux's: one struct file */
	if (cur != objs && id < btf__type_cnt(vm))
		cur = objs;
	if (!cur->by_id[id])   /* records are filled later: they may refer to themselves */
		cur->by_id[id] = convert_new(id, btf__type_by_id(cur->b, id));
	r = cur->by_id[id];
	cur = was;
	return r;
}

const struct type *kbtf_task_ptr(void)
{
	if (!task_rec && vm) {
		/* The BTF is read already: task_struct may be converted too. */
		int id = btf__find_by_name_kind(vm, "task_struct", BTF_KIND_STRUCT);

		if (id > 0)
			task_rec = convert((uint32_t)id);
	}
	if (!task_rec) {
		struct type *r = (struct type *)type_record("struct task_struct", false, 0, NULL, 0);

		r->fill = fill_record;
		task_rec = r;
	}
	return type_ptr(task_rec, false);
}

/* A stub's fill: the record of that name in the BTF (size and members). */
static void fill_named(struct type *t)
{
	const char *bare = strchr(t->name, ' ');
	int id;

	if (!kbtf_load() || !bare)
		return;
	id = btf__find_by_name_kind(vm, bare + 1, t->is_union ? BTF_KIND_UNION : BTF_KIND_STRUCT);
	if (id <= 0)
		return;
	t->fill_id = (uint32_t)id;
	t->size = btf__type_by_id(vm, (uint32_t)id)->size;
	fill_record(t);
}

const struct type *kbtf_record_stub(const char *cname)
{
	bool is_union = !strncmp(cname, "union ", 6);
	struct type *r;

	if (strncmp(cname, "struct ", 7) && !is_union)
		return NULL;
	r = (struct type *)type_record(keep_name(is_union ? "union" : "struct",
						 cname + (is_union ? 6 : 7)), is_union, 0, NULL, 0);
	r->fill = fill_named;
	return r;
}

static int find_kind(const char *name, const char **bare)
{
	static const struct { const char *kw; int kind; } kws[] = {
		{ "struct ", BTF_KIND_STRUCT }, { "union ", BTF_KIND_UNION },
		{ "enum ", BTF_KIND_ENUM },
	};

	for (size_t i = 0; i < sizeof(kws) / sizeof(kws[0]); i++)
		if (!strncmp(name, kws[i].kw, strlen(kws[i].kw))) {
			*bare = name + strlen(kws[i].kw);
			return kws[i].kind;
		}
	*bare = name;
	return BTF_KIND_TYPEDEF;
}

const struct type *kbtf_type(const char *name)
{
	const char *bare;
	int kind = find_kind(name, &bare), id;

	if (!kbtf_load())
		return NULL;
	id = btf__find_by_name_kind(vm, bare, kind);
	if (id < 0 && kind == BTF_KIND_ENUM)
		id = btf__find_by_name_kind(vm, bare, BTF_KIND_ENUM64);
	if (id <= 0)
		return NULL;
	return convert((uint32_t)id);
}

/* Parameter names of __bpf_trace_EVENT (its first is the tracepoint's
 * private data, not an argument), or NULL when the kernel lacks it. */
static const struct btf_param *rawtp_names(const char *event, int *n)
{
	char fn[256];
	int id;

	snprintf(fn, sizeof(fn), "__bpf_trace_%s", event);
	id = btf__find_by_name_kind(vm, fn, BTF_KIND_FUNC);
	if (id <= 0)
		return NULL;
	const struct btf_type *p = btf__type_by_id(vm, btf__type_by_id(vm, (uint32_t)id)->type);
	*n = btf_vlen(p);
	return btf_params(p);
}

static const struct type *rawtp_record(const char *event, const struct btf_type *proto)
{
	const struct btf_param *p = btf_params(proto), *names;
	int n = btf_vlen(proto), nn = 0;
	struct field *f = calloc(n ? (size_t)n : 1, sizeof(*f));
	char *recname;

	if (!f)
		abort();
	names = rawtp_names(event, &nn);
	/* The first parameter is the tracepoint's data pointer, not in ctx. */
	for (int i = 1; i < n; i++) {
		const struct type *t = convert(p[i].type);
		const char *nm = names && i < nn ? btf__name_by_offset(vm, names[i].name_off) : NULL;
		char *alt;

		if (!nm || !*nm) {
			if (asprintf(&alt, "arg%d", i - 1) < 0)
				abort();
			nm = alt;
		}
		f[i - 1] = (struct field){ .name = nm, .type = t ? t : type_int(8, false),
					   .offset = 8u * (uint32_t)(i - 1) };
	}
	if (asprintf(&recname, "rawtracepoint:%s", event) < 0)
		abort();
	const struct type *r = type_record(recname, false, 8u * (uint32_t)(n > 0 ? n - 1 : 0), f,
					   n > 0 ? n - 1 : 0);
	free(f);
	return r;
}

/* Module mod's BTF (/sys/kernel/btf/MOD, split on vmlinux's), read once;
 * NULL and errno set (ENOENT: not loaded, or without BTF). */
static struct kbtf_obj *kbtf_module(const char *mod)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-";
	struct btf *b;

	if (!kbtf_load()) {
		errno = ENODEV;
		return NULL;
	}
	if (!*mod || mod[strspn(mod, ok)]) {   /* a name, never a path */
		errno = EINVAL;
		return NULL;
	}
	for (int i = 1; i < nobjs; i++)
		if (!strcmp(objs[i].mod, mod))
			return &objs[i];
	if (nobjs == KBTF_OBJS || !(b = btf__load_module_btf(mod, vm))) {
		errno = nobjs == KBTF_OBJS ? E2BIG : ENOENT;
		return NULL;
	}
	if (btf__type_cnt(b) >> KBTF_ID_BITS) {
		btf__free(b);
		errno = E2BIG;
		return NULL;
	}
	objs[nobjs] = (struct kbtf_obj){ b, calloc(btf__type_cnt(b), sizeof(*objs[0].by_id)),
					 strdup(mod) };
	if (!objs[nobjs].by_id || !objs[nobjs].mod)
		abort();
	return &objs[nobjs++];
}

/* The BTF a function of module mod (NULL: vmlinux) is in; NULL and errno
 * set (ENODEV: the kernel has no BTF). */
static struct kbtf_obj *kbtf_obj_of(const char *mod)
{
	if (mod)
		return kbtf_module(mod);
	if (kbtf_load())
		return objs;
	errno = ENODEV;
	return NULL;
}

/* Whether two prototypes are the same: parameters by name and type, and
 * the result's type. */
static bool same_proto(const struct btf *b, const struct btf_type *x, const struct btf_type *y)
{
	const struct btf_param *p = btf_params(x), *q = btf_params(y);

	if (x == y)
		return true;
	if (btf_vlen(x) != btf_vlen(y) || x->type != y->type)
		return false;
	for (int i = 0; i < btf_vlen(x); i++)
		if (p[i].type != q[i].type ||
		    strcmp(btf__name_by_offset(b, p[i].name_off), btf__name_by_offset(b, q[i].name_off)))
			return false;
	return true;
}

/* The prototype of func among o's own functions (a module's, not the
 * vmlinux ones its BTF reaches).  With all, every function of that name
 * (static ones of several units, which one kprobe each attaches) must
 * have the same prototype: else NULL, errno ENOTUNIQ.  NULL, errno
 * ENOENT, if there is none. */
static const struct btf_type *func_proto(const struct kbtf_obj *o, const char *func, bool all)
{
	uint32_t n = btf__type_cnt(o->b);
	const struct btf_type *proto = NULL;

	for (uint32_t id = o == objs ? 1 : btf__type_cnt(vm); id < n; id++) {
		const struct btf_type *t = btf__type_by_id(o->b, id);

		if (!btf_is_func(t) || strcmp(btf__name_by_offset(o->b, t->name_off), func))
			continue;
		const struct btf_type *pt = btf__type_by_id(o->b, t->type);
		if (!proto)
			proto = pt;
		else if (!same_proto(o->b, proto, pt)) {
			errno = ENOTUNIQ;
			return NULL;
		}
		if (!all)
			break;
	}
	if (!proto)
		errno = ENOENT;
	return proto;
}

/* The parameters of proto (of cur's BTF) as a record named recname:
 * parameter i at offs[i] if offs is given (only the first noffs, and only
 * those of at most 8 bytes: a larger one takes two registers and moves the
 * rest), else at 8 * i. */
static const struct type *params_record(const struct btf_type *proto, char *recname,
					const uint32_t *offs, int noffs)
{
	const struct btf_param *p = btf_params(proto);
	int n = btf_vlen(proto), k = 0;
	struct field *f = calloc(n ? (size_t)n : 1, sizeof(*f));

	if (!f)
		abort();
	for (int i = 0; i < n; i++, k++) {
		const struct type *t = convert(p[i].type);
		const char *nm = btf__name_by_offset(cur->b, p[i].name_off);
		char *alt;

		if (offs && (i >= noffs || !t || t->size > 8))
			break;
		if (!nm || !*nm) {
			if (asprintf(&alt, "arg%d", i) < 0)
				abort();
			nm = alt;
		}
		f[i] = (struct field){ .name = nm, .type = t ? t : type_int(8, false),
				       .offset = offs ? offs[i] : 8u * (uint32_t)i };
	}
	const struct type *r = type_record(recname, false, offs ? 0 : 8u * (uint32_t)k, f, k);
	free(f);
	return r;
}

/* func's parameters (module mod's, NULL: vmlinux's) as a record named
 * "PREFIX:func" (params_record); all as func_proto's. */
static const struct type *func_args(const char *mod, const char *func, const char *prefix,
				    const uint32_t *offs, int noffs, bool all)
{
	struct kbtf_obj *o = kbtf_obj_of(mod);
	const struct btf_type *proto;
	const struct type *r;
	char *recname;

	if (!o || !(proto = func_proto(o, func, all)))
		return NULL;
	if (asprintf(&recname, mod ? "%s:%s:%s" : "%s:%s", prefix, mod ? mod : func, func) < 0)
		abort();
	cur = o;
	r = params_record(proto, recname, offs, noffs);
	cur = objs;
	return r;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of available_filter_functions matching pat, sorted; NULL
 * (and *n = -1) if the list cannot be read. */
static char **traceable(const char *pat, int *n)
{
	static const char *const lists[] = {
		"/sys/kernel/tracing/available_filter_functions",
		"/sys/kernel/debug/tracing/available_filter_functions",
	};
	FILE *f = fopen(lists[0], "re");
	char line[512], name[256], **v = NULL;
	int cap = 0;

	if (!f)
		f = fopen(lists[1], "re");
	*n = f ? 0 : -1;
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%255s", name) != 1 || fnmatch(pat, name, 0))
			continue;
		if (*n == cap && !(v = realloc(v, (size_t)(cap = cap ? 2 * cap : 64) * sizeof(*v))))
			abort();
		if (!(v[(*n)++] = strdup(name)))
			abort();
	}
	if (f)
		fclose(f);
	if (*n > 0)
		qsort(v, (size_t)*n, sizeof(*v), cmp_name);
	return v;
}

int kbtf_funcs_matching(const char *pat, char ***out)
{
	int nt, n = 0;
	char **tr = traceable(pat, &nt), **v = NULL;

	*out = NULL;
	if (!kbtf_load()) {
		errno = ENODEV;
		n = -1;
	}
	for (unsigned id = 1; n >= 0 && id < btf__type_cnt(vm); id++) {
		const struct btf_type *bt = btf__type_by_id(vm, id);
		const char *nm = btf_is_func(bt) ? btf__name_by_offset(vm, bt->name_off) : NULL;

		if (!nm || fnmatch(pat, nm, 0) ||
		    (nt >= 0 && !(nt && bsearch(&nm, tr, (size_t)nt, sizeof(*tr), cmp_name))))
			continue;
		if (!(v = realloc(v, (size_t)(n + 1) * sizeof(*v))) || !(v[n++] = strdup(nm)))
			abort();
	}
	for (int i = 0; i < nt; i++)
		free(tr[i]);
	free(tr);
	if (n > 0) {
		qsort(v, (size_t)n, sizeof(*v), cmp_name);
		int k = 1;
		for (int i = 1; i < n; i++)
			if (strcmp(v[i], v[k - 1]))
				v[k++] = v[i];
			else
				free(v[i]);
		n = k;
	}
	*out = v;
	return n;
}

const struct type *kbtf_func_args(const char *mod, const char *func)
{
	/* fentry attaches to one function of a name, the first in BTF */
	return func_args(mod, func, "fentry", NULL, 0, false);
}

const struct type *kbtf_func_ret(const char *mod, const char *func, bool all)
{
	struct kbtf_obj *o = kbtf_obj_of(mod);
	const struct btf_type *proto = o ? func_proto(o, func, all) : NULL;
	const struct type *t;

	if (!proto || !proto->type)   /* void: rax holds nothing of it */
		return NULL;
	cur = o;
	t = convert(proto->type);
	cur = objs;
	/* a result in rax: an integer, enum, bool or pointer */
	return t && t->size <= 8 && (type_is_int(t) || t->kind == T_PTR) ? t : NULL;
}

const struct type *kbtf_kprobe_args(const char *mod, const char *func, const uint32_t *regs,
				    int nregs)
{
	return func_args(mod, func, "kprobe", regs, nregs, true);
}

const struct type *kbtf_rawtp_args(const char *event)
{
	char tn[256];
	int id;

	if (!kbtf_load()) {
		errno = ENODEV;
		return NULL;
	}
	snprintf(tn, sizeof(tn), "btf_trace_%s", event);
	id = btf__find_by_name_kind(vm, tn, BTF_KIND_TYPEDEF);
	if (id <= 0) {
		errno = ENOENT;
		return NULL;
	}
	const struct btf_type *t = btf__type_by_id(vm, resolve((uint32_t)id));
	if (btf_is_ptr(t))
		t = btf__type_by_id(vm, resolve(t->type));
	if (!t || !btf_is_func_proto(t)) {
		errno = ENOENT;
		return NULL;
	}
	return rawtp_record(event, t);
}

bool kbtf_enum_value(const char *name, int64_t *v)
{
	struct btf *b = kbtf_load();
	uint32_t n = b ? btf__type_cnt(b) : 0;

	/* One pass over the kernel's types per name: a script names a few
	 * constants, and only when no other identifier matched. */
	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(b, id);
		uint16_t vlen = btf_vlen(t);

		if (btf_is_enum(t)) {
			const struct btf_enum *e = btf_enum(t);

			for (uint16_t i = 0; i < vlen; i++)
				if (!strcmp(btf__name_by_offset(b, e[i].name_off), name)) {
					*v = btf_kflag(t) ? (int64_t)e[i].val : (int64_t)(uint32_t)e[i].val;
					return true;
				}
		} else if (btf_is_enum64(t)) {
			const struct btf_enum64 *e = btf_enum64(t);

			for (uint16_t i = 0; i < vlen; i++)
				if (!strcmp(btf__name_by_offset(b, e[i].name_off), name)) {
					*v = (int64_t)btf_enum64_value(&e[i]);
					return true;
				}
		}
	}
	return false;
}

static void c_decls_out(void *ctx, const char *fmt, va_list ap)
{
	vfprintf(ctx, fmt, ap);
}

/* The BTF id of "struct X", "union X", "enum X" or a typedef X. */
static int c_decl_id(const char *name)
{
	static const struct { const char *kw; int kind; } tags[] = {
		{ "struct ", BTF_KIND_STRUCT }, { "union ", BTF_KIND_UNION },
		{ "enum ", BTF_KIND_ENUM },
	};

	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
		if (!strncmp(name, tags[i].kw, strlen(tags[i].kw)))
			return btf__find_by_name_kind(vm, name + strlen(tags[i].kw), tags[i].kind);
	return btf__find_by_name_kind(vm, name, BTF_KIND_TYPEDEF);
}

char *kbtf_c_decls(const char *const *names, int n)
{
	char *buf = NULL;
	size_t sz = 0;
	int found = 0;
	struct btf_dump *d;
	FILE *f;

	if (!kbtf_load())
		return NULL;
	f = open_memstream(&buf, &sz);
	if (!f)
		abort();
	d = btf_dump__new(vm, c_decls_out, f, NULL);
	for (int i = 0; d && i < n; i++) {
		int id = c_decl_id(names[i]);

		if (id > 0 && !btf_dump__dump_type(d, (uint32_t)id))
			found++;
	}
	btf_dump__free(d);
	fclose(f);
	if (!found) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* "    TYPE NAME" of one parameter or the result, as bpftrace -lv writes
 * them ("    struct file * file"). */
static void func_decl(FILE *out, struct btf_dump *d, uint32_t type, const char *name)
{
	LIBBPF_OPTS(btf_dump_emit_type_decl_opts, o, .field_name = "");

	fputs("    ", out);
	if (btf_dump__emit_type_decl(d, type, &o))
		fputs("?", out);
	fprintf(out, " %s\n", name);
}

int kbtf_func_decls(FILE *out, const char *mod, const char *func, bool ret)
{
	struct kbtf_obj *o = kbtf_obj_of(mod);
	const struct btf_type *proto = o ? func_proto(o, func, false) : NULL;
	struct btf_dump *d = proto ? btf_dump__new(o->b, c_decls_out, out, NULL) : NULL;
	const struct btf_param *p = proto ? btf_params(proto) : NULL;

	if (!d)
		return -1;
	for (int i = 0; i < btf_vlen(proto); i++) {
		const char *nm = btf__name_by_offset(o->b, p[i].name_off);
		char alt[16];

		if (!nm || !*nm)
			snprintf(alt, sizeof(alt), "arg%d", i);
		if (p[i].type)   /* 0: the "..." of a variadic function */
			func_decl(out, d, p[i].type, nm && *nm ? nm : alt);
	}
	if (ret && proto->type)
		func_decl(out, d, proto->type, "retval");
	btf_dump__free(d);
	return 0;
}

int kbtf_field_offset(const char *rec, const char *field)
{
	const struct field *f = type_field(kbtf_type(rec), field);

	return f && !f->bit_size ? (int)f->offset : -1;
}
