#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# ustack.sh - cost of `@[ustack] = count()` per hit, from the kernel's own
# BPF statistics (kernel.bpf_stats_enabled: run_time_ns / run_cnt of the
# tracer's programs, in /proc/PID/fdinfo): perf-run's CFI unwinder, its
# frame-pointer walk (PERF_RUN_USTACK_FP=1, bpf_get_stackid), bpftrace
# 0.17's ustack, and `@[comm] = count()` as the floor, on funcD of
# tests/progs/unwind_o2 (-O2 without frame pointers, 8 frames) and on
# func of tests/progs/loop (frame pointers); then start-up with ustack,
# and start-up with the tables of libc and a 50 MB binary
# (tests/bench/bigcfi_gen.sh: 100,000 functions with CFI): table build
# time cold and from the cache, map memory (the kernel's memlock of the
# tracer's maps), and the time to "Attached" (perf-run) or "Attaching"
# (bpftrace, which prints it before it attaches) from outside, by
# build/bench/stamp, best of 5.
# Run as root from the top of the tree after `make test-build`; `ustack.sh hits`
# measures the costs per hit only.
set -uo pipefail
cd "$(dirname "$0")/../.."
PERF_RUN=${PERF_RUN:-build/perf-run}
old=$(sysctl -n kernel.bpf_stats_enabled)
trap 'sysctl -q kernel.bpf_stats_enabled=$old' EXIT
sysctl -q kernel.bpf_stats_enabled=1

# per_hit LABEL BIN FUNC CMD...: the tracer CMD -p PID with SCRIPT on BIN's FUNC
per_hit() {
	local label=$1 bin=$2 script=$3
	shift 3
	"$bin" 1000000000 2>/dev/null &
	local tp=$!
	sleep 0.2
	"$@" -p "$tp" -e "$script" >/dev/null 2>&1 &
	local rp=$!
	sleep 3
	local fd line=""
	for fd in /proc/$rp/fdinfo/*; do
		grep -q '^prog_type' "$fd" 2>/dev/null || continue
		line=$(awk '/run_time_ns/ { t = $2 } /run_cnt/ { c = $2 }
			END { if (c) printf "%d ns/hit (%d hits)", t / c, c }' "$fd")
		[[ -n $line ]] && break
	done
	kill -INT "$rp" 2>/dev/null; wait "$rp" 2>/dev/null
	kill "$tp" 2>/dev/null; wait "$tp" 2>/dev/null
	printf '%-40s %s\n' "$label" "${line:-n/a}"
}

o2=$PWD/tests/progs/unwind_o2 fp=$PWD/tests/progs/loop
s_o2="uprobe:$o2:funcD { @[ustack] = count(); }"
s_fp="uprobe:$fp:func { @[ustack] = count(); }"
per_hit "unwind_o2 comm (floor)" "$o2" "uprobe:$o2:funcD { @[comm] = count(); }" "$PERF_RUN" -q
per_hit "unwind_o2 ustack CFI (8 frames)" "$o2" "$s_o2" "$PERF_RUN" -q
per_hit "unwind_o2 ustack FP (1 frame)" "$o2" "$s_o2" env PERF_RUN_USTACK_FP=1 "$PERF_RUN" -q
per_hit "unwind_o2 ustack bpftrace" "$o2" "$s_o2" bpftrace
per_hit "loop ustack CFI" "$fp" "$s_fp" "$PERF_RUN" -q
per_hit "loop ustack FP" "$fp" "$s_fp" env PERF_RUN_USTACK_FP=1 "$PERF_RUN" -q
per_hit "loop ustack bpftrace" "$fp" "$s_fp" bpftrace
[[ ${1:-} == hits ]] && exit 0   # `ustack.sh hits`: the costs per hit alone

# start-up: the best of 5 "Attached ... in T ms", tables from the cache
startup() {
	local label=$1
	shift
	local best
	best=$(for _ in 1 2 3 4 5; do "$@" -- "$o2" 1 2>&1 |
		sed -n 's/^Attached 1 probe in \(.*\) ms$/\1/p'; done | sort -n | head -1)
	printf '%-40s %s ms\n' "$label" "${best:-n/a}"
}
startup "start-up, @[comm]" "$PERF_RUN" -e "uprobe:$o2:funcD { @[comm] = count(); }"
startup "start-up, ustack CFI" "$PERF_RUN" -e "$s_o2"
startup "start-up, ustack FP" env PERF_RUN_USTACK_FP=1 "$PERF_RUN" -e "$s_o2"
"$PERF_RUN" -v -e "$s_o2" -- "$o2" 1 2>&1 | grep 'unwind: [0-9]* objects'

# --- the 50 MB binary
big=$PWD/build/bench/bigcfi
if [[ ! -x $big ]]; then
	t0=$(date +%s.%N)
	sh tests/bench/bigcfi_gen.sh 100000 420 "$big" || exit 1
	printf 'generated %s (%d MB) in %.1f s\n' "$big" $(( $(stat -c %s "$big") >> 20 )) \
		"$(echo "$(date +%s.%N) - $t0" | bc)"
fi
stamp=build/bench/stamp
[[ -x $stamp ]] || gcc -std=gnu11 -O2 -Wall -Wextra -o "$stamp" tests/bench/stamp.c || exit 1
"$big" 1 100000 &
bp=$!
trap 'kill $bp 2>/dev/null; sysctl -q kernel.bpf_stats_enabled=$old' EXIT
sleep 0.2
s_big="uprobe:$big:big_leaf { @[ustack] = count(); }"

# the tables: cold (a new ctime is a new cache key) and from the cache
touch "$big"
cold=$("$PERF_RUN" -v -p "$bp" -e "$s_big" --dry-run 2>&1 | grep 'unwind: [0-9]* objects')
warm=$("$PERF_RUN" -v -p "$bp" -e "$s_big" --dry-run 2>&1 | grep 'unwind: [0-9]* objects')
echo "tables of $(basename "$big") ($(( $(stat -c %s "$big") >> 20 )) MB) + libc + ld.so, cold:  ${cold#perf-run: unwind: }"
echo "tables, from the cache:                          ${warm#perf-run: unwind: }"

# memlock of every map the tracer holds, once it has attached
map_kb() {
	"$@" >/dev/null 2>&1 &
	local rp=$! kb=""
	for _ in $(seq 100); do
		sleep 0.1
		grep -q '^prog_type' /proc/$rp/fdinfo/* 2>/dev/null && break
	done
	sleep 0.5
	kb=$(cat /proc/$rp/fdinfo/* 2>/dev/null | awk '/^memlock:/ { m += $2 } END { print int(m / 1024) }')
	kill -INT $rp 2>/dev/null
	for _ in $(seq 50); do kill -0 $rp 2>/dev/null || break; sleep 0.1; done
	kill -KILL $rp 2>/dev/null; wait $rp 2>/dev/null
	echo "${kb:-n/a}"
}
printf '%-40s %s KB\n' "maps, ustack CFI (50 MB binary)" "$(map_kb "$PERF_RUN" -q -p "$bp" -e "$s_big")"
printf '%-40s %s KB\n' "maps, ustack FP" "$(map_kb env PERF_RUN_USTACK_FP=1 "$PERF_RUN" -q -p "$bp" -e "$s_big")"
printf '%-40s %s KB\n' "maps, bpftrace ustack" "$(map_kb bpftrace -p "$bp" -e "$s_big")"

# start-up, best of 5, timed by stamp to the tool's attach line
big_startup() {
	local label=$1 runs=$2
	shift 2
	local best
	best=$(for _ in $(seq "$runs"); do
		[[ $label == *cold* ]] && touch "$big"
		"$stamp" -m Attach -s 2 -d 1000 -t 60 -- "$@" 2>/dev/null | sed -n 's/.*attach_ms=\([0-9.]*\).*/\1/p'
	done | sort -n | head -1)
	printf '%-40s %s ms\n' "$label" "${best:-n/a}"
}
big_startup "50 MB: start-up, @[comm] (no tables)" 5 "$PERF_RUN" -p "$bp" -e "uprobe:$big:big_leaf { @[comm] = count(); }"
big_startup "50 MB: start-up, ustack CFI, cold" 3 "$PERF_RUN" -p "$bp" -e "$s_big"
big_startup "50 MB: start-up, ustack CFI, cached" 5 "$PERF_RUN" -p "$bp" -e "$s_big"
big_startup "50 MB: start-up, ustack FP" 5 env PERF_RUN_USTACK_FP=1 "$PERF_RUN" -p "$bp" -e "$s_big"
big_startup "50 MB: start-up, bpftrace ustack" 5 bpftrace -p "$bp" -e "$s_big"
