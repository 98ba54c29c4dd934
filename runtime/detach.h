/*
 * detach.h - releasing the links and fds of many attached programs at once.
 *
 * Closing a perf-event BPF link waits for an RCU tasks-trace grace period
 * (perf_event_detach_bpf_prog), and so does dropping a uprobe_multi link:
 * about 60 ms here each.  One after another, a script on the 362 syscall
 * tracepoints took 22 s to exit.  Waits that overlap share grace periods,
 * so the closes run on threads.
 */
#ifndef PR_DETACH_H
#define PR_DETACH_H

#include "provider.h"

/* Destroys every link and closes every fd of atts[0..n) (NULL entries are
 * skipped), then leaves each with none.  Returns when all are closed. */
void dt_release(struct prov_att *const *atts, int n);

#endif
