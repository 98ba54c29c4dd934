/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * objcache.h - BPF objects kept by the LLVM IR they were compiled from.
 *
 * LLVM's optimisation and BPF emission are most of perf-run's start-up;
 * the same script on the same binaries gives the same IR, so its object is
 * kept under $XDG_CACHE_HOME/perf-run/obj (or ~/.cache/perf-run/obj).  An
 * entry is used only when its whole IR text and the identity of the
 * perf-run binary that wrote it match, and only from files that the
 * current user owns and nobody else can write (a root tool must not load
 * BPF code another user planted).  The path is walked with
 * openat(O_NOFOLLOW | O_DIRECTORY) from a base the effective user owns;
 * a symbolic link, or a folder owned by another user than this one or
 * root, turns the cache off for the run with one warning.  The cache is
 * capped (PERF_RUN_CACHE_MAX bytes, K/M/G suffix, 256M by default): the
 * least recently used entries are removed after each store.
 * PERF_RUN_NO_CACHE=1 turns it off.
 * Every failure is a miss: the cache never makes a compile fail.
 */
#ifndef PR_OBJCACHE_H
#define PR_OBJCACHE_H

#include <stddef.h>

/* 0 and a malloc'd copy of the object on a hit, -1 on a miss. */
int objcache_get(const char *ir, void **obj, size_t *size);

/* Stores obj for ir, atomically (rename), ignoring errors. */
void objcache_put(const char *ir, const void *obj, size_t size);

#endif
