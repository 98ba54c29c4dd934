/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kfeature.h - what the running kernel accepts, found by loading a trivial
 * BPF program ("return 0") with the attributes in question: the verifier
 * judges the attributes before the code, so such a load is the test.
 */
#ifndef PR_KFEATURE_H
#define PR_KFEATURE_H

#include <stdbool.h>
#include <stdint.h>

/* Loads "r0 = 0; exit" as a program of PROG_TYPE with EXPECTED_ATTACH and
 * PROG_FLAGS (BPF_F_*).  Returns the program's fd, or -errno. */
int kfeature_load_trivial(uint32_t prog_type, uint32_t expected_attach, uint32_t prog_flags);

/* True if the running kernel has kprobe_multi links (5.18+ built with
 * CONFIG_FPROBE): one link attaches a program to many kernel functions.
 * Asked once (a trivial load and a refused link_create), then cached. */
bool kfeature_kprobe_multi(void);

#endif
