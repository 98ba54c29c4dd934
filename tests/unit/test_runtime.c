// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_runtime.c - unit tests of the runtime's output: printf conversions
 * (format.c), hist/lhist/stats/key printing in text and JSON (mapprint.c)
 * on synthetic values whose expected text was taken from bpftrace 0.17 on
 * the same inputs, the verifier log reader (loader.c), and per-CPU
 * folding, clear and zero on real kernel maps (root only).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/kplace.h"
#include "lib/kscan.h"
#include "runtime/format.h"
#include "runtime/loader.h"
#include "runtime/mapprint.h"
#include "runtime/mapwalk.h"
#include "runtime/verifier.h"
#include "unit.h"

static const struct type t_s64 = { .kind = T_INT, .size = 8, .is_signed = true };
static const struct type t_u64 = { .kind = T_INT, .size = 8 };
static const struct type t_u32 = { .kind = T_INT, .size = 4 };
static const struct type t_s16 = { .kind = T_INT, .size = 2, .is_signed = true };
static const struct type t_str8 = { .kind = T_STR, .size = 8 };
static const struct type t_ptr = { .kind = T_PTR, .size = 8 };
static const struct type a_count = { .kind = T_AGG, .agg = AGG_COUNT };
static const struct type a_stats = { .kind = T_AGG, .agg = AGG_STATS };
static const struct type a_avg = { .kind = T_AGG, .agg = AGG_AVG };
static const struct type a_hist = { .kind = T_AGG, .agg = AGG_HIST };
static const struct type a_lhist = { .kind = T_AGG, .agg = AGG_LHIST, .lh_min = 0,
				     .lh_max = 100, .lh_step = 10 };
static const struct field f_int_str[] = {
	{ .name = "", .type = &t_s64, .offset = 0 },
	{ .name = "", .type = &t_str8, .offset = 8 },
};
static const struct type k_int_str = { .kind = T_TUPLE, .size = 16, .fields = f_int_str,
				       .nfields = 2 };
static const struct field f_int[] = { { .name = "", .type = &t_s64, .offset = 0 } };
static const struct type k_int = { .kind = T_TUPLE, .size = 8, .fields = f_int, .nfields = 1 };

/* ---- printf ---- */

/* A record: id 0, then each value at 8-byte slots from offset 8. */
static char *printf_rec(const char *fmt, struct pr_arg *args, int n, const void *rec,
			size_t len)
{
	struct fmt_buf b;
	fmt_init(&b);
	if (fmt_printf(&b, fmt, args, n, rec, len, NULL))
		fmt_puts(&b, "(bad record)");
	return b.s;
}

static void check_printf(const char *name, const char *fmt, const struct type *t1,
			 uint64_t v1, const struct type *t2, const void *v2, const char *want)
{
	char rec[64] = { 0 };
	struct pr_arg args[2] = { { .type = t1, .offset = 8 }, { .type = t2, .offset = 16 } };
	memcpy(rec + 8, &v1, 8);
	if (t2)
		memcpy(rec + 16, v2, t2->kind == T_STR ? t2->size : 8);
	char *got = printf_rec(fmt, args, t2 ? 2 : 1, rec, sizeof(rec));
	unit_expect_str(name, got, want);
	free(got);
}

static void test_printf(void)
{
	int64_t m5 = -5;
	/* one argument, four conversions: the extra ones print nothing */
	check_printf("printf %d, missing args", "%d|%5d|%-5d|%05d\n", &t_s64, 42, NULL, NULL,
		     "42|||\n");
	check_printf("printf widths", "[%5d][%-5d]", &t_s64, 42, &t_s64, &(int64_t){ 7 },
		     "[   42][7    ]");
	check_printf("printf %x %X %o", "%x %X", &t_u64, 255, &t_u64, &(uint64_t){ 255 },
		     "ff FF");
	check_printf("printf %#o", "%#o", &t_u64, 8, NULL, NULL, "010");
	check_printf("printf %x of a 64-bit -1 keeps 64 bits", "%x", &t_s64, (uint64_t)-1, NULL, NULL,
		     "ffffffffffffffff");
	check_printf("printf %x of a 32-bit -1", "%x", &t_u32, 0xffffffffu, NULL, NULL,
		     "ffffffff");
	check_printf("printf %lx of -1", "%lx", &t_s64, (uint64_t)-1, NULL, NULL,
		     "ffffffffffffffff");
	check_printf("printf %d of u32 max", "%d %u", &t_u32, 0xffffffffu, &t_u32,
		     &(uint64_t){ 0xffffffffu }, "-1 4294967295");
	check_printf("printf s16 narrowed", "%d", &t_s16, 0xfffe, NULL, NULL, "-2");
	check_printf("printf %hhx", "%hhx", &t_u64, 257, NULL, NULL, "1");
	check_printf("printf %s widths", "[%-6s][%6s]", &t_str8, 0, &t_str8, "abc\0\0\0\0",
		     "[      ][   abc]");
	char rec[32] = { 0 };
	memcpy(rec + 8, "hello\0\0", 8);
	struct pr_arg sa = { .type = &t_str8, .offset = 8 };
	char *got = printf_rec("<%.3s|%-8s|%8s>", (struct pr_arg[]){ sa, sa, sa }, 3, rec, 16);
	unit_expect_str("printf %.3s %-8s %8s", got, "<hel|hello   |   hello>");
	free(got);
	check_printf("printf %c", "%c%c", &t_u64, 'A', &t_u64, &(uint64_t){ 'b' }, "Ab");
	check_printf("printf %p", "%p", &t_ptr, 0x1000, NULL, NULL, "0x1000");
	check_printf("printf %%", "100%% %d%%", &t_s64, (uint64_t)m5, NULL, NULL, "100% -5%");
	check_printf("printf %ld %lu", "%ld %llu", &t_s64, (uint64_t)m5, &t_u64,
		     &(uint64_t){ 7 }, "-5 7");
	check_printf("printf %s of an int", "%s", &t_s64, (uint64_t)m5, NULL, NULL, "-5");
	check_printf("printf %+d % d", "%+d % d", &t_s64, 3, &t_s64, &(int64_t){ 4 }, "+3  4");
	got = printf_rec("%d", (struct pr_arg[]){ { .type = &t_s64, .offset = 8 } }, 1, rec, 12);
	unit_expect_str("printf record too short", got, "(bad record)");
	free(got);
}

static void test_values(void)
{
	static const struct enumerator en[] = { { "RED", 1 }, { "BLUE", 2 } };
	static const struct type t_enum = { .kind = T_ENUM, .size = 4, .enums = en, .nenums = 2 };
	static const struct type t_i32 = { .kind = T_INT, .size = 4, .is_signed = true };
	static const struct type t_arr = { .kind = T_ARRAY, .size = 12, .elem = &t_i32, .count = 3 };
	static const struct field rf[] = { { .name = "a", .type = &t_i32, .offset = 0 },
					   { .name = "b", .type = &t_arr, .offset = 4 } };
	static const struct type t_rec = { .kind = T_RECORD, .size = 16, .fields = rf,
					   .nfields = 2 };
	struct fmt_buf b;
	uint64_t v = 2;
	int32_t rec[4] = { -1, 1, 2, 3 };

	fmt_init(&b);
	fmt_value(&b, &t_enum, &v, NULL);
	unit_expect_str("enum value", b.s, "BLUE");
	fmt_reset(&b);
	fmt_value(&b, &t_rec, rec, NULL);
	unit_expect_str("record value", b.s, "{ .a = -1, .b = [1,2,3] }");
	fmt_reset(&b);
	fmt_json_str(&b, "a\"b\\c\nd\x01");
	unit_expect_str("json escape", b.s, "a\\\"b\\\\c\\nd\\u0001");
	fmt_free(&b);
}

/* ---- maps ---- */

static struct pr_map mk_map(const char *name, const struct type *key, const struct type *val)
{
	struct pr_map m = { 0 };
	m.name = (char *)name;
	m.key = key;
	m.value = val;
	m.key_size = (key ? key->size : 8) +
		     (val->agg == AGG_HIST || val->agg == AGG_LHIST ? 8 : 0);
	m.value_size = 8;
	return m;
}

static char *map_text(const struct pr_map *m, struct mp_data *d, bool json, int64_t top)
{
	struct fmt_buf b;
	fmt_init(&b);
	mp_sort(m, d);
	if (json)
		mp_json(&b, m, d, top, 0, NULL);
	else
		mp_text(&b, m, d, top, 0, NULL);
	return b.s;
}

static void test_hist(void)
{
	uint64_t bk[PR_HIST_BUCKETS] = { 0 };
	struct fmt_buf b;
	bk[0] = 1;    /* (..., 0) */
	bk[1] = 1;    /* [0] */
	bk[5] = 3;    /* [8, 16) */
	bk[13] = 6;   /* [2K, 4K) */
	fmt_init(&b);
	mp_hist_text(&b, &a_hist, bk, PR_HIST_BUCKETS, 0);
	unit_expect_str("hist lines", b.s,
		"(..., 0)               1 |@@@@@@@@                                            |\n"
		"[0]                    1 |@@@@@@@@                                            |\n"
		"[1]                    0 |                                                    |\n"
		"[2, 4)                 0 |                                                    |\n"
		"[4, 8)                 0 |                                                    |\n"
		"[8, 16)                3 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
		"[16, 32)               0 |                                                    |\n"
		"[32, 64)               0 |                                                    |\n"
		"[64, 128)              0 |                                                    |\n"
		"[128, 256)             0 |                                                    |\n"
		"[256, 512)             0 |                                                    |\n"
		"[512, 1K)              0 |                                                    |\n"
		"[1K, 2K)               0 |                                                    |\n"
		"[2K, 4K)               6 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n");
	fmt_reset(&b);
	mp_hist_label(&b, &a_hist, 2 + 40);
	unit_expect_str("hist label 1T", b.s, "[1T, 2T)");
	fmt_reset(&b);
	mp_hist_label(&b, &a_hist, 2 + 63);
	unit_expect_str("hist label 8E", b.s, "[8E, 16E)");

	uint64_t lb[12] = { 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
	fmt_reset(&b);
	mp_hist_text(&b, &a_lhist, lb, mp_nbuckets(&a_lhist), 0);
	unit_expect("lhist buckets", mp_nbuckets(&a_lhist) == 12);
	unit_expect_str("lhist lines", b.s,
		"(..., 0)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[0, 10)                1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[10, 20)               0 |                                                    |\n"
		"[20, 30)               0 |                                                    |\n"
		"[30, 40)               0 |                                                    |\n"
		"[40, 50)               0 |                                                    |\n"
		"[50, 60)               0 |                                                    |\n"
		"[60, 70)               0 |                                                    |\n"
		"[70, 80)               0 |                                                    |\n"
		"[80, 90)               0 |                                                    |\n"
		"[90, 100)              0 |                                                    |\n"
		"[100, ...)             1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n");
	static const struct type a_lk = { .kind = T_AGG, .agg = AGG_LHIST, .lh_min = 0,
					  .lh_max = 4096, .lh_step = 1024 };
	fmt_reset(&b);
	mp_hist_label(&b, &a_lk, 3);
	unit_expect_str("lhist label K", b.s, "[2K, 3K)");

	/* a keyed hist map: each key its own histogram and a blank line */
	struct pr_map m = mk_map("@h", &k_int, &a_hist);
	struct mp_entry e[2] = { 0 };
	int64_t k1 = 1, k2 = 2;
	uint64_t b1[PR_HIST_BUCKETS] = { 0 }, b2[PR_HIST_BUCKETS] = { 0 };
	b1[3] = 1;
	b2[5] = 1;
	e[0] = (struct mp_entry){ .key = (char *)&k2, .buckets = b2, .nbuckets = PR_HIST_BUCKETS };
	e[1] = (struct mp_entry){ .key = (char *)&k1, .buckets = b1, .nbuckets = PR_HIST_BUCKETS };
	struct mp_data d = { .e = e, .n = 2 };
	char *got = map_text(&m, &d, false, 0);
	unit_expect_str("keyed hist map", got,
		"@h[1]: \n"
		"[2, 4)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n\n"
		"@h[2]: \n"
		"[8, 16)                1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n\n");
	free(got);
	got = map_text(&m, &d, true, 0);
	unit_expect_str("keyed hist json", got,
		"{\"type\": \"hist\", \"data\": {\"@h\": {\"1\": [{\"min\": 2, \"max\": 3, "
		"\"count\": 1}], \"2\": [{\"min\": 8, \"max\": 15, \"count\": 1}]}}}\n");
	free(got);
	fmt_free(&b);
}

static void test_map_text(void)
{
	struct pr_map m = mk_map("@", &k_int_str, &a_count);
	char k1[16] = { 0 }, k2[16] = { 0 };
	k1[0] = 2;
	memcpy(k1 + 8, "b", 1);
	k2[0] = 1;
	memcpy(k2 + 8, "a", 1);
	struct mp_entry e[2] = { { .key = k1, .value = 2 }, { .key = k2, .value = 1 } };
	struct mp_data d = { .e = e, .n = 2 };
	char *got = map_text(&m, &d, false, 0);
	unit_expect_str("count map, two keys, by value", got, "@[1, a]: 1\n@[2, b]: 2\n");
	free(got);
	got = map_text(&m, &d, true, 0);
	unit_expect_str("count map json", got,
			"{\"type\": \"map\", \"data\": {\"@\": {\"1,a\": 1, \"2,b\": 2}}}\n");
	free(got);
	got = map_text(&m, &d, false, 1);
	unit_expect_str("print top 1", got, "@[2, b]: 2\n");
	free(got);

	struct pr_map s = mk_map("@s", NULL, &a_stats);
	struct mp_entry se = { .value = 3, .sum = 7, .count = 2 };
	struct mp_data sd = { .e = &se, .n = 1 };
	got = map_text(&s, &sd, false, 0);
	unit_expect_str("stats", got, "@s: count 2, average 3, total 7\n\n");
	free(got);
	got = map_text(&s, &sd, true, 0);
	unit_expect_str("stats json", got, "{\"type\": \"stats\", \"data\": {\"@s\": "
			"{\"count\": 2, \"average\": 3, \"total\": 7}}}\n");
	free(got);
	struct pr_map a = mk_map("@a", NULL, &a_avg);
	got = map_text(&a, &sd, false, 0);
	unit_expect_str("avg", got, "@a: 3\n\n");
	free(got);
	/* bpftrace 0.17: an empty map is an empty line; avg and stats add one */
	struct mp_data none = { .e = NULL, .n = 0 };
	got = map_text(&m, &none, false, 0);
	unit_expect_str("empty map", got, "\n");
	free(got);
	got = map_text(&a, &none, false, 0);
	unit_expect_str("empty avg", got, "\n\n");
	free(got);

	struct pr_map str = mk_map("@st", NULL, &t_str8);
	struct mp_entry ste = { .raw = "hello\0\0" };
	struct mp_data std = { .e = &ste, .n = 1 };
	got = map_text(&str, &std, false, 0);
	unit_expect_str("string value", got, "@st: hello\n");
	free(got);
	got = map_text(&str, &std, true, 0);
	unit_expect_str("string json", got,
			"{\"type\": \"map\", \"data\": {\"@st\": \"hello\"}}\n");
	free(got);
}

/* ---- verifier log ---- */

static void test_log(void)
{
	const char *log =
		"0: R1=ctx() R10=fp0\n"
		"; $i = 0; @ script.bt:2\n"
		"0: (b7) r1 = 1                        ; R1=1\n"
		"; @x[$i] = 1; @ script.bt:5\n"
		"1: (61) r0 = *(u32 *)(r1 +0)\n"
		"R1 invalid mem access 'scalar'\n"
		"processed 2 insns (limit 1000000) max_states_per_insn 0 total_states 0\n";
	char *msg = NULL;
	int line = vf_log_line(log, &msg);
	unit_expect("verifier log line", line == 5);
	unit_expect_str("verifier log message", msg, "R1 invalid mem access 'scalar'");
	free(msg);
	unit_expect("verifier log without line info", vf_log_line("bad\n", NULL) == 0);
}

/* ---- real kernel maps: per-CPU folding, clear, zero ---- */

static void test_kernel_maps(void)
{
	int ncpu = libbpf_num_possible_cpus();
	if (geteuid() != 0 || ncpu <= 0) {
		printf("skip kernel maps: needs root\n");
		return;
	}
	int fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_HASH, "t_count", 8, 8, 16, NULL);
	unit_expect("create per-CPU map", fd >= 0);
	if (fd < 0)
		return;
	uint64_t *v = calloc((size_t)ncpu, 8);
	for (int i = 0; i < ncpu; i++)
		v[i] = (uint64_t)i + 1;   /* 1 + 2 + ... + ncpu */
	for (int64_t k = 1; k <= 3; k++)
		bpf_map_update_elem(fd, &k, v, BPF_ANY);
	struct pr_map m = mk_map("@c", &k_int, &a_count);
	m.bpf_type = BPF_MAP_TYPE_PERCPU_HASH;
	struct mp_data d;
	unit_expect("mp_read", mp_read(fd, &m, &d) == 0 && d.n == 3);
	int64_t want = (int64_t)ncpu * (ncpu + 1) / 2;
	for (int i = 0; i < d.n; i++)
		unit_expect("per-CPU values folded", d.e[i].value == want);
	mp_data_free(&d);
	mp_zero(fd, &m);
	mp_read(fd, &m, &d);
	unit_expect("zero keeps keys", d.n == 3 && d.e[0].value == 0);
	mp_data_free(&d);
	mp_clear(fd, &m);
	mp_read(fd, &m, &d);
	unit_expect("clear deletes every key", d.n == 0);
	mp_data_free(&d);
	free(v);
	close(fd);
}

/* The kernel's walk of a hash, but past its last key it gives the first
 * again: the endless walk a hash updated from thousands of tracepoints
 * was seen to make (reliability-2 N2). */
static int cycling_next_key(int fd, const void *key, void *next)
{
	if (bpf_map_get_next_key(fd, key, next) == 0)
		return 0;
	return bpf_map_get_next_key(fd, NULL, next);
}

static void test_map_walk(void)
{
	if (geteuid() != 0) {
		printf("skip map walk: needs root\n");
		return;
	}
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, "t_walk", 8, 8, 100, NULL);
	unit_expect("create hash", fd >= 0);
	if (fd < 0)
		return;
	for (uint64_t k = 1; k <= 40; k++)
		bpf_map_update_elem(fd, &k, &k, BPF_ANY);
	struct mw_walk w;
	mw_init(&w, fd, 8, 0);
	unit_expect("capacity from the kernel", w.max_entries == 100);
	mw_all(&w);
	unit_expect("a walk that ends: every key once, not cut", w.nkeys == 40 && !w.cut);
	mw_free(&w);
	mw_init(&w, fd, 8, 0);
	w.next_key = cycling_next_key;
	mw_all(&w);
	unit_expect("a cycling walk stops at its limit", w.cut && w.steps == w.limit);
	unit_expect("a cycling walk gives each key once", w.nkeys == 40);
	uint64_t sum = 0;
	for (uint32_t i = 0; i < w.nkeys; i++) {
		uint64_t k;
		memcpy(&k, mw_key(&w, i), 8);
		sum += k;
	}
	unit_expect("the keys it gives are the map's", sum == 40 * 41 / 2);
	mw_free(&w);
	close(fd);
}

/* ---- lib/kplace: a name several kernel symbols have ---- */

/* Writes text to a temporary file; its path in path (PATH_MAX). */
static int kp_file(char *path, const char *text)
{
	strcpy(path, "/tmp/pr-kallsyms-XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* "sym+off ..." of each place, for one comparison. */
static void kp_expect(const char *name, const char *path, const char *func, uint64_t off,
		      int want_n, const char *want)
{
	struct kplace *p;
	char got[512] = "";
	int n = kplace_find(path, func, off, &p);

	for (int i = 0; i < n; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s+%#llx ", p[i].sym,
			 (unsigned long long)p[i].off);
	if (n >= 0)
		kplace_free(p, n);
	unit_expect(name, n == want_n);
	if (n > 0)
		unit_expect_str(name, got, want);
}

static void test_kplace(void)
{
	/* 6.12's shapes: m_start static in three units, each after its
	 * __pfx_ padding (as shared as it); jhash in vmlinux and a module;
	 * show in two modules only; a data symbol sharing a text name */
	static const char syms[] =
		"ffffffff81000000 T _text\n"
		"ffffffff81100000 t show_map\n"
		"ffffffff81100100 t __pfx_m_start\n"
		"ffffffff81100110 t m_start\n"
		"ffffffff81200000 T seq_read\n"
		"ffffffff81200100 t __pfx_m_start\n"
		"ffffffff81200110 t m_start\n"
		"ffffffff81300000 t c_next\n"
		"ffffffff81300010 t c_next\n"
		"ffffffff81300020 t m_start\n"
		"ffffffff81400000 t jhash\n"
		"ffffffff81500000 d mode\n"
		"ffffffff81500100 t mode\n"
		"ffffffffc0001000 t jhash\t[kvm]\n"
		"ffffffffc0002000 t show\t[kvm]\n"
		"ffffffffc0002040 t only_kvm\t[kvm]\n"
		"ffffffffc0002080 t show\t[kvm]\n"
		"ffffffffc0003000 t p9_open\t[9p]\n"
		"ffffffffc0003100 t show\t[9p]\n";
	char path[64], hidden[64];

	if (kp_file(path, syms) || kp_file(hidden, "0000000000000000 t m_start\n"
					   "0000000000000000 t m_start\n")) {
		unit_expect("kplace: temporary files", 0);
		return;
	}
	kp_expect("kplace: each of a vmlinux name, from the nearest unique symbol before",
		  path, "m_start", 0, 3,
		  "show_map+0x110 seq_read+0x110 seq_read+0x100020 ");
	kp_expect("kplace: an offset into each", path, "m_start", 4, 3,
		  "show_map+0x114 seq_read+0x114 seq_read+0x100024 ");
	kp_expect("kplace: a vmlinux name a module has too is vmlinux's", path, "jhash", 0, 1,
		  "seq_read+0x200000 ");
	kp_expect("kplace: a data symbol's name is not unique either", path, "mode", 0, 1,
		  "seq_read+0x300100 ");
	kp_expect("kplace: a module's name shared in it, from its own symbols", path,
		  "kvm:show", 0, 2, "kvm:jhash+0x1000 kvm:only_kvm+0x40 ");
	kp_expect("kplace: a name only modules have is each module's, counted in it", path,
		  "show", 0, 3,
		  "kvm:jhash+0x1000 kvm:only_kvm+0x40 9p:show+0 ");
	kp_expect("kplace: no such function", path, "nosuch", 0, 0, "");

	/* kscan_names: every text function of sorted names, data left out */
	char *const names[] = { "jhash", "m_start", "mode", "show" };
	struct kscan_hits h = { 0 };
	int per[4] = { 0 }, mods = 0;

	unit_expect("kscan_names reads", !kscan_names(path, KSCAN_KALLSYMS, names, 4, &h));
	for (size_t i = 0; i < h.n; i++) {
		per[h.of[i]]++;
		mods += h.mod[i];
	}
	unit_expect("kscan_names: each function of each name, text only",
		    h.n == 9 && per[0] == 2 && per[1] == 3 && per[2] == 1 && per[3] == 3 &&
		    mods == 4);
	kscan_hits_free(&h);
	kp_expect("kplace: hidden addresses", hidden, "m_start", 0, -EPERM, "");
	unlink(path);
	unlink(hidden);
}

int main(void)
{
	test_printf();
	test_values();
	test_hist();
	test_map_text();
	test_log();
	test_kernel_maps();
	test_map_walk();
	test_kplace();
	return unit_summary();
}
