/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * test_promfmt.c - unit tests of --listen's text (promfmt.c) on synthetic
 * map data: label values escaped as the exposition formats want (\, ",
 * newline; bytes that are not UTF-8 kept as \xNN, never dropped), metric
 * names made valid and unique, each aggregation's metric type, histogram
 * buckets cumulative with exact integer le bounds, the differences
 * between 0.0.4 and OpenMetrics; and --listen's address parsing
 * (exporter.c), which needs no libmicrohttpd.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/exporter.h"
#include "runtime/promfmt.h"
#include "unit.h"

static const struct type t_s64 = { .kind = T_INT, .size = 8, .is_signed = true };
static const struct type t_str16 = { .kind = T_STR, .size = 16 };
static const struct type t_name = { .kind = T_STR, .size = 8 };
static const struct type a_count = { .kind = T_AGG, .agg = AGG_COUNT };
static const struct type a_min = { .kind = T_AGG, .agg = AGG_MIN };
static const struct type a_avg = { .kind = T_AGG, .agg = AGG_AVG };
static const struct type a_hist = { .kind = T_AGG, .agg = AGG_HIST };
static const struct type a_hist2 = { .kind = T_AGG, .agg = AGG_HIST, .lh_step = 2 };
static const struct type a_lhist = { .kind = T_AGG, .agg = AGG_LHIST, .lh_min = 0,
				     .lh_max = 100, .lh_step = 10 };
static const struct type a_ts = { .kind = T_AGG, .agg = AGG_TSERIES, .lh_max = 4 };
static const struct field f_str_int[] = {
	{ .name = "", .type = &t_str16, .offset = 0 },
	{ .name = "", .type = &t_s64, .offset = 16 },
};
static const struct type k_str_int = { .kind = T_TUPLE, .size = 24, .fields = f_str_int,
				       .nfields = 2 };

static char *label(const char *s)
{
	struct fmt_buf b;
	fmt_init(&b);
	prom_label_value(&b, s);
	return b.s;
}

static void check_label(const char *name, const char *in, const char *want)
{
	char *got = label(in);
	unit_expect_str(name, got, want);
	free(got);
}

static void test_escapes(void)
{
	check_label("label plain", "bash", "bash");
	check_label("label quote and backslash", "a\"b\\c", "a\\\"b\\\\c");
	check_label("label newline", "f1+3\nf2+5", "f1+3\\nf2+5");
	check_label("label utf-8 kept", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\x9b",
		    "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\x9b");
	/* a lone continuation byte, a cut sequence, an overlong '/', a surrogate */
	check_label("label invalid utf-8", "a\x80" "b\xc3" "c\xc0\xaf" "d\xed\xa0\x80",
		    "a\\\\x80b\\\\xc3c\\\\xc0\\\\xafd\\\\xed\\\\xa0\\\\x80");
	check_label("label tab kept", "a\tb", "a\tb");

	struct fmt_buf b;
	fmt_init(&b);
	prom_help_text(&b, "a \"q\" \\ \n", PROM_TEXT);
	unit_expect_str("help 0.0.4", b.s, "a \"q\" \\\\ \\n");
	fmt_reset(&b);
	prom_help_text(&b, "a \"q\" \\ \n", PROM_OPENMETRICS);
	unit_expect_str("help openmetrics", b.s, "a \\\"q\\\" \\\\ \\n");
	fmt_free(&b);
}

static void test_names(void)
{
	static const char *const reserved[] = { "perf_run_events_lost", NULL };
	struct pr_map maps[] = {
		{ .name = "@" }, { .name = "@calls" }, { .name = "@calls_total" },
		{ .name = "@calls" }, { .name = "@events_lost" }, { .name = "@a-b" },
		{ .name = "@map" },
	};
	char **n = prom_names(maps, 7, reserved);

	unit_expect("names allocated", n != NULL);
	if (!n)
		return;
	unit_expect_str("name of @", n[0], "perf_run_map");
	unit_expect_str("name of @calls", n[1], "perf_run_calls");
	/* perf_run_calls's counter samples are perf_run_calls_total */
	unit_expect_str("name clashing with a counter's samples", n[2], "perf_run_calls_total_2");
	unit_expect_str("same name again", n[3], "perf_run_calls_2");
	unit_expect_str("name of a reserved one", n[4], "perf_run_events_lost_2");
	unit_expect_str("invalid character", n[5], "perf_run_a_b");
	unit_expect_str("@map after @", n[6], "perf_run_map_2");
	prom_names_free(n, 7);
}

static void test_kinds(void)
{
	const char *why;
	struct pr_map m = { .name = "@x", .value = &a_count };

	unit_expect("count is a counter", prom_kind(&m, &why) == PROM_COUNTER);
	m.value = &a_min;
	unit_expect("min is a gauge", prom_kind(&m, &why) == PROM_GAUGE);
	m.value = &a_avg;
	unit_expect("avg is a summary", prom_kind(&m, &why) == PROM_SUMMARY);
	m.value = &a_lhist;
	unit_expect("lhist is a histogram", prom_kind(&m, &why) == PROM_HISTOGRAM);
	m.value = &t_s64;
	unit_expect("an integer is a gauge", prom_kind(&m, &why) == PROM_GAUGE);
	m.value = &t_str16;
	unit_expect("a string is not served", prom_kind(&m, &why) == PROM_NONE && why);
	m.value = &a_ts;
	unit_expect("a tseries is not served", prom_kind(&m, &why) == PROM_NONE && why);
}

static void check_le(const char *name, const struct type *agg, int i, const char *want)
{
	char le[48] = "";
	bool ok = prom_bucket_le(agg, i, le, sizeof(le));
	unit_expect_str(name, ok ? le : "+Inf", want);
}

static void test_buckets(void)
{
	/* hist: 0 is v < 0, 1 is 0, 2 is [1, 2), i is [2^(i-2), 2^(i-1)) */
	check_le("hist le 0", &a_hist, 0, "-1.0");
	check_le("hist le 1", &a_hist, 1, "0.0");
	check_le("hist le 2", &a_hist, 2, "1.0");
	check_le("hist le 3", &a_hist, 3, "3.0");
	check_le("hist le 12", &a_hist, 12, "2047.0");
	check_le("hist le 64", &a_hist, 64, "9223372036854775807.0");
	check_le("hist le last", &a_hist, 65, "+Inf");
	/* hist(x, 2): 4 buckets per power; 1..8 one value each */
	check_le("hist k=2 le 8", &a_hist2, 8, "7.0");
	check_le("hist k=2 le 9", &a_hist2, 9, "9.0");   /* [8, 10) */
	check_le("hist k=2 le 12", &a_hist2, 12, "15.0");   /* [14, 16) */
	check_le("lhist le 0", &a_lhist, 0, "-1.0");
	check_le("lhist le 1", &a_lhist, 1, "9.0");
	check_le("lhist le 10", &a_lhist, 10, "99.0");
	check_le("lhist le last", &a_lhist, 11, "+Inf");
}

/* One entry of a map keyed by (string, int). */
static struct mp_entry entry(const char *s, int64_t k, int64_t v)
{
	struct mp_entry e;
	memset(&e, 0, sizeof(e));
	e.key = calloc(1, 24);
	strncpy(e.key, s, 16);
	memcpy(e.key + 16, &k, 8);
	e.value = v;
	return e;
}

static char *render(const char *name, const struct pr_map *m, struct mp_data *d, int first,
		    int *top, enum prom_format f)
{
	struct fmt_buf b;
	fmt_init(&b);
	prom_map(&b, name, m, d, first, top, f, NULL);
	prom_end(&b, f);
	return b.s;
}

static void test_counter(void)
{
	struct pr_map m = { .name = "@calls", .value = &a_count, .key = &k_str_int,
			    .key_size = 24 };
	struct mp_entry e[] = { entry("a\"b\n", 1, 5), entry("ok\xff", -2, 7) };
	struct mp_data d = { e, 2, 2 };
	int top = -1;

	char *got = render("perf_run_calls", &m, &d, 0, &top, PROM_TEXT);
	unit_expect_str("counter 0.0.4", got,
			"# HELP perf_run_calls_total perf-run map @calls: count() by key1, key2\n"
			"# TYPE perf_run_calls_total counter\n"
			/* print() writes the newline as backslash, n: that backslash is escaped */
			"perf_run_calls_total{key1=\"a\\\"b\\\\n\",key2=\"1\"} 5\n"
			"perf_run_calls_total{key1=\"ok\\\\xff\",key2=\"-2\"} 7\n");
	free(got);
	got = render("perf_run_calls", &m, &d, 1, &top, PROM_OPENMETRICS);
	unit_expect_str("counter openmetrics, first entry left out", got,
			"# HELP perf_run_calls perf-run map @calls: count() by key1, key2\n"
			"# TYPE perf_run_calls counter\n"
			"perf_run_calls_total{key1=\"ok\\\\xff\",key2=\"-2\"} 7\n"
			"# EOF\n");
	free(got);
	free(e[0].key);
	free(e[1].key);
}

static void test_gauge_summary(void)
{
	struct pr_map m = { .name = "@lo", .value = &a_min };
	struct mp_entry e[2];
	struct mp_data d = { e, 1, 1 };
	int top = -1;

	memset(e, 0, sizeof(e));
	e[0].value = -4;
	e[0].count = 1;
	char *got = render("perf_run_lo", &m, &d, 0, &top, PROM_TEXT);
	unit_expect_str("min gauge", got,
			"# HELP perf_run_lo perf-run map @lo: min()\n"
			"# TYPE perf_run_lo gauge\n"
			"perf_run_lo -4\n");
	free(got);
	e[0].count = 0;   /* no CPU set it: no value, not 0 */
	got = render("perf_run_lo", &m, &d, 0, &top, PROM_TEXT);
	unit_expect("min without a value is absent", got && !strstr(got, "perf_run_lo -4") &&
		    !strstr(got, "perf_run_lo 0"));
	free(got);

	m.value = &a_avg;
	m.name = "@lat";
	e[0].value = 3;
	e[0].sum = 31;
	e[0].count = 10;
	got = render("perf_run_lat", &m, &d, 0, &top, PROM_OPENMETRICS);
	unit_expect_str("avg summary", got,
			"# HELP perf_run_lat perf-run map @lat: avg()\n"
			"# TYPE perf_run_lat summary\n"
			"perf_run_lat_sum 31\n"
			"perf_run_lat_count 10\n"
			"# EOF\n");
	free(got);

	m.value = &t_name;   /* a string value: nothing at all */
	got = render("perf_run_lat", &m, &d, 0, &top, PROM_TEXT);
	unit_expect_str("string map not served", got, "");
	free(got);
}

static void test_histogram(void)
{
	struct pr_map m = { .name = "@h", .value = &a_hist };
	uint64_t bk[66] = { 0 };
	struct mp_entry e;
	struct mp_data d = { &e, 1, 1 };
	int top = -1;

	memset(&e, 0, sizeof(e));
	e.buckets = bk;
	e.nbuckets = 66;
	bk[1] = 1;   /* 0 */
	bk[3] = 2;   /* 2, 3 */
	bk[4] = 4;   /* 4..7 */
	char *got = render("perf_run_h", &m, &d, 0, &top, PROM_TEXT);
	unit_expect_str("histogram cumulative", got,
			"# HELP perf_run_h perf-run map @h: hist() (no _sum: a hist() keeps no sum "
			"of its values)\n"
			"# TYPE perf_run_h histogram\n"
			"perf_run_h_bucket{le=\"-1.0\"} 0\n"
			"perf_run_h_bucket{le=\"0.0\"} 1\n"
			"perf_run_h_bucket{le=\"1.0\"} 1\n"
			"perf_run_h_bucket{le=\"3.0\"} 3\n"
			"perf_run_h_bucket{le=\"7.0\"} 7\n"
			"perf_run_h_bucket{le=\"+Inf\"} 7\n"
			"perf_run_h_count 7\n");
	free(got);
	unit_expect("top bucket kept", top == 4);
	bk[4] = 0;   /* cleared since: the buckets served stay */
	bk[3] = 0;
	got = render("perf_run_h", &m, &d, 0, &top, PROM_TEXT);
	unit_expect("buckets stay after a clear", got && strstr(got, "le=\"7.0\"} 1\n") &&
		    strstr(got, "le=\"+Inf\"} 1\n"));
	free(got);
	bk[65] = 2;   /* the last bucket: only in +Inf */
	got = render("perf_run_h", &m, &d, 0, &top, PROM_TEXT);
	unit_expect("last bucket in +Inf only", got && strstr(got, "le=\"+Inf\"} 3\n") &&
		    strstr(got, "le=\"9223372036854775807.0\"} 1\n") && top == 65);
	free(got);
}

static void check_addr(const char *s, int ok, int family, int port)
{
	struct sockaddr_storage sa;
	socklen_t len;
	char err[256] = "", name[128];
	int r = ex_parse_addr(s, &sa, &len, err, sizeof(err));

	snprintf(name, sizeof(name), "--listen %s %s", s, ok ? "taken" : "refused");
	if (!ok) {
		unit_expect(name, r == -1 && err[0]);
		return;
	}
	int got = sa.ss_family == AF_INET ? ntohs(((struct sockaddr_in *)&sa)->sin_port) :
		  ntohs(((struct sockaddr_in6 *)&sa)->sin6_port);
	unit_expect(name, r == 0 && sa.ss_family == family && got == port);
	if (r)
		printf("  %s\n", err);
}

static void test_addr(void)
{
	check_addr("127.0.0.1:9464", 1, AF_INET, 9464);
	check_addr("0.0.0.0:0", 1, AF_INET, 0);
	check_addr("[::1]:80", 1, AF_INET6, 80);
	check_addr("[::]:65535", 1, AF_INET6, 65535);
	check_addr(":9464", 0, 0, 0);          /* where: said, not guessed */
	check_addr("127.0.0.1", 0, 0, 0);
	check_addr("127.0.0.1:", 0, 0, 0);
	check_addr("127.0.0.1:65536", 0, 0, 0);
	check_addr("127.0.0.1:-1", 0, 0, 0);
	check_addr("127.0.0.1:80x", 0, 0, 0);
	check_addr("127.0.0.1: 80", 0, 0, 0);
	check_addr("127.0.0.1:+80", 0, 0, 0);
	check_addr("localhost:9464", 0, 0, 0);
	check_addr("::1:9464", 0, 0, 0);       /* IPv6 without brackets */
	check_addr("[::1:9464", 0, 0, 0);
	check_addr("[127.0.0.1]:9464", 0, 0, 0);
	check_addr("[0000:0000:0000:0000:0000:0000:0000:0000:0000:0000]:1", 0, 0, 0);
}

int main(void)
{
	test_escapes();
	test_names();
	test_kinds();
	test_buckets();
	test_counter();
	test_gauge_summary();
	test_histogram();
	test_addr();
	return unit_summary();
}
