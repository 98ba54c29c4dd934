/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mapprint.h - reading script maps from the kernel, folding per-CPU values,
 * sorting and printing them exactly as bpftrace 0.17 does (text), or as
 * bpftrace's `-f json` lines, or stacks in the folded format (-f folded).
 */
#ifndef PR_MAPPRINT_H
#define PR_MAPPRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "compiler/program.h"
#include "format.h"

/* One printed line (or one hist) of a map, values already folded. */
struct mp_entry {
	char *key;           /* key bytes without a hist bucket; NULL for no keys */
	int64_t value;       /* count, sum, min, max, avg (sum / count), int value */
	int64_t sum;         /* avg, stats */
	uint64_t count;      /* avg, stats */
	uint64_t *buckets;   /* hist, lhist: nbuckets counts */
	int nbuckets;
	char *raw;           /* AGG_NONE: the value bytes */
};

struct mp_data {
	struct mp_entry *e;
	int n;
	uint32_t nkeys;      /* the map's keys (hist buckets apart), as walked */
};

/* Number of buckets of a hist/lhist aggregation type. */
int mp_nbuckets(const struct type *agg);
/* Reads every entry of map fd.  Returns 0 or -errno. */
int mp_read(int fd, const struct pr_map *m, struct mp_data *out);
void mp_data_free(struct mp_data *d);
/* bpftrace's order: by value ascending, hists by key; ties by key bytes. */
void mp_sort(const struct pr_map *m, struct mp_data *d);
/* Appends map m as bpftrace prints it; top > 0 keeps the top entries,
 * div > 0 divides values. */
void mp_text(struct fmt_buf *b, const struct pr_map *m, const struct mp_data *d,
	     int64_t top, int64_t div, const struct fmt_ctx *c);
/* One JSON line {"type": ..., "data": {"@name": ...}} plus newline. */
void mp_json(struct fmt_buf *b, const struct pr_map *m, const struct mp_data *d,
	     int64_t top, int64_t div, const struct fmt_ctx *c);
/* -f folded: the map has a stack among its keys and one number a value
 * (count, sum, min, max, avg or an integer). */
bool mp_foldable(const struct pr_map *m);
/* Each entry as a line of the folded format flame-graph tools read:
 * "frame;frame;... VALUE": the keys in key order, a stack as its frames
 * root first (names without offsets), any other key as one frame, the
 * map's name first if name_root; entries whose frames are the same are
 * summed into one line; lines sorted. */
void mp_folded(struct fmt_buf *b, const struct pr_map *m, const struct mp_data *d,
	       int64_t top, int64_t div, bool name_root, const struct fmt_ctx *c);
/* -f folded-perf: the same lines in the layout of perf script |
 * stackcollapse-perf.pl and bcc's profile -f, whatever the key order:
 * "comm;user frames;kernel frames VALUE" (the other keys first, in key
 * order, then the user stack root first, then the kernel stack). */
void mp_folded_perf(struct fmt_buf *b, const struct pr_map *m, const struct mp_data *d,
		    int64_t top, int64_t div, bool name_root, const struct fmt_ctx *c);
/* The bucket lines of one hist/lhist (from the first to the last non-zero). */
void mp_hist_text(struct fmt_buf *b, const struct type *agg, const uint64_t *bk, int n,
		  int64_t div);
/* "[1K, 2K)"-style label parts: hist bucket i's bounds as bpftrace writes them. */
void mp_hist_label(struct fmt_buf *b, const struct type *agg, int i);
/* The keys of an entry: "1, a" (no brackets). */
void mp_key_text(struct fmt_buf *b, const struct type *key, const char *k,
		 const struct fmt_ctx *c);
/* clear(): delete every key; zero(): set every value to zero. */
int mp_clear(int fd, struct pr_map *m);
int mp_zero(int fd, struct pr_map *m);

#endif
