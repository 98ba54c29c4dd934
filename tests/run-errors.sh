#!/usr/bin/env bash
# run-errors.sh - golden diagnostics: runs `perf-run tests/errors/NAME.bt`
# for every script there and compares its stderr byte for byte with
# NAME.err; the run must also fail (exit status 1).  Optional NAME.args
# holds more command-line words (shell syntax) put before the script.
# Run from the top of the tree; the paths in diagnostics are relative to it.
#
#   tests/run-errors.sh [NAME.bt ...]     PERF_RUN: binary (build/perf-run)
#   UPDATE=1 tests/run-errors.sh NAME.bt  rewrites NAME.err from the output
#                                          (read the result before committing)
#
# Last line: `N passed, N failed, N skipped`; exits 1 if any failed.
set -uo pipefail

PERF_RUN=${PERF_RUN:-build/perf-run}
(($#)) || set -- tests/errors/*.bt
[[ -e $1 ]] || { echo "0 passed, 0 failed, 0 skipped"; exit 0; }

TMP=$(mktemp -d /tmp/perf-run-err.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
passed=0 failed=0 skipped=0

for bt in "$@"; do
	base=${bt%.bt}
	name=${base#tests/}
	extra=()
	if [[ -f $base.args ]]; then
		eval "extra=($(<"$base.args"))"
	fi
	timeout -s KILL 10 "$PERF_RUN" "${extra[@]}" "$bt" </dev/null >"$TMP/out" 2>"$TMP/err"
	status=$?
	if [[ ${UPDATE:-} == 1 ]]; then
		cp "$TMP/err" "$base.err"
	fi
	why=()
	if [[ ! -f $base.err ]]; then
		why+=("no $base.err")
	elif ! cmp -s "$TMP/err" "$base.err"; then
		why+=("stderr differs from $base.err (- expected, + got):")
	fi
	[[ $status == 1 ]] || why+=("exit status $status, expected 1")
	if ((${#why[@]} == 0)); then
		echo "PASS $name"
		((passed++))
		continue
	fi
	echo "FAIL $name"
	printf '    - %s\n' "${why[@]}"
	if [[ -f $base.err ]]; then
		diff -u "$base.err" "$TMP/err" | tail -n +3 | sed 's/^/    /'
	else
		sed 's/^/    | /' "$TMP/err"
	fi
	((failed++))
done

echo "$passed passed, $failed failed, $skipped skipped"
((failed == 0))
