/* sink.h - where the fuzz targets send diagnostics: /dev/null, opened once
 * (stderr if it cannot be). */
#ifndef PR_FUZZ_SINK_H
#define PR_FUZZ_SINK_H
// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>

static inline FILE *sink(void)
{
	static FILE *null;

	if (!null)
		null = fopen("/dev/null", "w");
	return null ? null : stderr;
}

#endif
