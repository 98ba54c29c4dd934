#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# kmulti.sh - the kprobe wildcard bench (issue 29): boots the newest /boot
# kernel with kprobe_multi links (CONFIG_FPROBE; Debian 12's 6.12) under
# qemu as `make test-kernel` does (tests/kernel/run.sh) and runs
# tests/bench/kmulti_guest.sh there: attach and detach of ~400 kernel
# functions with one kprobe_multi link, with one kprobe each, with
# bpftrace 0.17 and with `perf probe -a`.  The host kernel has no kprobes.
# Skips, saying why, where no such kernel or qemu is at hand.  The table
# is also kept in build/bench/kmulti.txt.
#
# Environment: KMULTI_PATTERN, KMULTI_RUNS, KMULTI_PERF_RUNS, KMULTI_TIMEOUT (see
# kmulti_guest.sh; they are passed on the guest's command line),
# KMULTI_GUEST_TIMEOUT (3600 s for the whole guest), KMULTI_SMP (the
# guest's CPUs, 1), PERF_RUN.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
B=build/bench
mkdir -p "$B"
[ -x "$B/stamp" ] || gcc -std=gnu11 -O2 -Wall -Wextra -o "$B/stamp" tests/bench/stamp.c || exit 1
[ -x "$B/loop" ] || make -s "$B/loop" || exit 1

kver=
for c in /boot/config-*; do
	[ -e "$c" ] && grep -qx 'CONFIG_FPROBE=y' "$c" && grep -qx 'CONFIG_KPROBES=y' "$c" &&
		kver=$(printf '%s\n%s\n' "$kver" "${c#/boot/config-}" | sort -V | tail -1)
done
if [ -z "$kver" ]; then
	echo "kmulti: SKIP: no kernel in /boot with CONFIG_FPROBE=y (make test-kernel installs Debian's 6.12)"
	exit 0
fi
# The guest's environment comes from its kernel command line (init).
export KERNEL_GUEST_SCRIPT="tests/bench/kmulti_guest.sh${KMULTI_PATTERN:+ KMULTI_PATTERN=$KMULTI_PATTERN}${KMULTI_RUNS:+ KMULTI_RUNS=$KMULTI_RUNS}${KMULTI_TIMEOUT:+ KMULTI_TIMEOUT=$KMULTI_TIMEOUT}${KMULTI_PERF_RUNS:+ KMULTI_PERF_RUNS=$KMULTI_PERF_RUNS}"
# One CPU: the kprobe_multi/single ratios do not need two, and this bench
# patches kernel text the most (see run.sh on MTTCG and int3).
KERNEL_TEST_SMP=${KMULTI_SMP:-1} KERNEL_VERSIONS=$kver KERNEL_TEST_TIMEOUT=${KMULTI_GUEST_TIMEOUT:-3600} \
	BUILD=$(dirname "${PERF_RUN:-build/perf-run}") tests/kernel/run.sh | tee "$B/kmulti.txt"
