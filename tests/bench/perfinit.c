/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perfinit.c - runs `perf record ... -o -` (pipe mode) and prints
 * "Attached: perf record" on stdout when perf has finished starting up:
 * its PERF_RECORD_FINISHED_INIT record, written once the events are open
 * and the process's mappings synthesized, right before perf enables the
 * events (perf 5.18 and later).  build/bench/stamp times that line like
 * perf-run's and bpftrace's attach lines (tests/bench/bigbin.sh).  The
 * rest of perf's output is read and dropped; SIGINT and SIGTERM go on to
 * perf, whose exit status is ours.
 *
 *   perfinit PERF-RECORD-ARGS...   (perfinit record --call-graph dwarf -p PID)
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define FINISHED_INIT 82

static pid_t child;

static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

static int read_all(int fd, void *buf, size_t n)
{
	for (size_t got = 0; got < n;) {
		ssize_t r = read(fd, (char *)buf + got, n - got);
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

/* Reads records (header: u32 type, u16 misc, u16 size) until the one that
 * says perf has started; then drains the pipe. */
static void watch(int fd)
{
	char buf[65536];
	uint64_t hdr[2];   /* pipe-mode file header: magic, size */
	struct { uint32_t type; uint16_t misc, size; } h;

	if (read_all(fd, hdr, sizeof(hdr)) || memcmp(hdr, "PERFILE2", 8))
		goto drain;
	while (!read_all(fd, &h, sizeof(h)) && h.size >= sizeof(h)) {
		if (h.type == FINISHED_INIT) {
			printf("Attached: perf record\n");
			fflush(stdout);
			break;
		}
		if (read_all(fd, buf, h.size - sizeof(h)))
			break;
	}
drain:
	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

int main(int argc, char **argv)
{
	int p[2], status = 0;

	if (argc < 2 || pipe(p))
		return 2;
	signal(SIGINT, forward);
	signal(SIGTERM, forward);
	child = fork();
	if (child == 0) {
		char *args[argc + 4];
		args[0] = "perf";
		for (int i = 1; i < argc; i++)
			args[i] = argv[i];
		args[argc] = "-o";
		args[argc + 1] = "-";
		args[argc + 2] = NULL;
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execvp("perf", args);
		_exit(127);
	}
	close(p[1]);
	if (child < 0)
		return 2;
	watch(p[0]);
	while (waitpid(child, &status, 0) < 0)
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
