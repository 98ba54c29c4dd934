// SPDX-License-Identifier: GPL-2.0-only
/*
 * mapprint.c - maps from the kernel to text.  Values are folded across CPUs
 * as program.h lays them out; the text copies bpftrace 0.17 byte for byte
 * (hist bars 52 wide, labels with K/M/G suffixes, a blank line after each
 * hist and after avg/stats maps) so that scripts and their users see the
 * same output from both tools.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "mapprint.h"
#include "mapwalk.h"
#include "symbols.h"

#define MP_BAR 52

static const struct type *mp_agg(const struct pr_map *m)
{
	return m->value && m->value->kind == T_AGG ? m->value : NULL;
}

static enum agg_kind mp_kind(const struct pr_map *m)
{
	const struct type *a = mp_agg(m);
	return a ? a->agg : AGG_NONE;
}

static bool mp_is_hist(const struct pr_map *m)
{
	return mp_kind(m) == AGG_HIST || mp_kind(m) == AGG_LHIST;
}

/* Keyed by a bucket after the script's keys: hist, lhist and tseries. */
static bool mp_bucketed(const struct pr_map *m)
{
	return mp_is_hist(m) || mp_kind(m) == AGG_TSERIES;
}

int mp_nbuckets(const struct type *agg)
{
	if (agg->agg == AGG_TSERIES)   /* the slots' four u64 each */
		return (int)agg->lh_max * (TS_SLOT / 8);
	if (agg->agg == AGG_LHIST && agg->lh_step > 0)
		return (int)(2 + (agg->lh_max - agg->lh_min) / agg->lh_step);
	return (int)hist_buckets((int)agg->lh_step);
}

static uint32_t mp_prefix(const struct pr_map *m)
{
	if (m->array)
		return 0;   /* the key is the bucket, or 0 */
	return mp_bucketed(m) ? m->key_size - 8 : m->key_size;
}

/* An array entry exists from the start: a count prints even when 0, as
 * bpftrace prints its keyless count; the others (a sum too, whose hits
 * are counted beside it) are absent while they are zero on every CPU
 * (see define_script_maps()). */
static bool mp_array_absent(const struct pr_map *m, const char *v, size_t n)
{
	if (mp_kind(m) == AGG_COUNT || m->zeroed)
		return false;
	for (size_t i = 0; i < n; i++)
		if (v[i])
			return false;
	return true;
}

/* type_is_int() without linking types.c: keeps this file testable alone. */
/* A pointer as a map value prints as a signed number, as bpftrace 0.17
 * prints it (a key prints 0x...). */
static bool mp_is_int(const struct type *t)
{
	return t->kind == T_INT || t->kind == T_BOOL || t->kind == T_ENUM || t->kind == T_PTR;
}

static bool mp_has_keys(const struct pr_map *m)
{
	return m->key != NULL;
}

/* ---- reading ---- */

/* One CPU's tseries slot into the folded one (both TS_SLOT): only the
 * newest interval counts; within it, as the aggregation says, and the
 * last update of all CPUs for `last`. */
static void mp_ts_fold(const struct type *agg, uint64_t *to, const char *v)
{
	uint64_t s[4];

	memcpy(s, v, sizeof(s));
	if (!s[2] || (to[2] && s[0] < to[0]))
		return;
	if (!to[2] || s[0] > to[0]) {
		memcpy(to, s, sizeof(s));
		return;
	}
	int64_t a = (int64_t)to[1], b = (int64_t)s[1];
	switch ((enum ts_agg)agg->lh_min) {
	case TS_AVG: case TS_SUM:
		to[1] = (uint64_t)(a + b);
		break;
	case TS_MAX:
		to[1] = (uint64_t)(b > a ? b : a);
		break;
	case TS_MIN:
		to[1] = (uint64_t)(b < a ? b : a);
		break;
	default:
		if (s[3] > to[3])
			to[1] = s[1];
	}
	to[2] += s[2];
	if (s[3] > to[3])
		to[3] = s[3];
}

static void mp_fold(const struct pr_map *m, struct mp_entry *e, const char *v,
		    int ncpu, uint64_t bucket)
{
	size_t stride = (m->value_size + 7) & ~7u;
	for (int c = 0; c < ncpu; c++, v += stride) {
		int64_t a, b;
		memcpy(&a, v, 8);
		switch (mp_kind(m)) {
		case AGG_COUNT: case AGG_SUM:
			e->value += a;
			break;
		case AGG_MIN: case AGG_MAX:
			memcpy(&b, v + 8, 8);
			if (!b)
				break;
			if (!e->count || (mp_kind(m) == AGG_MIN ? a < e->value : a > e->value))
				e->value = a;
			e->count = 1;
			break;
		case AGG_AVG: case AGG_STATS:
			memcpy(&b, v + 8, 8);
			e->sum += a;
			e->count += (uint64_t)b;
			e->value = e->count ? e->sum / (int64_t)e->count : 0;
			break;
		case AGG_HIST: case AGG_LHIST:
			if (bucket < (uint64_t)e->nbuckets)
				e->buckets[bucket] += (uint64_t)a;
			break;
		case AGG_TSERIES:
			if ((bucket + 1) * (TS_SLOT / 8) <= (uint64_t)e->nbuckets)
				mp_ts_fold(mp_agg(m), e->buckets + bucket * (TS_SLOT / 8), v);
			break;
		default:
			break;
		}
	}
}

static struct mp_entry *mp_entry_for(const struct pr_map *m, struct mp_data *d,
				     const char *key)
{
	uint32_t n = mp_prefix(m);
	if (mp_bucketed(m))
		for (int i = d->n - 1; i >= 0; i--)
			if (!n || !memcmp(d->e[i].key, key, n))
				return &d->e[i];
	struct mp_entry *e = realloc(d->e, (size_t)(d->n + 1) * sizeof(*e));
	if (!e)
		return NULL;
	d->e = e;
	e = &d->e[d->n++];
	memset(e, 0, sizeof(*e));
	e->key = malloc(n ? n : 1);
	if (e->key)
		memcpy(e->key, key, n);
	if (mp_bucketed(m)) {
		e->nbuckets = mp_nbuckets(mp_agg(m));
		e->buckets = calloc((size_t)e->nbuckets, 8);
	}
	return e;
}

/* A walk the kernel did not end is said, once per print, never looped on. */
static void mp_walk_note(const struct pr_map *m, const struct mw_walk *w, const char *what)
{
	if (w->cut)
		fprintf(stderr, "perf-run: %s: the kernel's walk of its keys did not end (%llu "
			"steps for at most %u keys); %s the %u distinct keys it gave\n", m->name,
			(unsigned long long)w->steps, w->max_entries, what, w->nkeys);
}

/* A keyless count without its entry (a map the script delete()s is a
 * hash) prints 0, as bpftrace 0.17 prints its keyless count after delete. */
static int mp_count_zero(const struct pr_map *m, struct mp_data *out)
{
	char *key = calloc(1, m->key_size + 8);
	int err = key && mp_entry_for(m, out, key) ? 0 : -ENOMEM;

	free(key);
	return err;
}

int mp_read(int fd, const struct pr_map *m, struct mp_data *out)
{
	bool percpu = m->bpf_type == BPF_MAP_TYPE_PERCPU_HASH ||
		      m->bpf_type == BPF_MAP_TYPE_LRU_PERCPU_HASH ||
		      m->bpf_type == BPF_MAP_TYPE_PERCPU_ARRAY;
	int ncpu = percpu ? libbpf_num_possible_cpus() : 1;
	size_t stride = (m->value_size + 7) & ~7u;
	char *val = calloc((size_t)(ncpu > 0 ? ncpu : 1), stride + 8);
	struct mw_walk w;
	const char *key;
	int err = 0;

	out->e = NULL;
	out->n = 0;
	if (!val || ncpu <= 0) {
		free(val);
		return -ENOMEM;
	}
	mw_init(&w, fd, m->key_size, m->max_entries);
	while ((key = mw_next(&w))) {
		if (bpf_map_lookup_elem(fd, key, val))
			continue;   /* deleted meanwhile */
		if (m->array && mp_array_absent(m, val, (size_t)ncpu * stride))
			continue;
		struct mp_entry *e = mp_entry_for(m, out, key);
		if (!e) {
			err = -ENOMEM;
			break;
		}
		uint64_t bucket = 0;
		if (m->array) {
			uint32_t idx;
			memcpy(&idx, key, 4);
			bucket = idx;
		} else if (mp_bucketed(m)) {
			memcpy(&bucket, key + m->key_size - 8, 8);
		}
		if (mp_kind(m) == AGG_NONE) {
			e->raw = malloc(m->value_size + 8);
			if (e->raw)
				memcpy(e->raw, val, m->value_size);
			if (e->raw && m->value && mp_is_int(m->value))
				e->value = fmt_int(m->value, e->raw);
		} else {
			mp_fold(m, e, val, ncpu, bucket);
		}
	}
	if (!err && !out->n && !m->key && mp_kind(m) == AGG_COUNT)
		err = mp_count_zero(m, out);
	if (w.failed)
		err = -ENOMEM;
	out->nkeys = w.nkeys;
	mp_walk_note(m, &w, "printed");
	mw_free(&w);
	free(val);
	return err;
}

void mp_data_free(struct mp_data *d)
{
	for (int i = 0; i < d->n; i++) {
		free(d->e[i].key);
		free(d->e[i].buckets);
		free(d->e[i].raw);
	}
	free(d->e);
	d->e = NULL;
	d->n = 0;
}

/* ---- sorting ---- */

static const struct pr_map *mp_sort_map;

static int mp_cmp(const void *pa, const void *pb)
{
	const struct pr_map *m = mp_sort_map;
	const struct mp_entry *a = pa, *b = pb;
	bool by_value = !mp_bucketed(m) &&
			(mp_kind(m) != AGG_NONE || (m->value && mp_is_int(m->value)));
	if (by_value && a->value != b->value)
		return a->value < b->value ? -1 : 1;
	uint32_t n = mp_prefix(m);
	return n ? memcmp(a->key, b->key, n) : 0;
}

void mp_sort(const struct pr_map *m, struct mp_data *d)
{
	mp_sort_map = m;   /* qsort has no context argument */
	if (d->n > 1)
		qsort(d->e, (size_t)d->n, sizeof(*d->e), mp_cmp);
}

/* ---- text ---- */

static void mp_pow2(struct fmt_buf *b, int p)
{
	static const char suffix[] = " KMGTPE";
	fmt_addf(b, "%llu", 1ull << (p % 10));
	if (p >= 10)
		fmt_putc(b, suffix[p / 10]);
}

/* A hist(x, k) bucket bound as bpftrace prints it: the power's K, M, G...
 * suffix, times the bucket's multiple. */
static void mp_kpow(struct fmt_buf *b, int k, uint32_t i)
{
	static const char suffix[] = " KMGTPE";
	uint32_t n = 1u << k, power = (i >> k) - 1, decade = power / 10;
	fmt_addf(b, "%llu", (1ull << (power - 10 * decade)) * (n + (i & (n - 1))));
	if (decade)
		fmt_putc(b, suffix[decade]);
}

static void mp_lnum(struct fmt_buf *b, int64_t v)
{
	if (v != 0 && v % 1048576 == 0)
		fmt_addf(b, "%lldM", (long long)(v / 1048576));
	else if (v != 0 && v % 1024 == 0)
		fmt_addf(b, "%lldK", (long long)(v / 1024));
	else
		fmt_addf(b, "%lld", (long long)v);
}

void mp_hist_label(struct fmt_buf *b, const struct type *agg, int i)
{
	if (agg->agg == AGG_LHIST) {
		int last = mp_nbuckets(agg) - 1;
		if (i == 0) {
			fmt_puts(b, "(..., ");
			mp_lnum(b, agg->lh_min);
			fmt_putc(b, ')');
		} else if (i == last) {
			fmt_putc(b, '[');
			mp_lnum(b, agg->lh_max);
			fmt_puts(b, ", ...)");
		} else {
			fmt_putc(b, '[');
			mp_lnum(b, agg->lh_min + (i - 1) * agg->lh_step);
			fmt_puts(b, ", ");
			mp_lnum(b, agg->lh_min + i * agg->lh_step);
			fmt_putc(b, ')');
		}
		return;
	}
	if (agg->lh_step > 0) {   /* hist(x, k) */
		int k = (int)agg->lh_step;
		if (i == 0) {
			fmt_puts(b, "(..., 0)");
		} else if (i <= (2 << k)) {
			fmt_addf(b, "[%d]", i - 1);
		} else {
			fmt_putc(b, '[');
			mp_kpow(b, k, (uint32_t)i - 1);
			fmt_puts(b, ", ");
			mp_kpow(b, k, (uint32_t)i);
			fmt_putc(b, ')');
		}
		return;
	}
	if (i == 0) {
		fmt_puts(b, "(..., 0)");
	} else if (i == 1) {
		fmt_puts(b, "[0]");
	} else if (i == 2) {
		fmt_puts(b, "[1]");
	} else {
		fmt_putc(b, '[');
		mp_pow2(b, i - 2);
		fmt_puts(b, ", ");
		mp_pow2(b, i - 1);
		fmt_putc(b, ')');
	}
}

static bool mp_range(const uint64_t *bk, int n, int *lo, int *hi, uint64_t *max)
{
	*lo = *hi = -1;
	*max = 0;
	for (int i = 0; i < n; i++) {
		if (!bk[i])
			continue;
		if (*lo < 0)
			*lo = i;
		*hi = i;
		if (bk[i] > *max)
			*max = bk[i];
	}
	return *lo >= 0;
}

void mp_hist_text(struct fmt_buf *b, const struct type *agg, const uint64_t *bk, int n,
		  int64_t div)
{
	int lo, hi;
	uint64_t max;
	if (!mp_range(bk, n, &lo, &hi, &max))
		return;
	for (int i = lo; i <= hi; i++) {
		struct fmt_buf l;
		fmt_init(&l);
		mp_hist_label(&l, agg, i);
		/* bpftrace computes the bar in float; so do we, for equal widths */
		int bar = (int)((float)bk[i] / (float)max * MP_BAR);
		/* print(@h, top, div) divides the counts, not the bars (bpftrace) */
		fmt_addf(b, "%-16s%8llu |", l.s,
			 (unsigned long long)(div > 0 ? bk[i] / (uint64_t)div : bk[i]));
		for (int j = 0; j < MP_BAR; j++)
			fmt_putc(b, j < bar ? '@' : ' ');
		fmt_puts(b, "|\n");
		fmt_free(&l);
	}
}

static const struct field *mp_key_fields(const struct type *key, int *n,
					 struct field *one)
{
	if (key->kind == T_TUPLE) {
		*n = key->nfields;
		return key->fields;
	}
	memset(one, 0, sizeof(*one));
	one->type = key;
	*n = 1;
	return one;
}

void mp_key_text(struct fmt_buf *b, const struct type *key, const char *k,
		 const struct fmt_ctx *c)
{
	struct field one;
	int n;
	const struct field *f = mp_key_fields(key, &n, &one);
	struct fmt_ctx kc = c ? *c : (struct fmt_ctx){ .stack_fd = -1, .ustack_fd = -1 };
	kc.stack_indent = 4;
	kc.key = true;
	for (int i = 0; i < n; i++) {
		if (i)
			fmt_puts(b, ", ");
		fmt_value(b, f[i].type, k + f[i].offset, &kc);
	}
}

static void mp_name(struct fmt_buf *b, const struct pr_map *m, const struct mp_entry *e,
		    const struct fmt_ctx *c)
{
	fmt_puts(b, m->name);
	if (mp_has_keys(m)) {
		fmt_putc(b, '[');
		mp_key_text(b, m->key, e->key, c);
		fmt_putc(b, ']');
	}
}

static int64_t mp_div(int64_t v, int64_t div)
{
	return div > 0 ? v / div : v;
}

static void mp_value_text(struct fmt_buf *b, const struct pr_map *m,
			  const struct mp_entry *e, int64_t div, const struct fmt_ctx *c)
{
	switch (mp_kind(m)) {
	case AGG_STATS:   /* bpftrace ignores div for stats */
		fmt_addf(b, "count %llu, average %lld, total %lld",
			 (unsigned long long)e->count, (long long)e->value, (long long)e->sum);
		break;
	case AGG_NONE:
		if (m->value && m->value->kind == T_BOOL && m->value->is_word)
			fmt_puts(b, e->value ? "true" : "false");
		else if (m->value && mp_is_int(m->value))
			fmt_addf(b, "%lld", (long long)mp_div(e->value, div));
		else if (e->raw)
			fmt_value(b, m->value, e->raw, c);
		break;
	default:
		fmt_addf(b, "%lld", (long long)mp_div(e->value, div));
	}
}

/* ---- tseries ---- */

enum { TS_WIDTH = 53, TS_PAD = 21 };   /* the graph's columns; the min label's */

/* Digits after the second a timestamp needs for interval iv (ns): 0, 3, 6
 * or 9, as the finest unit that divides it. */
static int mp_ts_digits(int64_t iv)
{
	return iv % 1000000000 == 0 ? 0 : iv % 1000000 == 0 ? 3 : iv % 1000 == 0 ? 6 : 9;
}

static void mp_ts_time(struct fmt_buf *b, uint64_t ns, int digits)
{
	time_t secs = (time_t)(ns / 1000000000u);
	uint64_t frac = ns % 1000000000u;
	struct tm tm;
	char s[32];

	localtime_r(&secs, &tm);
	strftime(s, sizeof(s), "%H:%M:%S", &tm);
	fmt_puts(b, s);
	if (digits)
		fmt_addf(b, ".%0*llu", digits,
			 (unsigned long long)(frac / (digits == 3 ? 1000000u : digits == 6 ? 1000u : 1u)));
}

/* The min and max labels over the graph's columns, after `indent` spaces. */
static void mp_ts_labels(struct fmt_buf *b, int indent, int64_t lo, int64_t hi)
{
	fmt_addf(b, "%*s%-*lld%*lld\n", indent, "", TS_PAD, (long long)lo, TS_WIDTH - TS_PAD,
		 (long long)hi);
}

/* A slot's value, or false if epoch has none (slots: TS_SLOT each). */
static bool mp_ts_value(const struct type *agg, const uint64_t *slots, uint64_t epoch,
			int64_t *v)
{
	const uint64_t *s = slots + (epoch % (uint64_t)agg->lh_max) * (TS_SLOT / 8);

	if (!s[2] || s[0] != epoch)
		return false;
	*v = (int64_t)s[1];
	if (agg->lh_min == TS_AVG)
		*v /= (int64_t)s[2];
	return true;
}

/* A time series as newer bpftrace draws it: one row per interval, oldest
 * first, from the first with a value to the newest (at most n), `-` for
 * an interval without one; `*` at the value between the min and max of
 * the rows, `.` on the zero column when 0 lies between them. */
static void mp_ts_text(struct fmt_buf *b, const struct type *agg, const uint64_t *slots)
{
	uint64_t n = (uint64_t)agg->lh_max, last = 0, first = UINT64_MAX;
	int64_t lo = INT64_MAX, hi = INT64_MIN, v;
	int digits = mp_ts_digits(agg->lh_step), tsize = 8 + (digits ? digits + 1 : 0);

	for (uint64_t i = 0; i < n; i++)
		if (slots[i * (TS_SLOT / 8) + 2] && slots[i * (TS_SLOT / 8)] > last)
			last = slots[i * (TS_SLOT / 8)];
	for (uint64_t e = last >= n - 1 ? last - (n - 1) : 0; e <= last; e++)
		if (mp_ts_value(agg, slots, e, &v)) {
			if (first == UINT64_MAX)
				first = e;
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
	if (first == UINT64_MAX) {
		fmt_puts(b, "<no data>\n");
		return;
	}
	if (lo == hi) {   /* room on both sides of a flat line */
		lo -= lo > INT64_MIN;
		hi += hi < INT64_MAX;
	}
	double span = (double)hi - (double)lo;
	int zero = lo < 0 && hi > 0 ? (int)((float)TS_WIDTH * (float)(-(double)lo) / (float)span) : 0;

	mp_ts_labels(b, tsize + 1, lo, hi);
	fmt_addf(b, "%-*s|", tsize + 1, digits == 0 ? "hh:mm:ss" : digits == 3 ? "hh:mm:ss.ms" :
		 digits == 6 ? "hh:mm:ss.us" : "hh:mm:ss.ns");
	for (int i = 0; i < TS_WIDTH - 2; i++)
		fmt_putc(b, '_');
	fmt_puts(b, "|\n");
	for (uint64_t e = first; e <= last; e++) {
		char line[TS_WIDTH + 1];

		memset(line, ' ', TS_WIDTH);
		line[TS_WIDTH] = 0;
		line[0] = line[TS_WIDTH - 1] = '|';
		if (zero > 0)
			line[zero] = '.';
		mp_ts_time(b, e * (uint64_t)agg->lh_step, digits);
		fmt_putc(b, ' ');
		if (!mp_ts_value(agg, slots, e, &v)) {
			fmt_addf(b, "%s -\n", line);
			continue;
		}
		int at = (int)((float)(TS_WIDTH - 1) * (float)((double)v - (double)lo) / (float)span);
		line[at < 0 ? 0 : at > TS_WIDTH - 1 ? TS_WIDTH - 1 : at] = '*';
		fmt_addf(b, "%s %lld\n", line, (long long)v);
	}
	fmt_addf(b, "%*sv", tsize + 1, "");
	for (int i = 0; i < TS_WIDTH - 2; i++)
		fmt_putc(b, '_');
	fmt_puts(b, "v\n");
	mp_ts_labels(b, tsize + 1, lo, hi);
}

/* -f json: [{"interval_start": "2025-01-02T10:41:46.700000000", "value": 1}, ...],
 * the rows mp_ts_text draws, null for an interval without a value. */
static void mp_ts_json(struct fmt_buf *b, const struct type *agg, const uint64_t *slots)
{
	uint64_t n = (uint64_t)agg->lh_max, last = 0, first = UINT64_MAX;
	int64_t v;

	for (uint64_t i = 0; i < n; i++)
		if (slots[i * (TS_SLOT / 8) + 2] && slots[i * (TS_SLOT / 8)] > last)
			last = slots[i * (TS_SLOT / 8)];
	for (uint64_t e = last >= n - 1 ? last - (n - 1) : 0; e <= last && first == UINT64_MAX; e++)
		if (mp_ts_value(agg, slots, e, &v))
			first = e;
	fmt_putc(b, '[');
	for (uint64_t e = first; first != UINT64_MAX && e <= last; e++) {
		uint64_t ns = e * (uint64_t)agg->lh_step;
		time_t secs = (time_t)(ns / 1000000000u);
		struct tm tm;
		char s[32];

		localtime_r(&secs, &tm);
		strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S", &tm);
		fmt_addf(b, "%s{\"interval_start\": \"%s.%09llu\", \"value\": ", e > first ? "," : "",
			 s, (unsigned long long)(ns % 1000000000u));
		if (mp_ts_value(agg, slots, e, &v))
			fmt_addf(b, "%lld}", (long long)v);
		else
			fmt_puts(b, "null}");
	}
	fmt_putc(b, ']');
}

static int mp_first(const struct pr_map *m, const struct mp_data *d, int64_t top)
{
	/* bpftrace ignores top for stats */
	return mp_kind(m) != AGG_STATS && top > 0 && top < d->n ? d->n - (int)top : 0;
}

void mp_text(struct fmt_buf *b, const struct pr_map *m, const struct mp_data *d,
	     int64_t top, int64_t div, const struct fmt_ctx *c)
{
	for (int i = mp_first(m, d, top); i < d->n; i++) {
		const struct mp_entry *e = &d->e[i];
		mp_name(b, m, e, c);
		if (mp_kind(m) == AGG_TSERIES) {   /* newer bpftrace: no space after ':' */
			fmt_puts(b, ":\n");
			mp_ts_text(b, mp_agg(m), e->buckets);
			fmt_putc(b, '\n');
			continue;
		}
		fmt_puts(b, ": ");
		if (mp_is_hist(m)) {
			fmt_putc(b, '\n');
			mp_hist_text(b, mp_agg(m), e->buckets, e->nbuckets, div);
			fmt_putc(b, '\n');
			continue;
		}
		mp_value_text(b, m, e, div, c);
		fmt_putc(b, '\n');
	}
	/* bpftrace 0.17 writes an empty map as an empty line, and ends an
	 * avg or stats map with one more, empty or not */
	if (!d->n)
		fmt_putc(b, '\n');
	if (mp_kind(m) == AGG_AVG || mp_kind(m) == AGG_STATS)
		fmt_putc(b, '\n');
}

/* ---- JSON ---- */

static void mp_json_key(struct fmt_buf *b, const struct pr_map *m,
			const struct mp_entry *e, const struct fmt_ctx *c)
{
	struct fmt_buf k;
	struct field one;
	int n;
	const struct field *f = mp_key_fields(m->key, &n, &one);
	struct fmt_ctx kc = c ? *c : (struct fmt_ctx){ .stack_fd = -1, .ustack_fd = -1 };
	kc.stack_indent = 4;
	fmt_init(&k);
	for (int i = 0; i < n; i++) {
		if (i)
			fmt_putc(&k, ',');
		fmt_value(&k, f[i].type, e->key + f[i].offset, &kc);
	}
	fmt_putc(b, '"');
	fmt_json_str(b, k.s);
	fmt_puts(b, "\": ");
	fmt_free(&k);
}

static void mp_json_hist(struct fmt_buf *b, const struct type *agg, const uint64_t *bk, int n)
{
	int lo, hi, last = n - 1;
	uint64_t max;
	fmt_putc(b, '[');
	if (mp_range(bk, n, &lo, &hi, &max)) {
		for (int i = lo; i <= hi; i++) {
			long long mn, mx;
			bool lin = agg->agg == AGG_LHIST;
			if (lin) {
				mn = agg->lh_min + (i - 1) * agg->lh_step;
				mx = mn + agg->lh_step - 1;
			} else if (agg->lh_step > 0 && i <= (2 << agg->lh_step)) {
				mn = mx = i - 1;   /* hist(x, k): one value */
			} else if (agg->lh_step > 0) {
				mn = (long long)hist_bucket_start((int)agg->lh_step, (uint32_t)i - 1);
				mx = (long long)hist_bucket_start((int)agg->lh_step, (uint32_t)i) - 1;
			} else {
				mn = i <= 1 ? 0 : (long long)(1ull << (i - 2));
				mx = i <= 1 ? 0 : (long long)((1ull << (i - 1)) - 1);
			}
			fmt_puts(b, i > lo ? ", {" : "{");
			if (i == 0)
				fmt_addf(b, "\"max\": %lld, ", lin ? (long long)agg->lh_min - 1 : -1ll);
			else if (lin && i == last)
				fmt_addf(b, "\"min\": %lld, ", (long long)agg->lh_max);
			else
				fmt_addf(b, "\"min\": %lld, \"max\": %lld, ", mn, mx);
			fmt_addf(b, "\"count\": %llu}", (unsigned long long)bk[i]);
		}
	}
	fmt_putc(b, ']');
}

static void mp_json_value(struct fmt_buf *b, const struct pr_map *m,
			  const struct mp_entry *e, int64_t div, const struct fmt_ctx *c)
{
	if (mp_kind(m) == AGG_TSERIES) {
		mp_ts_json(b, mp_agg(m), e->buckets);
	} else if (mp_is_hist(m)) {
		mp_json_hist(b, mp_agg(m), e->buckets, e->nbuckets);
	} else if (mp_kind(m) == AGG_STATS) {
		fmt_addf(b, "{\"count\": %llu, \"average\": %lld, \"total\": %lld}",
			 (unsigned long long)e->count, (long long)e->value, (long long)e->sum);
	} else if (mp_kind(m) == AGG_NONE && m->value && (m->value->kind == T_TUPLE ||
			m->value->kind == T_RECORD || m->value->kind == T_ARRAY ||
			m->value->kind == T_FLOAT)) {
		if (e->raw)
			fmt_json_value(b, m->value, e->raw, c);
		else
			fmt_puts(b, "null");
	} else if (mp_kind(m) == AGG_NONE && m->value && m->value->kind == T_BOOL &&
		   m->value->is_word) {
		fmt_puts(b, e->value ? "true" : "false");
	} else if (mp_kind(m) == AGG_NONE && !(m->value && mp_is_int(m->value))) {
		struct fmt_buf v;
		fmt_init(&v);
		if (e->raw)
			fmt_value(&v, m->value, e->raw, c);
		fmt_putc(b, '"');
		fmt_json_str(b, v.s);
		fmt_putc(b, '"');
		fmt_free(&v);
	} else {
		fmt_addf(b, "%lld", (long long)mp_div(e->value, div));
	}
}

void mp_json(struct fmt_buf *b, const struct pr_map *m, const struct mp_data *d,
	     int64_t top, int64_t div, const struct fmt_ctx *c)
{
	const char *type = mp_is_hist(m) ? "hist" : mp_kind(m) == AGG_TSERIES ? "tseries" :
			   mp_kind(m) == AGG_AVG || mp_kind(m) == AGG_STATS ? "stats" : "map";
	fmt_addf(b, "{\"type\": \"%s\", \"data\": {\"", type);
	fmt_json_str(b, m->name);
	fmt_puts(b, "\": ");
	if (!mp_has_keys(m)) {
		if (d->n)
			mp_json_value(b, m, &d->e[0], div, c);
		else
			fmt_puts(b, "null");
	} else {
		fmt_putc(b, '{');
		for (int i = mp_first(m, d, top), f = i; i < d->n; i++) {
			if (i > f)
				fmt_puts(b, ", ");
			mp_json_key(b, m, &d->e[i], c);
			mp_json_value(b, m, &d->e[i], div, c);
		}
		fmt_putc(b, '}');
	}
	fmt_puts(b, "}}\n");
}

/* ---- clear / zero ---- */

static int mp_zero_all(int fd, const struct pr_map *m);

int mp_clear(int fd, struct pr_map *m)
{
	struct mw_walk w;

	m->zeroed = false;
	if (m->array)
		return mp_zero_all(fd, m);   /* array entries cannot be deleted */
	/* every key first: deleting during the walk would restart it */
	mw_init(&w, fd, m->key_size, m->max_entries);
	mw_all(&w);
	for (uint32_t i = 0; i < w.nkeys; i++)
		bpf_map_delete_elem(fd, mw_key(&w, i));
	mp_walk_note(m, &w, "cleared");
	int err = w.failed ? -ENOMEM : 0;
	mw_free(&w);
	return err;
}

static int mp_zero_all(int fd, const struct pr_map *m)
{
	int ncpu = libbpf_num_possible_cpus();
	size_t stride = (m->value_size + 7) & ~7u;
	char *zero = calloc((size_t)(ncpu > 0 ? ncpu : 1), stride);
	struct mw_walk w;

	if (!zero)
		return -ENOMEM;
	mw_init(&w, fd, m->key_size, m->max_entries);
	mw_all(&w);
	for (uint32_t i = 0; i < w.nkeys; i++)
		bpf_map_update_elem(fd, mw_key(&w, i), zero, BPF_EXIST);
	mp_walk_note(m, &w, "zeroed");
	int err = w.failed ? -ENOMEM : 0;
	mw_free(&w);
	free(zero);
	return err;
}

int mp_zero(int fd, struct pr_map *m)
{
	m->zeroed = true;
	return mp_zero_all(fd, m);
}

/* ---- folded stacks (-f folded) ---- */

/* One number per entry: what a flame graph's width can be. */
static bool mp_fold_value(const struct pr_map *m)
{
	switch (mp_kind(m)) {
	case AGG_COUNT: case AGG_SUM: case AGG_MIN: case AGG_MAX: case AGG_AVG:
		return true;
	case AGG_NONE:
		return m->value && mp_is_int(m->value);
	default:
		return false;
	}
}

bool mp_foldable(const struct pr_map *m)
{
	struct field one;
	int n;
	if (!mp_has_keys(m) || !mp_fold_value(m))
		return false;
	const struct field *f = mp_key_fields(m->key, &n, &one);
	for (int i = 0; i < n; i++)
		if (f[i].type && f[i].type->kind == T_STACK)
			return true;
	return false;
}

/* Appends a frame, with ';' (the frame separator) and line ends made '_'. */
static void mp_fold_frame(struct fmt_buf *b, const char *s)
{
	if (b->len)
		fmt_putc(b, ';');
	for (; *s; s++)
		fmt_putc(b, *s == ';' || *s == '\n' ? '_' : *s);
}

/* A stack value's frames, root first, as names without offsets (flame-graph
 * tools merge a function's samples by name). */
static void mp_fold_stack(struct fmt_buf *b, const struct type *t, const void *p,
			  const struct fmt_ctx *c)
{
	uint64_t v, ips[FMT_MAX_FRAMES], off;
	memcpy(&v, p, 8);
	uint32_t id = (uint32_t)v;
	pid_t pid = (pid_t)(v >> 32);
	int n = 0;

	memset(ips, 0, sizeof(ips));
	if (t->is_user && id == PR_UW_ID_FULL) {
		fmt_puts(b, PR_UW_ID_FULL_NOTE);
		return;
	}
	if (fmt_stack_fd(c, t) < 0 || (int32_t)id < 0 ||
	    bpf_map_lookup_elem(fmt_stack_fd(c, t), &id, ips))
		return;
	while (n < FMT_MAX_FRAMES && ips[n] && (!t->frames || n < t->frames))
		n++;
	for (int i = n - 1; i >= 0; i--) {
		const char *name = NULL;
		char hex[24];
		if (c->sym)
			name = t->is_user ? sym_user(c->sym, pid, ips[i], &off)
					  : sym_kernel(c->sym, ips[i], &off);
		if (!name) {
			snprintf(hex, sizeof(hex), "0x%llx",
				 (unsigned long long)(t->is_user ? pr_uw_addr(ips[i]) : ips[i]));
			name = hex;
		}
		/* perf's names (shop::Cart::total), as perf script folds them */
		mp_fold_frame(b, name != hex && t->is_user ? fmt_symname(c, name, true) : name);
		/* then the functions inlined there, outermost first */
		struct sym_frame inl[FMT_MAX_INLINED + 1];
		int ni = c->sym && t->is_user && name != hex ?
			 sym_user_inlined(c->sym, pid, ips[i] - (i > 0), inl, FMT_MAX_INLINED + 1) : 0;
		while (ni-- > 0)
			mp_fold_frame(b, fmt_symname(c, inl[ni].name, true));
	}
}

struct mp_fold_line {
	char *stack;
	int64_t value;
};

static int mp_fold_cmp(const void *a, const void *b)
{
	return strcmp(((const struct mp_fold_line *)a)->stack,
		      ((const struct mp_fold_line *)b)->stack);
}

/* The folded stack of one entry: the keys in key order, other keys (comm,
 * pid...) as one frame each, a stack as its frames root first; so
 * @[comm, ustack] puts the command at the root of its stacks. */
/* perf: perf's and bcc's layout whatever the key order: the other keys
 * first (comm at the root), then the user stack, then the kernel stack
 * (pass 0, 1, 2); else one pass in key order. */
static char *mp_fold_key(const struct pr_map *m, const struct mp_entry *e, bool name_root,
			 bool perf, const struct fmt_ctx *c)
{
	struct fmt_buf b, k;
	struct field one;
	int n;
	const struct field *f = mp_key_fields(m->key, &n, &one);
	fmt_init(&b);
	if (name_root)
		mp_fold_frame(&b, m->name);
	for (int i = 0, pass = 0; pass < (perf ? 3 : 1); i = i + 1 < n ? i + 1 : (pass++, 0)) {
		bool stack = f[i].type->kind == T_STACK;
		if (perf && pass != (!stack ? 0 : f[i].type->is_user ? 1 : 2))
			continue;
		if (stack) {
			mp_fold_stack(&b, f[i].type, e->key + f[i].offset, c);
			continue;
		}
		fmt_init(&k);
		fmt_value(&k, f[i].type, e->key + f[i].offset, c);
		mp_fold_frame(&b, k.s);
		fmt_free(&k);
	}
	return b.s;
}

static void mp_folded_as(struct fmt_buf *b, const struct pr_map *m, const struct mp_data *d,
			 int64_t top, int64_t div, bool name_root, bool perf,
			 const struct fmt_ctx *c)
{
	int first = mp_first(m, d, top), n = 0;
	struct mp_fold_line *l = calloc((size_t)(d->n - first) + 1, sizeof(*l));
	if (!l)
		return;
	for (int i = first; i < d->n; i++) {
		l[n].stack = mp_fold_key(m, &d->e[i], name_root, perf, c);
		l[n].value = mp_div(d->e[i].value, div);
		/* an entry whose stack is gone from the stack map has no frames:
		 * left out, as the text output prints no frames for it */
		if (l[n].stack && *l[n].stack)
			n++;
		else
			free(l[n].stack);
	}
	/* stacks that differ only in offsets within functions fold to one line */
	qsort(l, (size_t)n, sizeof(*l), mp_fold_cmp);
	for (int i = 0; i < n; i++) {
		int64_t sum = l[i].value;
		while (i + 1 < n && !strcmp(l[i].stack, l[i + 1].stack)) {
			free(l[i].stack);
			sum += l[++i].value;
		}
		fmt_addf(b, "%s %lld\n", l[i].stack, (long long)sum);
		free(l[i].stack);
	}
	free(l);
}

void mp_folded(struct fmt_buf *b, const struct pr_map *m, const struct mp_data *d,
	       int64_t top, int64_t div, bool name_root, const struct fmt_ctx *c)
{
	mp_folded_as(b, m, d, top, div, name_root, false, c);
}

void mp_folded_perf(struct fmt_buf *b, const struct pr_map *m, const struct mp_data *d,
		    int64_t top, int64_t div, bool name_root, const struct fmt_ctx *c)
{
	mp_folded_as(b, m, d, top, div, name_root, true, c);
}
