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

/* The kallsyms addresses of names' functions (kscan_hits), with names
 * sorted into *sorted (to free), which hits->of indexes. */
static int kret_walk(struct kscan_hits *h, char *const *names, int n, char ***sorted)
{
	*sorted = malloc((size_t)(n ? n : 1) * sizeof(**sorted));
	if (!*sorted)
		return -ENOMEM;
	memcpy(*sorted, names, (size_t)n * sizeof(**sorted));
	qsort(*sorted, (size_t)n, sizeof(**sorted), kret_cmp);
	return kscan_names("/proc/kallsyms", KSCAN_KALLSYMS, *sorted, n, h);
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
	struct kscan_hits h = { 0 };
	uint8_t *kind = kret_kinds(names, n), *v = NULL;
	char **sorted = NULL;
	size_t k = 0;
	int rc;

	if (!kind)
		return errno ? -errno : -ENOMEM;
	rc = kret_walk(&h, names, n, &sorted);
	if (!rc && !(v = malloc(h.n ? h.n : 1)))
		rc = -ENOMEM;
	/* vmlinux's functions, whose kinds its BTF gave; rax whole for the
	 * rest and where the functions of a name differ */
	for (size_t i = 0; !rc && i < h.n; i++)
		if (!h.mod[i] && kind[h.of[i]] && kind[h.of[i]] != 0xff) {
			h.addr[k] = h.addr[i];
			v[k++] = kind[h.of[i]];
		}
	if (!rc)
		rc = kret_put(fd, h.addr, v, 1, k);
	free(v);
	free(kind);
	free(sorted);
	kscan_hits_free(&h);
	return rc;
}

int kret_names(int fd, char *const *names, int n)
{
	struct kscan_hits h = { 0 };
	char **sorted = NULL, *v = NULL;
	int rc = kret_walk(&h, names, n, &sorted);

	if (!rc && !(v = calloc(h.n ? h.n : 1, PR_KNAME_SIZE)))
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < h.n; i++)
		strncpy(v + i * PR_KNAME_SIZE, sorted[h.of[i]], PR_KNAME_SIZE - 1);
	if (!rc)
		rc = kret_put(fd, h.addr, v, PR_KNAME_SIZE, h.n);
	free(v);
	free(sorted);
	kscan_hits_free(&h);
	return rc;
}
