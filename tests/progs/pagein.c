/* SPDX-License-Identifier: GPL-2.0-only */ /* pagein N [open [PATH]]: N times, maps a fresh memfd of two pages (a string in
 * the first, struct rec in the second) and passes pointers into it to
 * take(s, r) without touching either page, so a probe on take() finds them
 * not yet paged in; with `open`, passes the string to open(2) instead (it
 * names no file, or PATH if given, which may be a FIFO that blocks).  Prints what a trace must see to stderr. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

struct rec {
	int a;
	long b;
};

__attribute__((noipa)) long take(const char *s, const struct rec *r)
{
	return (long)s ^ (long)r;
}

static const char *path;

static int fresh_file(int i)
{
	static char page[2][4096];
	struct rec r = { .a = 4242 + i, .b = 77 };
	int fd = memfd_create("pagein", 0);

	if (path)
		snprintf(page[0], sizeof(page[0]), "%s", path);
	else
		snprintf(page[0], sizeof(page[0]), "paged-in-late-%d", i);
	memcpy(page[1], &r, sizeof(r));
	if (fd < 0 || write(fd, page, sizeof(page)) != (ssize_t)sizeof(page))
		return -1;
	return fd;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	int open_it = argc > 2 && !strcmp(argv[2], "open");

	path = open_it && argc > 3 ? argv[3] : NULL;
	long x = 0;

	for (int i = 0; i < n; i++) {
		int fd = fresh_file(i);
		char *m = fd < 0 ? MAP_FAILED : mmap(NULL, 8192, PROT_READ, MAP_PRIVATE, fd, 0);

		if (m == MAP_FAILED)
			return 1;
		if (open_it)
			x += open(m, O_RDONLY) < 0;
		else
			x += take(m, (const struct rec *)(m + 4096));
		fprintf(stderr, "%s s=%s a=%d b=%ld\n", open_it ? "open" : "take", m, ((struct rec *)(m + 4096))->a,
			((struct rec *)(m + 4096))->b);
		munmap(m, 8192);
		close(fd);
	}
	return x == 0;
}
