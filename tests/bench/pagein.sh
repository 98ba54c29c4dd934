#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# pagein.sh - reads of user memory that is not paged in yet (issue 17).
#
#  1. opens: `str(args->filename)` at sys_enter_openat over cat, ls and date
#     run 20 times each under /bin/sh (copies of the commands' names, so the
#     predicate sees only the workload's): file names read empty, per run,
#     for perf-run, perf-run with PERF_RUN_NO_REPLAY=1 (as before the
#     replay at sys_exit_*) and bpftrace 0.17.  Exit status 1 if perf-run
#     read any empty name.
#  2. cost per uprobe hit of the program (the kernel's run time of each BPF
#     program, kernel.bpf_stats_enabled, read from perf-run's fdinfo: the
#     machine's load hardly moves it, where the traced loop's CPU time varied
#     twofold), of a probe reading no user memory, one reading 8 bytes and
#     one reading a string, sleepable and with PERF_RUN_NO_SLEEPABLE=1.
#  3. start-up: "Attached ... in T ms" of a probe reading no user memory
#     (and that its IR is the plain one), and of one reading a string,
#     sleepable and plain.
#  4. cost per sys_enter_openat hit of the trial reads that decide on a
#     replay, and of the companion at sys_exit_openat: the programs' run
#     times over PAGEIN_OPENS opens of a missing file, and with
#     PERF_RUN_NO_REPLAY=1.
#
# Environment: PAGEIN_RUNS (3), PAGEIN_HITS (40000), PAGEIN_OPENS (200000),
# PAGEIN_ONLY (the parts to run, "1 2 3 4"), PERF_RUN (build/perf-run).
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
RUNS=${PAGEIN_RUNS:-3}
HITS=${PAGEIN_HITS:-40000}
OPENS_N=${PAGEIN_OPENS:-200000}
PR=$(realpath "${PERF_RUN:-build/perf-run}")
LOOP=$ROOT/build/bench/loop
W=$(mktemp -d /tmp/perf-run-pagein.XXXXXX)
trap 'rm -rf "$W"' EXIT
bad=0

[ -x "$LOOP" ] || make -s build/bench/loop || exit 1
for c in cat ls date; do ln -s "$(command -v $c)" "$W/pgn_$c"; done
cat >"$W/work.sh" <<EOF
for i in \$(seq 20); do
	$W/pgn_cat /etc/hostname >/dev/null; $W/pgn_ls / >/dev/null; $W/pgn_date >/dev/null
done
EOF
OPENS='tracepoint:syscalls:sys_enter_openat /comm == "pgn_cat" || comm == "pgn_ls" || comm == "pgn_date"/ { printf("<%s>\n", str(args->filename)); }'

# opens TOOL: one run, "total empty"
opens() {
	case $1 in
	perf-run) "$PR" -q -e "$OPENS" -- /bin/sh "$W/work.sh" >"$W/out" 2>"$W/err" ;;
	perf-run-noreplay) PERF_RUN_NO_REPLAY=1 "$PR" -q -e "$OPENS" -- /bin/sh "$W/work.sh" \
		>"$W/out" 2>"$W/err" ;;
	bpftrace) bpftrace -e "$OPENS" -c "/bin/sh $W/work.sh" >"$W/out" 2>"$W/err" ;;
	esac
	echo "$(grep -c '^<' "$W/out") $(grep -c '^<>$' "$W/out")"
}

part() { case " ${PAGEIN_ONLY:-1 2 3 4} " in *" $1 "*) return 0;; esac; return 1; }

if part 1; then
echo "== 1. sys_enter_openat str(args->filename), cat/ls/date x20: empty names / opens"
for tool in perf-run perf-run-noreplay bpftrace; do
	[ $tool = bpftrace ] && ! command -v bpftrace >/dev/null && { echo "$tool: n/a"; continue; }
	line="$tool:"
	for r in $(seq "$RUNS"); do
		read -r total empty < <(opens $tool)
		line+=" $empty/$total"
		[ $tool = perf-run ] && [ "$empty" != 0 ] && bad=1
		[ $tool = perf-run ] && [ "$total" = 0 ] && bad=1
	done
	echo "$line"
done
fi

# progstat PID: while PID lives, the last "run_cnt run_time_ns" of each BPF
# program it holds (/proc/PID/fdinfo, with kernel.bpf_stats_enabled=1).
progstat() {
	local last="" now f
	while kill -0 "$1" 2>/dev/null; do
		now=""
		for f in /proc/$1/fdinfo/*; do
			grep -q '^prog_type' "$f" 2>/dev/null || continue
			now+="$(awk '/^run_cnt/ { c = $2 } /^run_time_ns/ { t = $2 } END { print c, t }' "$f" 2>/dev/null)"$'\n'
		done
		[ -n "$now" ] && last=$now
		sleep 0.1
	done
	printf '%s' "$last"
}

# runcost ENV PROG CMD...: ns a run of each program, median over RUNS
runcost() {
	local e=$1 p=$2 r pr
	shift 2
	for r in $(seq "$RUNS"); do
		env $e "$PR" -q -e "$p" -- "$@" >/dev/null 2>&1 &
		pr=$!
		progstat $pr | awk '$1 > 0 { printf "%.0f ", $2 / $1 } END { print "" }'
		wait $pr
	done | sort -n | awk '{ v[NR] = $0 } END { print v[int((NR + 1) / 2)] }'
}

stats_was=$(cat /proc/sys/kernel/bpf_stats_enabled 2>/dev/null || echo 0)
if part 2 || part 4; then
	sysctl -qw kernel.bpf_stats_enabled=1 || echo "note: cannot enable bpf_stats: parts 2 and 4 print nothing"
fi

if part 2; then
echo "== 2. cost of a uprobe program, ns a hit (kernel bpf_stats, $HITS hits at 20000/s, median of $RUNS)"
while IFS='|' read -r name prog; do
	for mode in sleepable plain; do
		e=X=1; [ $mode = plain ] && e=PERF_RUN_NO_SLEEPABLE=1
		[ "$name" = no-user-read ] && [ $mode = plain ] && continue
		echo "$name $mode: $(runcost $e "$prog" "$LOOP" "$HITS" 20000)"
	done
done <<EOF
no-user-read|uprobe:$LOOP:hit { @ = count(); }
read-8-bytes|uprobe:$LOOP:hit { @ = sum(*(int64 *)reg("sp")); }
read-str|uprobe:$LOOP:hit { @[str(reg("sp"))] = count(); }
EOF
fi

if part 3; then
echo "== 3. start-up, Attached ... ms (no object cache, median of $RUNS)"
# attached ENV PROG
attached() {
	for r in $(seq "$RUNS"); do
		env PERF_RUN_NO_CACHE=1 $1 "$PR" -e "$2" -- "$LOOP" 1 2>&1 |
			sed -n 's/^Attached .* in \([0-9.]*\) ms$/\1/p'
	done | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] " ms" }'
}
NOREAD="uprobe:$LOOP:hit { @ = count(); }"
READS="uprobe:$LOOP:hit { @[str(reg(\"sp\"))] = count(); }"
echo "no user read: $(attached X=1 "$NOREAD")"
same=no
[ "$("$PR" --dump ir -e "$NOREAD")" = "$(PERF_RUN_NO_SLEEPABLE=1 "$PR" --dump ir -e "$NOREAD")" ] && same=yes
echo "no user read: same IR as with PERF_RUN_NO_SLEEPABLE=1: $same"
[ $same = yes ] || bad=1
echo "str() read, sleepable: $(attached X=1 "$READS")"
echo "str() read, plain: $(attached PERF_RUN_NO_SLEEPABLE=1 "$READS")"
fi
if part 4; then
echo "== 4. cost of sys_enter_openat str(args->filename) and its replay companion (sys_exit_openat), ns a hit (bpf_stats, median of $RUNS)"
[ -x tests/progs/opener ] || make -s tests/progs/opener
OPENER='tracepoint:syscalls:sys_enter_openat /comm == "opener"/ { @[str(args->filename)] = count(); }'
for mode in replay noreplay; do
	e=X=1; [ $mode = noreplay ] && e=PERF_RUN_NO_REPLAY=1
	echo "$mode: $(runcost $e "$OPENER" bash -c "sleep 0.3; $ROOT/tests/progs/opener /nonexistent $OPENS_N; sleep 0.5")"
done
fi
sysctl -qw kernel.bpf_stats_enabled="$stats_was" 2>/dev/null
exit $bad
