/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * out_pprof.h - -f pprof: the samples of profile.h as a gzipped
 * profile.proto (github.com/google/pprof), which `go tool pprof` and the
 * profile servers that take pprof read.
 */
#ifndef PR_OUT_PPROF_H
#define PR_OUT_PPROF_H

#include "profile.h"

/* Writes pf to fd (from its start).  0, or -1 with errno. */
int pprof_write(const struct pf *pf, int fd);

/* s with what a protobuf string cannot hold or a reader would show as
 * something else escaped as C writes it: control characters and bytes
 * that are not UTF-8 as \xNN (map keys come already escaped so, by
 * format.c; a backslash is left as it is).  malloc'd. */
char *pprof_escape(const char *s);

#endif
