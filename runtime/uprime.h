/*
 * uprime.h - start the kernel's wait for the first uprobe early.
 *
 * Registering a uprobe takes dup_mmap_sem for writing, and the first writer
 * after an idle spell waits for an RCU grace period (rcu_sync_enter): 6-16
 * ms on this VM, longer than compiling a cached script.  Writers that come
 * while that wait is in flight, or within a grace period or two after it,
 * do not wait again.  uprime_start() registers one uprobe on an empty
 * memfd that no process maps, from a thread, so that the wait overlaps the
 * compile instead of following it.  The registration changes no process:
 * there is nowhere to put its breakpoint.
 */
#ifndef PR_UPRIME_H
#define PR_UPRIME_H

/* Starts the thread; does nothing if it runs already or the kernel has no
 * uprobe PMU.  Never fails and never prints: priming is only a speed-up. */
void uprime_start(void);

/* The real probes are attached: the thread may drop its uprobe now (its
 * close waits for an RCU tasks-trace grace period, ~70 ms, off the main
 * thread).  Does nothing if uprime_start() did not start the thread. */
void uprime_release(void);

/* uprime_release(), then waits for the thread to end. */
void uprime_finish(void);

#endif
