// SPDX-License-Identifier: GPL-2.0-only
/*
 * cgpath.c - cgroup_path(): a cgroup id (the kernfs inode of its
 * directory, as bpf_get_current_cgroup_id() gives it) found by walking
 * each mounted cgroup hierarchy from /proc/self/mountinfo.  Done when the
 * value is printed, as bpftrace does, so the path is the one of that time.
 */
#define _GNU_SOURCE
#include <fnmatch.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgpath.h"

struct hier {
	char *name;   /* "unified" or the mount directory's name */
	char *root;   /* mount point */
};

/* nftw() has no context argument: the walk in progress. */
static uint64_t walk_id;
static char *walk_found;

static int walk_one(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)f;
	if (type != FTW_D || st->st_ino != walk_id)
		return 0;
	walk_found = strdup(path);
	return 1;
}

static int by_name(const void *a, const void *b)
{
	const struct hier *x = a, *y = b;
	bool ux = !strcmp(x->name, "unified"), uy = !strcmp(y->name, "unified");

	if (ux != uy)
		return ux ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The cgroup and cgroup2 mounts; returns their count, -1 without memory. */
static int read_hiers(struct hier **out)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	struct hier *h = NULL;
	int n = 0;

	while (f && fgets(line, sizeof(line), f)) {
		char mnt[1024], fstype[64];
		const char *sep = strstr(line, " - ");

		if (!sep || sscanf(line, "%*s %*s %*s %*s %1023s", mnt) != 1 ||
		    sscanf(sep + 3, "%63s", fstype) != 1)
			continue;
		if (strcmp(fstype, "cgroup") && strcmp(fstype, "cgroup2"))
			continue;
		struct hier *nh = realloc(h, (size_t)(n + 1) * sizeof(*h));
		if (!nh)
			break;
		h = nh;
		const char *base = strrchr(mnt, '/');
		h[n].name = strdup(!strcmp(fstype, "cgroup2") ? "unified" : base ? base + 1 : mnt);
		h[n].root = strdup(mnt);
		n++;
	}
	if (f)
		fclose(f);
	if (h)
		qsort(h, (size_t)n, sizeof(*h), by_name);
	*out = h;
	return n;
}

char *cgpath_text(uint64_t id, const char *filter)
{
	struct hier *h = NULL;
	int n = read_hiers(&h);
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	for (int i = 0; m && i < n; i++) {
		if (!h[i].name || !h[i].root || (filter && fnmatch(filter, h[i].name, 0)))
			continue;
		walk_id = id;
		walk_found = NULL;
		nftw(h[i].root, walk_one, 16, FTW_PHYS | FTW_MOUNT);
		if (!walk_found)
			continue;   /* not in this hierarchy: left out */
		const char *rel = walk_found + strlen(h[i].root);
		fprintf(m, "%s%s:%s", ftell(m) ? "," : "", h[i].name, *rel ? rel : "/");
		free(walk_found);
	}
	for (int i = 0; i < n; i++) {
		free(h[i].name);
		free(h[i].root);
	}
	free(h);
	if (m)
		fclose(m);
	return out;
}
