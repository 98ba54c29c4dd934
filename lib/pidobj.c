/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * pidobj.c - see pidobj.h.  /proc/PID/maps gives each mapping's device,
 * inode and the path the process sees; the file is opened through
 * /proc/PID/map_files, whose link reaches the mapped inode whatever the
 * path now names here (another mount namespace, a replaced file, a name
 * with a newline).
 */
#define _GNU_SOURCE
#include "lib/pidobj.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <glob.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/elfsym.h"

struct seen {
	unsigned long long dev, ino;
};

static bool already(const struct seen *v, int n, const struct seen *k)
{
	for (int i = 0; i < n; i++)
		if (v[i].dev == k->dev && v[i].ino == k->ino)
			return true;
	return false;
}

/* One line of maps: the range, the file's device and inode, and its path
 * (after the inode, to the end of the line).  False for an anonymous or
 * special mapping ([heap], [vdso]). */
static bool maps_line(char *line, unsigned long long *lo, unsigned long long *hi,
		      struct seen *k, char **path)
{
	unsigned maj, min;
	int end = 0;

	if (sscanf(line, "%llx-%llx %*s %*s %x:%x %llu %n", lo, hi, &maj, &min, &k->ino, &end) < 5 ||
	    !end || !k->ino || line[end] != '/')
		return false;
	k->dev = (unsigned long long)maj << 32 | min;
	line[strcspn(line, "\n")] = '\0';
	*path = line + end;
	return true;
}

static int add_obj(struct pid_obj **out, int n, pid_t pid, unsigned long long lo,
		   unsigned long long hi, const char *path)
{
	struct pid_obj *v = realloc(*out, sizeof(*v) * (size_t)(n + 1));

	if (!v)
		return -1;
	*out = v;
	v[n].link = NULL;
	v[n].path = strdup(path);
	if (!v[n].path || asprintf(&v[n].link, "/proc/%d/map_files/%llx-%llx", (int)pid, lo, hi) < 0) {
		free(v[n].path);
		return -1;
	}
	return 0;
}

int pidobj_list(pid_t pid, struct pid_obj **out)
{
	char fn[64], line[4352], *path;
	unsigned long long lo, hi;
	struct seen *seen = NULL, k;
	int n = 0;

	*out = NULL;
	snprintf(fn, sizeof(fn), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(fn, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!maps_line(line, &lo, &hi, &k, &path) || already(seen, n, &k))
			continue;
		struct seen *s = realloc(seen, sizeof(*s) * (size_t)(n + 1));
		if (!s || add_obj(out, n, pid, lo, hi, path)) {
			if (s)
				seen = s;
			pidobj_free(*out, n);
			*out = NULL;
			n = -1;
			errno = ENOMEM;
			break;
		}
		seen = s;
		seen[n++] = k;
	}
	fclose(f);
	free(seen);
	return n;
}

enum pidobj_map pidobj_mapping(pid_t pid, dev_t dev, ino_t ino)
{
	char fn[64], line[4352], perm[8];
	unsigned maj, min;
	unsigned long long i;
	enum pidobj_map r = PIDOBJ_UNMAPPED;

	snprintf(fn, sizeof(fn), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(fn, "re");
	if (!f)
		return r;
	while (r != PIDOBJ_EXEC && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*x-%*x %7s %*s %x:%x %llu", perm, &maj, &min, &i) == 4 &&
		    i == (unsigned long long)ino && makedev(maj, min) == dev)
			r = perm[2] == 'x' ? PIDOBJ_EXEC : PIDOBJ_NOEXEC;
	fclose(f);
	return r;
}

void pidobj_free(struct pid_obj *v, int n)
{
	for (int i = 0; i < n; i++) {
		free(v[i].path);
		free(v[i].link);
	}
	free(v);
}

/* Keeps the entries of v whose path matches pat (all for NULL), in
 * order; the new count. */
static int pidobj_filter(struct pid_obj *v, int n, const char *pat)
{
	int k = 0;

	for (int i = 0; i < n; i++) {
		if (!pat || !fnmatch(pat, v[i].path, 0)) {
			v[k++] = v[i];
			continue;
		}
		free(v[i].path);
		free(v[i].link);
	}
	return k;
}

static int glob_here(const char *pat, struct pid_obj **out)
{
	glob_t g;
	int n = 0;

	*out = NULL;
	if (glob(pat, 0, NULL, &g))
		return 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct stat st;
		struct pid_obj *v;
		char *real;

		if (stat(g.gl_pathv[i], &st) || !S_ISREG(st.st_mode) ||
		    !(real = realpath(g.gl_pathv[i], NULL)))
			continue;   /* gone since glob() saw it */
		if (!(v = realloc(*out, sizeof(*v) * (size_t)(n + 1)))) {
			free(real);
			goto oom;
		}
		*out = v;
		v[n].link = real;
		if (!(v[n++].path = strdup(g.gl_pathv[i])))
			goto oom;
	}
	globfree(&g);
	return n;
oom:
	globfree(&g);
	pidobj_free(*out, n);
	*out = NULL;
	errno = ENOMEM;
	return -1;
}

int pidobj_match(pid_t pid, const char *pat, struct pid_obj **out)
{
	if (pid <= 0)
		return glob_here(pat, out);
	int n = pidobj_list(pid, out);
	return n < 0 ? n : pidobj_filter(*out, n, pat);
}

static bool same_file(const char *a, const char *b)
{
	struct stat x, y;

	return !stat(a, &x) && !stat(b, &y) && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

bool pidobj_foreign(pid_t pid)
{
	char ns[64], root[64];

	if (pid <= 0)
		return false;
	snprintf(ns, sizeof(ns), "/proc/%d/ns/mnt", (int)pid);
	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	/* unreadable: as here (the caller's own errors then say why) */
	if (access(ns, F_OK) || access(root, F_OK))
		return false;
	return !same_file(ns, "/proc/self/ns/mnt") || !same_file(root, "/");
}

/* An absolute path of pid's view that it does not map: through
 * /proc/PID/root, if the walk confined to that root reaches the same
 * regular file as the plain walk the kernel will do at attach (an
 * absolute symbolic link inside would otherwise lead out of it). */
static char *in_root(pid_t pid, const char *path)
{
	char root[64], *full = NULL;
	struct open_how how = { .flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_IN_ROOT |
				RESOLVE_NO_MAGICLINKS };
	struct stat a, b;
	int rfd, fd = -1, e = ENOENT;

	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rfd >= 0)
		fd = (int)syscall(SYS_openat2, rfd, path, &how, sizeof(how));
	if (fd >= 0 && asprintf(&full, "%s%s", root, path) >= 0) {
		e = fstat(fd, &a) ? errno : !S_ISREG(a.st_mode) ? ENODEV : 0;
		if (!e && (stat(full, &b) || a.st_dev != b.st_dev || a.st_ino != b.st_ino))
			e = ELOOP;   /* a link that leaves pid's root */
	} else if (rfd >= 0) {
		e = errno;
	}
	if (fd >= 0)
		close(fd);
	if (rfd >= 0)
		close(rfd);
	if (e) {
		free(full);
		errno = e;
		return NULL;
	}
	return full;
}

char *pidobj_find(pid_t pid, const char *bin, char **shown)
{
	struct pid_obj *v;
	int n = pidobj_list(pid, &v);
	char *found = NULL;

	*shown = NULL;
	errno = 0;
	for (int i = 0; i < n && !found; i++) {
		const char *base = strrchr(v[i].path, '/') + 1;
		if (strchr(bin, '/') ? !strcmp(v[i].path, bin) : elfsym_lib_name_matches(bin, base)) {
			found = strdup(v[i].link);
			*shown = strdup(v[i].path);
		}
	}
	pidobj_free(v, n);
	if (!found && *bin == '/') {
		found = in_root(pid, bin);
		*shown = found ? strdup(bin) : NULL;
	}
	if (found && !*shown) {
		free(found);
		found = NULL;
		errno = ENOMEM;
	}
	if (!found && !errno)
		errno = ENOENT;
	return found;
}

char *pidobj_exe_name(pid_t pid)
{
	char link[64], buf[4096];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	n = readlink(link, buf, sizeof(buf) - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return strdup(buf);
}
