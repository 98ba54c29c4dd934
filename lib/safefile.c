// SPDX-License-Identifier: GPL-2.0-only
/*
 * safefile.c - see safefile.h.  The reopen through /proc/self/fd opens the
 * very inode the O_PATH descriptor holds: a path replaced between the two
 * steps changes nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/safefile.h"

int sf_open_regular(const char *path, struct stat *st)
{
	char self[64];
	struct stat again;
	int p = open(path, O_PATH | O_CLOEXEC), fd = -1, e;

	if (p < 0)
		return -1;
	if (fstat(p, st)) {
		e = errno;
	} else if (!S_ISREG(st->st_mode)) {
		e = ENODEV;
	} else {
		snprintf(self, sizeof(self), "/proc/self/fd/%d", p);
		fd = open(self, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		e = errno;
		if (fd >= 0 && (fstat(fd, &again) || again.st_ino != st->st_ino ||
				again.st_dev != st->st_dev)) {
			close(fd);
			fd = -1;
			e = ENODEV;
		}
		if (fd >= 0)
			fcntl(fd, F_SETFL, 0);
	}
	close(p);
	errno = e;
	return fd;
}

bool sf_trusted(const struct stat *st, uid_t owner, char *why, size_t len)
{
	if (st->st_uid && st->st_uid != geteuid() && st->st_uid != owner) {
		snprintf(why, len, "owned by uid %u", (unsigned)st->st_uid);
		return false;
	}
	/* a group of one's own may write (root's, ours, the owner's private
	 * group as Debian makes them: gid = uid, umask 002); others not */
	bool own_group = !st->st_gid || st->st_gid == getegid() || st->st_gid == st->st_uid;
	if ((st->st_mode & S_IWOTH) || ((st->st_mode & S_IWGRP) && !own_group)) {
		snprintf(why, len, "writable by %s", st->st_mode & S_IWOTH ? "every user"
									: "its group");
		return false;
	}
	return true;
}

bool sf_links_trusted(const char *path, char *why, size_t len)
{
	char prefix[4096];
	struct stat st;
	size_t n = strlen(path);

	if (n >= sizeof(prefix))
		return snprintf(why, len, "the path is too long"), false;
	for (size_t i = 1; i <= n; i++) {
		if (i < n && path[i] != '/')
			continue;
		memcpy(prefix, path, i);
		prefix[i] = 0;
		if (!lstat(prefix, &st) && S_ISLNK(st.st_mode) && st.st_uid &&
		    st.st_uid != geteuid()) {
			snprintf(why, len, "%s is a symbolic link owned by uid %u", prefix,
				 (unsigned)st.st_uid);
			return false;
		}
	}
	return true;
}

int sf_open_write(const char *path, char *why, size_t len)
{
	struct stat st;

	if (!sf_links_trusted(path, why, len)) {
		errno = EPERM;
		return -1;
	}
	/* a link at the last component was checked above; a link made
	 * there after the check is not followed */
	bool link = !lstat(path, &st) && S_ISLNK(st.st_mode);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | (link ? 0 : O_NOFOLLOW),
		      0666);
	if (fd < 0)
		snprintf(why, len, "%s", strerror(errno));
	return fd;
}

int sf_write_all(int fd, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n) {
		ssize_t w = write(fd, b, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = EIO;
			return -1;
		}
		b += w, n -= (size_t)w;
	}
	return 0;
}
