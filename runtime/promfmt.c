/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * promfmt.c - script maps as Prometheus text (0.0.4) or OpenMetrics 1.0
 * text (promfmt.h).  Both formats share the sample lines; they differ in
 * the names a counter's HELP and TYPE lines carry, in what HELP escapes
 * and in OpenMetrics' closing "# EOF".  The same `le` text is written in
 * both, so a series keeps its labels whichever format a server asks for.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "promfmt.h"

static enum agg_kind prom_agg(const struct pr_map *m)
{
	return m->value && m->value->kind == T_AGG ? m->value->agg : AGG_NONE;
}

static bool prom_is_number(const struct type *t)
{
	return t && (t->kind == T_INT || t->kind == T_BOOL || t->kind == T_ENUM ||
		     t->kind == T_PTR);
}

enum prom_kind prom_kind(const struct pr_map *m, const char **why)
{
	*why = NULL;
	switch (prom_agg(m)) {
	case AGG_COUNT:
		return PROM_COUNTER;
	case AGG_SUM: case AGG_MIN: case AGG_MAX:
		return PROM_GAUGE;
	case AGG_AVG: case AGG_STATS:
		return PROM_SUMMARY;
	case AGG_HIST: case AGG_LHIST:
		return PROM_HISTOGRAM;
	case AGG_TSERIES:
		*why = "a tseries() holds a series of its own, not one value";
		return PROM_NONE;
	case AGG_NONE:
		break;
	}
	if (prom_is_number(m->value))
		return PROM_GAUGE;
	*why = "its values are not numbers";
	return PROM_NONE;
}

/* ---- names ---- */

/* The series names a family of base name makes. */
static const char *const prom_suffixes[] = { "", "_total", "_bucket", "_sum", "_count",
					     "_created", "_info" };
#define PROM_NSUFFIX (sizeof(prom_suffixes) / sizeof(prom_suffixes[0]))

/* The i-th character of base followed by sfx. */
static char prom_at(const char *base, size_t lbase, const char *sfx, size_t i)
{
	return i < lbase ? base[i] : sfx[i - lbase];
}

/* Whether a series of family a could have the name of one of family b. */
static bool prom_clash(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	for (size_t i = 0; i < PROM_NSUFFIX; i++)
		for (size_t j = 0; j < PROM_NSUFFIX; j++) {
			const char *si = prom_suffixes[i], *sj = prom_suffixes[j];
			size_t n = la + strlen(si), at = 0;
			if (n != lb + strlen(sj))
				continue;
			while (at < n && prom_at(a, la, si, at) == prom_at(b, lb, sj, at))
				at++;
			if (at == n)
				return true;
		}
	return false;
}

static bool prom_taken(const char *name, char **names, int n, const char *const *reserved)
{
	for (int i = 0; i < n; i++)
		if (prom_clash(name, names[i]))
			return true;
	for (int i = 0; reserved && reserved[i]; i++)
		if (prom_clash(name, reserved[i]))
			return true;
	return false;
}

static char *prom_base(const char *map)
{
	const char *s = map[0] == '@' ? map + 1 : map;
	size_t n = strlen(PROM_PREFIX);
	char *b = malloc(n + strlen(s) + 4);

	if (!b)
		return NULL;
	strcpy(b, PROM_PREFIX);
	strcat(b, *s ? s : "map");
	for (char *p = b + n; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_'))
			*p = '_';
	return b;
}

char **prom_names(const struct pr_map *maps, int n, const char *const *reserved)
{
	char **names = calloc((size_t)n + 1, sizeof(*names));

	for (int i = 0; names && i < n; i++) {
		char *base = prom_base(maps[i].name), *name = base;
		for (int k = 2; name && prom_taken(name, names, i, reserved); k++) {
			if (name != base)
				free(name);
			if (asprintf(&name, "%s_%d", base, k) < 0)
				name = NULL;
		}
		if (name != base)
			free(base);
		if (!name) {
			prom_names_free(names, i);
			return NULL;
		}
		names[i] = name;
	}
	return names;
}

void prom_names_free(char **names, int n)
{
	for (int i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

/* ---- escaping ---- */

/* The length of the valid UTF-8 sequence at s, 0 if none starts there
 * (overlong forms, surrogates and code points past U+10FFFF are not). */
static int prom_utf8_len(const unsigned char *s)
{
	unsigned c = s[0], cp, min;
	int n;

	if (c < 0x80)
		return 1;
	if ((c & 0xe0) == 0xc0)
		n = 2, cp = c & 0x1f, min = 0x80;
	else if ((c & 0xf0) == 0xe0)
		n = 3, cp = c & 0x0f, min = 0x800;
	else if ((c & 0xf8) == 0xf0)
		n = 4, cp = c & 0x07, min = 0x10000;
	else
		return 0;
	for (int i = 1; i < n; i++) {   /* a NUL ends the check before the next byte */
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void prom_label_value(struct fmt_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		int n = prom_utf8_len(p);
		if (!n) {   /* \xNN: its backslash escaped as the format wants */
			fmt_addf(b, "\\\\x%02x", *p++);
			continue;
		}
		if (*p == '\\')
			fmt_puts(b, "\\\\");
		else if (*p == '"')
			fmt_puts(b, "\\\"");
		else if (*p == '\n')
			fmt_puts(b, "\\n");
		else
			fmt_putn(b, (const char *)p, (size_t)n);
		p += n;
	}
}

void prom_help_text(struct fmt_buf *b, const char *s, enum prom_format f)
{
	for (; *s; s++) {
		if (*s == '\\')
			fmt_puts(b, "\\\\");
		else if (*s == '\n')
			fmt_puts(b, "\\n");
		else if (*s == '"' && f == PROM_OPENMETRICS)
			fmt_puts(b, "\\\"");
		else
			fmt_putc(b, *s);
	}
}

/* ---- families and samples ---- */

static const char *prom_type_name(enum prom_kind k)
{
	switch (k) {
	case PROM_COUNTER: return "counter";
	case PROM_GAUGE: return "gauge";
	case PROM_SUMMARY: return "summary";
	case PROM_HISTOGRAM: return "histogram";
	default: return "unknown";
	}
}

void prom_head(struct fmt_buf *b, const char *name, enum prom_kind k, const char *help,
	       enum prom_format f)
{
	/* 0.0.4 names a counter by its samples' name, OpenMetrics by its family's */
	const char *sfx = k == PROM_COUNTER && f == PROM_TEXT ? "_total" : "";

	fmt_addf(b, "# HELP %s%s ", name, sfx);
	prom_help_text(b, help, f);
	fmt_addf(b, "\n# TYPE %s%s %s\n", name, sfx, prom_type_name(k));
}

void prom_sample(struct fmt_buf *b, const char *name, const char *suffix, const char *labels,
		 int64_t v)
{
	if (labels && *labels)
		fmt_addf(b, "%s%s{%s} %lld\n", name, suffix, labels, (long long)v);
	else
		fmt_addf(b, "%s%s %lld\n", name, suffix, (long long)v);
}

void prom_end(struct fmt_buf *b, enum prom_format f)
{
	if (f == PROM_OPENMETRICS)
		fmt_puts(b, "# EOF\n");
}

bool prom_bucket_le(const struct type *agg, int i, char *out, size_t n)
{
	if (i < 0 || i >= mp_nbuckets(agg) - 1)
		return false;   /* the last bucket: +Inf alone bounds it */
	if (agg->agg == AGG_LHIST) {
		long long le = i == 0 ? agg->lh_min - 1 : agg->lh_min + i * agg->lh_step - 1;
		snprintf(out, n, "%lld.0", le);
		return true;
	}
	int k = (int)agg->lh_step;   /* hist(x, k); 0 for hist(x) */
	if (i == 0) {
		snprintf(out, n, "-1.0");
	} else if (i <= (2 << k)) {
		snprintf(out, n, "%d.0", i - 1);   /* buckets of one value each */
	} else {
		uint64_t next = hist_bucket_start(k, (uint32_t)i);
		if (next == UINT64_MAX)
			return false;
		snprintf(out, n, "%llu.0", (unsigned long long)(next - 1));
	}
	return true;
}

/* The key's fields, as mapprint.c takes them (a single key may not be a tuple). */
static const struct field *prom_key_fields(const struct type *key, int *n, struct field *one)
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

/* A key's text as print() writes it; a stack's frames one per line,
 * without the leading newline and the indentation. */
static void prom_key_text(struct fmt_buf *out, const struct type *t, const char *p,
			  const struct fmt_ctx *kc)
{
	struct fmt_buf v;

	fmt_init(&v);
	fmt_value(&v, t, p, kc);
	if (!v.s || !strchr(v.s, '\n')) {
		fmt_puts(out, v.s ? v.s : "");
		fmt_free(&v);
		return;
	}
	bool first = true;
	for (char *line = v.s, *end; line && *line; line = end ? end + 1 : NULL) {
		end = strchr(line, '\n');
		if (end)
			*end = 0;
		line += strspn(line, " \t");
		if (!*line)
			continue;
		if (!first)
			fmt_putc(out, '\n');
		fmt_puts(out, line);
		first = false;
	}
	fmt_free(&v);
}

/* key1="..",key2=".." of an entry; "" for a map without keys. */
static void prom_key_labels(struct fmt_buf *b, const struct pr_map *m, const char *key,
			    const struct fmt_ctx *c)
{
	struct fmt_ctx kc = c ? *c : (struct fmt_ctx){ .stack_fd = -1, .ustack_fd = -1 };
	struct field one;
	int n;

	if (!m->key || !key)
		return;
	kc.key = true;
	kc.stack_indent = 4;
	const struct field *f = prom_key_fields(m->key, &n, &one);
	for (int i = 0; i < n; i++) {
		struct fmt_buf t;
		fmt_init(&t);
		prom_key_text(&t, f[i].type, key + f[i].offset, &kc);
		fmt_addf(b, "%skey%d=\"", i ? "," : "", i + 1);
		prom_label_value(b, t.s ? t.s : "");
		fmt_putc(b, '"');
		fmt_free(&t);
	}
}

/* HELP: "perf-run map @name: count() by key1, key2". */
static void prom_help(struct fmt_buf *h, const struct pr_map *m)
{
	const struct type *a = m->value && m->value->kind == T_AGG ? m->value : NULL;
	static const char *const aggs[] = {
		[AGG_NONE] = "a value", [AGG_COUNT] = "count()", [AGG_SUM] = "sum()",
		[AGG_AVG] = "avg()", [AGG_MIN] = "min()", [AGG_MAX] = "max()",
		[AGG_STATS] = "stats()", [AGG_HIST] = "hist()", [AGG_LHIST] = "lhist()",
		[AGG_TSERIES] = "tseries()",
	};
	enum agg_kind k = prom_agg(m);
	int nkeys = 0;
	struct field one;

	if (m->key)
		prom_key_fields(m->key, &nkeys, &one);
	fmt_addf(h, "perf-run map %s: ", m->name);
	if (k == AGG_LHIST)
		fmt_addf(h, "lhist(min %lld, max %lld, step %lld)", (long long)a->lh_min,
			 (long long)a->lh_max, (long long)a->lh_step);
	else if (k == AGG_HIST && a->lh_step > 0)
		fmt_addf(h, "hist(k=%lld)", (long long)a->lh_step);
	else
		fmt_puts(h, aggs[k]);
	for (int i = 0; i < nkeys; i++)
		fmt_addf(h, "%skey%d", i ? ", " : " by ", i + 1);
	if (k == AGG_HIST || k == AGG_LHIST)
		fmt_puts(h, " (no _sum: a hist() keeps no sum of its values)");
}

static void prom_hist_entry(struct fmt_buf *b, const char *name, const struct type *agg,
			    const struct mp_entry *e, const char *labels, int top)
{
	char le[48];
	uint64_t cum = 0, total = 0;

	for (int i = 0; i < e->nbuckets; i++)
		total += e->buckets[i];
	for (int i = 0; i <= top && i < e->nbuckets; i++) {
		cum += e->buckets[i];
		if (!prom_bucket_le(agg, i, le, sizeof(le)))
			continue;
		fmt_addf(b, "%s_bucket{%s%sle=\"%s\"} %llu\n", name, labels, *labels ? "," : "",
			 le, (unsigned long long)cum);
	}
	fmt_addf(b, "%s_bucket{%s%sle=\"+Inf\"} %llu\n", name, labels, *labels ? "," : "",
		 (unsigned long long)total);
	prom_sample(b, name, "_count", labels, (int64_t)total);
}

static void prom_entry(struct fmt_buf *b, const char *name, const struct pr_map *m,
		       enum prom_kind k, const struct mp_entry *e, const char *labels, int top)
{
	switch (k) {
	case PROM_COUNTER:
		prom_sample(b, name, "_total", labels, e->value);
		break;
	case PROM_GAUGE:
		/* a min or max no CPU has set has no value: absent, not 0 */
		if ((prom_agg(m) == AGG_MIN || prom_agg(m) == AGG_MAX) && !e->count)
			break;
		prom_sample(b, name, "", labels, e->value);
		break;
	case PROM_SUMMARY:
		prom_sample(b, name, "_sum", labels, e->sum);
		prom_sample(b, name, "_count", labels, (int64_t)e->count);
		break;
	case PROM_HISTOGRAM:
		prom_hist_entry(b, name, m->value, e, labels, top);
		break;
	default:
		break;
	}
}

void prom_map(struct fmt_buf *b, const char *name, const struct pr_map *m,
	      const struct mp_data *d, int first, int *top, enum prom_format f,
	      const struct fmt_ctx *c)
{
	const char *why;
	enum prom_kind k = prom_kind(m, &why);
	struct fmt_buf h;

	if (k == PROM_NONE)
		return;
	fmt_init(&h);
	prom_help(&h, m);
	prom_head(b, name, k, h.s ? h.s : "", f);
	fmt_free(&h);
	for (int i = first < 0 ? 0 : first; k == PROM_HISTOGRAM && i < d->n; i++)
		for (int j = d->e[i].nbuckets - 1; j > *top; j--)
			if (d->e[i].buckets[j]) {
				*top = j;
				break;
			}
	for (int i = first < 0 ? 0 : first; i < d->n; i++) {
		struct fmt_buf l;
		fmt_init(&l);
		prom_key_labels(&l, m, d->e[i].key, c);
		prom_entry(b, name, m, k, &d->e[i], l.s ? l.s : "", k == PROM_HISTOGRAM ? *top : 0);
		fmt_free(&l);
	}
}
