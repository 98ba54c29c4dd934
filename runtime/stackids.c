// SPDX-License-Identifier: GPL-2.0-only
/*
 * stackids.c - giving `ustack` ids back (the order of the steps and why:
 * stackids.h).
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mapwalk.h"
#include "stackids.h"

static const unsigned si_classes[] = PR_UW_KEY_CLASSES;
#define SI_NCLASS (sizeof(si_classes) / sizeof(si_classes[0]))
#define SI_BITS ((PR_UW_MAX_STACKS + 63) / 64)

struct stackids {
	const struct program *p;
	const int *map_fds;
	int stacks, next, freeq, ids[SI_NCLASS];
	int outer, inner;          /* the map of maps whose update waits for programs */
	bool sleepable;            /* a program may sleep: freeing waits a collection */
	uint64_t clears;           /* the caller's count at the last collection */
	double last_ms;
	uint32_t *pending;         /* unlinked, to be freed at the next collection */
	uint32_t npending;
	uint64_t runs, freed;
	double ms;                 /* spent collecting */
};

static double si_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* bpf_ktime_get_ns() is CLOCK_MONOTONIC: the BPF side's tick. */
static uint32_t si_tick(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint32_t)(((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec) >>
			  PR_UW_TICK_SHIFT);
}

static int si_fd(struct bpf_object *obj, const char *name)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, name);
	return m ? bpf_map__fd(m) : -1;
}

static bool si_has_ustack(const struct type *t)
{
	if (!t)
		return false;
	switch (t->kind) {
	case T_STACK:
		return t->is_user;
	case T_TUPLE: case T_RECORD:
		for (int i = 0; i < t->nfields; i++)
			if (si_has_ustack(t->fields[i].type))
				return true;
		return false;
	case T_ARRAY:
		return si_has_ustack(t->elem);
	default:
		return false;
	}
}

/* The ids of the user stacks in a value of type t at b, into held. */
static void si_mark(uint64_t *held, const struct type *t, const char *b)
{
	uint64_t v;

	switch (t->kind) {
	case T_STACK:
		memcpy(&v, b, sizeof(v));
		if (t->is_user && (uint32_t)v < PR_UW_MAX_STACKS)
			held[(uint32_t)v / 64] |= 1ull << ((uint32_t)v % 64);
		break;
	case T_TUPLE: case T_RECORD:
		for (int i = 0; i < t->nfields; i++)
			if (si_has_ustack(t->fields[i].type))
				si_mark(held, t->fields[i].type, b + t->fields[i].offset);
		break;
	case T_ARRAY:
		if (si_has_ustack(t->elem))
			for (uint32_t i = 0; i < t->count; i++)
				si_mark(held, t->elem, b + (size_t)i * t->elem->size);
		break;
	default:
		break;
	}
}

static bool si_bit(const uint64_t *set, uint32_t id)
{
	return set[id / 64] >> (id % 64) & 1;
}

/* Every id a script map holds, in a key or in a plain value. */
static void si_held(const struct stackids *s, uint64_t *held)
{
	const struct program *p = s->p;

	for (int i = 0; i < p->nmaps; i++) {
		const struct pr_map *m = &p->maps[i];
		bool k = si_has_ustack(m->key);
		bool v = m->value && m->value->kind != T_AGG && si_has_ustack(m->value);
		int fd = s->map_fds[i];
		struct mw_walk w;

		if (fd < 0 || (!k && !v) || m->array)
			continue;
		char *val = v ? malloc(m->value_size) : NULL;
		mw_init(&w, fd, m->key_size, m->max_entries);
		for (const char *key; (key = mw_next(&w));) {
			if (k)
				si_mark(held, m->key, key);
			if (val && !bpf_map_lookup_elem(fd, key, val))
				si_mark(held, m->value, val);
		}
		mw_free(&w);
		free(val);
	}
}

/* The pcs of id into pcs and the class holding it, -1 if it has none. */
static int si_pcs(const struct stackids *s, uint32_t id, uint64_t pcs[PR_UW_DEPTH])
{
	unsigned n = 0;

	if (bpf_map_lookup_elem(s->stacks, &id, pcs))
		return -1;
	while (n < PR_UW_DEPTH && pcs[n])
		n++;
	for (unsigned c = 0; c < SI_NCLASS; c++)
		if (n <= si_classes[c])
			return (int)c;
	return -1;
}

static int si_pend(struct stackids *s, uint32_t id)
{
	if (s->npending % 1024 == 0) {
		uint32_t *n = realloc(s->pending, (s->npending + 1024) * sizeof(*n));
		if (!n)
			return -1;
		s->pending = n;
	}
	s->pending[s->npending++] = id;
	return 0;
}

/* Calls fn for each entry of a hash, SI_CHUNK at a time through
 * BPF_MAP_LOOKUP_BATCH (one call, where a key at a time took two: 150 ms
 * for 16384 stacks), else key by key (kernels before 5.6).  A batch walks
 * the buckets, so it ends. */
#define SI_CHUNK 512
typedef void (*si_entry_fn)(struct stackids *s, unsigned c, const void *key, const void *val,
			    uint64_t *named);

static void si_each(struct stackids *s, int fd, uint32_t ks, uint32_t vs, unsigned c,
		    si_entry_fn fn, uint64_t *named)
{
	char *keys = malloc((size_t)SI_CHUNK * ks), *vals = malloc((size_t)SI_CHUNK * vs);
	uint32_t batch = 0;
	bool first = true, batched = keys && vals;

	for (int err = 0; batched && !err;) {
		uint32_t n = SI_CHUNK;
		err = bpf_map_lookup_batch(fd, first ? NULL : &batch, &batch, keys, vals, &n, NULL);
		if (err && errno != ENOENT) {
			batched = !first;   /* unsupported: key by key below */
			break;
		}
		first = false;
		for (uint32_t i = 0; i < n; i++)
			fn(s, c, keys + (size_t)i * ks, vals + (size_t)i * vs, named);
	}
	if (!batched && vals) {
		struct mw_walk w;
		mw_init(&w, fd, ks, PR_UW_MAX_STACKS);
		mw_all(&w);   /* every key first: a delete during the walk restarts it */
		for (uint32_t i = 0; i < w.nkeys; i++)
			if (!bpf_map_lookup_elem(fd, mw_key(&w, i), vals))
				fn(s, c, mw_key(&w, i), vals, named);
		mw_free(&w);
	}
	free(keys);
	free(vals);
}

/* An id entry: named; unlinked and pending if not met for a while. */
static void si_ident(struct stackids *s, unsigned c, const void *key, const void *val,
		     uint64_t *named)
{
	struct pr_uw_ident e;

	memcpy(&e, val, sizeof(e));
	if (e.id >= PR_UW_MAX_STACKS)
		return;
	named[e.id / 64] |= 1ull << (e.id % 64);
	if ((uint32_t)(si_tick() - e.last) >= PR_UW_IDLE_TICKS &&
	    !bpf_map_delete_elem(s->ids[c], key))
		si_pend(s, e.id);
}

/* A stored stack: pending if no id entry names it. */
static void si_stack(struct stackids *s, unsigned c, const void *key, const void *val,
		     uint64_t *named)
{
	uint32_t id;

	(void)c, (void)val;
	memcpy(&id, key, 4);
	if (id < PR_UW_MAX_STACKS && !si_bit(named, id))
		si_pend(s, id);
}

/*
 * Unlinks the ids of stacks not met for PR_UW_IDLE_TICKS (their pcs -> id
 * entry goes) and adds them to the pending list, with the ids no entry
 * names (stored by a CPU that lost the race to link its stack, or
 * unlinked before while a map held them).  named: ids already pending,
 * then every id an entry names.  A batch is read before its entries are
 * deleted; a delete only ever drops entries the walk has passed.
 */
static void si_unlink(struct stackids *s, uint64_t *named)
{
	for (unsigned c = 0; c < SI_NCLASS; c++)
		if (s->ids[c] >= 0)
			si_each(s, s->ids[c], si_classes[c] * 8, sizeof(struct pr_uw_ident), c,
				si_ident, named);
	si_each(s, s->stacks, 4, PR_UW_DEPTH * 8, 0, si_stack, named);
}

/* Frees each pending id no map holds; links the held ones again. */
static uint32_t si_release(struct stackids *s, const uint32_t *ids, uint32_t n,
			   const uint64_t *held)
{
	uint64_t pcs[PR_UW_DEPTH];
	uint32_t freed = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t id = ids[i];
		int c = si_pcs(s, id, pcs);
		struct pr_uw_ident e;

		if (c < 0 || s->ids[c] < 0)
			continue;
		/* a CPU linked it meanwhile (it was being stored at the walk) */
		if (!bpf_map_lookup_elem(s->ids[c], pcs, &e) && e.id == id)
			continue;
		if (si_bit(held, id)) {
			e = (struct pr_uw_ident){ .id = id, .last = si_tick() };
			bpf_map_update_elem(s->ids[c], pcs, &e, BPF_NOEXIST);
			continue;
		}
		if (bpf_map_delete_elem(s->stacks, &id) ||
		    bpf_map_update_elem(s->freeq, NULL, &id, BPF_ANY))
			continue;
		freed++;
	}
	return freed;
}

/* Every non-sleepable BPF program running now has ended when it returns. */
static void si_barrier(const struct stackids *s)
{
	uint32_t zero = 0;
	int fd = s->inner;

	bpf_map_update_elem(s->outer, &zero, &fd, BPF_ANY);
}

static uint64_t si_counter(const struct stackids *s)
{
	uint32_t zero = 0;
	uint64_t next = 0;

	bpf_map_lookup_elem(s->next, &zero, &next);
	return next;
}

uint32_t si_collect(struct stackids *s, uint64_t clears, si_drain_fn drain, void *arg)
{
	if (!s)
		return 0;
	double now = si_now_ms();
	if (now - s->last_ms < 1000 || (clears == s->clears && !s->npending &&
					si_counter(s) < PR_UW_MAX_STACKS / 4 * 3))
		return 0;
	s->clears = clears;
	s->last_ms = now;
	s->runs++;

	uint64_t *named = calloc(SI_BITS, sizeof(uint64_t));
	uint64_t *held = calloc(SI_BITS, sizeof(uint64_t));
	uint32_t old = s->sleepable ? s->npending : 0, freed = 0;
	if (!named || !held)
		goto out;
	/* a sleepable program may still hold what was unlinked before:
	 * those are freed now, this collection's next time */
	uint32_t *ready = s->pending;
	if (s->sleepable) {
		for (uint32_t i = 0; i < old; i++)
			named[ready[i] / 64] |= 1ull << (ready[i] % 64);
		s->pending = NULL;
		s->npending = 0;
	}
	si_unlink(s, named);
	si_barrier(s);
	if (drain)
		drain(arg);
	si_held(s, held);
	if (s->sleepable) {
		freed = si_release(s, ready, old, held);
		free(ready);
	} else {
		freed = si_release(s, s->pending, s->npending, held);
		s->npending = 0;
	}
	s->freed += freed;
	s->ms += si_now_ms() - now;
out:
	free(named);
	free(held);
	return freed;
}

bool si_full(const struct stackids *s)
{
	uint32_t id;

	return s && si_counter(s) >= PR_UW_MAX_STACKS &&
	       bpf_map_lookup_elem(s->freeq, NULL, &id) == -ENOENT;
}

void si_stats(const struct stackids *s, uint64_t *runs, uint64_t *freed, double *ms)
{
	*runs = s ? s->runs : 0;
	*freed = s ? s->freed : 0;
	*ms = s ? s->ms : 0;
}

struct stackids *si_new(const struct program *p, struct bpf_object *obj, const int *map_fds)
{
	struct stackids *s;

	if (!p->uw_rows_name || !(s = calloc(1, sizeof(*s))))
		return NULL;
	s->p = p;
	s->map_fds = map_fds;
	s->stacks = si_fd(obj, "uw_stacks");
	s->next = si_fd(obj, "uw_next");
	s->freeq = si_fd(obj, PR_UW_FREE_MAP);
	for (unsigned c = 0; c < SI_NCLASS; c++) {
		char name[32];
		snprintf(name, sizeof(name), si_classes[c] == PR_UW_DEPTH ? "uw_ids" : "uw_ids_%u",
			 si_classes[c]);
		s->ids[c] = si_fd(obj, name);
	}
	for (int i = 0; i < p->nprogs; i++)
		s->sleepable |= p->progs[i].sleepable;
	LIBBPF_OPTS(bpf_map_create_opts, o);
	s->inner = bpf_map_create(BPF_MAP_TYPE_ARRAY, "uw_rcu_in", 4, 4, 1, NULL);
	o.inner_map_fd = s->inner;
	s->outer = s->inner < 0 ? -1 :
		   bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, "uw_rcu", 4, 4, 1, &o);
	if (s->stacks < 0 || s->next < 0 || s->freeq < 0 || s->outer < 0) {
		si_free(s);
		return NULL;
	}
	return s;
}

void si_free(struct stackids *s)
{
	if (!s)
		return;
	if (s->outer >= 0)
		close(s->outer);
	if (s->inner >= 0)
		close(s->inner);
	free(s->pending);
	free(s);
}
