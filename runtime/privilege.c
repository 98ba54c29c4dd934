// SPDX-License-Identifier: GPL-2.0-only
/*
 * privilege.c - the capability check made before anything is compiled or
 * loaded, so that an unprivileged run ends with one sentence instead of a
 * verifier or perf_event_open error half-way through attaching.  It reads
 * the effective set (capget), not the uid: root without CAP_BPF (a
 * restricted container) is refused too, a user given the two capabilities
 * is not.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/capability.h>

#include "privilege.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static bool priv_has(const struct __user_cap_data_struct d[2], unsigned cap)
{
	return d[cap / 32].effective >> (cap % 32) & 1;
}

const char *priv_missing(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
	if (syscall(SYS_capget, &h, d))
		return "CAP_BPF and CAP_PERFMON";
	bool admin = priv_has(d, CAP_SYS_ADMIN);
	bool bpf = admin || priv_has(d, CAP_BPF);
	bool perfmon = admin || priv_has(d, CAP_PERFMON);
	if (bpf && perfmon)
		return NULL;
	return !bpf && !perfmon ? "CAP_BPF and CAP_PERFMON" : !bpf ? "CAP_BPF" : "CAP_PERFMON";
}
