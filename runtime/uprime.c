/*
 * uprime.c - one uprobe on an empty memfd, registered from a thread while
 * the main thread compiles.  See uprime.h for why.
 */
#define _GNU_SOURCE
#include "uprime.h"
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static struct {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool started, released;
	int memfd, type;
} up = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER, .memfd = -1 };

static int uprobe_pmu_type(void)
{
	FILE *f = fopen("/sys/bus/event_source/devices/uprobe/type", "re");
	int type = -1;

	if (f) {
		if (fscanf(f, "%d", &type) != 1)
			type = -1;
		fclose(f);
	}
	return type;
}

static void *uprime_thread(void *arg)
{
	struct perf_event_attr a = { .size = sizeof(a), .disabled = 1 };
	char path[64];
	long fd;

	(void)arg;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", up.memfd);
	a.type = (unsigned)up.type;
	a.config1 = (uint64_t)(uintptr_t)path;   /* uprobe_path */
	a.config2 = 0;                           /* probe_offset */
	/* The wait this is for happens inside this call. */
	fd = syscall(SYS_perf_event_open, &a, getpid(), -1, -1, PERF_FLAG_FD_CLOEXEC);
	pthread_mutex_lock(&up.lock);
	while (!up.released)
		pthread_cond_wait(&up.cond, &up.lock);
	pthread_mutex_unlock(&up.lock);
	if (fd >= 0)
		close((int)fd);
	close(up.memfd);
	return NULL;
}

void uprime_start(void)
{
	static const char insn[16] = { 0 };   /* past i_size a uprobe is refused */

	if (up.started || (up.type = uprobe_pmu_type()) < 0)
		return;
	up.memfd = memfd_create("perf-run-uprime", MFD_CLOEXEC);
	if (up.memfd < 0)
		return;
	if (write(up.memfd, insn, sizeof(insn)) != (ssize_t)sizeof(insn) ||
	    pthread_create(&up.thread, NULL, uprime_thread, NULL)) {
		close(up.memfd);
		up.memfd = -1;
		return;
	}
	up.started = true;
}

void uprime_release(void)
{
	if (!up.started)
		return;
	pthread_mutex_lock(&up.lock);
	up.released = true;
	pthread_cond_signal(&up.cond);
	pthread_mutex_unlock(&up.lock);
}

void uprime_finish(void)
{
	if (!up.started)
		return;
	uprime_release();
	pthread_join(up.thread, NULL);
	up.started = false;
}
