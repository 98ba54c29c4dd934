#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# same_vars.sh SPEC: whether perf-run -V SPEC prints what perf probe -V
# SPEC prints for the running kernel (stdout; run in the test-kernel
# guest, whose devtmpfs has no /dev/fd for process substitution).  Prints
# the difference if not.
set -u
t=$(mktemp -d) || exit 1
trap 'rm -rf "$t"' EXIT
"$PERF_RUN" -V "$1" >"$t/ours" 2>/dev/null
perf probe -V "$1" >"$t/perf" 2>/dev/null
[ -s "$t/perf" ] || { echo "perf probe -V $1 printed nothing"; exit 1; }
diff "$t/ours" "$t/perf"
