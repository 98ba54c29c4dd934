#!/bin/bash
# pagein.sh - reads of user memory that is not paged in yet (issue 17).
#
#  1. opens: `str(args->filename)` at sys_enter_openat over cat, ls and date
#     run 20 times each under /bin/sh (copies of the commands' names, so the
#     predicate sees only the workload's): file names read empty, per run,
#     for perf-run, perf-run with PERF_RUN_NO_REPLAY=1 (as before the
#     replay at sys_exit_*) and bpftrace 0.17.  Exit status 1 if perf-run
#     read any empty name.
#  2. cost per uprobe hit (the loop's CPU time, build/bench/loop), of a
#     probe reading no user memory, one reading 8 bytes and one reading a
#     string, sleepable and with PERF_RUN_NO_SLEEPABLE=1 (plain).
#  3. start-up: "Attached ... in T ms" of a probe reading no user memory.
#  4. cost per sys_enter_openat hit of the trial read that decides on a
#     replay: the opener's CPU time (user + sys) over PAGEIN_OPENS opens of
#     a missing file, with and without PERF_RUN_NO_REPLAY=1.
#
# Environment: PAGEIN_RUNS (3), PAGEIN_HITS (100000), PAGEIN_OPENS (200000),
# PAGEIN_ONLY (the parts to run, "1 2 3 4"), PERF_RUN (build/perf-run).
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
RUNS=${PAGEIN_RUNS:-3}
HITS=${PAGEIN_HITS:-100000}
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

# cpu ENV PROG: median over RUNS of the loop's CPU ns
cpu() {
	for r in $(seq "$RUNS"); do
		env $1 "$PR" -q -e "$2" -- "$LOOP" "$HITS" 2>&1 | sed -n 's/^loop_cpu_ns=//p'
	done | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

if part 2; then
echo "== 2. cost per uprobe hit, $HITS hits (loop CPU time, median of $RUNS)"
base=$(for r in $(seq "$RUNS"); do "$LOOP" "$HITS" 2>&1 | sed -n 's/^loop_cpu_ns=//p'; done |
	sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
while IFS='|' read -r name prog; do
	for mode in sleepable plain; do
		e=X=1; [ $mode = plain ] && e=PERF_RUN_NO_SLEEPABLE=1
		[ "$name" = no-user-read ] && [ $mode = plain ] && continue
		t=$(cpu "$e" "$prog")
		[ -n "$t" ] && echo "$name $mode: $(( (t - base) / HITS )) ns/hit"
	done
done <<EOF
no-user-read|uprobe:$LOOP:hit { @ = count(); }
read-8-bytes|uprobe:$LOOP:hit { @ = sum(*(int64 *)reg("sp")); }
read-str|uprobe:$LOOP:hit { @[str(reg("sp"))] = count(); }
EOF
fi

if part 3; then
echo "== 3. start-up of a probe reading no user memory (Attached ... ms, median of $RUNS)"
for r in $(seq "$RUNS"); do
	PERF_RUN_NO_CACHE=1 "$PR" -e "uprobe:$LOOP:hit { @ = count(); }" -- "$LOOP" 1 2>&1 |
		sed -n 's/^Attached .* in \([0-9.]*\) ms$/\1/p'
done | sort -n | awk '{ v[NR] = $1 } END { print "attached in " v[int((NR + 1) / 2)] " ms" }'
fi
# opener CPU ms under perf-run with env $1 (median over RUNS); $2: no tracer
opener_ms() {
	local cmd="TIMEFORMAT='%3U %3S'; time $ROOT/tests/progs/opener /nonexistent $OPENS_N"
	for r in $(seq "$RUNS"); do
		if [ "$2" = none ]; then
			bash -c "$cmd" 2>&1
		else
			env $1 "$PR" -q -e 'tracepoint:syscalls:sys_enter_openat /comm == "opener"/ { @[str(args->filename)] = count(); }' \
				-- bash -c "$cmd" 2>&1
		fi | awk 'NF == 2 && $1 ~ /^[0-9.]+$/ { print ($1 + $2) * 1000 }'
	done | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

if part 4; then
echo "== 4. cost per sys_enter_openat hit of str(args->filename), $OPENS_N opens (CPU, median of $RUNS)"
[ -x tests/progs/opener ] || make -s tests/progs/opener
none=$(opener_ms X=1 none)
for mode in replay noreplay; do
	e=X=1; [ $mode = noreplay ] && e=PERF_RUN_NO_REPLAY=1
	t=$(opener_ms $e traced)
	echo "$mode: $(awk -v t="$t" -v b="$none" -v n="$OPENS_N" 'BEGIN { printf "%.0f", (t - b) * 1e6 / n }') ns/hit"
done
fi
exit $bad
