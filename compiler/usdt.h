/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * usdt.h - SystemTap SDT notes (.note.stapsdt) of a binary: probe sites,
 * semaphores and argument specs.
 */
#ifndef PR_USDT_H
#define PR_USDT_H

#include <stdint.h>
#include <stdio.h>

#include "probe.h"

struct usdt_note {
	char *provider, *name;
	uint64_t addr;            /* probe address (after .stapsdt.base adjustment) */
	uint64_t offset;          /* its file offset */
	uint64_t sem_offset;      /* semaphore file offset, 0 if none */
	char *args;               /* the argument spec text */
};

/* Every note of the binary; returns the count or -1 (errno set). */
int usdt_notes(const char *path, struct usdt_note **out);
void usdt_notes_free(struct usdt_note *n, int cnt);
/* Parses an argument spec text into args; returns the count or -1 with a
 * sentence in err. */
int usdt_parse_args(const char *spec, struct usdt_arg **args, char *err, size_t errlen);

#endif
