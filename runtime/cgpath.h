/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cgpath.h - cgroup_path(id [, filter]): the paths of a cgroup id in the
 * mounted cgroup hierarchies, as bpftrace 0.17 prints them.
 */
#ifndef PR_CGPATH_H
#define PR_CGPATH_H

#include <stdint.h>

/* "unified:/a/b,cpu:/,..." for the hierarchies whose name matches filter
 * (fnmatch; NULL for all): the cgroup2 mount first as "unified", then the
 * cgroup v1 mounts by the name of their directory, in name order.  Each
 * shows the directory whose inode is id, from that hierarchy's root.
 * A malloc'd string ("" if nothing matches), or NULL without memory. */
char *cgpath_text(uint64_t id, const char *filter);

#endif
