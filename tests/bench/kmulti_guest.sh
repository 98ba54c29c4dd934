#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# kmulti_guest.sh - runs inside the qemu guest (tests/bench/kmulti.sh boots
# it): attach and detach times of one kprobe wildcard of ~400 kernel
# functions (KMULTI_PATTERN, default tcp_*: 388 on 6.12) through one kprobe_multi link,
# through one kprobe per function (PERF_RUN_KPROBE_MULTI=0), with bpftrace
# 0.17, and `perf probe -a`, `perf stat` and `perf probe -d` of the same
# functions (see measure_perf_probe), as ratios.  Timed from outside by build/bench/stamp, as tests/bench/run.sh
# times tracers: attach is when the traced `loop 0` started (both tracers
# hold it until every probe is live), detach is from then to the tracer's
# exit (the loop calls nothing).  Each tool is also run on one function
# (KMULTI_BASE, tcp_v4_connect), and its times subtracted: start-up
# (compiling, loading) is not attaching, and under TCG perf-run's LLVM
# start-up alone is seconds.  Under TCG every number is several times a
# real machine's; the ratios are what compare.
#
# Environment: KMULTI_PATTERN (tcp_*), KMULTI_BASE (tcp_v4_connect),
# KMULTI_RUNS (3), KMULTI_PERF_RUNS (1, perf probe's runs), KMULTI_TIMEOUT
# (900 s a run), PERF_RUN (set by tests/kernel/guest.sh).
set -u
B=build/bench
PAT=${KMULTI_PATTERN:-tcp_*}
RUNS=${KMULTI_RUNS:-3}
BASE=${KMULTI_BASE:-tcp_v4_connect}
TMO=${KMULTI_TIMEOUT:-900}
PR=${PERF_RUN:-build/perf-run}
W=$(mktemp -d /tmp/kmulti.XXXXXX)
PROG="kprobe:$PAT { @ = count(); }"
PROG1="kprobe:$BASE { @ = count(); }"

for f in "$B/stamp" "$B/loop"; do
	[ -x "$f" ] || { echo "kmulti: SKIP: $f is not built (make bench builds it)"; exit 0; }
done

# The functions the wildcard attaches to, as perf-run picks them:
# available_filter_functions less the kprobe blacklist, each once.
FUNCS=$W/funcs
awk '{ print $1 }' /sys/kernel/tracing/available_filter_functions |
	grep -x -- "$(sed 's/\*/.*/g; s/?/./g' <<<"$PAT")" | sort -u >"$W/all"
awk '{ print $2 }' /sys/kernel/debug/kprobes/blacklist 2>/dev/null | sort -u >"$W/black"
comm -23 "$W/all" "$W/black" >"$FUNCS"
N=$(wc -l <"$FUNCS")
MULTI=no
tests/progs/kcan kprobe_multi >/dev/null && MULTI=yes

field() { sed -n 's/.*\b'"$1"'=\([-0-9.]*\).*/\1/p' "$W/res" | tail -1; }

# median of the numbers on stdin
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "n/a" }'; }

# one_run CMD...: sets A (ms to attached) and D (ms from then to exit).
one_run() {
	"$B/stamp" -t "$TMO" -e "$W/err" -- "$@" >"$W/res" 2>/dev/null
	if [ "$(field status)" != 0 ] || [ "$(field timeout)" != 0 ]; then
		WHYNOW="status $(field status), timeout $(field timeout): $(grep -v -e '^stamp_now=' -e '^loop_' "$W/err" | grep -m1 -i error)"
		return 1
	fi
	A=$(field release_ms)
	D=$(awk -v t="$(field total_ms)" -v r="$A" 'BEGIN { printf "%.1f", t - r }')
}

# measure NAME PROG-OPTION CMD...: attach and detach (ms) of the wildcard
# less those of the one function, medians of RUNS pairs of runs; the
# word @PROG@ in CMD is the program.  START: the one function's attach.
declare -A ATT DET WHY START
measure() {
	local name=$1 a=() d=() s=() i w a1 d1
	shift
	for ((i = 0; i < RUNS; i++)); do
		one_run "${@/@PROG@/$PROG1}" || { WHY[$name]=$WHYNOW; return; }
		a1=$A d1=$D
		one_run "${@/@PROG@/$PROG}" || { WHY[$name]=$WHYNOW; return; }
		s+=("$a1")
		a+=("$(awk -v x="$A" -v y="$a1" 'BEGIN { printf "%.1f", x - y }')")
		d+=("$(awk -v x="$D" -v y="$d1" 'BEGIN { printf "%.1f", x - y }')")
	done
	ATT[$name]=$(printf '%s\n' "${a[@]}" | median)
	DET[$name]=$(printf '%s\n' "${d[@]}" | median)
	START[$name]=$(printf '%s\n' "${s[@]}" | median)
}

# perf probe, as a perf user counts calls of these functions: the events
# added (perf probe -a GROUP:eN=FUNC, at most PERF_BATCH a call: perf 6.1
# refuses a 128th, "Too many probes (> 128) were specified"), then counted
# while the workload runs (perf stat -e 'GROUP:*' -- loop 0, whose
# perf_event_open()s arm the kprobes), then deleted (perf probe -d
# 'GROUP:*', this bench's group only).  attach: the adds plus perf stat's
# time to the loop's start; detach: perf stat's exit after it plus the
# delete.  Without the kernel's DWARF (a private tmpfs over /usr/lib/debug):
# with Debian's -dbg vmlinux perf probe loads its DWARF on every call
# (about 30 s each under TCG) to place probes the other tools place from
# kallsyms.  perf probe takes no function with a dot (tcp_x.part.0, a
# compiler's clone): those are left out.
PERF_BATCH=100
PG=kmb

nodwarf() {
	unshare -m sh -c 'mount -t tmpfs none /usr/lib/debug 2>/dev/null; exec "$@"' sh "$@"
}

# perf_once LIST: one add, count, delete of LIST's functions; sets A and D.
perf_once() {
	local args=() f i=0 t0 t1 t2 t3
	perf_add() {
		((${#args[@]})) || return 0
		nodwarf perf probe "${args[@]}" >>"$W/perf.out" 2>&1 ||
			{ WHYNOW="perf probe -a failed: $(grep -m1 -i -e error -e 'too many' "$W/perf.out")"; return 1; }
		args=()
	}
	: >"$W/perf.out"
	t0=$(date +%s%N)
	while read -r f; do
		[[ $f == *.* ]] && continue
		args+=(-a "$PG:e$((++i))=$f")
		((${#args[@]} < 2 * PERF_BATCH)) || perf_add || break
	done <"$1"
	perf_add || { perf probe -q -d "$PG:*" >/dev/null 2>&1; return 1; }
	PERFN=$i
	t1=$(date +%s%N)
	one_run perf stat -e "$PG:*" -- "$B/loop" 0 || { perf probe -q -d "$PG:*" >/dev/null 2>&1; return 1; }
	t2=$(date +%s%N)
	perf probe -q -d "$PG:*" >/dev/null 2>&1
	t3=$(date +%s%N)
	A=$(awk -v a="$(((t1 - t0) / 1000))" -v r="$A" 'BEGIN { printf "%.1f", a / 1000 + r }')
	D=$(awk -v d="$D" -v x="$(((t3 - t2) / 1000))" 'BEGIN { printf "%.1f", d + x / 1000 }')
}

# As measure(): the functions less one, medians of PERF_RUNS (1: each run
# arms and disarms every kprobe, seconds under TCG).
measure_perf_probe() {
	local a=() d=() s=() k a1 d1
	command -v perf >/dev/null || { WHY[perf]="no perf"; return; }
	echo "$BASE" >"$W/base"
	for ((k = 0; k < ${KMULTI_PERF_RUNS:-1}; k++)); do
		perf_once "$W/base" || { WHY[perf]=$WHYNOW; return; }
		a1=$A d1=$D
		perf_once "$FUNCS" || { WHY[perf]=$WHYNOW; return; }
		s+=("$a1")
		a+=("$(awk -v x="$A" -v y="$a1" 'BEGIN { printf "%.1f", x - y }')")
		d+=("$(awk -v x="$D" -v y="$d1" 'BEGIN { printf "%.1f", x - y }')")
	done
	ATT[perf]=$(printf '%s\n' "${a[@]}" | median)
	DET[perf]=$(printf '%s\n' "${d[@]}" | median)
	START[perf]=$(printf '%s\n' "${s[@]}" | median)
}

echo "kmulti: kernel $(uname -r) (qemu TCG), kprobe:$PAT = $N functions, kprobe_multi: $MULTI"
if [ "$MULTI" = yes ]; then
	measure multi "$PR" -e @PROG@ -c "$B/loop 0"
else
	WHY[multi]="this kernel has no kprobe_multi links"
fi
measure single env PERF_RUN_KPROBE_MULTI=0 "$PR" -e @PROG@ -c "$B/loop 0"
if command -v bpftrace >/dev/null; then
	measure bpftrace bpftrace -e @PROG@ -c "$B/loop 0"
else
	WHY[bpftrace]="no bpftrace"
fi
measure_perf_probe

ratio() {
	local a=${1:-} b=${2:-}
	[[ $a =~ ^[0-9.]+$ && $b =~ ^[0-9.]+$ ]] && awk -v a="$a" -v b="$b" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "n/a" }' || echo n/a
}

echo "attach, detach: of the $N functions, less one function's ($BASE: start_ms is its attach, start-up included); medians of $RUNS"
printf '%-40s %10s %12s %12s %14s %14s\n' "tool" start_ms attach_ms detach_ms "attach/multi" "detach/multi"
for k in multi single bpftrace perf; do
	case $k in
	multi) label="perf-run, one kprobe_multi link" ;;
	single) label="perf-run, one kprobe each" ;;
	bpftrace) label="bpftrace 0.17" ;;
	perf) label="perf probe -a, stat, -d (${PERFN:-?} events)" ;;
	esac
	if [ -n "${WHY[$k]:-}" ]; then
		printf '%-40s %10s %12s %12s   (%s)\n' "$label" n/a n/a n/a "${WHY[$k]}"
		continue
	fi
	printf '%-40s %10s %12s %12s %14s %14s\n' "$label" "${START[$k]:--}" "${ATT[$k]}" "${DET[$k]}" \
		"$(ratio "${ATT[$k]}" "${ATT[multi]:-}")" "$(ratio "${DET[$k]}" "${DET[multi]:-}")"
done
echo "anchor (retsnoop, 397 functions, real hardware): kprobe_multi 9 / 248 ms, one kprobe each 3,121 / 13,195 ms (347x / 53x)"
rm -rf "$W"
exit 0
