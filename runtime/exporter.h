/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * exporter.h - `--listen ADDR:PORT`: every script map served over HTTP at
 * /metrics as Prometheus metrics (promfmt.h), by libmicrohttpd run from
 * run.c's event loop: its epoll fd is polled beside the ring buffer's and
 * ex_run() does what is ready without blocking.  No thread: a scrape
 * reads the maps in the loop, between two reads of the ring buffer.
 *
 * libmicrohttpd (and the TLS libraries it links) is loaded with dlopen()
 * only when --listen is given, so the other runs do not pay for it.
 */
#ifndef PR_EXPORTER_H
#define PR_EXPORTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "compiler/program.h"
#include "format.h"

/* Keys of one map served at most, unless --max-series says otherwise. */
#define EX_MAX_SERIES 10000

struct exporter;

/* What a scrape reads: the maps and what they need to be written. */
struct ex_src {
	const struct program *p;
	const int *map_fds;                 /* fd of each p->maps[i], -1 if none */
	const struct fmt_ctx *fc;           /* stacks and symbols of keys */
	const volatile uint64_t *counters;  /* the PR_* loss counters, NULL if not mapped */
	const volatile uint64_t *map_drops; /* each map's failed updates, NULL if not mapped */
};

/* "ADDR:PORT" (IPv4 a.b.c.d:PORT or IPv6 [addr]:PORT, numeric; PORT 0 for
 * one the kernel picks) into sa.  0, or -1 with the reason in err. */
int ex_parse_addr(const char *s, struct sockaddr_storage *sa, socklen_t *len, char *err,
		  size_t n);
/* Loads libmicrohttpd and listens at addr (checked by ex_parse_addr):
 * NULL with the reason in err.  Nothing is served before ex_serve(). */
struct exporter *ex_start(const char *addr, uint32_t max_series, int verbose, char *err,
			  size_t n);
/* "http://ADDR:PORT/metrics", with the port the kernel gave for port 0. */
const char *ex_url(const struct exporter *x);
/* The maps to serve from now on; maps that cannot be served are said once. */
void ex_serve(struct exporter *x, const struct ex_src *src);
/* The fd to poll for POLLIN (-1 for NULL). */
int ex_fd(const struct exporter *x);
/* ms, or less if libmicrohttpd must run sooner (a connection's timeout). */
int ex_timeout(const struct exporter *x, int ms);
/* Accepts, reads, answers and closes what is ready (ready: ex_fd polled
 * readable), or what timed out; never blocks.  Otherwise does nothing, so
 * that a loop woken by many records does not run libmicrohttpd each time. */
void ex_run(struct exporter *x, bool ready);
/* Stops listening and closes every connection. */
void ex_free(struct exporter *x);

#endif
