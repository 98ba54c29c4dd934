/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * romap LIB MS N: maps LIB's whole file with PROT_READ only (no dlopen, so
 * no executable mapping), prints "romapped" to stderr, waits MS ms, then
 * dlopen()s LIB and calls its dlo_func(i) N times: a uprobe on the library
 * must not fire while the code is mapped without exec, and must fire once
 * it is mapped executable.  Prints "dlo calls=N sum=S" at the end.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct stat st;
	int fd;

	if (argc < 4)
		return 2;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0)
		return 1;
	void *ro = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (ro == MAP_FAILED)
		return 1;
	close(fd);
	fprintf(stderr, "romapped\n");
	long ms = atol(argv[2]);
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);

	int n = atoi(argv[3]);
	void *h = dlopen(argv[1], RTLD_NOW);
	int (*f)(int) = h ? (int (*)(int))dlsym(h, "dlo_func") : NULL;
	if (!f) {
		fprintf(stderr, "romap: %s\n", dlerror());
		return 1;
	}
	long sum = 0;
	for (int i = 0; i < n; i++)
		sum += f(i);
	fprintf(stderr, "dlo calls=%d sum=%ld\n", n, sum);
	munmap(ro, (size_t)st.st_size);
	return 0;
}
