/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * safefile.h - opening the files that another user or a traced process
 * may control, as perf-run (usually root) must: docs/SECURITY.md says
 * which inputs these are.
 */
#ifndef PR_SAFEFILE_H
#define PR_SAFEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Opens path for reading (close-on-exec) only if it is a regular file,
 * without ever opening anything else: it is first opened O_PATH, which
 * runs no driver's open (a device, a FIFO that would block), checked
 * with fstat, then reopened through /proc/self/fd.  Symbolic links are
 * followed.  *st gets the file's stat.  -1 with errno; ENODEV when the
 * path names something other than a regular file. */
int sf_open_regular(const char *path, struct stat *st);

/* Whether a file that steers what perf-run reads (a debug file, cached
 * tables) can be taken: owned by root, by the effective user or by
 * owner (the owner of the binary it belongs to, who controls that binary
 * anyway), and writable by no one else.  Else false and the reason (a
 * phrase: "owned by uid 65534") in why. */
bool sf_trusted(const struct stat *st, uid_t owner, char *why, size_t len);

/* Whether every component of path that is a symbolic link belongs to
 * root or the effective user: a link another user made would choose where
 * perf-run writes (HOME itself a link to a root-owned folder).  Else
 * false and the first such link and its owner in why. */
bool sf_links_trusted(const char *path, char *why, size_t len);

/* Opens path as -o writes it (created, truncated, close-on-exec): not if a
 * symbolic link in it belongs to another user than root or the effective
 * user (sf_links_trusted: as root, such a link would choose which file
 * root overwrites), and a link put at the last component after that check
 * is not followed.  -1 with errno and the reason in why. */
int sf_open_write(const char *path, char *why, size_t len);

/* Writes all n bytes of p to fd (again after EINTR or a short write);
 * 0, or -1 with errno. */
int sf_write_all(int fd, const void *p, size_t n);

#endif
