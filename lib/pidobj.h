/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * pidobj.h - the files a running process maps, and paths as that process
 * sees them (its mount namespace, its root), opened the way
 * docs/SECURITY.md asks: the path /proc/PID/maps prints is a name to show
 * and to match, never the file opened.
 */
#ifndef PR_PIDOBJ_H
#define PR_PIDOBJ_H

#include <stdbool.h>
#include <sys/types.h>

struct pid_obj {
	char *path;   /* as /proc/PID/maps prints it, in the process's view: shown, matched */
	char *link;   /* /proc/PID/map_files/LO-HI: opens the mapped file itself, and
	               * the kernel probes the same inode through it */
};

/* Every regular file pid maps (executable first, then its libraries, in
 * address order), once each by device and inode.  The count, or -1 with
 * errno if /proc/PID/maps cannot be read. */
int pidobj_list(pid_t pid, struct pid_obj **out);
void pidobj_free(struct pid_obj *v, int n);
/* The files a wildcard binary of an attach point (pat, fnmatch) names:
 * with pid > 0, those pid maps whose path in its view matches (every one
 * for a NULL pat), as pidobj_list gives them; else the regular files the
 * path pattern matches here (.path as matched, .link its real path).
 * The count (0 if none), or -1 with errno. */
int pidobj_match(pid_t pid, const char *pat, struct pid_obj **out);
/* True if pid sees another file tree than perf-run: another mount
 * namespace, or another root (chroot).  A path it names is then not the
 * file of that name here. */
bool pidobj_foreign(pid_t pid);
/* BIN of an attach point as pid sees it, for a pid with pidobj_foreign():
 * an absolute path, or a library name ("libc", "libfoo.so.1") among the
 * files it maps.  A file it maps is reached through its map_files link;
 * another absolute path through /proc/PID/root/PATH when a walk confined
 * to pid's root (openat2 RESOLVE_IN_ROOT: its symbolic links cannot leave
 * it) reaches the same regular file.  *shown gets the path in pid's view.
 * NULL with errno if there is no such file. */
char *pidobj_find(pid_t pid, const char *bin, char **shown);
/* The path of pid's executable as pid sees it (readlink of
 * /proc/PID/exe): a name to show, never to open.  NULL if unreadable. */
char *pidobj_exe_name(pid_t pid);
/* How pid maps the file dev/ino (st_dev, st_ino): not at all (or maps
 * unreadable), only without PROT_EXEC, or executable somewhere.  The
 * kernel installs a uprobe only in executable mappings of its file. */
enum pidobj_map { PIDOBJ_UNMAPPED, PIDOBJ_NOEXEC, PIDOBJ_EXEC };
enum pidobj_map pidobj_mapping(pid_t pid, dev_t dev, ino_t ino);

#endif
