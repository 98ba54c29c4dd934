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
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <llvm/Config/llvm-config.h>

#include "objcache.h"

#define MAGIC "perf-run objcache 1\n"
#define MAX_OBJ (64u << 20)

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

/* Only a directory this user owns and nobody else can write. */
static int safe_dir(const char *dir)
{
	struct stat st;

	return !stat(dir, &st) && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
	       !(st.st_mode & 022) ? 0 : -1;
}

static bool mine(const char *path)
{
	struct stat st;

	return !stat(path, &st) && st.st_uid == geteuid();
}

/* Folders are made only in a place this user owns: root run with another
 * user's HOME (sudo -E) must not leave root-owned folders in it. */
static bool may_create(const char *base)
{
	char parent[4096];
	char *slash;

	if (mine(base))
		return true;
	snprintf(parent, sizeof(parent), "%s", base);
	slash = strrchr(parent, '/');
	if (!slash)
		return false;
	slash[slash == parent] = '\0';
	return access(base, F_OK) && mine(parent);
}

static int cache_dir(char *dir, size_t len, bool create)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	const char *off = getenv("PERF_RUN_NO_CACHE");
	char base[4096];

	if (off && *off && strcmp(off, "0"))
		return -1;
	if (xdg && *xdg)
		snprintf(base, sizeof(base), "%s", xdg);
	else if (home && *home)
		snprintf(base, sizeof(base), "%s/.cache", home);
	else
		return -1;
	if ((size_t)snprintf(dir, len, "%s/perf-run/obj", base) >= len)
		return -1;
	if (create && may_create(base)) {
		char mid[4200];
		snprintf(mid, sizeof(mid), "%s/perf-run", base);
		mkdir(base, 0700);
		mkdir(mid, 0700);
		mkdir(dir, 0700);
	}
	return safe_dir(dir);
}

static int entry_path(char *path, size_t len, const char *id, const char *ir, bool create)
{
	char dir[4096];

	if (cache_dir(dir, sizeof(dir), create))
		return -1;
	uint64_t h = fnv1a(0xcbf29ce484222325ULL, id, strlen(id));
	h = fnv1a(h, ir, strlen(ir));
	return (size_t)snprintf(path, len, "%s/%016llx.o", dir, (unsigned long long)h) < len ? 0 : -1;
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

int objcache_get(const char *ir, void **obj, size_t *size)
{
	char id[256], path[4200];
	struct stat st;
	uint64_t n;
	int r = -1;

	if (identity(id, sizeof(id)) || entry_path(path, sizeof(path), id, ir, false))
		return -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	    !(st.st_mode & 022) && !matches(fd, id, ir, &n)) {
		*obj = malloc(n);
		if (*obj && !read_all(fd, *obj, n)) {
			*size = n;
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
	char id[256], path[4200], tmp[4300];
	uint64_t lens[2] = { strlen(ir), size };

	if (size > MAX_OBJ || identity(id, sizeof(id)) ||
	    entry_path(path, sizeof(path), id, ir, true))
		return;
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	int bad = write_all(fd, MAGIC, sizeof(MAGIC) - 1) || write_all(fd, id, strlen(id)) ||
		  write_all(fd, lens, sizeof(lens)) || write_all(fd, ir, lens[0]) ||
		  write_all(fd, obj, size);
	if (close(fd) || bad || rename(tmp, path))
		unlink(tmp);
}
