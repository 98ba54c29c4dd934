// SPDX-License-Identifier: GPL-2.0-only
/*
 * kret.c - tables by function address for a kprobe wildcard's one
 * program (kret.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "compiler/program.h"
#include "kret.h"
#include "lib/kscan.h"

/* The kind (program.h) of a result of BTF type id: 0 for rax whole (a
 * pointer, a 64-bit integer, void or what BTF does not say). */
static uint8_t kret_kind(const struct btf *b, uint32_t id)
{
	int rid = btf__resolve_type(b, id);
	const struct btf_type *t = rid > 0 ? btf__type_by_id(b, (uint32_t)rid) : NULL;
	uint8_t k;

	if (!t || (!btf_is_int(t) && !btf_is_any_enum(t)) || !t->size || t->size >= 8)
		return 0;
	k = (uint8_t)(64 - 8 * t->size);
	if (btf_is_int(t) && (btf_int_encoding(t) & BTF_INT_BOOL))
		return k | PR_KRET_BOOL;
	if (btf_is_int(t) ? btf_int_encoding(t) & BTF_INT_SIGNED : btf_kflag(t))
		k |= PR_KRET_SIGNED;
	return k;
}

static int kret_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Kallsyms' text symbols named one of names (sorted): their addresses,
 * and each one's name's index. */
struct kret_walk {
	char *const *names;
	int n;
	bool vmlinux;         /* its symbols only */
	uint64_t *addr;
	int *of;
	size_t nsyms, cap;
};

static int kret_sym(void *arg, const struct kscan_sym *s)
{
	struct kret_walk *w = arg;
	const char *name = s->name;
	char *const *k;

	if ((s->type != 't' && s->type != 'T') || (w->vmlinux && s->mod) || !s->addr ||
	    !(k = bsearch(&name, w->names, (size_t)w->n, sizeof(*k), kret_cmp)))
		return 0;
	if (w->nsyms == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 256;
		uint64_t *a = realloc(w->addr, cap * sizeof(*a));
		int *of = a ? realloc(w->of, cap * sizeof(*of)) : NULL;

		if (a)
			w->addr = a;
		if (!of)
			return -ENOMEM;
		w->of = of;
		w->cap = cap;
	}
	w->addr[w->nsyms] = s->addr;
	w->of[w->nsyms++] = (int)(k - w->names);
	return 0;
}

/* Finds the addresses of names (sorted into *sorted, to free). */
static int kret_walk(struct kret_walk *w, char *const *names, int n, char ***sorted)
{
	*sorted = malloc((size_t)(n ? n : 1) * sizeof(**sorted));
	if (!*sorted)
		return -ENOMEM;
	memcpy(*sorted, names, (size_t)n * sizeof(**sorted));
	qsort(*sorted, (size_t)n, sizeof(**sorted), kret_cmp);
	w->names = *sorted;
	w->n = n;
	return kscan("/proc/kallsyms", KSCAN_KALLSYMS, NULL, kret_sym, w);
}

/* Writes n keys and values of value_size bytes into map fd: one
 * bpf(BPF_MAP_UPDATE_BATCH) call (an update each took 20 s of a TCG guest
 * for kprobe:*'s 43,000 functions), one at a time where the kernel has
 * no batches.  Returns n or -errno. */
static int kret_put(int fd, const uint64_t *keys, const void *values, size_t value_size,
		    size_t n)
{
	__u32 count = (__u32)n;

	if (!n || !bpf_map_update_batch(fd, keys, values, &count, NULL))
		return (int)n;
	for (size_t i = 0; i < n; i++)
		if (bpf_map_update_elem(fd, &keys[i], (const char *)values + i * value_size,
					BPF_ANY))
			return -errno;
	return (int)n;
}

/* Each name's kind from vmlinux's BTF, in the order of names sorted. */
static uint8_t *kret_kinds(char *const *names, int n)
{
	struct btf *vm = btf__load_vmlinux_btf();
	char **sorted = malloc((size_t)(n ? n : 1) * sizeof(*sorted));
	uint8_t *kind = calloc((size_t)(n ? n : 1), 1);
	bool *seen = calloc((size_t)(n ? n : 1), sizeof(*seen));

	if (!vm || !sorted || !kind || !seen) {
		free(kind);
		kind = NULL;
		goto out;
	}
	memcpy(sorted, names, (size_t)n * sizeof(*sorted));
	qsort(sorted, (size_t)n, sizeof(*sorted), kret_cmp);
	for (uint32_t id = 1; id < btf__type_cnt(vm); id++) {
		const struct btf_type *t = btf__type_by_id(vm, id);
		const char *nm = btf_is_func(t) ? btf__name_by_offset(vm, t->name_off) : NULL;
		char *const *k = nm ? bsearch(&nm, sorted, (size_t)n, sizeof(*k), kret_cmp) : NULL;

		if (!k)
			continue;
		size_t i = (size_t)(k - sorted);
		uint8_t v = kret_kind(vm, btf__type_by_id(vm, t->type)->type);
		/* static functions of one name: one kind, or none */
		kind[i] = seen[i] && kind[i] != v ? 0xff : v;
		seen[i] = true;
	}
out:
	btf__free(vm);
	free(sorted);
	free(seen);
	return kind;
}

int kret_fill(int fd, char *const *names, int n)
{
	struct kret_walk w = { .vmlinux = true };
	uint8_t *kind = kret_kinds(names, n), *v = NULL;
	char **sorted = NULL;
	size_t k = 0;
	int rc;

	if (!kind)
		return errno ? -errno : -ENOMEM;
	rc = kret_walk(&w, names, n, &sorted);
	if (!rc && !(v = malloc(w.nsyms ? w.nsyms : 1)))
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < w.nsyms; i++)
		if (kind[w.of[i]] && kind[w.of[i]] != 0xff) {   /* else rax whole */
			w.addr[k] = w.addr[i];
			v[k++] = kind[w.of[i]];
		}
	if (!rc)
		rc = kret_put(fd, w.addr, v, 1, k);
	free(v);
	free(kind);
	free(sorted);
	free(w.addr);
	free(w.of);
	return rc;
}

int kret_names(int fd, char *const *names, int n)
{
	struct kret_walk w = { 0 };
	char **sorted = NULL, *v = NULL;
	int rc = kret_walk(&w, names, n, &sorted);

	if (!rc && !(v = calloc(w.nsyms ? w.nsyms : 1, PR_KNAME_SIZE)))
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < w.nsyms; i++)
		strncpy(v + i * PR_KNAME_SIZE, sorted[w.of[i]], PR_KNAME_SIZE - 1);
	if (!rc)
		rc = kret_put(fd, w.addr, v, PR_KNAME_SIZE, w.nsyms);
	free(v);
	free(sorted);
	free(w.addr);
	free(w.of);
	return rc;
}
