#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# run-runtime.sh - runs the runtime cases of tests/runtime/*.test: real
# probes on the real kernel, checked against what the test programs do.
# The case format is described in tests/README.md.  Run from the top of the
# tree, as root.
#
#   tests/run-runtime.sh [-a] [-k REGEX] [FILE.test ...]
#     -a        only the cases marked `ASAN yes` (for the ASan build)
#     -k REGEX  only the cases whose NAME matches REGEX
#   PERF_RUN    the binary under test (default build/perf-run)
#
# Prints PASS/FAIL/SKIP per case, a failing case with what differed and its
# whole output, and as its last line `N passed, N failed, N skipped`.
# Exits 1 if any case failed.
set -uo pipefail

PERF_RUN=${PERF_RUN:-build/perf-run}
export PERF_RUN
only_asan=0
name_re=
while getopts ak: opt; do
	case $opt in
	a) only_asan=1 ;;
	k) name_re=$OPTARG ;;
	*) echo "usage: $0 [-a] [-k REGEX] [FILE.test ...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
(($#)) || set -- tests/runtime/*.test

TMP=$(mktemp -d /tmp/perf-run-rt.XXXXXX)
before_pid=
cleanup() {
	stop_before
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

passed=0 failed=0 skipped=0
declare -a failures=()

# Keys that may appear more than once in a case.
MULTI=" EXPECT EXPECT_REGEX EXPECT_NONE EXPECT_STDERR_REGEX EXPECT_STDERR_NONE REQUIRES SETUP CHECK "
SINGLE=" NAME PROG RUN ARGS ENV EXIT TIMEOUT SIGINT BEFORE ASAN "

stop_before() {
	[[ -n $before_pid ]] || return 0
	kill -TERM "$before_pid" 2>/dev/null
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		kill -0 "$before_pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$before_pid" 2>/dev/null
	wait "$before_pid" 2>/dev/null
	before_pid=
}

# Starts BEFORE and waits until it has exec'd its program, since -p PID
# resolves attach points through /proc/PID/exe.
start_before() {
	bash -c "exec $1" </dev/null >"$TMP/before.out" 2>&1 &
	before_pid=$!
	export BEFORE_PID=$before_pid
	for _ in $(seq 50); do
		local exe
		exe=$(readlink "/proc/$before_pid/exe" 2>/dev/null) || return 1
		[[ $exe != */bash ]] && return 0
		sleep 0.02
	done
	return 0
}

indent() {
	sed -e 's/^/    | /' "$1" | head -n 200
	local n
	n=$(wc -l <"$1")
	((n <= 200)) || echo "    | ... ($((n - 200)) more lines)"
}

# Runs the case held in the associative array C and the lists X_*.
run_case() {
	local name=${C[NAME]:-${C[@loc]}} why=() status timeout=${C[TIMEOUT]:-10}
	local out=$TMP/out err=$TMP/err re line cmd=()

	if [[ -n $name_re ]] && ! [[ $name =~ $name_re ]]; then return; fi
	if ((only_asan)) && [[ ${C[ASAN]:-no} != yes ]]; then return; fi
	for re in "${X_REQUIRES[@]}"; do
		# a check that says why (tests/progs/kcan) is shown by its words
		if ! line=$(bash -c "$re" </dev/null 2>/dev/null); then
			echo "SKIP $name (${line:-requires: $re})"
			((skipped++))
			return
		fi
	done
	if [[ -n ${C[@error]:-} ]]; then
		why+=("${C[@error]}")
	fi
	if [[ -n ${C[PROG]:-} && -n ${C[RUN]:-} ]] || [[ -z ${C[PROG]:-}${C[RUN]:-} ]]; then
		why+=("a case needs exactly one of PROG and RUN")
	fi
	: >"$out"
	: >"$err"
	if ((${#why[@]} == 0)); then
		for re in "${X_SETUP[@]}"; do
			if ! bash -c "$re" </dev/null >>"$out" 2>>"$err"; then
				why+=("SETUP failed: $re")
				break
			fi
		done
	fi
	if ((${#why[@]} == 0)) && [[ -n ${C[BEFORE]:-} ]]; then
		start_before "${C[BEFORE]}" || why+=("BEFORE did not start: ${C[BEFORE]}")
	fi
	if ((${#why[@]} == 0)); then
		# PROG is passed verbatim ($1, $x belong to the script); ARGS and RUN
		# are shell words, so quotes and $BEFORE_PID work there.
		if [[ -n ${C[PROG]:-} ]]; then
			eval "cmd=(\"\$PERF_RUN\" -e \"\${C[PROG]}\" ${C[ARGS]:-})" || why+=("bad ARGS")
		else
			eval "cmd=(\"\$PERF_RUN\" ${C[RUN]} ${C[ARGS]:-})" || why+=("bad RUN")
		fi
	fi
	if ((${#why[@]} == 0)) && [[ -n ${C[ENV]:-} ]]; then
		eval "cmd=(env ${C[ENV]} \"\${cmd[@]}\")" || why+=("bad ENV")
	fi
	if ((${#why[@]} == 0)); then
		local t0 t1 ms
		t0=$(date +%s%N)
		# The braces keep bash's own "Killed" notice out of the report.
		{
			timeout --preserve-status -s INT -k 5 "$timeout" "${cmd[@]}" \
				</dev/null >"$out" 2>"$err"
			status=$?
		} 2>/dev/null
		t1=$(date +%s%N)
		ms=$(((t1 - t0) / 1000000))
		stop_before
		if ((ms >= timeout * 1000 - 20)); then
			if [[ ${C[SIGINT]:-no} != yes ]]; then
				why+=("timed out after ${timeout} s (stopped with SIGINT)")
			fi
		fi
		if [[ $status != "${C[EXIT]:-0}" ]]; then
			why+=("exit status $status, expected ${C[EXIT]:-0}")
		fi
		# a pattern grep cannot read (status 2) would pass every _NONE check
		for re in "${X_EXPECT_REGEX[@]}" "${X_EXPECT_NONE[@]}" \
			  "${X_EXPECT_STDERR_REGEX[@]}" "${X_EXPECT_STDERR_NONE[@]}"; do
			grep -qE -- "$re" /dev/null 2>/dev/null; (($? == 2)) && why+=("not an ERE: $re")
		done
		for line in "${X_EXPECT[@]}"; do
			grep -qxF -- "$line" "$out" || why+=("missing line: $line")
		done
		for re in "${X_EXPECT_REGEX[@]}"; do
			grep -qE -- "$re" "$out" || why+=("no line matches: $re")
		done
		for re in "${X_EXPECT_NONE[@]}"; do
			if grep -qE -- "$re" "$out"; then
				why+=("line matches forbidden /$re/: $(grep -m1 -E -- "$re" "$out")")
			fi
		done
		for re in "${X_EXPECT_STDERR_REGEX[@]}"; do
			grep -qE -- "$re" "$err" || why+=("no stderr line matches: $re")
		done
		for re in "${X_EXPECT_STDERR_NONE[@]}"; do
			if grep -qE -- "$re" "$err"; then
				why+=("stderr line matches forbidden /$re/: $(grep -m1 -E -- "$re" "$err")")
			fi
		done
		for re in "${X_CHECK[@]}"; do
			bash -c "$re" </dev/null >/dev/null 2>&1 || why+=("CHECK failed: $re")
		done
	fi
	stop_before
	if ((${#why[@]} == 0)); then
		echo "PASS $name"
		((passed++))
		return
	fi
	echo "FAIL $name (${C[@loc]})"
	for line in "${why[@]}"; do
		echo "    - $line"
	done
	if ((${#cmd[@]})); then
		printf '    command:'
		printf ' %q' "${cmd[@]}"
		echo
	fi
	echo "    stdout:"
	indent "$out"
	echo "    stderr:"
	indent "$err"
	failures+=("$name")
	((failed++))
}

new_case() {
	C=()
	X_EXPECT=() X_EXPECT_REGEX=() X_EXPECT_NONE=() X_EXPECT_STDERR_REGEX=()
	X_EXPECT_STDERR_NONE=() X_REQUIRES=() X_SETUP=() X_CHECK=()
	started=0
}

declare -A C
for file in "$@"; do
	if [[ ! -f $file ]]; then
		echo "FAIL $file: no such file"
		((failed++))
		continue
	fi
	new_case
	lineno=0
	while IFS= read -r raw || [[ -n $raw ]]; do
		((lineno++))
		if [[ -z ${raw//[[:space:]]/} ]]; then
			((started)) && run_case
			new_case
			continue
		fi
		[[ $raw == \#* ]] && continue
		key=${raw%% *}
		val=${raw#"$key"}
		val=${val# }
		if ((!started)); then
			C[@loc]="$file:$lineno"
			started=1
		fi
		if [[ $MULTI == *" $key "* ]]; then
			eval "X_$key+=(\"\$val\")"
		elif [[ $SINGLE == *" $key "* ]]; then
			C[$key]=$val
		else
			C[@error]="$file:$lineno: unknown key '$key'"
		fi
	done <"$file"
	((started)) && run_case
done

if ((failed)); then
	(IFS=,; echo "failed runtime cases: ${failures[*]}")
fi
echo "$passed passed, $failed failed, $skipped skipped"
((failed == 0))
