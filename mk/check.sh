#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# check.sh - `make check`: the fast loop, for any user, installing nothing
# (CI runs it before `make test`).  It builds perf-run, the unit programs and
# the test programs, runs the unit programs that need no root, the golden
# diagnostics compile-only (COMPILE_ONLY=1 tests/run-errors.sh: --dump, so
# nothing is loaded and no root is needed), the layering rules
# (mk/layers.sh) and the SPDX lines (mk/spdx.sh).  A missing build
# dependency is said in one sentence (mk/deps.sh --check) and the check
# stops; nothing is installed.
# Last line: `check: N passed, N failed, N skipped in T s (each stage's time)`;
# exits 1 on a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
MAKE=${MAKE:-make}
BUILD=${BUILD:-build}
LOG=$BUILD/check-logs
# These load BPF programs into the kernel: `make test` runs them, as root.
ROOT_UNITS=" test_codegen test_uprobe_multi "

t0=$(date +%s%N) tl=$t0 times=
passed=0 failed=0 skipped=0
# `stage NAME` starts a stage; the time each took is on the last line.
secs() { local ns=$(($(date +%s%N) - $1)); printf '%d.%d' $((ns / 1000000000)) $((ns / 100000000 % 10)); }
stage() { [[ -n ${cur:-} ]] && times+="${times:+, }$cur $(secs "$tl")"; tl=$(date +%s%N) cur=$1; echo "== $1"; }

BUILD=$BUILD mk/deps.sh --check || exit 1
mkdir -p "$LOG"

stage build
if ! "$MAKE" -j"$(nproc 2>/dev/null || echo 2)" --no-print-directory BUILD="$BUILD" \
	all unit progs >"$LOG/build.log" 2>&1; then
	grep -E ': (fatal )?error|undefined reference|No rule to make|\*\*\*' "$LOG/build.log" |
		head -n 40 | sed 's/^/    | /'
	echo "check: the build failed (full log: $LOG/build.log)"
	exit 1
fi

stage unit
for bin in "$BUILD"/tests/test_*; do
	name=${bin##*/}
	if [[ $ROOT_UNITS == *" $name "* ]]; then
		echo "SKIP $name (loads BPF programs: make test runs it, as root)"
		((skipped++))
	elif timeout -s KILL 120 "$bin" >"$LOG/$name.log" 2>&1; then
		((passed++))
	else
		echo "FAIL $name (log: $LOG/$name.log)"
		grep -v '^PASS ' "$LOG/$name.log" | tail -n 30 | sed 's/^/    | /'
		((failed++))
	fi
done

stage "diagnostics"
COMPILE_ONLY=1 PERF_RUN=$BUILD/perf-run MAKE=$MAKE tests/run-errors.sh >"$LOG/errors.out" 2>&1
grep -v '^PASS ' "$LOG/errors.out"
re='^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$'
if [[ $(tail -n 1 "$LOG/errors.out") =~ $re ]]; then
	((passed += BASH_REMATCH[1], failed += BASH_REMATCH[2], skipped += BASH_REMATCH[3]))
else
	((failed++))
fi

stage layers
if BUILD=$BUILD mk/layers.sh; then ((passed++)); else ((failed++)); fi

# Every source file names its licence (mk/spdx.sh prints those that do not).
stage spdx
if mk/spdx.sh >"$LOG/spdx.log" 2>&1; then ((passed++)); else grep -v '^spdx: all' "$LOG/spdx.log"; ((failed++)); fi

stage end >/dev/null
echo "check: $passed passed, $failed failed, $skipped skipped in $(secs "$t0") s ($times)"
((failed == 0))
