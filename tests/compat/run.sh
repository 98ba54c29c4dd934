#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# compat/run.sh - runs every program of tests/compat/*.compat under
# bpftrace 0.17 and under perf-run on the same workload, and compares what
# they print; then starts each of bpftrace's tools (/usr/sbin/*.bt, run from
# there) under both and compares whether it runs and its first line.
#
#   tests/compat/run.sh [-k REGEX] [-t] [FILE.compat ...]
#     -k REGEX  only the programs whose NAME matches REGEX
#     -t        only the tools
#   PERF_RUN    the binary under test (default build/perf-run)
#   BPFTRACE    the reference (default bpftrace)
#   TOOL_CMD    the -c command the tools run with (default /usr/bin/sleep 1)
#
# A case is NAME, one or more PROG lines (joined by newlines), and optional
# CMD (the -c command), ARGS (positional parameters), OPTS (options given
# to both, e.g. -f json), SORT yes (compare the
# lines sorted: for maps whose entries tie), TIMEOUT (seconds, default 10),
# and SIGINT N (stop both after N seconds, for programs without exit()).
# EXPECT lines (one per output line) mark a feature of newer bpftrace
# (0.18 and later), which 0.17 has no output for: the case runs under
# perf-run only and is compared with EXPECT, the output newer bpftrace's
# documentation gives (DOCSAME/DOCDIFF, counted apart as `newer: N same of M`).
# Only the attach banners ("Attaching N probes...", "Attached N probes in
# T ms"), bpftrace's RLIMIT_MEMLOCK warning, trailing empty lines and, with
# -f json, the empty lines bpftrace writes among its JSON are removed
# before comparing.
# Prints SAME/DIFF/BOTHFAIL/REFFAIL per case and `compat: N same of M`, M
# being the programs bpftrace runs; exits 0 (it measures, it does not gate).
set -uo pipefail

PERF_RUN=${PERF_RUN:-build/perf-run}
tool_cmd=${TOOL_CMD:-/usr/bin/sleep 1}
BPFTRACE=${BPFTRACE:-bpftrace}
name_re= tools_only=0
while getopts k:t opt; do
	case $opt in
	k) name_re=$OPTARG ;;
	t) tools_only=1 ;;
	*) echo "usage: $0 [-k REGEX] [-t] [FILE.compat ...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
command -v "$BPFTRACE" >/dev/null || { echo "compat: $BPFTRACE is not installed (make deps installs it)" >&2; exit 1; }

TMP=$(mktemp -d /tmp/perf-run-compat.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
same=0 total=0 reffail=0 bothfail=0 docsame=0 doctotal=0
declare -a diffs=()

normalise() {
	grep -v -E '^Attaching [0-9]+ probes?\.\.\.$|^Attached [0-9]+ probes? in [0-9.]+ ms$|RLIMIT_MEMLOCK' "$1" |
		sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$1.n"
	# bpftrace writes two empty lines among its JSON at exit; perf-run
	# keeps every JSON line an object (docs/bpftrace-compat.md)
	if [[ $opts == *json* ]]; then sed -i '/^$/d' "$1.n"; fi
	if [[ $sort == yes ]]; then LC_ALL=C sort -o "$1.n" "$1.n"; fi
}

# run TOOL OUT: runs the current case under TOOL; stdout to OUT, stderr to OUT.err.
run_one() {
	local tool=$1 out=$2 rc
	local -a cmd=("$tool")
	# shellcheck disable=SC2206
	[[ -n $opts ]] && cmd+=($opts)
	[[ -n $ccmd ]] && cmd+=(-c "$ccmd")
	cmd+=("$TMP/prog.bt")
	# shellcheck disable=SC2206
	[[ -n $args ]] && cmd+=($args)
	if [[ -n $sigint ]]; then
		timeout -s INT -k 5 "$sigint" "${cmd[@]}" </dev/null >"$out" 2>"$out.err"
	else
		timeout -k 5 "$tmo" "${cmd[@]}" </dev/null >"$out" 2>"$out.err"
	fi
	rc=$?
	[[ -n $sigint && $rc == 124 ]] && rc=0
	echo "$rc" >"$out.rc"
}

# A newer feature: perf-run's output against the documented one (EXPECT).
run_doc_case() {
	printf '%s\n' "$expect" >"$TMP/ref"
	run_one "$PERF_RUN" "$TMP/our"
	normalise "$TMP/ref"
	normalise "$TMP/our"
	doctotal=$((doctotal + 1))
	if [[ $(<"$TMP/our.rc") == 0 ]] && cmp -s "$TMP/ref.n" "$TMP/our.n"; then
		echo "DOCSAME  $name"; docsame=$((docsame + 1))
		return 0
	fi
	echo "DOCDIFF  $name (perf-run exit $(<"$TMP/our.rc"))"
	diff "$TMP/ref.n" "$TMP/our.n" | head -n 12 | sed 's/^/    | /'
	head -n 3 "$TMP/our.err" | sed 's/^/    ! /'
}

run_case() {
	[[ -n $name ]] || return 0
	if [[ -n $name_re ]] && ! [[ $name =~ $name_re ]]; then return 0; fi
	printf '%s\n' "$prog" >"$TMP/prog.bt"
	if ((has_expect)); then run_doc_case; return 0; fi
	run_one "$BPFTRACE" "$TMP/ref"
	run_one "$PERF_RUN" "$TMP/our"
	normalise "$TMP/ref"
	normalise "$TMP/our"
	local rrc orc
	rrc=$(<"$TMP/ref.rc") orc=$(<"$TMP/our.rc")
	if [[ $rrc != 0 ]] || grep -v RLIMIT_MEMLOCK "$TMP/ref.err" | grep -q '^ERROR'; then
		if [[ $orc != 0 ]]; then
			echo "BOTHFAIL $name"; bothfail=$((bothfail + 1))
		else
			echo "REFFAIL  $name (bpftrace: $(grep -v RLIMIT "$TMP/ref.err" | head -1))"; reffail=$((reffail + 1))
		fi
		return 0
	fi
	total=$((total + 1))
	if [[ $orc == 0 ]] && cmp -s "$TMP/ref.n" "$TMP/our.n"; then
		echo "SAME     $name"; same=$((same + 1))
		return 0
	fi
	echo "DIFF     $name (perf-run exit $orc)"
	diffs+=("$name")
	diff "$TMP/ref.n" "$TMP/our.n" | head -n 12 | sed 's/^/    | /'
	head -n 3 "$TMP/our.err" | sed 's/^/    ! /'
}

run_file() {
	local line key val
	name= prog= ccmd= args= opts= sort=no tmo=10 sigint= expect= has_expect=0
	while IFS= read -r line || [[ -n $line ]]; do
		[[ $line =~ ^# ]] && continue
		if [[ -z $line ]]; then
			run_case
			name= prog= ccmd= args= opts= sort=no tmo=10 sigint= expect= has_expect=0
			continue
		fi
		key=${line%% *} val=${line#* }
		case $key in
		NAME) name=$val ;;
		PROG) prog+=${prog:+$'\n'}$val ;;
		CMD) ccmd=$val ;;
		ARGS) args=$val ;;
		OPTS) opts=$val ;;
		SORT) sort=$val ;;
		TIMEOUT) tmo=$val ;;
		SIGINT) sigint=$val ;;
		EXPECT)
			[[ $line == EXPECT ]] && val=
			if ((has_expect)); then expect+=$'\n'$val; else expect=$val has_expect=1; fi ;;
		*) echo "$1: unknown key '$key'" >&2 ;;
		esac
	done <"$1"
	run_case
}

# Tools: each run under both with -c "$TOOL_CMD" (default a one-second
# sleep), so that both end when it does, however long the start took
# (bpftrace 0.17 takes up to 20 s here to start some tools). Compared:
# whether it ran (exit 0, no error), its first line (the header its BEGIN
# prints) and how many empty lines end the output (the maps printed at
# exit: an empty map is an empty line).
run_tools() {
	local f t ran_ref=0 ran_both=0 sameh=0 n=0
	for f in /usr/sbin/*.bt; do
		t=$(basename "$f")
		if [[ -n $name_re ]] && ! [[ $t =~ $name_re ]]; then continue; fi
		n=$((n + 1))
		timeout -s INT -k 5 60 "$BPFTRACE" "$f" -c "$tool_cmd" </dev/null >"$TMP/tr" 2>"$TMP/tr.err"
		local rr=$? orr
		timeout -s INT -k 5 60 "$PERF_RUN" "$f" -c "$tool_cmd" </dev/null >"$TMP/to" 2>"$TMP/to.err"
		orr=$?
		[[ $rr == 124 ]] && rr=0
		[[ $orr == 124 ]] && orr=0
		grep -v RLIMIT_MEMLOCK "$TMP/tr.err" | grep -q '^ERROR' && rr=1
		if [[ $rr != 0 ]]; then
			printf 'TOOL %-18s bpftrace fails here (%s)\n' "$t" "$(grep -v RLIMIT "$TMP/tr.err" | grep -E 'ERROR|error' | head -1)"
			continue
		fi
		ran_ref=$((ran_ref + 1))
		if [[ $orr != 0 ]]; then
			printf 'TOOL %-18s perf-run fails: %s\n' "$t" "$(head -1 "$TMP/to.err")"
			continue
		fi
		ran_both=$((ran_both + 1))
		local hr ho er eo
		hr=$(grep -v '^Attaching' "$TMP/tr" | head -1) ho=$(head -1 "$TMP/to")
		er=$(tac "$TMP/tr" | awk 'NF { exit } { n++ } END { print n + 0 }')
		eo=$(tac "$TMP/to" | awk 'NF { exit } { n++ } END { print n + 0 }')
		if [[ $hr == "$ho" && $er == "$eo" ]]; then
			sameh=$((sameh + 1))
			printf 'TOOL %-18s runs, same header and end\n' "$t"
		elif [[ $hr == "$ho" ]]; then
			printf 'TOOL %-18s runs, end differs: %s empty lines | %s\n' "$t" "$er" "$eo"
		else
			printf 'TOOL %-18s runs, header differs: %s | %s\n' "$t" "$hr" "$ho"
		fi
	done
	echo "tools: perf-run runs $ran_both of the $ran_ref that bpftrace runs here ($n tools), $sameh with the same first line and end"
}

files_given=$#
(($#)) || set -- tests/compat/*.compat
if ((!tools_only)); then
	for f in "$@"; do run_file "$f"; done
	echo "compat: $same same of $total ($bothfail fail under both, $reffail run only under perf-run)"
	((doctotal)) && echo "newer: $docsame same of $doctotal (newer bpftrace's features, against their documented output)"
fi
if ((tools_only)) || [[ -z $name_re && $files_given == 0 ]]; then run_tools; fi
exit 0
