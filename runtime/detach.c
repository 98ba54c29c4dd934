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

/* Every libbpf link and every raw fd (uprobe_multi links) of atts: each
 * owns its own kernel objects, so any order and any overlap will do. */
static int dt_collect(struct prov_att *const *atts, int n, struct dt_item **out)
{
	int total = 0, k = 0;
	struct dt_item *v;

	for (int i = 0; i < n; i++)
		if (atts[i])
			total += atts[i]->nlinks + atts[i]->nfds;
	v = calloc(total ? (size_t)total : 1, sizeof(*v));
	if (!v)
		return -1;
	for (int i = 0; i < n; i++)
		for (int j = 0; atts[i] && j < atts[i]->nlinks; j++)
			v[k++].link = atts[i]->links[j];
	for (int i = 0; i < n; i++)
		for (int j = 0; atts[i] && j < atts[i]->nfds; j++)
			v[k++].fd = atts[i]->fds[j];
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

void dt_release(struct prov_att *const *atts, int n)
{
	struct dt_work w = { .next = 0 };
	int total = dt_collect(atts, n, &w.items);

	if (total < 0) {   /* no memory for the list: one at a time */
		for (int i = 0; i < n; i++) {
			for (int j = 0; atts[i] && j < atts[i]->nlinks; j++)
				bpf_link__destroy(atts[i]->links[j]);
			for (int j = 0; atts[i] && j < atts[i]->nfds; j++)
				close(atts[i]->fds[j]);
		}
	} else {
		w.n = total;
		dt_run(&w);
		free(w.items);
	}
	for (int i = 0; i < n; i++) {
		if (!atts[i])
			continue;
		free(atts[i]->links);
		free(atts[i]->fds);
		atts[i]->links = NULL;
		atts[i]->fds = NULL;
		atts[i]->nlinks = atts[i]->nfds = 0;
	}
}
