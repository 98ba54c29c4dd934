// SPDX-License-Identifier: GPL-2.0-only
/*
 * kret.c - the result kinds of a kretprobe wildcard's functions (kret.h).
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

struct kret_ctx {
	char *const *names;   /* sorted */
	int n;
	uint8_t *kind;        /* per name; 0xff: functions of the name differ */
	int fd, written;
};

static int kret_sym(void *arg, const struct kscan_sym *s)
{
	struct kret_ctx *c = arg;
	const char *name = s->name;
	char *const *k;
	uint64_t addr = s->addr;
	uint8_t v;

	if ((s->type != 't' && s->type != 'T') || s->mod || !addr ||
	    !(k = bsearch(&name, c->names, (size_t)c->n, sizeof(*k), kret_cmp)))
		return 0;
	v = c->kind[k - c->names];
	if (!v || v == 0xff)
		return 0;
	if (bpf_map_update_elem(c->fd, &addr, &v, BPF_ANY))
		return -errno;
	c->written++;
	return 0;
}

int kret_fill(int fd, char *const *names, int n)
{
	struct btf *vm = btf__load_vmlinux_btf();
	char **sorted = malloc((size_t)(n ? n : 1) * sizeof(*sorted));
	struct kret_ctx c = { sorted, n, calloc((size_t)(n ? n : 1), 1), fd, 0 };
	bool *seen = calloc((size_t)(n ? n : 1), sizeof(*seen));
	int rc = 0;

	if (!vm || !sorted || !c.kind || !seen) {
		rc = vm ? -ENOMEM : -errno;
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
		c.kind[i] = seen[i] && c.kind[i] != v ? 0xff : v;
		seen[i] = true;
	}
	rc = kscan("/proc/kallsyms", KSCAN_KALLSYMS, NULL, kret_sym, &c);
out:
	btf__free(vm);
	free(sorted);
	free(c.kind);
	free(seen);
	return rc < 0 ? rc : c.written;
}
