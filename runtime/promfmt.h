/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * promfmt.h - script maps as Prometheus metrics, in the text exposition
 * format 0.0.4 or in OpenMetrics 1.0 text: metric names, label values and
 * help text escaped as each format wants them, which kind of metric each
 * aggregation is, histogram buckets with their `le` bounds.  Pure text:
 * the exporter (exporter.c) reads the maps and serves what this writes.
 */
#ifndef PR_PROMFMT_H
#define PR_PROMFMT_H

#include <stdint.h>

#include "compiler/program.h"
#include "format.h"
#include "mapprint.h"

enum prom_format { PROM_TEXT, PROM_OPENMETRICS };

enum prom_kind { PROM_NONE, PROM_COUNTER, PROM_GAUGE, PROM_SUMMARY, PROM_HISTOGRAM };

/* The prefix of every metric perf-run serves. */
#define PROM_PREFIX "perf_run_"

/* What map m is served as: count() a counter; sum, min, max and integer
 * values gauges; avg and stats summaries (_sum, _count); hist and lhist
 * histograms.  PROM_NONE, with *why a phrase, for a map whose values are
 * no number (strings, records, tseries). */
enum prom_kind prom_kind(const struct pr_map *m, const char **why);

/* The metric name of each of the n maps: PROM_PREFIX and the map's name
 * without '@' ("map" for "@"), any character outside [A-Za-z0-9_] made
 * '_'; a name that would take another's (or one of the reserved names, or
 * the series one of them makes with _total, _bucket, _sum, _count) gets
 * _2, _3... malloc'd; NULL if out of memory. */
char **prom_names(const struct pr_map *maps, int n, const char *const *reserved);
void prom_names_free(char **names, int n);

/* s as a label value between the quotes: \, " and newline escaped; a byte
 * that is not part of valid UTF-8 (which Prometheus refuses) written as
 * the four characters \xNN, so nothing is dropped. */
void prom_label_value(struct fmt_buf *b, const char *s);
/* s as HELP text: \ and newline escaped (and " in OpenMetrics). */
void prom_help_text(struct fmt_buf *b, const char *s, enum prom_format f);

/* "# HELP" and "# TYPE" of a family whose base name is name (a counter's
 * samples are name_total: in 0.0.4 the lines name those). */
void prom_head(struct fmt_buf *b, const char *name, enum prom_kind k, const char *help,
	       enum prom_format f);
/* The inclusive upper bound (`le`) of bucket i of hist/lhist agg, as the
 * label value writes it ("-1.0", "7.0"); false for the last bucket, whose
 * only bound is +Inf.  Values are integers, so [2^k, 2^(k+1)) is
 * le="2^(k+1)-1": a value of 2^(k+1) is not in it. */
bool prom_bucket_le(const struct type *agg, int i, char *out, size_t n);

/* Map m as the family name: HELP, TYPE and a sample (or a histogram's
 * or summary's samples) for each of the entries d->e[first..d->n), keys as
 * labels key1, key2... (a stack's frames one per line, as print() writes
 * them, without the indentation).  *top is the highest hist bucket served
 * so far (-1 at first): a histogram serves buckets up to it, so its series
 * stay the same from scrape to scrape while its values are small. */
void prom_map(struct fmt_buf *b, const char *name, const struct pr_map *m,
	      const struct mp_data *d, int first, int *top, enum prom_format f,
	      const struct fmt_ctx *c);

/* One sample: name, suffix ("" or "_total"...), labels text (without
 * braces, may be "" or NULL), value. */
void prom_sample(struct fmt_buf *b, const char *name, const char *suffix, const char *labels,
		 int64_t v);
/* The end of the exposition: "# EOF" in OpenMetrics, nothing in 0.0.4. */
void prom_end(struct fmt_buf *b, enum prom_format f);

#endif
