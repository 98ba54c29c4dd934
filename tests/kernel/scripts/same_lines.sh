#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# same_lines.sh DIR SPEC: whether perf-run -s DIR -L SPEC prints what
# perf probe -s DIR -L SPEC prints for the running kernel (DIR: its
# unpacked sources).  Prints the difference if not.
set -u
t=$(mktemp -d) || exit 1
trap 'rm -rf "$t"' EXIT
"$PERF_RUN" -s "$1" -L "$2" >"$t/ours" 2>&1
perf probe -s "$1" -L "$2" >"$t/perf" 2>&1
[ -s "$t/perf" ] || { echo "perf probe -L $2 printed nothing"; exit 1; }
diff "$t/ours" "$t/perf"
