// SPDX-License-Identifier: GPL-2.0-only
/*
 * prov_special.c - BEGIN and END.  They attach to nothing: run.c runs
 * their raw tracepoint programs once with BPF_PROG_TEST_RUN (BEGIN once
 * every other probe is live, END when stopping).  Each counts as one
 * attach point, as in bpftrace.
 */
#include "provider.h"

static int sp_attach(struct prov_att *a, const struct prov_env *e)
{
	(void)e;
	a->count = 1;
	return 0;
}

const struct provider prov_special = {
	.name = "special",
	.attach = sp_attach,
};
