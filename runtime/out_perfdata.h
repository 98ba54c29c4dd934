/* SPDX-License-Identifier: GPL-2.0-only */ /*
 * out_perfdata.h - -f perf: the samples of profile.h as a perf.data file
 * (tools/perf/Documentation/perf.data-file-format.txt) that perf report,
 * perf script and perf annotate read and symbolise themselves.
 */
#ifndef PR_OUT_PERFDATA_H
#define PR_OUT_PERFDATA_H

#include "profile.h"

/* Writes pf to fd (from its start); cmdline (NULL-ended, may be NULL) is
 * the command line the header keeps.  0, or -1 with errno. */
int pdata_write(const struct pf *pf, int fd, char **cmdline);

#endif
