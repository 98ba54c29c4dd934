#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# run-errors.sh - golden diagnostics: runs `perf-run tests/errors/NAME.bt`
# for every script there and compares its stderr byte for byte with
# NAME.err; the run must also fail (exit status 1).  Optional NAME.args
# holds more command-line words (shell syntax) put before the script, or
# where the word {} stands (`{} abc` for a positional parameter, `{} --
# ./tests/progs/loop 1` for a traced command).
# Optional NAME.requires is a shell command that must succeed, else the
# case is skipped with that command as the reason (kernel features).
# COMPILE_ONLY=1 (make check) runs each case as `perf-run --dump probes
# ...`, the compile-only mode that needs no root (stdout, the dump, is
# dropped); a case whose error comes only when the program is loaded or
# attached has a NAME.attach saying why, and is skipped there.
# Run from the top of the tree; the paths in diagnostics are relative to it,
# and an absolute path into the tree is written $TOP/ in NAME.err so that
# the expectations hold in any checkout.  Cases that probe tests/progs
# binaries build them first (make progs) when one is missing.
#
#   tests/run-errors.sh [NAME.bt ...]     PERF_RUN: binary (build/perf-run)
#   COMPILE_ONLY=1 tests/run-errors.sh    as any user: compile, load nothing
#   UPDATE=1 tests/run-errors.sh NAME.bt  rewrites NAME.err from the output
#                                          (read the result before committing)
#
# Last line: `N passed, N failed, N skipped`; exits 1 if any failed.
set -uo pipefail

PERF_RUN=${PERF_RUN:-build/perf-run}
mode=()
[[ ${COMPILE_ONLY:-} == 1 ]] && mode=(--dump probes)
(($#)) || set -- tests/errors/*.bt
[[ -e $1 ]] || { echo "0 passed, 0 failed, 0 skipped"; exit 0; }

TMP=$(mktemp -d /tmp/perf-run-err.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
passed=0 failed=0 skipped=0
TOP=$(pwd -P)

for c in tests/progs/*.c; do
	if [[ ! -x ${c%.c} ]]; then
		${MAKE:-make} -s progs >/dev/null 2>&1 || echo "run-errors.sh: make progs failed" >&2
		break
	fi
done

for bt in "$@"; do
	base=${bt%.bt}
	name=${base#tests/}
	extra=()
	if [[ -f $base.args ]]; then
		eval "extra=($(<"$base.args"))"
	fi
	[[ " ${extra[*]} " == *" {} "* ]] || extra+=("{}")
	for i in "${!extra[@]}"; do
		[[ ${extra[i]} == "{}" ]] && extra[i]=$bt
	done
	if ((${#mode[@]})) && [[ -f $base.attach ]]; then
		echo "SKIP $name (compile-only: $(<"$base.attach"))"
		((skipped++))
		continue
	fi
	if [[ -f $base.requires ]] && ! why=$(bash -c "$(<"$base.requires")" 2>/dev/null); then
		echo "SKIP $name (${why:-needs: $(<"$base.requires")})"
		((skipped++))
		continue
	fi
	timeout -s KILL 10 "$PERF_RUN" "${mode[@]}" "${extra[@]}" </dev/null >"$TMP/out" 2>"$TMP/raw"
	status=$?
	sed "s|$TOP/|\$TOP/|g" "$TMP/raw" >"$TMP/err"
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
