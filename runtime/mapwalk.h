/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mapwalk.h - a walk over the keys of a BPF map that always ends.
 *
 * The kernel's BPF_MAP_GET_NEXT_KEY starts again from the first key when
 * the key it is given was deleted meanwhile, and a run-time-allocated hash
 * updated from thousands of tracepoints was seen to walk in a cycle for
 * ever (4096 keys at most, more than 100,000 steps; the reader that kept
 * every step grew to 24 GB).  A walk here returns each key once, and stops
 * after twice the map's capacity plus some slack: `cut` says it did.
 */
#ifndef PR_MAPWALK_H
#define PR_MAPWALK_H

#include <stdbool.h>
#include <stdint.h>

struct mw_walk {
	int fd;
	uint32_t key_size;
	uint32_t max_entries;     /* the map's capacity, as the kernel has it */
	uint64_t steps, limit;    /* get_next_key calls made, and allowed */
	uint32_t nkeys;           /* distinct keys returned */
	bool cut;                 /* stopped at the limit, not at the end */
	bool failed;              /* out of memory: stopped */
	/* bpf_map_get_next_key; a unit test puts a faulty kernel's in */
	int (*next_key)(int fd, const void *key, void *next);
	/* private */
	char *keys;               /* the distinct keys, nkeys * key_size */
	uint32_t *slot;           /* open addressing: index + 1, 0 free */
	uint32_t nslot;
	uint32_t cap;
	char *cur;                /* the key given last, then room for the next */
};

/* fd's walk; max_entries is used when the kernel does not say it. */
void mw_init(struct mw_walk *w, int fd, uint32_t key_size, uint32_t max_entries);
/* The next key not returned before, or NULL at the end (or the limit). */
const char *mw_next(struct mw_walk *w);
/* Every key at once: w->keys holds w->nkeys keys, each once. */
void mw_all(struct mw_walk *w);
/* The key returned i-th. */
const char *mw_key(const struct mw_walk *w, uint32_t i);
void mw_free(struct mw_walk *w);

#endif
