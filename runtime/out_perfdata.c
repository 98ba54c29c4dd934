/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * out_perfdata.c - profile.h's samples as a perf.data file, laid out as
 * perf's perf.data-file-format.txt describes: the file header, one event
 * attribute per map (a software cpu-clock event named after the map, its
 * id the sample's PERF_SAMPLE_IDENTIFIER), the data (the kernel's text
 * mapping, a COMM per process, an MMAP2 per executable mapping the
 * samples touch, then a PERF_RECORD_SAMPLE per map entry: ip, pid/tid,
 * the print's time, period = the entry's value, callchain with
 * PERF_CONTEXT_KERNEL/USER markers), then the feature sections perf
 * report prints and needs to find the right files (build-ids, host,
 * kernel release, architecture, CPUs, memory, command line, event names).
 * perf symbolises the addresses itself from the mapped files.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "lib/kscan.h"
#include "lib/safefile.h"
#include "out_perfdata.h"

/* Feature bits (perf's util/header.h numbering, fixed by the format). */
enum {
	PD_BUILD_ID = 2, PD_HOSTNAME = 3, PD_OSRELEASE = 4, PD_VERSION = 5, PD_ARCH = 6,
	PD_NRCPUS = 7, PD_TOTAL_MEM = 10, PD_CMDLINE = 11, PD_EVENT_DESC = 12, PD_NFEAT = 13,
};

#define PD_NAME_ALIGN 64   /* strings in feature sections are padded so */
#define PD_MISC_BUILD_ID_SIZE (1 << 15)   /* build_id[20] holds the id's size */
#define PD_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
			PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

struct pd_section {
	uint64_t offset, size;
};

struct pd_header {
	char magic[8];
	uint64_t size, attr_size;
	struct pd_section attrs, data, event_types;
	uint64_t features[4];
};

/* A growing byte buffer; a failed allocation is remembered, not crashed on. */
struct pd_buf {
	unsigned char *p;
	size_t len, cap;
	bool failed;
};

static void pd_put(struct pd_buf *b, const void *data, size_t n)
{
	if (b->failed)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 65536;
		while (cap < b->len + n)
			cap *= 2;
		unsigned char *p = realloc(b->p, cap);
		if (!p) {
			b->failed = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

static void pd_u64(struct pd_buf *b, uint64_t v)
{
	pd_put(b, &v, 8);
}

static void pd_u32(struct pd_buf *b, uint32_t v)
{
	pd_put(b, &v, 4);
}

static void pd_zeros(struct pd_buf *b, size_t n)
{
	static const unsigned char z[64];
	while (n) {
		size_t k = n < sizeof(z) ? n : sizeof(z);
		pd_put(b, z, k);
		n -= k;
	}
}

/* A NUL-ended name padded with NULs to a multiple of align. */
static size_t pd_name_len(const char *s, size_t align)
{
	return (strlen(s) + 1 + align - 1) / align * align;
}

static void pd_name(struct pd_buf *b, const char *s, size_t align)
{
	size_t n = strlen(s);
	pd_put(b, s, n);
	pd_zeros(b, pd_name_len(s, align) - n);
}

/* ---- records ---- */

static void pd_rec_header(struct pd_buf *b, uint32_t type, uint16_t misc, size_t size)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = (uint16_t)size };
	pd_put(b, &h, sizeof(h));
}

/* sample_id_all's trailer of a record that is not a sample. */
static void pd_sample_id(struct pd_buf *b, pid_t pid, uint64_t id)
{
	pd_u32(b, (uint32_t)pid);
	pd_u32(b, (uint32_t)pid);
	pd_u64(b, 0);   /* time: before every sample */
	pd_u64(b, id);
}

#define PD_ID_TRAILER 24

/* The kernel's text, as perf record names it ("[kernel.kallsyms]_text",
 * page offset = the address of _text) so that perf finds its symbols. */
static void pd_kernel_mmap(struct pd_buf *b, uint64_t id)
{
	const char *name = "[kernel.kallsyms]_text";
	uint64_t text;

	if (kscan_addr("_text", &text) < 0)
		return;   /* addresses hidden (kptr_restrict): perf shows them as such */
	size_t size = sizeof(struct perf_event_header) + 8 + 24 + pd_name_len(name, 8) +
		      PD_ID_TRAILER;
	pd_rec_header(b, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, size);
	pd_u32(b, (uint32_t)-1);
	pd_u32(b, 0);
	pd_u64(b, text);
	/* to the end: module addresses fall in it too, and perf's kernel map
	 * hands them to the modules it finds */
	pd_u64(b, UINT64_MAX - text);
	pd_u64(b, text);
	pd_name(b, name, 8);
	pd_sample_id(b, -1, id);
}

static void pd_comm(struct pd_buf *b, pid_t pid, const char *comm, uint64_t id)
{
	size_t size = sizeof(struct perf_event_header) + 8 + pd_name_len(comm, 8) + PD_ID_TRAILER;
	pd_rec_header(b, PERF_RECORD_COMM, 0, size);
	pd_u32(b, (uint32_t)pid);
	pd_u32(b, (uint32_t)pid);
	pd_name(b, comm, 8);
	pd_sample_id(b, pid, id);
}

static void pd_mmap2(struct pd_buf *b, const struct pf_obj *o, uint64_t id)
{
	size_t size = sizeof(struct perf_event_header) + 8 + 24 + 24 + 8 +
		      pd_name_len(o->file, 8) + PD_ID_TRAILER;
	pd_rec_header(b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, size);
	pd_u32(b, (uint32_t)o->pid);
	pd_u32(b, (uint32_t)o->pid);
	pd_u64(b, o->start);
	pd_u64(b, o->end - o->start);
	pd_u64(b, o->pgoff);
	pd_zeros(b, 24);   /* device, inode, generation: not known, the build-id is */
	pd_u32(b, PROT_READ | PROT_EXEC);
	pd_u32(b, MAP_PRIVATE);
	pd_name(b, o->file, 8);
	pd_sample_id(b, o->pid, id);
}

/* The sample's leaf is its first kernel frame if it has one.  A note
 * where a user stack ended is no address: the chain ends before it.
 * false if no frame is left. */
static bool pd_sample(struct pd_buf *b, const struct pf *pf, const struct pf_sample *s)
{
	uint32_t nu = 0, n;
	while (nu < s->nu && !pf->loc[s->locs[s->nk + nu]].note)
		nu++;
	n = s->nk + nu;
	if (!n)
		return false;
	uint64_t nr = n + (s->nk > 0) + (nu > 0);
	const struct pf_loc *leaf = &pf->loc[s->locs[0]];
	size_t size = sizeof(struct perf_event_header) + 8 * 5 + 8 + nr * 8;
	pid_t pid = s->pid > 0 ? s->pid : -1;

	pd_rec_header(b, PERF_RECORD_SAMPLE, s->nk ? PERF_RECORD_MISC_KERNEL :
		      PERF_RECORD_MISC_USER, size);
	pd_u64(b, (uint64_t)s->col + 1);   /* IDENTIFIER */
	pd_u64(b, leaf->ip);
	pd_u32(b, (uint32_t)pid);
	pd_u32(b, (uint32_t)pid);
	pd_u64(b, s->time);
	pd_u64(b, (uint64_t)s->value);
	pd_u64(b, nr);
	for (uint32_t i = 0; i < n; i++) {
		if (i == 0 && s->nk)
			pd_u64(b, (uint64_t)PERF_CONTEXT_KERNEL);
		if (i == s->nk)
			pd_u64(b, (uint64_t)PERF_CONTEXT_USER);
		pd_u64(b, pf->loc[s->locs[i]].ip);
	}
	return true;
}

/* The records, in the order perf record writes them. */
static void pd_data(struct pd_buf *b, const struct pf *pf, uint64_t *skipped)
{
	pd_kernel_mmap(b, 1);
	for (size_t i = 0; i < pf->nproc; i++)
		pd_comm(b, pf->proc[i].pid, pf->proc[i].comm, 1);
	for (size_t i = 0; i < pf->nobj; i++)
		if (pf->obj[i].pid >= 0)
			pd_mmap2(b, &pf->obj[i], 1);
	for (size_t i = 0; i < pf->ns; i++) {
		/* a period is a count: a sum at or below zero has none */
		if (pf->s[i].value <= 0 || pf->s[i].nk + pf->s[i].nu > 65000 / 8) {
			(*skipped)++;
			continue;
		}
		if (!pd_sample(b, pf, &pf->s[i]))
			(*skipped)++;
	}
}

/* ---- the header's attributes and features ---- */

static struct perf_event_attr pd_attr(void)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1;
	a.sample_type = PD_SAMPLE_TYPE;
	a.sample_id_all = 1;
	a.mmap = a.comm = a.task = a.mmap2 = 1;
	return a;
}

static void pd_string(struct pd_buf *b, const char *s)
{
	pd_u32(b, (uint32_t)pd_name_len(s, PD_NAME_ALIGN));
	pd_name(b, s, PD_NAME_ALIGN);
}

static void pd_build_ids(struct pd_buf *b, const struct pf *pf)
{
	for (size_t i = 0; i < pf->nobj; i++) {
		const struct pf_obj *o = &pf->obj[i];
		bool dup = false;
		for (size_t j = 0; j < i; j++)
			dup |= !strcmp(pf->obj[j].file, o->file);
		if (!o->build_id_len || dup)
			continue;
		size_t size = sizeof(struct perf_event_header) + 4 + 24 + pd_name_len(o->file, PD_NAME_ALIGN);
		unsigned char id[24] = { 0 };
		memcpy(id, o->build_id, (size_t)o->build_id_len);
		id[20] = (unsigned char)o->build_id_len;
		pd_rec_header(b, 0, (o->pid < 0 ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER) |
			      PD_MISC_BUILD_ID_SIZE, size);
		pd_u32(b, (uint32_t)-1);   /* the host machine */
		pd_put(b, id, sizeof(id));
		pd_name(b, o->file, PD_NAME_ALIGN);
	}
}

static void pd_event_desc(struct pd_buf *b, const struct pf *pf)
{
	struct perf_event_attr a = pd_attr();
	pd_u32(b, (uint32_t)pf->ncol);
	pd_u32(b, sizeof(a));
	for (int i = 0; i < pf->ncol; i++) {
		pd_put(b, &a, sizeof(a));
		pd_u32(b, 1);
		pd_string(b, pf->col[i].name);
		pd_u64(b, (uint64_t)i + 1);
	}
}

static void pd_cmdline(struct pd_buf *b, char **argv)
{
	uint32_t n = 0;
	while (argv && argv[n])
		n++;
	pd_u32(b, n);
	for (uint32_t i = 0; i < n; i++)
		pd_string(b, argv[i]);
}

static uint64_t pd_mem_kb(void)
{
	char line[256];
	unsigned long long kb = 0;
	FILE *f = fopen("/proc/meminfo", "re");
	while (f && fgets(line, sizeof(line), f) && sscanf(line, "MemTotal: %llu kB", &kb) != 1)
		;
	if (f)
		fclose(f);
	return kb;
}

static void pd_feature(struct pd_buf *b, int feat, const struct pf *pf, char **cmdline)
{
	struct utsname u;
	uname(&u);
	switch (feat) {
	case PD_BUILD_ID: pd_build_ids(b, pf); break;
	case PD_HOSTNAME: pd_string(b, u.nodename); break;
	case PD_OSRELEASE: pd_string(b, u.release); break;
	case PD_VERSION: pd_string(b, "perf-run"); break;
	case PD_ARCH: pd_string(b, u.machine); break;
	case PD_NRCPUS:
		pd_u32(b, (uint32_t)sysconf(_SC_NPROCESSORS_CONF));
		pd_u32(b, (uint32_t)sysconf(_SC_NPROCESSORS_ONLN));
		break;
	case PD_TOTAL_MEM: pd_u64(b, pd_mem_kb()); break;
	case PD_CMDLINE: pd_cmdline(b, cmdline); break;
	case PD_EVENT_DESC: pd_event_desc(b, pf); break;
	}
}

static const int pd_feats[] = { PD_BUILD_ID, PD_HOSTNAME, PD_OSRELEASE, PD_VERSION, PD_ARCH,
				PD_NRCPUS, PD_TOTAL_MEM, PD_CMDLINE, PD_EVENT_DESC };
#define PD_NFEATS (sizeof(pd_feats) / sizeof(pd_feats[0]))

/* The feature sections: their table, then their contents, at off. */
static void pd_features(struct pd_buf *b, const struct pf *pf, char **cmdline, uint64_t off)
{
	struct pd_buf body = { 0 };
	struct pd_section sec[PD_NFEATS];

	for (size_t i = 0; i < PD_NFEATS; i++) {
		sec[i].offset = off + sizeof(sec) + body.len;
		pd_feature(&body, pd_feats[i], pf, cmdline);
		sec[i].size = off + sizeof(sec) + body.len - sec[i].offset;
	}
	pd_put(b, sec, sizeof(sec));
	pd_put(b, body.p, body.len);
	b->failed |= body.failed;
	free(body.p);
}


int pdata_write(const struct pf *pf, int fd, char **cmdline)
{
	struct pd_buf b = { 0 };
	struct pd_header h;
	struct perf_event_attr a = pd_attr();
	uint64_t skipped = 0;
	size_t ncol = (size_t)pf->ncol;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, "PERFILE2", 8);
	h.size = sizeof(h);
	h.attr_size = sizeof(a) + sizeof(struct pd_section);
	/* attributes, then each one's id (its map's column + 1), then data */
	h.attrs = (struct pd_section){ sizeof(h), ncol * h.attr_size };
	uint64_t ids = h.attrs.offset + h.attrs.size;
	pd_put(&b, &h, sizeof(h));
	for (size_t i = 0; i < ncol; i++) {
		pd_put(&b, &a, sizeof(a));
		pd_put(&b, &(struct pd_section){ ids + 8 * i, 8 }, sizeof(struct pd_section));
	}
	for (size_t i = 0; i < ncol; i++)
		pd_u64(&b, i + 1);
	h.data.offset = b.len;
	pd_data(&b, pf, &skipped);
	h.data.size = b.len - h.data.offset;
	for (size_t i = 0; i < PD_NFEATS; i++)
		h.features[pd_feats[i] / 64] |= 1ull << (pd_feats[i] % 64);
	pd_features(&b, pf, cmdline, b.len);
	if (b.failed) {
		free(b.p);
		errno = ENOMEM;
		return -1;
	}
	memcpy(b.p, &h, sizeof(h));
	if (skipped)
		fprintf(stderr, "perf-run: %llu entr%s with a value of 0 or less (no period), "
			"no frame with an address, or more than 8124 frames are not in the "
			"perf.data file\n",
			(unsigned long long)skipped, skipped == 1 ? "y" : "ies");
	int r = sf_write_all(fd, b.p, b.len);
	free(b.p);
	return r;
}
