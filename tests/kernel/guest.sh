#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# guest.sh - runs inside the qemu guest (see init), from the top of the
# host's tree mounted read-only: the kernel-probe cases of tests/kernel/
# with the host's build of perf-run.  Its output, ending with the
# `N passed, N failed, N skipped` line, is read by run.sh on the host.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp LC_ALL=C
export PERF_RUN=${PR_PERF_RUN:-build/perf-run}
ulimit -l unlimited
# PR_SCRIPT (from run.sh's KERNEL_GUEST_SCRIPT): a script of the tree run
# instead of the cases (tests/bench/kmulti_guest.sh); its exit status is
# the failed count of the last line.
if [ -n "${PR_SCRIPT:-}" ]; then
	"$PR_SCRIPT"
	echo "0 passed, $(($? != 0)) failed, 0 skipped"
	exit 0
fi
# PR_TESTS (from run.sh's KERNEL_TESTS): some of the files only.
PR_TESTS=${PR_TESTS:+${PR_TESTS//,/ }}
exec tests/run-runtime.sh ${PR_TESTS:-tests/kernel/*.test}
