#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# completion.sh - the bash completion of perf-run (perf-plugin/perf-run.bash):
# it registers itself (complete -p), completes options, -f and --dump
# values, and probe names after -e and -l from what `perf-run -l` prints,
# both from COMP_WORDS and, as bash really calls it, from COMP_LINE with
# the word split at ':'.  Last line: `N passed, N failed, N skipped`.
set -uo pipefail

cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
PATH=$PWD/$BUILD:$PATH
passed=0 failed=0

# CASE NAME EXPECTED WORDS...: completes the last of WORDS
words() {
	local name=$1 want=$2 got
	shift 2
	got=$(bash -c 'source perf-plugin/perf-run.bash
		COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _perf_run
		echo "${COMPREPLY[*]}"' _ "$@")
	if [[ $got == "$want" ]]; then echo "PASS $name"; ((passed++))
	else echo "FAIL $name: got '$got', want '$want'"; ((failed++)); fi
}
# LINE NAME EXPECTED LINE: completes the end of LINE as bash does
line() {
	local name=$1 want=$2 got
	got=$(bash -c 'source perf-plugin/perf-run.bash
		COMP_LINE=$1; COMP_POINT=${#1}; _perf_run; echo "${COMPREPLY[*]}"' _ "$3")
	if [[ $got == "$want" ]]; then echo "PASS $name"; ((passed++))
	else echo "FAIL $name: got '$got', want '$want'"; ((failed++)); fi
}

reg=$(bash -c 'source perf-plugin/perf-run.bash; complete -p perf-run')
if [[ $reg == 'complete -F _perf_run perf-run' ]]; then echo "PASS complete -p perf-run"; ((passed++))
else echo "FAIL complete -p perf-run: '$reg'"; ((failed++)); fi

words "long options" "--verbose --version" perf-run --ver
words "-f values" "folded folded-perf" perf-run -f fo
words "-f values p" "perf pprof" perf-run -f p
words "--dump values" "probes" perf-run --dump pr
words "-x and --exec are options" "--exec" perf-run --exe
# after -x, the files compgen -f offers (the binary), from the tree's top
words "-x: a file name" "$(compgen -f -- perf-plugin/perf-run. | paste -sd ' ')" \
	perf-run -x perf-plugin/perf-run.
# expected: the names `perf-run -l` lists, filtered by grep, not by the completion
want=$(perf-run -l 2>/dev/null | grep '^tracepoint:sched:sched_process_e' | paste -sd ' ')
words "-e: tracepoint names from perf-run -l" "$want" perf-run -e tracepoint:sched:sched_process_e
words "-l: software events" "$(perf-run -l 2>/dev/null | grep '^software:cpu-c' | paste -sd ' ')" \
	perf-run -l software:cpu-c
words "-e after an opening quote keeps the quote" "'software:cpu-clock" perf-run -e "'software:cpu-c"
line "COMP_LINE: the part after the last ':' (bash splits there)" \
	"$(perf-run -l 2>/dev/null | sed -n 's/^tracepoint:sched:\(sched_process_e.*\)/\1/p' | paste -sd ' ')" \
	"perf-run -e tracepoint:sched:sched_process_e"
[[ -n $want ]] || { echo "FAIL perf-run -l lists no sched_process_e* tracepoint"; ((failed++)); }

echo "$passed passed, $failed failed, 0 skipped"
((failed == 0))
