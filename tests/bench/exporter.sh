#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# exporter.sh - what --listen costs: the same script on the same workload,
# plain and with --listen scraped every 100 ms (curl, a new connection each
# time), BENCH_RUNS runs each (median [min-max]):
#   ns/hit       (CPU ns of build/bench/loop N traced - untraced) / N: the
#                probe's cost in the traced process (an untraced run before
#                each traced one)
#   CPU ms/s     perf-run's own user+system CPU (/proc/PID/stat) per second
#                of the run: reading the maps for the scrapes
#   RSS KB       perf-run's peak RSS (VmHWM) before it is stopped
#   scrape ms    curl's time_total per scrape, median and max; body KB
# on two scripts: `@c = count(); @h = hist(arg0)` (a few series), and
# `@k[arg0 % 10000] = count()` (10,000 keys: --max-series's default).
# Then the ring buffer: printf records at a paced rate (getppid() of
# `loop N R sys`) beside a 10,000-key map, plain and scraped every 100 ms
# (a scrape of it reads the maps for tens of ms, in the loop that reads the
# records): the records printed and perf-run's own loss count.
# Run as root from the top of the tree after `make progs` and the bench
# helpers (`make bench` runs it after its table).
# Environment: BENCH_RUNS (5), BENCH_EXPORTER_HITS (500000),
# BENCH_EXPORTER_EVENTS (1000000), BENCH_EXPORTER_RATE (200000 a second), PERF_RUN.
set -uo pipefail
cd "$(dirname "$0")/../.."
PERF_RUN=${PERF_RUN:-build/perf-run}
RUNS=${BENCH_RUNS:-5}
N=${BENCH_EXPORTER_HITS:-500000}
LOOP=$PWD/build/bench/loop
LOG=build/bench/exporter.log
W=$(mktemp -d /tmp/perf-run-bench-exp.XXXXXX)
pr= scraper=
cleanup() {
	[[ -n $scraper ]] && kill "$scraper" 2>/dev/null
	[[ -n $pr ]] && kill -INT "$pr" 2>/dev/null && wait "$pr" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for need in "$LOOP" curl; do
	command -v "$need" >/dev/null || { echo "exporter.sh: $need is missing: n/a"; exit 0; }
done
if ! "$PERF_RUN" --listen 127.0.0.1:0 --dump ast -e 'BEGIN { }' >/dev/null 2>&1; then
	echo "exporter.sh: $PERF_RUN has no --listen: n/a"
	exit 0
fi
: >"$LOG"

ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null; }
hwm() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status" 2>/dev/null; }
now_ms() { date +%s%3N; }
stat3() {   # median min max of the numbers on stdin
	sort -g | awk '{ v[NR] = $1 } END { if (!NR) { print "n/a"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.6g [%.6g-%.6g]\n", m, v[1], v[NR] }'
}

# started MODE: waits until perf-run ($W/pr.err) is attached (and, with
# --listen, says where it serves), prints the URL.
started() {
	local line='^Attached'
	[[ $1 == listen ]] && line='^perf-run: serving metrics at '
	for _ in $(seq 300); do
		grep -q "$line" "$W/pr.err" && break
		sleep 0.05
	done
	sed -n 's/^perf-run: serving metrics at //p' "$W/pr.err"
}

# one SCRIPT MODE: one run; appends to $W/{nshit,cpu,rss,scr,body}.MODE
one() {
	local script=$1 mode=$2 base v t0 c0 c1 t1 url=
	"$LOOP" "$N" >/dev/null 2>"$W/err"
	base=$(sed -n 's/^loop_cpu_ns=//p' "$W/err")
	local -a args=(-e "$script")
	[[ $mode == listen ]] && args+=(--listen 127.0.0.1:0)
	BPFTRACE_MAX_MAP_KEYS=10240 "$PERF_RUN" "${args[@]}" >/dev/null 2>"$W/pr.err" &
	pr=$!
	url=$(started "$mode")
	if [[ $mode == listen ]]; then
		( while :; do
			curl -s -o /dev/null -w '%{time_total} %{size_download}\n' "$url" >>"$W/scrapes"
			sleep 0.1
		  done ) &
		scraper=$!
	fi
	t0=$(now_ms) c0=$(ticks "$pr")
	"$LOOP" "$N" >/dev/null 2>"$W/err"
	sleep 1   # scraped a while after the last hit too
	t1=$(now_ms) c1=$(ticks "$pr")
	echo "$(hwm "$pr")" >>"$W/rss.$mode"
	if [[ -n $scraper ]]; then
		kill "$scraper" 2>/dev/null
		wait "$scraper" 2>/dev/null
		scraper=
	fi
	kill -INT "$pr"
	wait "$pr"
	pr=
	v=$(sed -n 's/^loop_cpu_ns=//p' "$W/err")
	echo "$mode: loop cpu traced $v untraced $base; perf-run ticks $c0..$c1 in $((t1 - t0)) ms" >>"$LOG"
	awk -v a="$v" -v b="$base" -v n="$N" 'BEGIN { printf "%.1f\n", (a - b) / n }' >>"$W/nshit.$mode"
	awk -v c=$((c1 - c0)) -v hz="$(getconf CLK_TCK)" -v ms=$((t1 - t0)) \
		'BEGIN { printf "%.1f\n", c * 1000 / hz / (ms / 1000) }' >>"$W/cpu.$mode"
}

bench() {
	local label=$1 script=$2 mode i
	rm -f "$W"/*.plain "$W"/*.listen "$W/scrapes"
	for ((i = 0; i < RUNS; i++)); do
		for mode in plain listen; do
			one "$script" "$mode"
		done
	done
	for mode in plain listen; do
		local scr="-" body="-" rate="-"
		if [[ $mode == listen && -s $W/scrapes ]]; then
			scr="$(awk '{ print $1 * 1000 }' "$W/scrapes" | sort -g | awk '{ v[NR] = $1 }
				END { printf "%.2f / %.2f", v[int((NR + 1) / 2)], v[NR] }')"
			body=$(awk '{ s += $2 } END { printf "%.1f", s / NR / 1024 }' "$W/scrapes")
			rate=$(wc -l <"$W/scrapes")
		fi
		printf '%-22s %-7s %-22s %-20s %-24s %-7s %-16s %s\n' "$label" "$mode" \
			"$(stat3 <"$W/nshit.$mode")" "$(stat3 <"$W/cpu.$mode")" \
			"$(stat3 <"$W/rss.$mode")" "$rate" "$scr" "$body"
	done
}

echo "--listen against plain: $N hits of uprobe loop:hit per run, $RUNS runs, scraped every 100 ms"
printf '%-22s %-7s %-22s %-20s %-24s %-7s %-16s %s\n' script mode "ns/hit" "CPU ms/s" "RSS KB" \
	scrapes "scrape ms med/max" "body KB"
bench "count+hist" "uprobe:$LOOP:hit { @c = count(); @h = hist(arg0); }"
bench "10000 keys" "uprobe:$LOOP:hit { @k[arg0 % 10000] = count(); }"

# flood MODE: printf records at a paced rate while a 10,000-key map is
# scraped (MODE listen) or not: the records that reached stdout and the
# loss perf-run reported, one line.
flood() {
	local mode=$1 url= got lost
	local -a args=(-e "tracepoint:syscalls:sys_enter_getppid /comm == \"loop\"/ { @k[nsecs % 10000] = count(); printf(\"%d\\n\", 1); }")
	[[ $mode == listen ]] && args+=(--listen 127.0.0.1:0)
	rm -f "$W/lines"
	BPFTRACE_MAX_MAP_KEYS=10240 "$PERF_RUN" "${args[@]}" 2>"$W/pr.err" \
		> >(grep -c '^1$' >"$W/lines.tmp"; mv "$W/lines.tmp" "$W/lines") &
	pr=$!
	url=$(started "$mode")
	if [[ $mode == listen ]]; then
		( while :; do curl -s -o /dev/null "$url"; sleep 0.1; done ) &
		scraper=$!
	fi
	"$LOOP" "$FLOOD_N" "$FLOOD_RATE" sys >/dev/null 2>&1
	sleep 1
	if [[ -n $scraper ]]; then
		kill "$scraper" 2>/dev/null
		wait "$scraper" 2>/dev/null
		scraper=
	fi
	kill -INT "$pr" 2>/dev/null
	wait "$pr"
	pr=
	for _ in $(seq 100); do [[ -f $W/lines ]] && break; sleep 0.1; done
	got=$(cat "$W/lines" 2>/dev/null)
	lost=$(sed -n 's/^\([0-9]*\) events lost$/\1/p' "$W/pr.err")
	printf '%-22s %-7s %s of %s records printed, %s lost (perf-run says)\n' "printf flood" "$mode" \
		"$got" "$FLOOD_N" "${lost:-0}"
}
FLOOD_N=${BENCH_EXPORTER_EVENTS:-1000000}
FLOOD_RATE=${BENCH_EXPORTER_RATE:-200000}
echo
pace="at $FLOOD_RATE/s"
[[ $FLOOD_RATE == 0 ]] && pace="as fast as the loop calls getppid()"
echo "ring buffer records while a 10,000-key map is scraped every 100 ms: printf $pace"
flood plain
flood listen
echo "(details: $LOG)"
