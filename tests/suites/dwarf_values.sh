#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# dwarf_values.sh - the values perf-run reads at probe addresses against
# gdb's (and perf probe's, counted) on tests/progs/dwarf_*.c built with gcc
# and clang-19 at -O0..-O3: tests/dwarf/values.sh, whose per-level counts
# it passes on.  Last line: "N passed, N failed, N skipped".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$(PERF_RUN=${PERF_RUN:-$top/build/perf-run} "$top/tests/dwarf/values.sh" 2>&1)
printf '%s\n' "$out" | sed '$d'
last=$(printf '%s\n' "$out" | tail -1)
if [[ $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
	echo "${BASH_REMATCH[1]} passed, ${BASH_REMATCH[2]} failed, 0 skipped"
	[ "${BASH_REMATCH[2]}" = 0 ]
else
	echo "values.sh ended with: $last"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi
