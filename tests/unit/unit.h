/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * unit.h - the few helpers the C unit tests share: count checks, print one
 * line per failure, and end with "N passed, N failed".
 */
#ifndef PR_UNIT_H
#define PR_UNIT_H

#include <stdio.h>
#include <string.h>

static int unit_passed, unit_failed;

/* Records one check; on failure prints the name and, if given, both texts. */
static inline void unit_expect_str(const char *name, const char *got, const char *want)
{
	if (got && want && strcmp(got, want) == 0) {
		unit_passed++;
		return;
	}
	unit_failed++;
	printf("FAIL %s\n--- want\n%s--- got\n%s---\n", name, want ? want : "(null)\n",
	       got ? got : "(null)\n");
}

static inline void unit_expect(const char *name, int ok)
{
	if (ok) {
		unit_passed++;
		return;
	}
	unit_failed++;
	printf("FAIL %s\n", name);
}

static inline int unit_summary(void)
{
	printf("%d passed, %d failed\n", unit_passed, unit_failed);
	return unit_failed ? 1 : 0;
}

#endif
