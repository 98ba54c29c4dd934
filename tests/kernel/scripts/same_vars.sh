#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# same_vars.sh SPEC: whether perf-run -V SPEC prints what perf probe -V
# SPEC prints for the running kernel (stdout; run in the test-kernel
# guest, whose devtmpfs has no /dev/fd for process substitution).  Prints
# the difference if not.  MOD:SPEC: in a loaded module (kmod.sh).
set -u
t=$(mktemp -d) || exit 1
trap 'rm -rf "$t"' EXIT
. "$(dirname "$0")/kmod.sh"
kmod_split "$1"
"$PERF_RUN" -V "kprobe:$1" >"$t/ours" 2>/dev/null
perf probe "${mopt[@]}" -V "$pspec" >"$t/perf" 2>/dev/null
[ -s "$t/perf" ] || { echo "perf probe -V $1 printed nothing"; exit 1; }
diff "$t/ours" "$t/perf"
