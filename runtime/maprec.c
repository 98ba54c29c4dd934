// SPDX-License-Identifier: GPL-2.0-only
/*
 * maprec.c - mappings from perf records.  A dummy software event on the
 * process (inherited by its threads) with mmap2 and comm_exec set makes
 * the kernel write a record for each executable mapping and each exec
 * into a ring buffer we map; reading it never stops the process, and what
 * it holds outlives the process.  Only mappings made after recording
 * starts are seen, so it is opened before the command execs: everything of
 * the new program (the binary, ld.so, libraries, dlopen) is announced.
 * Not announced: the vDSO (a special mapping).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "maprec.h"

#define MR_PAGES 64   /* data pages: ~2,000 mappings between two reads */
#define MR_MAXCPU 1024

struct mr_ref {
	uint64_t time;
	size_t off;   /* into recs */
};

struct mr_map {
	uint64_t start, end, pgoff, ino;
	uint32_t maj, min, prot, flags;
	char *name;
};

struct maprec {
	pid_t pid;
	int fds[MR_MAXCPU], nfd;   /* one event per CPU */
	void *bufs[MR_MAXCPU];     /* each: the header page, then MR_PAGES data pages */
	size_t len;
	int execs;
	struct mr_map *maps;   /* since the last exec */
	size_t n, cap;
	char *recs;        /* records copied out of every buffer, to be sorted */
	size_t recs_len, recs_cap;
	struct mr_ref *refs;
	size_t nrefs, refs_cap;
};

/* The kernel maps no inherited event without a CPU, and lets no event
 * write into another CPU's buffer: one event and buffer per CPU, merged
 * by time (sample_id_all with the time). */
static int mr_events(struct maprec *m, struct perf_event_attr *a)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	for (long cpu = 0; cpu < ncpu && m->nfd < MR_MAXCPU; cpu++) {
		int fd = (int)syscall(SYS_perf_event_open, a, m->pid, (int)cpu, -1,
				      PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			continue;   /* offline */
		void *b = mmap(NULL, m->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (b == MAP_FAILED) {
			close(fd);
			return -1;
		}
		m->fds[m->nfd] = fd;
		m->bufs[m->nfd++] = b;
	}
	return m->nfd ? 0 : -1;
}

struct maprec *mr_open(pid_t pid)
{
	struct perf_event_attr a;
	struct maprec *m = calloc(1, sizeof(*m));
	long page = sysconf(_SC_PAGESIZE);

	if (!m)
		return NULL;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.mmap = 1;
	a.mmap2 = 1;
	a.comm = 1;
	a.comm_exec = 1;
	a.inherit = 1;   /* the command's threads: a dlopen can come from any */
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.sample_id_all = 1;
	a.sample_type = PERF_SAMPLE_TIME;   /* each record ends with its time */
	m->pid = pid;
	m->len = (size_t)page * (MR_PAGES + 1);
	if (mr_events(m, &a) == 0)
		return m;
	int e = errno;
	mr_close(m);
	errno = e;
	return NULL;
}

void mr_close(struct maprec *m)
{
	if (!m)
		return;
	for (int i = 0; i < m->nfd; i++) {
		munmap(m->bufs[i], m->len);
		close(m->fds[i]);
	}
	for (size_t i = 0; i < m->n; i++)
		free(m->maps[i].name);
	free(m->maps);
	free(m->recs);
	free(m->refs);
	free(m);
}

static void mr_forget(struct maprec *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->maps[i].name);
	m->n = 0;
}

/* Layout of PERF_RECORD_MMAP2 without sample_id_all: header, pid, tid,
 * addr, len, pgoff, maj, min, ino, ino_generation, prot, flags, filename. */
struct mr_mmap2 {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
	char filename[];
};

static int mr_add(struct maprec *m, const struct mr_mmap2 *r)
{
	size_t room = r->h.size - sizeof(*r);
	if (r->h.size < sizeof(*r) || !(r->prot & PROT_EXEC))
		return 0;
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		struct mr_map *p = realloc(m->maps, cap * sizeof(*p));
		if (!p)
			return 0;
		m->maps = p;
		m->cap = cap;
	}
	char *name = strndup(r->filename, room);
	if (!name)
		return 0;
	m->maps[m->n++] = (struct mr_map){ r->addr, r->addr + r->len, r->pgoff, r->ino,
					   r->maj, r->min, r->prot, r->flags, name };
	return MR_MAPPED;
}

/* One record (whole, in m->rec or in place). */
static int mr_record(struct maprec *m, const struct perf_event_header *h)
{
	if (h->type == PERF_RECORD_MMAP2) {
		const struct mr_mmap2 *r = (const void *)h;
		return h->size >= sizeof(*r) && (pid_t)r->pid == m->pid ? mr_add(m, r) : 0;
	}
	if (h->type == PERF_RECORD_COMM && (h->misc & PERF_RECORD_MISC_COMM_EXEC) &&
	    h->size >= sizeof(*h) + 8 && (pid_t)((const uint32_t *)(h + 1))[0] == m->pid) {
		m->execs++;
		mr_forget(m);
		return MR_EXEC;
	}
	return 0;
}

/* Copies the new records of one buffer into m->recs, indexed by time. */
static int mr_gather(struct maprec *m, void *base)
{
	struct perf_event_mmap_page *pg = base;
	const char *data = (const char *)base + pg->data_offset;
	uint64_t size = pg->data_size, head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;

	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		for (size_t i = 0; i < sizeof(h); i++)
			((char *)&h)[i] = data[(tail + i) % size];
		if (h.size < sizeof(h) + 8 || tail + h.size > head)
			break;
		if (m->recs_len + h.size > m->recs_cap || m->nrefs == m->refs_cap) {
			size_t rc = (m->recs_cap + h.size) * 2, nc = m->refs_cap ? m->refs_cap * 2 : 64;
			char *r = realloc(m->recs, rc);
			if (r)
				m->recs = r, m->recs_cap = rc;
			struct mr_ref *f = r ? realloc(m->refs, nc * sizeof(*f)) : NULL;
			if (!f)
				return -1;
			m->refs = f;
			m->refs_cap = nc;
		}
		char *dst = m->recs + m->recs_len;
		for (size_t i = 0; i < h.size; i++)
			dst[i] = data[(tail + i) % size];
		uint64_t time;
		memcpy(&time, dst + h.size - 8, 8);   /* sample_id_all: the time, last */
		m->refs[m->nrefs++] = (struct mr_ref){ time, m->recs_len };
		m->recs_len += h.size;
		tail += h.size;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	return 0;
}

static int mr_cmp(const void *a, const void *b)
{
	const struct mr_ref *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;   /* one buffer's order */
}

int mr_read(struct maprec *m)
{
	int what = 0;
	m->recs_len = m->nrefs = 0;
	for (int i = 0; i < m->nfd; i++)
		mr_gather(m, m->bufs[i]);
	qsort(m->refs, m->nrefs, sizeof(*m->refs), mr_cmp);
	for (size_t i = 0; i < m->nrefs; i++)
		what |= mr_record(m, (const void *)(m->recs + m->refs[i].off));
	return what;
}

int mr_execs(const struct maprec *m)
{
	return m->execs;
}

static bool mr_hidden(const struct maprec *m, size_t i)
{
	for (size_t j = i + 1; j < m->n; j++)
		if (m->maps[j].start < m->maps[i].end && m->maps[i].start < m->maps[j].end)
			return true;
	return false;
}

char *mr_maps_text(const struct maprec *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = m->n ? open_memstream(&buf, &len) : NULL;

	if (!f)
		return NULL;
	for (size_t i = 0; i < m->n; i++) {
		const struct mr_map *p = &m->maps[i];
		if (mr_hidden(m, i))
			continue;
		fprintf(f, "%llx-%llx %c%c%c%c %08llx %02x:%02x %llu %s\n",
			(unsigned long long)p->start, (unsigned long long)p->end,
			p->prot & PROT_READ ? 'r' : '-', p->prot & PROT_WRITE ? 'w' : '-',
			p->prot & PROT_EXEC ? 'x' : '-', p->flags & MAP_SHARED ? 's' : 'p',
			(unsigned long long)p->pgoff, p->maj, p->min, (unsigned long long)p->ino,
			p->name);
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}
