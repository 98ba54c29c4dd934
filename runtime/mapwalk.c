// SPDX-License-Identifier: GPL-2.0-only
/*
 * mapwalk.c - a walk over a BPF map's keys that always ends (mapwalk.h
 * says why): each key is kept in a small open-addressing set, so a key
 * the kernel gives again is skipped, and the number of steps is bounded.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "mapwalk.h"

/* Slack over twice the capacity: restarts after keys deleted meanwhile. */
#define MW_SLACK 1024

void mw_init(struct mw_walk *w, int fd, uint32_t key_size, uint32_t max_entries)
{
	struct bpf_map_info info;
	uint32_t len = sizeof(info);

	memset(w, 0, sizeof(*w));
	w->fd = fd;
	w->key_size = key_size ? key_size : 1;
	memset(&info, 0, sizeof(info));
	if (!bpf_obj_get_info_by_fd(fd, &info, &len) && info.max_entries)
		max_entries = info.max_entries;
	w->max_entries = max_entries;
	w->limit = 2 * (uint64_t)max_entries + MW_SLACK;
	w->next_key = bpf_map_get_next_key;
}

/* FNV-1a: keys are a few dozen bytes. */
static uint32_t mw_hash(const char *k, uint32_t n)
{
	uint32_t h = 2166136261u;

	for (uint32_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)k[i]) * 16777619u;
	return h;
}

const char *mw_key(const struct mw_walk *w, uint32_t i)
{
	return w->keys + (size_t)i * w->key_size;
}

/* The slot of key k: where it is, or the free one it would take. */
static uint32_t *mw_slot(const struct mw_walk *w, const char *k)
{
	uint32_t mask = w->nslot - 1, i = mw_hash(k, w->key_size) & mask;

	while (w->slot[i] && memcmp(mw_key(w, w->slot[i] - 1), k, w->key_size))
		i = (i + 1) & mask;
	return &w->slot[i];
}

/* Room for one key more: the key array and a set at most half full. */
static int mw_grow(struct mw_walk *w)
{
	if (w->nkeys == w->cap) {
		uint32_t cap = w->cap ? w->cap * 2 : 64;
		char *k = realloc(w->keys, (size_t)cap * w->key_size);
		if (!k)
			return -ENOMEM;
		w->keys = k;
		w->cap = cap;
	}
	if ((uint64_t)(w->nkeys + 1) * 2 <= w->nslot)
		return 0;
	uint32_t nslot = w->nslot ? w->nslot * 2 : 128;
	uint32_t *old = w->slot, oldn = w->nslot;
	if (!(w->slot = calloc(nslot, sizeof(*w->slot)))) {
		w->slot = old;
		return -ENOMEM;
	}
	w->nslot = nslot;
	for (uint32_t i = 0; i < oldn; i++)
		if (old[i])
			*mw_slot(w, mw_key(w, old[i] - 1)) = old[i];
	free(old);
	return 0;
}

const char *mw_next(struct mw_walk *w)
{
	if (!w->cur && (!(w->cur = calloc(2, w->key_size))))
		w->failed = true;
	while (!w->failed && !w->cut) {
		if (w->steps >= w->limit) {
			w->cut = true;
			break;
		}
		/* from the key the kernel gave last, seen before or not */
		char *next = w->cur + w->key_size;
		if (w->next_key(w->fd, w->steps ? w->cur : NULL, next))
			break;
		w->steps++;
		memcpy(w->cur, next, w->key_size);
		if (mw_grow(w)) {
			w->failed = true;
			break;
		}
		uint32_t *s = mw_slot(w, w->cur);
		if (*s)
			continue;   /* given again: a restart or a cycle */
		memcpy(w->keys + (size_t)w->nkeys * w->key_size, w->cur, w->key_size);
		*s = ++w->nkeys;
		return mw_key(w, w->nkeys - 1);
	}
	return NULL;
}

void mw_all(struct mw_walk *w)
{
	while (mw_next(w))
		;
}

void mw_free(struct mw_walk *w)
{
	free(w->keys);
	free(w->slot);
	free(w->cur);
	w->keys = w->cur = NULL;
	w->slot = NULL;
}
