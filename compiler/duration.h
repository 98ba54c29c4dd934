/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * duration.h - the duration literals of newer bpftrace (0.20 and later):
 * an integer with one of the suffixes ns, us, ms, s, m, h, d is that many
 * nanoseconds ("1s" is 1000000000).  The lexer reads them in scripts and
 * the probe parser in interval:1s and profile:5ms.
 */
#ifndef PR_DURATION_H
#define PR_DURATION_H

#include <stddef.h>
#include <stdint.h>

enum dur_result { DUR_NONE, DUR_OK, DUR_TOO_LARGE };

/* The n bytes at s as decimal digits ('_' between them allowed) and a
 * unit: DUR_OK with *ns set, DUR_TOO_LARGE when the value passes 2^64-1,
 * DUR_NONE when the text is no duration at all. */
enum dur_result dur_parse(const char *s, size_t n, uint64_t *ns);

#endif
