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

/* A walk of kallsyms' text symbols named one of names (sorted). */
struct kret_walk {
	char *const *names;
	int n;
	bool vmlinux;         /* its symbols only */
	int (*fn)(struct kret_walk *w, uint64_t addr, int i);
	int fd, written;
	const uint8_t *kind;  /* kret_fill's: per name, 0xff where they differ */
};

static int kret_sym(void *arg, const struct kscan_sym *s)
{
	struct kret_walk *w = arg;
	const char *name = s->name;
	char *const *k;

	if ((s->type != 't' && s->type != 'T') || (w->vmlinux && s->mod) || !s->addr ||
	    !(k = bsearch(&name, w->names, (size_t)w->n, sizeof(*k), kret_cmp)))
		return 0;
	return w->fn(w, s->addr, (int)(k - w->names));
}

/* Sorts a copy of names into w and walks kallsyms. */
static int kret_walk(struct kret_walk *w, char *const *names, int n)
{
	char **sorted = malloc((size_t)(n ? n : 1) * sizeof(*sorted));
	int rc;

	if (!sorted)
		return -ENOMEM;
	memcpy(sorted, names, (size_t)n * sizeof(*sorted));
	qsort(sorted, (size_t)n, sizeof(*sorted), kret_cmp);
	w->names = sorted;
	w->n = n;
	rc = kscan("/proc/kallsyms", KSCAN_KALLSYMS, NULL, kret_sym, w);
	free(sorted);
	return rc < 0 ? rc : w->written;
}

static int kret_put_kind(struct kret_walk *w, uint64_t addr, int i)
{
	uint8_t v = w->kind[i];

	if (!v || v == 0xff)
		return 0;
	if (bpf_map_update_elem(w->fd, &addr, &v, BPF_ANY))
		return -errno;
	w->written++;
	return 0;
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
	struct kret_walk w = { .vmlinux = true, .fn = kret_put_kind, .fd = fd };
	uint8_t *kind = kret_kinds(names, n);
	int rc;

	if (!kind)
		return errno ? -errno : -ENOMEM;
	w.kind = kind;
	rc = kret_walk(&w, names, n);
	free(kind);
	return rc;
}

static int kret_put_name(struct kret_walk *w, uint64_t addr, int i)
{
	char v[PR_KNAME_SIZE] = "";

	strncpy(v, w->names[i], sizeof(v) - 1);
	if (bpf_map_update_elem(w->fd, &addr, v, BPF_ANY))
		return -errno;
	w->written++;
	return 0;
}

int kret_names(int fd, char *const *names, int n)
{
	struct kret_walk w = { .fn = kret_put_name, .fd = fd };

	return kret_walk(&w, names, n);
}
