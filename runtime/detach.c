// SPDX-License-Identifier: GPL-2.0-only
/*
 * detach.c - closes many links on up to DT_THREADS threads: each thread
 * takes the next link or fd from a shared counter.  See detach.h for why.
 */
#include "detach.h"
#include <pthread.h>
#include <stdatomic.h>

#define DT_THREADS 256
#define DT_STACK   (128 * 1024)   /* close() and bpf_link__destroy() need little */

struct dt_item {
	struct bpf_link *link;   /* or, if NULL, the fd */
	int fd;
};

struct dt_work {
	struct dt_item *items;
	int n;
	atomic_int next;
};

static void *dt_worker(void *arg)
{
	struct dt_work *w = arg;

	for (int i; (i = atomic_fetch_add(&w->next, 1)) < w->n;) {
		if (w->items[i].link)
			bpf_link__destroy(w->items[i].link);
		else
			close(w->items[i].fd);
	}
	return NULL;
}

static bool dt_wanted(const struct prov_att *a, int keep)
{
	return a->pp && (int)a->pp->probe->kind != keep;
}

/* Every libbpf link and every raw fd (uprobe_multi links) of the wanted
 * atts: each owns its own kernel objects, so any order and any overlap
 * will do. */
static int dt_collect(struct prov_att *atts, int n, int keep, struct dt_item **out)
{
	int total = 0, k = 0;
	struct dt_item *v;

	for (int i = 0; i < n; i++)
		if (dt_wanted(&atts[i], keep))
			total += atts[i].nlinks + atts[i].nfds;
	v = calloc(total ? (size_t)total : 1, sizeof(*v));
	if (!v)
		return -1;
	for (int i = 0; i < n; i++) {
		if (!dt_wanted(&atts[i], keep))
			continue;
		for (int j = 0; j < atts[i].nlinks; j++)
			v[k++].link = atts[i].links[j];
		for (int j = 0; j < atts[i].nfds; j++)
			v[k++].fd = atts[i].fds[j];
	}
	*out = v;
	return total;
}

static void dt_run(struct dt_work *w)
{
	pthread_t t[DT_THREADS];
	pthread_attr_t attr;
	int nt = 0, want = w->n < DT_THREADS ? w->n : DT_THREADS;

	if (want > 1 && !pthread_attr_init(&attr)) {
		pthread_attr_setstacksize(&attr, DT_STACK);
		/* one fewer: this thread works too */
		while (nt < want - 1 && !pthread_create(&t[nt], &attr, dt_worker, w))
			nt++;
		pthread_attr_destroy(&attr);
	}
	dt_worker(w);
	for (int i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
}

/* Without memory for the list: one at a time. */
static void dt_serial(struct prov_att *a)
{
	for (int j = 0; j < a->nlinks; j++)
		bpf_link__destroy(a->links[j]);
	for (int j = 0; j < a->nfds; j++)
		close(a->fds[j]);
}

void dt_release(struct prov_att *atts, int n, int keep)
{
	struct dt_work w = { .next = 0 };

	w.n = dt_collect(atts, n, keep, &w.items);
	if (w.n >= 0) {
		dt_run(&w);
		free(w.items);
	}
	for (int i = 0; i < n; i++) {
		struct prov_att *a = &atts[i];
		if (!dt_wanted(a, keep))
			continue;
		if (w.n < 0)
			dt_serial(a);
		free(a->links);
		free(a->fds);
		free(a->addrs);
		free(a->unwatched);
		a->links = NULL;
		a->fds = NULL;
		a->addrs = a->unwatched = NULL;
		a->nunwatched = 0;
		a->nlinks = a->nfds = 0;
	}
}
