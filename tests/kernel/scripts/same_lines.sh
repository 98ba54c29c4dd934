#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# same_lines.sh DIR SPEC: whether perf-run -s DIR -L SPEC prints what
# perf probe -s DIR -L SPEC prints for the running kernel (DIR: its
# unpacked sources); MOD:SPEC in a loaded module (kmod.sh).  Prints the
# difference if not.
set -u
t=$(mktemp -d) || exit 1
trap 'rm -rf "$t"' EXIT
. "$(dirname "$0")/kmod.sh"
kmod_split "$2"
"$PERF_RUN" -s "$1" -L "kprobe:$2" >"$t/ours" 2>&1
perf probe "${mopt[@]}" -s "$1" -L "$pspec" >"$t/perf" 2>&1
[ -s "$t/perf" ] || { echo "perf probe -L $2 printed nothing"; exit 1; }
diff "$t/ours" "$t/perf"
