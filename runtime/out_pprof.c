/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * out_pprof.c - profile.h's samples as pprof's profile.proto, packed by
 * protobuf-c (the message code is generated at build time from the
 * .proto Debian ships, build/gen/profile.pb-c.[ch]) and gzipped by zlib,
 * as pprof files are.  One value column per map; every location keeps
 * its address and object (a Mapping with file name and build-id) and its
 * functions, inlined ones as extra lines.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>
#include <profile.pb-c.h>

#include "lib/safefile.h"
#include "out_pprof.h"

typedef Perftools__Profiles__Profile PProfile;
typedef Perftools__Profiles__Sample PSample;
typedef Perftools__Profiles__Location PLocation;
typedef Perftools__Profiles__Line PLine;
typedef Perftools__Profiles__Function PFunction;
typedef Perftools__Profiles__Mapping PMapping;
typedef Perftools__Profiles__Label PLabel;
typedef Perftools__Profiles__ValueType PValueType;

/* ---- strings ---- */

static bool pprof_utf8_at(const unsigned char *p, int *len)
{
	int n = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;
	if (p[0] >= 0xf5 || !n)
		return false;
	for (int i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return false;
	/* overlong 3- and 4-byte forms, surrogates, past U+10FFFF */
	if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0) ||
	    (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))
		return false;
	*len = n;
	return true;
}

char *pprof_escape(const char *s)
{
	size_t n = strlen(s);
	char *out = malloc(n * 4 + 1), *o = out;
	const unsigned char *p = (const unsigned char *)s;

	if (!out)
		return NULL;
	while (*p) {
		int len;
		if (*p >= 0x80 && pprof_utf8_at(p, &len)) {
			memcpy(o, p, (size_t)len);
			o += len, p += len;
		} else if (*p < 0x20 || *p >= 0x7f) {
			o += sprintf(o, "\\x%02x", *p++);
		} else {
			*o++ = (char)*p++;
		}
	}
	*o = 0;
	return out;
}

/* The string table, each string once (pprof's index 0 is ""). */
struct pprof_strs {
	char **s;
	size_t n, cap;
	uint32_t *hash;
	size_t hcap;
};

static uint64_t pprof_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static int pprof_rehash(struct pprof_strs *t)
{
	size_t cap = t->hcap ? t->hcap * 2 : 1024;
	uint32_t *h = calloc(cap, sizeof(*h));
	if (!h)
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		size_t j = pprof_hash(t->s[i]) & (cap - 1);
		while (h[j])
			j = (j + 1) & (cap - 1);
		h[j] = (uint32_t)i + 1;
	}
	free(t->hash);
	t->hash = h;
	t->hcap = cap;
	return 0;
}

/* Index of s (escaped) in the table; -1 if out of memory. */
static int64_t pprof_str(struct pprof_strs *t, const char *raw)
{
	char *s = pprof_escape(raw ? raw : "");
	if (!s || (t->n * 2 >= t->hcap && pprof_rehash(t))) {
		free(s);
		return -1;
	}
	size_t j = pprof_hash(s) & (t->hcap - 1);
	for (; t->hash[j]; j = (j + 1) & (t->hcap - 1))
		if (!strcmp(t->s[t->hash[j] - 1], s)) {
			free(s);
			return t->hash[j] - 1;
		}
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1024;
		char **a = realloc(t->s, cap * sizeof(*a));
		if (!a) {
			free(s);
			return -1;
		}
		t->s = a;
		t->cap = cap;
	}
	t->s[t->n] = s;
	t->hash[j] = (uint32_t)t->n + 1;
	return (int64_t)t->n++;
}

static void pprof_strs_free(struct pprof_strs *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	free(t->hash);
}

/* ---- the message ---- */

/* Everything the Profile message points at, freed in one place. */
struct pprof_build {
	struct pprof_strs strs;
	PValueType *vt, **vtp;
	PMapping *map, **mapp;
	PFunction *fn, **fnp;
	size_t nfn;
	uint32_t *fhash;   /* (name, file) → function index + 1 */
	size_t fhcap;
	PLocation *loc, **locp;
	PLine *line, **linep;
	PSample *smp, **smpp;
	uint64_t *locids;
	int64_t *vals;
	PLabel *lab, **labp;
	bool failed;
};

static int64_t pprof_s(struct pprof_build *b, const char *s)
{
	int64_t i = pprof_str(&b->strs, s);
	if (i < 0)
		b->failed = true;
	return i < 0 ? 0 : i;
}

/* The function named name in file, one per pair. */
static uint64_t pprof_fn(struct pprof_build *b, const char *name, const char *sysname,
			 const char *file)
{
	int64_t ns = pprof_s(b, name), fs = pprof_s(b, file);
	int64_t ss = sysname ? pprof_s(b, sysname) : ns;
	size_t j = ((uint64_t)ns * 0x9e3779b97f4a7c15ull ^ (uint64_t)fs) & (b->fhcap - 1);
	for (; b->fhash[j]; j = (j + 1) & (b->fhcap - 1)) {
		PFunction *f = &b->fn[b->fhash[j] - 1];
		if (f->name == ns && f->filename == fs)
			return f->id;
	}
	PFunction *f = &b->fn[b->nfn];
	perftools__profiles__function__init(f);
	f->id = b->nfn + 1;
	f->name = ns;
	f->system_name = ss;
	f->filename = fs;
	b->fnp[b->nfn] = f;
	b->fhash[j] = (uint32_t)++b->nfn;
	return f->id;
}

static void pprof_hex_id(char *out, const unsigned char *id, int n)
{
	for (int i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * n] = 0;
}

static void pprof_mappings(struct pprof_build *b, const struct pf *pf, PProfile *p)
{
	for (size_t i = 0; i < pf->nobj; i++) {
		const struct pf_obj *o = &pf->obj[i];
		PMapping *m = &b->map[i];
		char id[41];
		perftools__profiles__mapping__init(m);
		m->id = i + 1;
		m->memory_start = o->start;
		m->memory_limit = o->end;
		m->file_offset = o->pgoff;
		m->filename = pprof_s(b, o->file);
		pprof_hex_id(id, o->build_id, o->build_id_len);
		m->build_id = pprof_s(b, id);
		m->has_functions = true;
		m->has_filenames = m->has_line_numbers = m->has_inline_frames = o->pid >= 0;
		b->mapp[i] = m;
	}
	p->n_mapping = pf->nobj;
	p->mapping = b->mapp;
}

static void pprof_locations(struct pprof_build *b, const struct pf *pf, PProfile *p)
{
	size_t nl = 0;
	for (size_t i = 0; i < pf->nloc; i++) {
		const struct pf_loc *l = &pf->loc[i];
		PLocation *x = &b->loc[i];
		perftools__profiles__location__init(x);
		x->id = i + 1;
		x->mapping_id = l->obj >= 0 ? (uint64_t)l->obj + 1 : 0;
		x->address = l->ip;
		x->line = &b->linep[nl];
		for (int k = 0; k < (l->nfunc ? l->nfunc : 1); k++, nl++) {
			char hex[24];
			PLine *ln = &b->line[nl];
			perftools__profiles__line__init(ln);
			if (l->nfunc) {
				ln->function_id = pprof_fn(b, l->func[k].name, l->func[k].sysname, l->func[k].file);
				ln->line = l->func[k].line;
			} else {   /* no name known: the address, as -f folded writes it */
				snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)l->ip);
				ln->function_id = pprof_fn(b, hex, NULL, NULL);
			}
			b->linep[nl] = ln;
			x->n_line++;
		}
		b->locp[i] = x;
	}
	p->n_location = pf->nloc;
	p->location = b->locp;
	p->n_function = b->nfn;
	p->function = b->fnp;
}

static size_t pprof_add_label(struct pprof_build *b, size_t at, const char *key,
			      const char *str, int64_t num)
{
	PLabel *l = &b->lab[at];
	perftools__profiles__label__init(l);
	l->key = pprof_s(b, key);
	if (str)
		l->str = pprof_s(b, str);
	else
		l->num = num;
	b->labp[at] = l;
	return at + 1;
}

static void pprof_samples(struct pprof_build *b, const struct pf *pf, PProfile *p)
{
	size_t nid = 0, nlab = 0;
	for (size_t i = 0; i < pf->ns; i++) {
		const struct pf_sample *s = &pf->s[i];
		PSample *x = &b->smp[i];
		perftools__profiles__sample__init(x);
		x->n_location_id = s->nk + s->nu;
		x->location_id = &b->locids[nid];
		for (uint32_t k = 0; k < s->nk + s->nu; k++)
			b->locids[nid++] = (uint64_t)s->locs[k] + 1;
		x->n_value = (size_t)pf->ncol;
		x->value = &b->vals[i * (size_t)pf->ncol];
		x->value[s->col] = s->value;
		x->label = &b->labp[nlab];
		size_t first = nlab;
		for (int k = 0; k < s->nlabels; k++)
			nlab = pprof_add_label(b, nlab, s->labels[k].key, s->labels[k].str,
					       s->labels[k].num);
		if (s->pid > 0) {
			nlab = pprof_add_label(b, nlab, "pid", NULL, s->pid);
			if (pf_comm(pf, s->pid))
				nlab = pprof_add_label(b, nlab, "comm", pf_comm(pf, s->pid), 0);
		}
		x->n_label = nlab - first;
		b->smpp[i] = x;
	}
	p->n_sample = pf->ns;
	p->sample = b->smpp;
}

static void pprof_types(struct pprof_build *b, const struct pf *pf, PProfile *p)
{
	for (int i = 0; i < pf->ncol; i++) {
		perftools__profiles__value_type__init(&b->vt[i]);
		b->vt[i].type = pprof_s(b, pf->col[i].name);
		b->vt[i].unit = pprof_s(b, pf->col[i].unit);
		b->vtp[i] = &b->vt[i];
	}
	p->n_sample_type = (size_t)pf->ncol;
	p->sample_type = b->vtp;
	if (pf->ncol)   /* pprof shows the last column unless told: the first map */
		p->default_sample_type = b->vt[0].type;
}

static int pprof_alloc(struct pprof_build *b, const struct pf *pf)
{
	size_t nlines = 0, nids = 0, nlab = 0, ncol = (size_t)pf->ncol + 1;
	for (size_t i = 0; i < pf->nloc; i++)
		nlines += pf->loc[i].nfunc ? (size_t)pf->loc[i].nfunc : 1;
	for (size_t i = 0; i < pf->ns; i++) {
		nids += pf->s[i].nk + pf->s[i].nu;
		nlab += (size_t)pf->s[i].nlabels + 2;
	}
	for (b->fhcap = 1024; b->fhcap < 2 * nlines + 2; b->fhcap *= 2)
		;
	b->vt = calloc(ncol, sizeof(*b->vt));
	b->vtp = calloc(ncol, sizeof(*b->vtp));
	b->map = calloc(pf->nobj + 1, sizeof(*b->map));
	b->mapp = calloc(pf->nobj + 1, sizeof(*b->mapp));
	b->fn = calloc(nlines + 1, sizeof(*b->fn));
	b->fnp = calloc(nlines + 1, sizeof(*b->fnp));
	b->fhash = calloc(b->fhcap, sizeof(*b->fhash));
	b->loc = calloc(pf->nloc + 1, sizeof(*b->loc));
	b->locp = calloc(pf->nloc + 1, sizeof(*b->locp));
	b->line = calloc(nlines + 1, sizeof(*b->line));
	b->linep = calloc(nlines + 1, sizeof(*b->linep));
	b->smp = calloc(pf->ns + 1, sizeof(*b->smp));
	b->smpp = calloc(pf->ns + 1, sizeof(*b->smpp));
	b->locids = calloc(nids + 1, sizeof(*b->locids));
	b->vals = calloc((pf->ns + 1) * ncol, sizeof(*b->vals));
	b->lab = calloc(nlab + 1, sizeof(*b->lab));
	b->labp = calloc(nlab + 1, sizeof(*b->labp));
	return b->vt && b->vtp && b->map && b->mapp && b->fn && b->fnp && b->fhash && b->loc &&
	       b->locp && b->line && b->linep && b->smp && b->smpp && b->locids && b->vals &&
	       b->lab && b->labp ? 0 : -1;
}

static void pprof_build_free(struct pprof_build *b)
{
	pprof_strs_free(&b->strs);
	free(b->vt), free(b->vtp), free(b->map), free(b->mapp), free(b->fn), free(b->fnp);
	free(b->fhash), free(b->loc), free(b->locp), free(b->line), free(b->linep);
	free(b->smp), free(b->smpp), free(b->locids), free(b->vals), free(b->lab), free(b->labp);
}

/* ---- gzip ---- */


static int pprof_gzip(int fd, const unsigned char *data, size_t len)
{
	z_stream z;
	unsigned char out[65536];
	int r = 0, zr;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		errno = ENOMEM;
		return -1;
	}
	z.next_in = (unsigned char *)data;
	z.avail_in = (uInt)len;   /* a profile is far below 4 GiB */
	do {
		z.next_out = out;
		z.avail_out = sizeof(out);
		zr = deflate(&z, Z_FINISH);
		if (zr == Z_STREAM_ERROR ||
		    sf_write_all(fd, out, sizeof(out) - z.avail_out)) {
			r = -1;
			break;
		}
	} while (zr != Z_STREAM_END);
	deflateEnd(&z);
	return r;
}

int pprof_write(const struct pf *pf, int fd)
{
	struct pprof_build b;
	PProfile p;
	struct timespec now;
	int r = -1;

	memset(&b, 0, sizeof(b));
	perftools__profiles__profile__init(&p);
	if (pprof_alloc(&b, pf) || pprof_s(&b, "") != 0) {
		pprof_build_free(&b);
		errno = ENOMEM;
		return -1;
	}
	pprof_types(&b, pf, &p);
	pprof_mappings(&b, pf, &p);
	pprof_locations(&b, pf, &p);
	pprof_samples(&b, pf, &p);
	clock_gettime(CLOCK_REALTIME, &now);
	p.time_nanos = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
	p.n_string_table = b.strs.n;
	p.string_table = b.strs.s;
	size_t len = perftools__profiles__profile__get_packed_size(&p);
	unsigned char *buf = b.failed ? NULL : malloc(len + 1);
	if (buf) {
		perftools__profiles__profile__pack(&p, buf);
		r = pprof_gzip(fd, buf, len);
	} else {
		errno = ENOMEM;
	}
	free(buf);
	pprof_build_free(&b);
	return r;
}
