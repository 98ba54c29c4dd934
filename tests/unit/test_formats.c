/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * test_formats.c - the profile writers on samples made by hand (no kernel,
 * no root): out_pprof.c's file gunzipped and unpacked again with
 * protobuf-c, out_perfdata.c's file walked record by record as perf reads
 * it, and pprof_escape's treatment of text a traced process chooses.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <profile.pb-c.h>
#include <zlib.h>

#include "runtime/out_perfdata.h"
#include "runtime/out_pprof.h"
#include "runtime/profile.h"
#include "unit.h"

static void add_loc(struct pf *pf, pid_t pid, uint64_t ip, const char *name, int obj)
{
	struct pf_loc *l = &pf->loc[pf->nloc++];
	*l = (struct pf_loc){ .pid = pid, .ip = ip, .obj = obj };
	if (name) {
		l->func = calloc(1, sizeof(*l->func));
		l->func[0].name = strdup(name);
		l->nfunc = 1;
	}
}

/* Two samples of one map: kernel + user frames, and user frames alone;
 * a user function name with an escape and a byte that is not UTF-8. */
static struct pf *make_pf(void)
{
	struct pf *pf = calloc(1, sizeof(*pf));
	pf->format = "test";
	pf->loc = calloc(8, sizeof(*pf->loc));
	pf->obj = calloc(2, sizeof(*pf->obj));
	pf->obj[0] = (struct pf_obj){ .pid = -1, .file = strdup("[kernel.kallsyms]"),
				      .end = UINT64_MAX };
	pf->obj[1] = (struct pf_obj){ .pid = 42, .file = strdup("/usr/bin/app"), .start = 0x1000,
				      .end = 0x2000, .pgoff = 0x1000, .build_id_len = 2,
				      .build_id = { 0xab, 0xcd } };
	pf->nobj = 2;
	add_loc(pf, -1, 0xffffffff81000100, "do_syscall_64", 0);
	add_loc(pf, 42, 0x1100, "leaf\x1b\xff", 1);
	add_loc(pf, 42, 0x1200, "main", 1);
	add_loc(pf, 42, 0x1300, NULL, 1);
	pf->s = calloc(2, sizeof(*pf->s));
	static const uint32_t a[] = { 0, 1, 2 }, b[] = { 1, 3 };
	pf->s[0] = (struct pf_sample){ .col = 0, .value = 7, .pid = 42, .time = 100, .nk = 1, .nu = 2 };
	pf->s[0].locs = malloc(sizeof(a));
	memcpy(pf->s[0].locs, a, sizeof(a));
	pf->s[0].labels = calloc(1, sizeof(*pf->s[0].labels));
	pf->s[0].labels[0] = (struct pf_label){ .key = strdup("key3"), .str = strdup("app") };
	pf->s[0].nlabels = 1;
	pf->s[1] = (struct pf_sample){ .col = 0, .value = 5, .pid = 42, .time = 100, .nu = 2 };
	pf->s[1].locs = malloc(sizeof(b));
	memcpy(pf->s[1].locs, b, sizeof(b));
	pf->ns = 2;
	pf->col = calloc(1, sizeof(*pf->col));
	pf->col[0] = (struct pf_col){ .map = 0, .name = strdup("@m"), .unit = "count" };
	pf->ncol = 1;
	pf->proc = calloc(1, sizeof(*pf->proc));
	pf->proc[0].pid = 42;
	strcpy(pf->proc[0].comm, "app");
	pf->nproc = 1;
	return pf;
}

static unsigned char *file_of(int fd, size_t *len)
{
	off_t n = lseek(fd, 0, SEEK_END);
	unsigned char *p = malloc((size_t)n + 1);
	*len = (size_t)pread(fd, p, (size_t)n, 0);
	return p;
}

static void test_escape(void)
{
	char *s = pprof_escape("a\x1b" "b\xff" "c\xc3\xa9" "d\xc0\x80" "e\\n");
	unit_expect_str("pprof_escape: control, invalid and overlong bytes as \\xNN, UTF-8 kept",
			s, "a\\x1bb\\xffc\xc3\xa9" "d\\xc0\\x80e\\n");
	free(s);
}

static const char *str_at(const Perftools__Profiles__Profile *p, int64_t i)
{
	return i >= 0 && (size_t)i < p->n_string_table ? p->string_table[i] : "(bad index)";
}

static void test_pprof(void)
{
	struct pf *pf = make_pf();
	int fd = memfd_create("pprof", 0);
	unit_expect("pprof_write returns 0", pprof_write(pf, fd) == 0);
	size_t len, cap = 1 << 20;
	unsigned char *gz = file_of(fd, &len), *raw = malloc(cap);
	z_stream z = { .next_in = gz, .avail_in = (uInt)len, .next_out = raw, .avail_out = (uInt)cap };
	inflateInit2(&z, 15 + 32);
	unit_expect("pprof file is gzip", inflate(&z, Z_FINISH) == Z_STREAM_END);
	Perftools__Profiles__Profile *p =
		perftools__profiles__profile__unpack(NULL, z.total_out, raw);
	unit_expect("profile.proto unpacks", p != NULL);
	if (p) {
		unit_expect("two samples, one value column", p->n_sample == 2 && p->n_sample_type == 1);
		unit_expect_str("column named after the map", str_at(p, p->sample_type[0]->type), "@m");
		unit_expect("values 7 and 5", p->sample[0]->value[0] == 7 && p->sample[1]->value[0] == 5);
		unit_expect("leaf first: kernel, then user", p->sample[0]->n_location_id == 3 &&
			    p->sample[0]->location_id[0] == 1 && p->sample[0]->location_id[2] == 3);
		const Perftools__Profiles__Location *l = p->location[1];
		const char *name = str_at(p, p->function[l->line[0]->function_id - 1]->name);
		unit_expect_str("function name escaped", name, "leaf\\x1b\\xff");
		unit_expect_str("unnamed address as its hex",
				str_at(p, p->function[p->location[3]->line[0]->function_id - 1]->name),
				"0x1300");
		unit_expect_str("mapping file", str_at(p, p->mapping[1]->filename), "/usr/bin/app");
		unit_expect_str("mapping build-id in hex", str_at(p, p->mapping[1]->build_id), "abcd");
		unit_expect("location's mapping and address",
			    l->mapping_id == 2 && l->address == 0x1100);
		bool key3 = false, comm = false;
		for (size_t i = 0; i < p->sample[0]->n_label; i++) {
			const char *k = str_at(p, p->sample[0]->label[i]->key);
			key3 |= !strcmp(k, "key3") && !strcmp(str_at(p, p->sample[0]->label[i]->str), "app");
			comm |= !strcmp(k, "comm");
		}
		unit_expect("labels: the key and the process's comm", key3 && comm);
		perftools__profiles__profile__free_unpacked(p, NULL);
	}
	inflateEnd(&z);
	free(gz);
	free(raw);
	close(fd);
	pf_free(pf);
}

struct hdr {
	char magic[8];
	uint64_t size, attr_size, attrs[2], data[2], types[2], feat[4];
};

static void test_perfdata(void)
{
	struct pf *pf = make_pf();
	int fd = memfd_create("perfdata", 0);
	char *argv[] = { "perf-run", "-f", "perf", NULL };
	unit_expect("pdata_write returns 0", pdata_write(pf, fd, argv) == 0);
	size_t len;
	unsigned char *f = file_of(fd, &len);
	struct hdr h;
	memcpy(&h, f, sizeof(h));
	unit_expect("PERFILE2 header of 104 bytes", !memcmp(h.magic, "PERFILE2", 8) && h.size == 104);
	unit_expect("one attr per map", h.attr_size == sizeof(struct perf_event_attr) + 16 &&
		    h.attrs[1] == h.attr_size);
	struct perf_event_attr a;
	memcpy(&a, f + h.attrs[0], sizeof(a));
	unit_expect("sample type with identifier, callchain and period",
		    a.sample_type == (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				      PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN) &&
		    a.sample_id_all);
	int comm = 0, mmap2 = 0, samples = 0, bad = 0;
	uint64_t period = 0;
	for (uint64_t at = h.data[0]; at < h.data[0] + h.data[1];) {
		struct perf_event_header e;
		memcpy(&e, f + at, sizeof(e));
		if (e.size < sizeof(e) || e.size % 8) {
			bad++;
			break;
		}
		const uint64_t *u = (const uint64_t *)(f + at + 8);
		comm += e.type == PERF_RECORD_COMM;
		mmap2 += e.type == PERF_RECORD_MMAP2;
		if (e.type == PERF_RECORD_SAMPLE) {
			samples++;
			period += u[4];
			/* id, ip, pid/tid, time, period, nr, chain */
			if (samples == 1)
				bad += !(u[0] == 1 && u[1] == 0xffffffff81000100 && u[5] == 5 &&
					 u[6] == (uint64_t)PERF_CONTEXT_KERNEL &&
					 u[8] == (uint64_t)PERF_CONTEXT_USER && u[9] == 0x1100 &&
					 u[10] == 0x1200 && e.misc == PERF_RECORD_MISC_KERNEL);
		}
		at += e.size;
	}
	unit_expect("data: a COMM, one MMAP2 (user objects), two samples, periods 7 + 5",
		    !bad && comm == 1 && mmap2 == 1 && samples == 2 && period == 12);
	unit_expect("features: build-id, hostname, cmdline, event desc",
		    (h.feat[0] & (1u << 2 | 1u << 3 | 1u << 11 | 1u << 12)) ==
		    (1u << 2 | 1u << 3 | 1u << 11 | 1u << 12));
	unit_expect("feature sections end the file", h.data[0] + h.data[1] < len);
	unit_expect("the event is named after the map", memmem(f, len, "@m", 3) != NULL);
	unit_expect("the build-id of the object", memmem(f, len, "\xab\xcd", 2) != NULL &&
		    memmem(f, len, "/usr/bin/app", 13) != NULL);
	free(f);
	close(fd);
	pf_free(pf);
}

int main(void)
{
	test_escape();
	test_pprof();
	test_perfdata();
	return unit_summary();
}
