/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * exporter.c - the HTTP side of --listen (exporter.h).
 *
 * libmicrohttpd runs in its external epoll mode: no thread of its own; its
 * epoll fd is polled by run.c's loop and MHD_run() does the non-blocking
 * work that is ready.  The listening socket is made here (exact errors,
 * IPV6_V6ONLY so "[::]" means IPv6 only, the port the kernel picked for
 * port 0) and handed over.  What a client may hold is bounded: connections
 * (EX_CONNS, EX_CONNS_PER_IP), the request's size (EX_REQ_MEMORY: a longer
 * URL or header is answered 414/431 by libmicrohttpd), and its time
 * (EX_TIMEOUT_S without progress closes it), so a slow or hostile client
 * holds a slot for a while, never the loop.
 *
 * A scrape renders every map once per MHD_run() pass and format: requests
 * answered in the same pass share the text (libmicrohttpd counts the
 * references), so a flood of requests costs one read of the maps a pass.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <dlfcn.h>
#include <limits.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "exporter.h"
#include "mapprint.h"
#include "promfmt.h"

#define EX_CONNS 64
#define EX_CONNS_PER_IP 16
#define EX_TIMEOUT_S 10
#define EX_REQ_MEMORY (16 * 1024)

#define EX_CT_TEXT "text/plain; version=0.0.4; charset=utf-8"
#define EX_CT_OM "application/openmetrics-text; version=1.0.0; charset=utf-8"

/* ---- the library, loaded with --listen only ---- */

#define EX_FUNCS(X) \
	X(MHD_start_daemon) X(MHD_stop_daemon) X(MHD_run) X(MHD_get_timeout) \
	X(MHD_get_daemon_info) X(MHD_create_response_from_buffer) X(MHD_add_response_header) \
	X(MHD_queue_response) X(MHD_destroy_response) X(MHD_lookup_connection_value)

static struct {
#define EX_PTR(f) __typeof__(f) *f;
	EX_FUNCS(EX_PTR)
#undef EX_PTR
} mhd;
static void *mhd_handle;

/* NULL, or why libmicrohttpd cannot be used. */
static const char *ex_load(void)
{
	static char why[256];

	if (mhd_handle)
		return NULL;
	if (!(mhd_handle = dlopen("libmicrohttpd.so.12", RTLD_NOW | RTLD_LOCAL))) {
		snprintf(why, sizeof(why), "%s (install libmicrohttpd12)", dlerror());
		return why;
	}
#define EX_SYM(f) \
	if (!(*(void **)&mhd.f = dlsym(mhd_handle, #f))) { \
		snprintf(why, sizeof(why), "libmicrohttpd has no %s", #f); \
		dlclose(mhd_handle); \
		mhd_handle = NULL; \
		return why; \
	}
	EX_FUNCS(EX_SYM)
#undef EX_SYM
	return NULL;
}

/* ---- the exporter ---- */

/* Names of perf-run's own metrics, which no map's may take. */
static const char *const ex_own[] = {
	"perf_run_events_lost", "perf_run_map_updates_dropped", "perf_run_read_faults",
	"perf_run_series_dropped", NULL,
};

struct exporter {
	struct MHD_Daemon *d;
	int epfd;
	char url[96];
	uint32_t max_series;
	struct ex_src src;
	char **names;          /* metric name of each map (promfmt.h) */
	int nnames;
	int *order;            /* map indexes by map name, as print() goes */
	int *top;              /* each histogram's highest bucket served */
	uint64_t *dropped;     /* keys left out at the last scrape, per map */
	bool *said;            /* the cut of each map said on stderr */
	struct MHD_Response *snap[2];   /* this pass's text, per prom_format */
	struct MHD_Response *not_found, *not_allowed;
	double due;            /* CLOCK_MONOTONIC ms when ex_run must run MHD_run */
};

/* The numeric host of "HOST:PORT" or "[HOST]:PORT" (hl bytes) into sa. */
static int ex_parse_host(const char *s, size_t hl, uint16_t port,
			 struct sockaddr_storage *sa, socklen_t *len)
{
	char host[INET6_ADDRSTRLEN + 1];
	bool v6 = s[0] == '[';
	struct sockaddr_in *in = (struct sockaddr_in *)sa;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)sa;

	if (v6 && (hl < 3 || s[hl - 1] != ']'))
		return -1;
	if (hl - 2 * v6 >= sizeof(host))
		return -1;   /* too long to be an address */
	memcpy(host, s + v6, hl - 2 * v6);
	host[hl - 2 * v6] = 0;
	if (!v6 && inet_pton(AF_INET, host, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons(port);
		*len = sizeof(*in);
		return 0;
	}
	if (v6 && inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		*len = sizeof(*in6);
		return 0;
	}
	return -1;
}

int ex_parse_addr(const char *s, struct sockaddr_storage *sa, socklen_t *len, char *err,
		  size_t n)
{
	const char *colon = strrchr(s, ':');
	char *end = NULL;
	unsigned long port = colon && isdigit((unsigned char)colon[1]) ?
			     strtoul(colon + 1, &end, 10) : ULONG_MAX;

	memset(sa, 0, sizeof(*sa));
	if (!end || *end || port > 65535) {
		snprintf(err, n, "--listen takes ADDR:PORT (127.0.0.1:9464, [::1]:9464), not '%s'", s);
		return -1;
	}
	if (colon == s) {
		snprintf(err, n, "--listen %s: give the address to listen on (127.0.0.1:%lu for "
			 "this host only, 0.0.0.0:%lu for every IPv4 address)", s, port, port);
		return -1;
	}
	if (ex_parse_host(s, (size_t)(colon - s), (uint16_t)port, sa, len)) {
		snprintf(err, n, "--listen %s: '%.*s' is not a numeric IPv4 address or an IPv6 "
			 "address in brackets ([::1]:%lu)", s, (int)(colon - s), s, port);
		return -1;
	}
	return 0;
}

/* The listening socket, bound where told and only there; -1 with err. */
static int ex_listen(const char *addr, char *url, size_t urln, char *err, size_t n)
{
	struct sockaddr_storage sa;
	socklen_t len;
	int one = 1;

	if (ex_parse_addr(addr, &sa, &len, err, n))
		return -1;
	int fd = socket(sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    (sa.ss_family == AF_INET6 &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one))) ||
	    bind(fd, (struct sockaddr *)&sa, len) || listen(fd, EX_CONNS) ||
	    getsockname(fd, (struct sockaddr *)&sa, &len)) {
		snprintf(err, n, "--listen %s: cannot listen there: %s", addr, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	char host[INET6_ADDRSTRLEN];
	if (sa.ss_family == AF_INET6) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&sa;
		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		snprintf(url, urln, "http://[%s]:%u/metrics", host, ntohs(in6->sin6_port));
	} else {
		struct sockaddr_in *in = (struct sockaddr_in *)&sa;
		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		snprintf(url, urln, "http://%s:%u/metrics", host, ntohs(in->sin_port));
	}
	return fd;
}

/* The q value of one media range's parameters ("; version=1.0.0;q=0.5"). */
static double ex_q(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t j = i + 1;
		if (p[i] != ';')
			continue;
		while (j < n && (p[j] == ' ' || p[j] == '\t'))
			j++;
		if (j + 1 < n && (p[j] == 'q' || p[j] == 'Q') && p[j + 1] == '=')
			return strtod(p + j + 2, NULL);
	}
	return 1;
}

/* OpenMetrics if the client's Accept takes it at least as gladly as text. */
static enum prom_format ex_format(const char *accept)
{
	double om = 0, text = -1, any = 0;

	for (const char *r = accept; r && *r; r = strchr(r, ',') ? strchr(r, ',') + 1 : NULL) {
		r += strspn(r, " \t");
		size_t len = strcspn(r, ","), type = strcspn(r, ";,");
		double q = ex_q(r + type, len - type);
		if (!strncasecmp(r, "application/openmetrics-text", 28) && q > om)
			om = q;
		else if (!strncasecmp(r, "text/plain", 10) && q > text)
			text = q;
		else if ((!strncmp(r, "*/*", 3) || !strncasecmp(r, "text/*", 6)) && q > any)
			any = q;
	}
	return om > 0 && om >= (text >= 0 ? text : any) ? PROM_OPENMETRICS : PROM_TEXT;
}

static int ex_name_cmp(const void *a, const void *b, void *arg)
{
	const struct program *p = arg;
	return strcmp(p->maps[*(const int *)a].name, p->maps[*(const int *)b].name);
}

static int ex_value_cmp(const void *pa, const void *pb, void *arg)
{
	const struct mp_entry *a = pa, *b = pb;
	const uint32_t *n = arg;
	if (a->value != b->value)
		return a->value < b->value ? -1 : 1;
	return *n ? memcmp(a->key, b->key, *n) : 0;
}

/* The first entry served: at most max_series, the largest values (a
 * histogram's by its count), said once per map on stderr. */
static int ex_limit(struct exporter *x, int i, struct mp_data *d)
{
	const struct pr_map *m = &x->src.p->maps[i];

	x->dropped[i] = (uint64_t)d->n > x->max_series ? (uint64_t)d->n - x->max_series : 0;
	if (!x->dropped[i])
		return 0;
	if (m->value && m->value->kind == T_AGG &&
	    (m->value->agg == AGG_HIST || m->value->agg == AGG_LHIST)) {
		uint32_t n = m->array ? 0 : m->key_size - 8;
		for (int k = 0; k < d->n; k++) {
			d->e[k].value = 0;
			for (int b = 0; b < d->e[k].nbuckets; b++)
				d->e[k].value += (int64_t)d->e[k].buckets[b];
		}
		qsort_r(d->e, (size_t)d->n, sizeof(*d->e), ex_value_cmp, &n);
	}
	if (!x->said[i]) {
		x->said[i] = true;
		fprintf(stderr, "perf-run: --listen: %s has %d keys, more than --max-series %u: "
			"the %u largest are served, perf_run_series_dropped{map=\"%s\"} says how "
			"many are not\n", m->name, d->n, x->max_series, x->max_series, m->name);
	}
	return d->n - (int)x->max_series;
}

static void ex_map(struct exporter *x, struct fmt_buf *b, int i, enum prom_format f)
{
	const struct pr_map *m = &x->src.p->maps[i];
	const char *why;
	struct mp_data d;

	if (prom_kind(m, &why) == PROM_NONE || x->src.map_fds[i] < 0)
		return;
	if (mp_read(x->src.map_fds[i], m, &d)) {
		mp_data_free(&d);   /* out of memory: the map is left out, not cut */
		return;
	}
	mp_sort(m, &d);
	int first = ex_limit(x, i, &d);
	prom_map(b, x->names[i], m, &d, first, &x->top[i], f, x->src.fc);
	mp_data_free(&d);
}

/* perf-run's own metrics: what was lost, and what --max-series left out. */
static void ex_own_metrics(struct exporter *x, struct fmt_buf *b, enum prom_format f)
{
	const struct program *p = x->src.p;
	const volatile uint64_t *c = x->src.counters;
	struct fmt_buf l;

	if (c) {
		prom_head(b, "perf_run_events_lost", PROM_COUNTER,
			  "records the ring buffer had no room for", f);
		prom_sample(b, "perf_run_events_lost", "_total", NULL, (int64_t)c[PR_LOST]);
		prom_head(b, "perf_run_read_faults", PROM_COUNTER,
			  "memory reads that failed (read as 0, strings as \"\")", f);
		prom_sample(b, "perf_run_read_faults", "_total", NULL, (int64_t)c[PR_FAULTS]);
	}
	fmt_init(&l);
	if (x->src.map_drops) {
		prom_head(b, "perf_run_map_updates_dropped", PROM_COUNTER,
			  "updates of a map refused by the kernel (full, or no element ready)", f);
		for (int k = 0; k < p->nmaps; k++) {
			int i = x->order[k];
			fmt_reset(&l);
			fmt_puts(&l, "map=\"");
			prom_label_value(&l, p->maps[i].name);
			fmt_putc(&l, '"');
			prom_sample(b, "perf_run_map_updates_dropped", "_total", l.s,
				    (int64_t)x->src.map_drops[i]);
		}
	}
	prom_head(b, "perf_run_series_dropped", PROM_GAUGE,
		  "keys of a map left out of this scrape by --max-series", f);
	for (int k = 0; k < p->nmaps; k++) {
		int i = x->order[k];
		const char *why;
		if (prom_kind(&p->maps[i], &why) == PROM_NONE)
			continue;
		fmt_reset(&l);
		fmt_puts(&l, "map=\"");
		prom_label_value(&l, p->maps[i].name);
		fmt_putc(&l, '"');
		prom_sample(b, "perf_run_series_dropped", "", l.s, (int64_t)x->dropped[i]);
	}
	fmt_free(&l);
}

/* Every map, in name order, then perf-run's own metrics. */
static struct MHD_Response *ex_render(struct exporter *x, enum prom_format f)
{
	struct fmt_buf b;

	fmt_init(&b);
	for (int k = 0; x->src.p && k < x->src.p->nmaps; k++)
		ex_map(x, &b, x->order[k], f);
	if (x->src.p)
		ex_own_metrics(x, &b, f);
	prom_end(&b, f);
	struct MHD_Response *r = mhd.MHD_create_response_from_buffer(b.len, b.s,
								      MHD_RESPMEM_MUST_FREE);
	if (!r) {
		fmt_free(&b);
		return NULL;
	}
	mhd.MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				    f == PROM_OPENMETRICS ? EX_CT_OM : EX_CT_TEXT);
	return r;
}

static enum MHD_Result ex_reply(struct MHD_Connection *c, unsigned status,
				struct MHD_Response *r)
{
	return r ? mhd.MHD_queue_response(c, status, r) : MHD_NO;
}

static enum MHD_Result ex_handle(void *cls, struct MHD_Connection *c, const char *url,
				 const char *method, const char *version, const char *upload,
				 size_t *upload_size, void **req)
{
	struct exporter *x = cls;

	(void)version, (void)upload;
	/* at once: the connection is closed after it, its body never read */
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return ex_reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, x->not_allowed);
	/* the first call has the headers: the reply waits for the end of the
	 * request, so that the connection can be kept for the next scrape */
	if (!*req) {
		*req = x;
		return MHD_YES;
	}
	if (*upload_size) {   /* a GET with a body: read and dropped */
		*upload_size = 0;
		return MHD_YES;
	}
	if (strcmp(url, "/metrics"))
		return ex_reply(c, MHD_HTTP_NOT_FOUND, x->not_found);
	enum prom_format f = ex_format(mhd.MHD_lookup_connection_value(c, MHD_HEADER_KIND,
								      MHD_HTTP_HEADER_ACCEPT));
	if (!x->snap[f])
		x->snap[f] = ex_render(x, f);
	return ex_reply(c, MHD_HTTP_OK, x->snap[f]);
}

static void ex_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	fputs("perf-run: http: ", stderr);
	vfprintf(stderr, fmt, ap);
}

static struct MHD_Response *ex_static(const char *text, const char *allow)
{
	struct MHD_Response *r = mhd.MHD_create_response_from_buffer(strlen(text), (void *)text,
								      MHD_RESPMEM_PERSISTENT);
	if (r)
		mhd.MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
					    "text/plain; charset=utf-8");
	if (r && allow)
		mhd.MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
	return r;
}

struct exporter *ex_start(const char *addr, uint32_t max_series, int verbose, char *err,
			  size_t n)
{
	const char *why = ex_load();
	struct exporter *x;

	if (why) {
		snprintf(err, n, "--listen needs libmicrohttpd: %s", why);
		return NULL;
	}
	if (!(x = calloc(1, sizeof(*x)))) {
		snprintf(err, n, "--listen: %s", strerror(ENOMEM));
		return NULL;
	}
	x->max_series = max_series ? max_series : EX_MAX_SERIES;
	int fd = ex_listen(addr, x->url, sizeof(x->url), err, n);
	if (fd < 0) {
		free(x);
		return NULL;
	}
	x->d = mhd.MHD_start_daemon(MHD_USE_EPOLL | (verbose ? MHD_USE_ERROR_LOG : 0), 0, NULL,
				    NULL, ex_handle, x,
				    MHD_OPTION_LISTEN_SOCKET, fd,
				    MHD_OPTION_CONNECTION_LIMIT, (unsigned)EX_CONNS,
				    MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)EX_CONNS_PER_IP,
				    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)EX_TIMEOUT_S,
				    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)EX_REQ_MEMORY,
				    MHD_OPTION_EXTERNAL_LOGGER, ex_log, NULL,
				    MHD_OPTION_END);
	const union MHD_DaemonInfo *info = x->d ?
		mhd.MHD_get_daemon_info(x->d, MHD_DAEMON_INFO_EPOLL_FD) : NULL;
	x->not_found = ex_static("perf-run serves its metrics at /metrics only\n", NULL);
	x->not_allowed = ex_static("perf-run's /metrics answers GET and HEAD\n", "GET, HEAD");
	if (!info || !x->not_found || !x->not_allowed) {
		snprintf(err, n, "--listen %s: libmicrohttpd could not start", addr);
		if (!x->d)
			close(fd);
		ex_free(x);
		return NULL;
	}
	x->epfd = info->epoll_fd;
	return x;
}

const char *ex_url(const struct exporter *x)
{
	return x->url;
}

void ex_serve(struct exporter *x, const struct ex_src *src)
{
	const struct program *p = src->p;
	size_t n = (size_t)p->nmaps + 1;

	if (!x)
		return;
	x->src = *src;
	x->names = prom_names(p->maps, p->nmaps, ex_own);
	x->nnames = x->names ? p->nmaps : 0;
	x->order = calloc(n, sizeof(*x->order));
	x->top = calloc(n, sizeof(*x->top));
	x->dropped = calloc(n, sizeof(*x->dropped));
	x->said = calloc(n, sizeof(*x->said));
	if (!x->names || !x->order || !x->top || !x->dropped || !x->said) {
		fprintf(stderr, "perf-run: --listen: out of memory: no map is served\n");
		x->src.p = NULL;
		return;
	}
	for (int i = 0; i < p->nmaps; i++) {
		const char *why;
		x->order[i] = i;
		x->top[i] = -1;
		if (prom_kind(&p->maps[i], &why) == PROM_NONE)
			fprintf(stderr, "perf-run: --listen: %s is not served: %s\n",
				p->maps[i].name, why);
	}
	qsort_r(x->order, (size_t)p->nmaps, sizeof(*x->order), ex_name_cmp, (void *)p);
}

int ex_fd(const struct exporter *x)
{
	return x ? x->epfd : -1;
}

static double ex_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int ex_timeout(const struct exporter *x, int ms)
{
	double left = x ? x->due - ex_now_ms() : ms;

	return left < 0 ? 0 : left < ms ? (int)left : ms;
}

void ex_run(struct exporter *x, bool ready)
{
	MHD_UNSIGNED_LONG_LONG t;

	if (!x || (!ready && ex_now_ms() < x->due))
		return;   /* nothing to read, no connection's time is up */
	mhd.MHD_run(x->d);
	/* the pass is over: the next scrape reads the maps again (responses
	 * still being sent keep their text until they are done) */
	for (int f = 0; f < 2; f++) {
		if (x->snap[f])
			mhd.MHD_destroy_response(x->snap[f]);
		x->snap[f] = NULL;
	}
	/* when libmicrohttpd must run again even if nothing comes (a
	 * connection's timeout); a second at most */
	if (mhd.MHD_get_timeout(x->d, &t) != MHD_YES || t > 1000)
		t = 1000;
	x->due = ex_now_ms() + (double)t;
}

void ex_free(struct exporter *x)
{
	if (!x)
		return;
	if (x->d)
		mhd.MHD_stop_daemon(x->d);
	for (int f = 0; f < 2; f++)
		if (x->snap[f])
			mhd.MHD_destroy_response(x->snap[f]);
	if (x->not_found)
		mhd.MHD_destroy_response(x->not_found);
	if (x->not_allowed)
		mhd.MHD_destroy_response(x->not_allowed);
	prom_names_free(x->names, x->nnames);
	free(x->order);
	free(x->top);
	free(x->dropped);
	free(x->said);
	free(x);
}
