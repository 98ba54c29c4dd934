// SPDX-License-Identifier: GPL-2.0-only
/*
 * objcache.c - BPF objects kept by the LLVM IR they were compiled from.
 *
 * One file per entry, named by a hash of the identity and the IR:
 *   "perf-run objcache 1\n", identity line, u64 IR length, u64 object
 *   length, the IR text, the object.
 * The hash only names the file; a hit compares the identity and the IR
 * byte for byte, so a collision or a stale entry is a miss.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <llvm/Config/llvm-config.h>

#include "lib/objcache.h"
#include "lib/safefile.h"

#define MAGIC "perf-run objcache 1\n"
#define MAX_OBJ (64u << 20)
/* Default size cap of the whole cache: a few thousand typical entries
 * (tens of KB each) and any single object up to MAX_OBJ. */
#define CACHE_MAX_DEFAULT (256ull << 20)

/* The object depends on the IR and on the compiler that lowered it: the
 * LLVM version and this very perf-run binary (its size and mtime change
 * with every build, including the sanitizer build).  The BPF ISA version
 * is in the IR (each function's "target-cpu"). */
static int identity(char *buf, size_t len)
{
	struct stat st;

	if (stat("/proc/self/exe", &st))
		return -1;
	snprintf(buf, len, "exe=%lld:%lld.%09ld llvm=%s bpfel O2\n",
		 (long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
		 LLVM_VERSION_STRING);
	return 0;
}

static uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	return h;
}

/* ---- the cache directory, walked without following links ---- */

/* Says once why the cache is not used: something in its path could let
 * another user steer what this (maybe root) process reads or writes. */
static void refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void refuse(const char *fmt, ...)
{
	static bool said;
	va_list ap;

	if (said)
		return;
	said = true;
	fprintf(stderr, "perf-run: warning: not using the object cache: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
}

/* The base ($XDG_CACHE_HOME or ~/.cache), opened; it must be a directory
 * the effective user owns.  It is made (mode 0700) only in a folder that
 * user owns: root run with another user's HOME (sudo -E) leaves nothing. */
static int open_base(char *base, size_t len, bool create)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	struct stat st;
	int fd;

	if (xdg && *xdg)
		snprintf(base, len, "%s", xdg);
	else if (home && *home)
		snprintf(base, len, "%s/.cache", home);
	else
		return -1;
	/* The base, or a folder above it (HOME itself), may be a link
	 * (~/.cache -> /data/cache), but not one another user made: it would
	 * choose where root keeps its objects. */
	char why[4200];
	if (!sf_links_trusted(base, why, sizeof(why))) {
		refuse("%s", why);
		return -1;
	}
	fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create) {
		char parent[4200];
		char *slash;

		snprintf(parent, sizeof(parent), "%s", base);
		slash = strrchr(parent, '/');
		if (slash && slash[1]) {
			slash[slash == parent] = '\0';
			int pfd = open(slash == parent ? "/" : parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (pfd >= 0 && !fstat(pfd, &st) && st.st_uid == geteuid())
				mkdirat(pfd, strrchr(base, '/') + 1, 0700);
			if (pfd >= 0)
				close(pfd);
		}
		fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || st.st_uid != geteuid()) {
		refuse("%s is owned by uid %u, not by uid %u", base, (unsigned)st.st_uid,
		       (unsigned)geteuid());
		close(fd);
		return -1;
	}
	return fd;
}

/* One folder below the base: opened without following a symbolic link,
 * owned by this user or root, writable by nobody else.  A missing one is
 * a silent miss, or made when storing. */
static int open_sub(int dfd, const char *path, const char *name, bool create)
{
	const int fl = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	struct stat st;
	int fd = openat(dfd, name, fl);

	if (fd < 0 && errno == ENOENT && create && !mkdirat(dfd, name, 0700))
		fd = openat(dfd, name, fl);
	if (fd < 0) {
		if (errno == ENOENT)
			return -1;
		bool link = !fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode);
		refuse("%s/%s %s", path, name, link ? "is a symbolic link" : "is not a directory");
		return -1;
	}
	if (fstat(fd, &st) || (st.st_uid != geteuid() && st.st_uid != 0) || (st.st_mode & 022)) {
		if (st.st_uid != geteuid() && st.st_uid != 0)
			refuse("%s/%s is owned by uid %u", path, name, (unsigned)st.st_uid);
		else
			refuse("%s/%s is writable by other users (mode %03o)", path, name,
			       (unsigned)(st.st_mode & 0777));
		close(fd);
		return -1;
	}
	return fd;
}

/* The verified fd of BASE/perf-run/obj, or -1 (a miss). */
static int cache_dir(bool create)
{
	const char *off = getenv("PERF_RUN_NO_CACHE");
	char path[4200];
	int base, mid, dir;

	if (off && *off && strcmp(off, "0"))
		return -1;
	if ((base = open_base(path, sizeof(path), create)) < 0)
		return -1;
	mid = open_sub(base, path, "perf-run", create);
	close(base);
	if (mid < 0)
		return -1;
	strncat(path, "/perf-run", sizeof(path) - strlen(path) - 1);
	dir = open_sub(mid, path, "obj", create);
	close(mid);
	return dir;
}

static void entry_name(char *name, size_t len, const char *id, const char *ir)
{
	uint64_t h = fnv1a(0xcbf29ce484222325ULL, id, strlen(id));

	h = fnv1a(h, ir, strlen(ir));
	snprintf(name, len, "%016llx.o", (unsigned long long)h);
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

static int write_all(int fd, const void *buf, size_t n)
{
	for (size_t put = 0; put < n;) {
		ssize_t r = write(fd, (const char *)buf + put, n - put);
		if (r <= 0)
			return -1;
		put += (size_t)r;
	}
	return 0;
}

/* Reads the entry's header and IR and compares them with ours. */
static int matches(int fd, const char *id, const char *ir, uint64_t *objlen)
{
	size_t idlen = strlen(id), irlen = strlen(ir), hlen = sizeof(MAGIC) - 1 + idlen;
	uint64_t lens[2];
	char *buf = malloc(hlen > irlen ? hlen : irlen);
	int r = -1;

	if (buf && !read_all(fd, buf, hlen) && !memcmp(buf, MAGIC, sizeof(MAGIC) - 1) &&
	    !memcmp(buf + sizeof(MAGIC) - 1, id, idlen) && !read_all(fd, lens, sizeof(lens)) &&
	    lens[0] == irlen && lens[1] > 0 && lens[1] <= MAX_OBJ &&
	    !read_all(fd, buf, irlen) && !memcmp(buf, ir, irlen)) {
		*objlen = lens[1];
		r = 0;
	}
	free(buf);
	return r;
}

/* ---- the size cap ---- */

/* PERF_RUN_CACHE_MAX: bytes, with an optional K, M or G suffix. */
static uint64_t cache_max(void)
{
	const char *s = getenv("PERF_RUN_CACHE_MAX");
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return CACHE_MAX_DEFAULT;
	errno = 0;
	v = strtoull(s, &end, 10);
	int shift = *end == 'K' || *end == 'k' ? 10 : *end == 'M' || *end == 'm' ? 20 :
		    *end == 'G' || *end == 'g' ? 30 : 0;
	if (errno || (shift && end[1]) || (!shift && *end) || v > (UINT64_MAX >> shift))
		return CACHE_MAX_DEFAULT;
	return (uint64_t)v << shift;
}

struct centry {
	char name[64];
	uint64_t size;
	struct timespec used;    /* mtime: set on every hit */
};

static int by_use(const void *a, const void *b)
{
	const struct centry *x = a, *y = b;

	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	return x->used.tv_nsec < y->used.tv_nsec ? -1 : x->used.tv_nsec > y->used.tv_nsec;
}

/* Lists this user's entries (and temporary files of runs that died more
 * than an hour ago, which are removed on the way). */
static struct centry *list_entries(int dirfd, int *n, uint64_t *total)
{
	int fd = dup(dirfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct centry *v = NULL;
	struct dirent *de;
	struct stat st;
	int cap = 0;
	time_t now = time(NULL);

	*n = 0;
	*total = 0;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		bool tmp = len > 4 && !strcmp(de->d_name + len - 4, ".tmp");
		if ((!tmp && (len < 3 || strcmp(de->d_name + len - 2, ".o"))) || len >= 64 ||
		    fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode) ||
		    st.st_uid != geteuid())
			continue;
		if (tmp) {
			if (now - st.st_mtim.tv_sec > 3600)
				unlinkat(dirfd, de->d_name, 0);
			continue;
		}
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			v = realloc(v, (size_t)cap * sizeof(*v));
			if (!v)
				abort();
		}
		snprintf(v[*n].name, sizeof(v[*n].name), "%s", de->d_name);
		v[*n].size = (uint64_t)st.st_size;
		v[*n].used = st.st_mtim;
		*total += v[(*n)++].size;
	}
	closedir(d);
	return v;
}

/* Removes the least recently used entries until the cache fits its cap. */
static void evict(int dirfd, uint64_t max)
{
	uint64_t total;
	int n;
	struct centry *v = list_entries(dirfd, &n, &total);

	if (total > max && n > 1)
		qsort(v, (size_t)n, sizeof(*v), by_use);
	for (int i = 0; i < n && total > max; i++)
		if (!unlinkat(dirfd, v[i].name, 0))
			total -= v[i].size;
	free(v);
}

/* ---- entries ---- */

int objcache_get(const char *ir, void **obj, size_t *size)
{
	char id[256], name[64];
	struct stat st;
	uint64_t n;
	int r = -1, dir;

	if (identity(id, sizeof(id)) || (dir = cache_dir(false)) < 0)
		return -1;
	entry_name(name, sizeof(name), id, ir);
	int fd = openat(dir, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	close(dir);
	if (fd < 0)
		return -1;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	    !(st.st_mode & 022) && !matches(fd, id, ir, &n)) {
		*obj = malloc(n);
		if (*obj && !read_all(fd, *obj, n)) {
			*size = n;
			futimens(fd, NULL);   /* recently used: evicted last */
			r = 0;
		} else {
			free(*obj);
			*obj = NULL;
		}
	}
	close(fd);
	return r;
}

void objcache_put(const char *ir, const void *obj, size_t size)
{
	char id[256], name[64], tmp[96];
	uint64_t lens[2] = { strlen(ir), size }, max = cache_max();
	size_t idlen;
	int dir;

	if (size > MAX_OBJ || identity(id, sizeof(id)))
		return;
	idlen = strlen(id);
	/* An entry bigger than the whole cap is not kept (it would evict all). */
	if (sizeof(MAGIC) - 1 + idlen + sizeof(lens) + lens[0] + size > max ||
	    (dir = cache_dir(true)) < 0)
		return;
	entry_name(name, sizeof(name), id, ir);
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", name, (int)getpid());
	int fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		close(dir);
		return;
	}
	int bad = write_all(fd, MAGIC, sizeof(MAGIC) - 1) || write_all(fd, id, idlen) ||
		  write_all(fd, lens, sizeof(lens)) || write_all(fd, ir, lens[0]) ||
		  write_all(fd, obj, size);
	if (close(fd) || bad || renameat(dir, tmp, dir, name))
		unlinkat(dir, tmp, 0);
	else
		evict(dir, max);
	close(dir);
}
