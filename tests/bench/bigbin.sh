#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# bigbin.sh - big binaries (issue 31), in one run, as ratios:
#  - attach time of `profile:hz:99 { @[ustack] = count(); }` with -p PID on
#    a running clang-19 (/usr/lib/llvm-19/bin/clang reading C++ from stdin
#    and waiting: it maps libclang-cpp.so.19.1, 70 MB, and libLLVM.so.19.1,
#    130 MB; 3 million rows of unwind tables): perf-run cold (an empty
#    object cache, where the rows are cached: a new $XDG_CACHE_HOME each
#    run, so its BPF object is compiled afresh too, as on a first run) and
#    cached (a second run), bpftrace 0.17 (to its "Attaching" line, which
#    it prints before it attaches) and `perf record --call-graph dwarf -p
#    PID` (to its PERF_RECORD_FINISHED_INIT: events open, mappings
#    synthesized, about to record; tests/bench/perfinit.c);
#  - `uprobe:/lib/x86_64-linux-gnu/libc.so.6:* { @ = count(); }` with
#    -c "build/bench/loop 1000": the time until the command runs (each
#    tool holds it until its probes are live; loop.c writes stamp_now=MS
#    as it starts), perf-run (with the count of functions it skips: a
#    first instruction no uprobe can sit on) and bpftrace (which prints
#    its "Attaching" line before it attaches its 7,000 uprobes one by one).
# Each time is from outside, by build/bench/stamp, to the tool's line;
# median and min-max of BIGBIN_RUNS (5; cold: 3; libc: BIGBIN_LIBC_RUNS, 1).
# Run as root from the top of the tree.
set -uo pipefail
cd "$(dirname "$0")/../.."
PERF_RUN=${PERF_RUN:-build/perf-run}
RUNS=${BIGBIN_RUNS:-5}
LIBC_RUNS=${BIGBIN_LIBC_RUNS:-1}
TMO=${BIGBIN_TIMEOUT:-300}
CLANG=/usr/lib/llvm-19/bin/clang
LIBC=/lib/x86_64-linux-gnu/libc.so.6
B=build/bench
W=$(mktemp -d /tmp/perf-run-bigbin.XXXXXX)
tp=""
UE=/sys/kernel/tracing/uprobe_events
# bpftrace 0.17 leaves a tracefs uprobe (uprobes/..._bcc_PID) for a libc
# function it fails to attach: the events it made (its pid gone, not
# there when this began) are taken out, and no one else's.
bcc_before=$(grep -o '_bcc_[0-9]*$' "$UE" 2>/dev/null)
drop_bcc_leftovers() {
	local ev pid
	for ev in $(sed -n 's/^[pr]:uprobes\/\([^ ]*_bcc_[0-9]*\) .*/\1/p' "$UE" 2>/dev/null); do
		pid=${ev##*_bcc_}
		grep -qx "_bcc_$pid" <<<"$bcc_before" && continue
		kill -0 "$pid" 2>/dev/null && continue
		echo "-:uprobes/$ev" >>"$UE"
	done
}
cleanup() {
	[[ -n $tp ]] && kill "$tp" 2>/dev/null
	drop_bcc_leftovers
	rm -rf "$W"
}
trap cleanup EXIT

[[ -x $CLANG ]] || { echo "bigbin: $CLANG not installed (make deps): skipped"; exit 0; }
mkdir -p $B
gcc -std=gnu11 -O2 -Wall -Wextra -o $B/stamp tests/bench/stamp.c || exit 1
gcc -std=gnu11 -O2 -Wall -Wextra -o $B/perfinit tests/bench/perfinit.c || exit 1
gcc -std=gnu11 -O2 -g -Wall -Wextra -o $B/loop tests/bench/loop.c || exit 1
export BPFTRACE_MAX_PROBES=100000   # bpftrace 0.17 refuses past 512

# the traced clang: waits on a FIFO that nobody writes
mkfifo "$W/in"
"$CLANG" -x c++ -c -o /dev/null - <"$W/in" &
tp=$!
exec 9>"$W/in"   # the writer: clang blocks in read(), all of it mapped
sleep 0.5
kill -0 "$tp" 2>/dev/null || { echo "bigbin: clang did not start"; exit 1; }
mb=$(awk '$2 ~ /x/ && $6 ~ /^\// { print $6 }' /proc/$tp/maps | sort -u | xargs stat -L -c %s |
	awk '{ s += $1 } END { printf "%d", s / 1048576 }')
echo "traced: clang-19, pid $tp, $mb MB of executable files mapped"

PROF='profile:hz:99 { @[ustack] = count(); }'
# one LABEL TOOL CMD...: the attach time of one run into $W/s.LABEL.TOOL.
# Stopped 300 ms after its line by SIGINT; bpftrace by SIGKILL, since it
# prints its line before it attaches and a SIGINT that comes while it
# attaches can be lost (it then waits for ever).
one() {
	local label=$1 tool=$2 sig=2
	shift 2
	[[ $tool == bpftrace ]] && sig=9
	"$B/stamp" -m "${PAT:-Attach}" -s $sig -d 300 -t "$TMO" -e "$W/err" -- "$@" >"$W/res" 2>/dev/null
	local v
	v=$(sed -n 's/.*'"${FIELD:-attach_ms}"'=\([-0-9.]*\).*/\1/p' "$W/res")
	if [[ -z $v || $v == -1.000 ]]; then
		echo "$label $tool: no attach line; it exited after $(sed -n 's/.*total_ms=\([0-9.]*\).*/\1/p' \
			"$W/res") ms: $(grep -v RLIMIT "$W/err" | tail -1 | cut -c1-110)" >>"$W/why"
		return 1
	fi
	echo "$v" >>"$W/s.$label.$tool"
}

for ((i = 0; i < ${BIGBIN_COLD_RUNS:-3}; i++)); do
	mkdir -p "$W/cold$i"
	XDG_CACHE_HOME=$W/cold$i one ustack_cold perf-run "$PERF_RUN" -p "$tp" -e "$PROF"
	# the progress line of the first run, for the record
	[[ $i == 0 ]] && tr '\r' '\n' <"$W/err" | grep -a -e 'building the unwind' -e 'built the unwind' >"$W/progress"
done
mkdir -p "$W/warm"
XDG_CACHE_HOME=$W/warm "$PERF_RUN" -q -p "$tp" -e "$PROF" --dry-run >/dev/null 2>&1
for ((i = 0; i < RUNS; i++)); do
	XDG_CACHE_HOME=$W/warm one ustack_cached perf-run "$PERF_RUN" -p "$tp" -e "$PROF"
	one ustack bpftrace bpftrace -p "$tp" -e "$PROF"
	one ustack perf "$B/perfinit" record --call-graph dwarf -p "$tp"
done
for ((i = 0; i < LIBC_RUNS; i++)); do
	PAT=stamp_now FIELD=release_ms one libc perf-run "$PERF_RUN" -e "uprobe:$LIBC:* { @ = count(); }" \
		-c "$PWD/$B/loop 1000" && grep -a -m1 'skipped' "$W/err" >"$W/skipped"
	PAT=stamp_now FIELD=release_ms one libc bpftrace bpftrace -e "uprobe:$LIBC:* { @ = count(); }" \
		-c "$PWD/$B/loop 1000"
done

# med LABEL TOOL: "median min max" of the samples, or nothing
med() {
	[[ -s $W/s.$1.$2 ]] || return 0
	sort -g "$W/s.$1.$2" | awk '{ v[NR] = $1 } END {
		printf "%.1f %.1f %.1f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, v[1], v[NR] }'
}
# row LABEL TOOL BASE_LABEL: median [min-max], and perf-run's BASE_LABEL / this
row() {
	local m pr ratio=""
	m=$(med "$1" "$2")
	if [[ -z $m ]]; then
		printf '%-36s %-9s %12s\n' "attach.$1" "$2" "n/a"
		return
	fi
	read -r a lo hi <<<"$m"
	if [[ $2 != perf-run ]]; then
		for l in $3; do
			pr=$(med "$l" perf-run)
			[[ -n $pr ]] && ratio+=$(awk -v p="${pr%% *}" -v o="$a" -v l="$l" \
				'BEGIN { printf "%s %.3g  ", l, p / o }')
		done
	fi
	printf '%-36s %-9s %9s ms %22s  %s\n' "attach.$1" "$2" "$a" "[$lo - $hi]" "$ratio"
}
echo
printf '%-36s %-9s %12s %22s  %s\n' metric tool median min-max "perf-run/tool"
row ustack_cold perf-run
row ustack_cached perf-run
row ustack bpftrace "ustack_cold ustack_cached"
row ustack perf "ustack_cold ustack_cached"
row libc perf-run
row libc bpftrace libc
[[ -s $W/progress ]] && { echo "first (cold) run's progress on stderr:"; sed 's/^/  /' "$W/progress"; }
[[ -s $W/skipped ]] && { echo "uprobe:libc:*:"; sed 's/^/  /' "$W/skipped"; }
[[ -s $W/why ]] && { echo "failed runs:"; sed 's/^/  /' "$W/why"; }
exit 0
