#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# run.sh - `make bench`: perf-run against bpftrace and perf on this machine.
#
# Every tracer is timed from outside by build/bench/stamp (stamp.c), the same
# way for each tool; the traced programs are loop.c and the generated
# many<N> (tests/progs/many_gen.sh).  Prints a table of medians with min-max
# and the ratio perf-run / other, and writes build/bench/results.tsv
# (metric, tool, median, min, max, unit; "n/a" where a case could not run,
# the reason in the table and build/bench/results.log).  See README.md.
#
# Environment: BENCH_RUNS (5), BENCH_SLOW_RUNS (1, for cases that take
# minutes), BENCH_TIMEOUT (60 s a run), BENCH_SLOW_TIMEOUT (150 s),
# BENCH_HITS (1000000), BENCH_DD (200000), BENCH_EVENTS (1000000),
# BENCH_ONLY (space-separated parts a..g), BENCH_EXTRA (the measures run
# after the table: ustack pagein hugefde soak exporter formats kmulti bigbin; empty for none),
# PERF_RUN (build/perf-run),
# BENCH_BIG (1: also bpftrace on 10,000 uprobes, which takes about 20 min here).
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
B=build/bench
RUNS=${BENCH_RUNS:-5}
SLOW_RUNS=${BENCH_SLOW_RUNS:-1}
TMO=${BENCH_TIMEOUT:-60}
SLOW_TMO=${BENCH_SLOW_TIMEOUT:-150}
HITS=${BENCH_HITS:-1000000}
DD_N=${BENCH_DD:-200000}
EVENTS=${BENCH_EVENTS:-1000000}
ONLY=${BENCH_ONLY:-a b c d e f g h}
PERFRUN=${PERF_RUN:-build/perf-run}
TSV=$B/results.tsv
LOG=$B/results.log
LOOP=$ROOT/$B/loop
PGROUP=perfrunbench   # perf probe group: the only probes this script creates and deletes

W=$(mktemp -d /tmp/perf-run-bench.XXXXXX)
cleanup() {
	if [ -n "${PROBES_MADE:-}" ]; then
		perf probe -q -d "$PGROUP:*" >/dev/null 2>&1
	fi
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log() { echo "$*" >>"$LOG"; }
part() { case " $ONLY " in *" $1 "*) return 0;; esac; return 1; }

# ---- build ---------------------------------------------------------------

build() {
	mkdir -p $B
	# events of our group left by a run that was killed
	command -v perf >/dev/null && perf probe -q -d "$PGROUP:*" >/dev/null 2>&1
	gcc -std=gnu11 -O2 -Wall -Wextra -o $B/stamp tests/bench/stamp.c || return 1
	gcc -std=gnu11 -O2 -g -Wall -Wextra -o $B/loop tests/bench/loop.c || return 1
	gcc -std=gnu11 -O2 -Wall -Wextra -o $B/cputime tests/bench/cputime.c || return 1
	for n in 1000 10000; do
		if [ ! -x $B/many$n ] || [ tests/progs/many_gen.sh -nt $B/many$n ]; then
			echo "building $B/many$n (gcc takes about $((n / 1500 + 1)) s)..."
			tests/progs/many_gen.sh $n $B/many$n || return 1
		fi
	done
}

# ---- tools -----------------------------------------------------------------

HAVE_PR=""; HAVE_BT=""; HAVE_PERF=""
WHY_PR="$PERFRUN not built (make)"
# A snapshot: others rebuild build/perf-run while a run goes on, and one
# run must measure one binary.  Written back at once: starts of a copy
# whose 45 MB were still going to disk varied more (5-11 ms for BEGIN,
# against 5-8 after a sync, in one comparison).
if [ -x "$PERFRUN" ] && mkdir -p $B && cp "$PERFRUN" $B/perf-run.snap &&
	sync $B/perf-run.snap; then
	PERFRUN=$ROOT/$B/perf-run.snap
	HAVE_PR=1
fi
command -v bpftrace >/dev/null && HAVE_BT=1
command -v perf >/dev/null && HAVE_PERF=1
export BPFTRACE_MAX_PROBES=100000
# bpftrace 0.17 makes a program per USDT probe and refuses past 512
export BPFTRACE_MAX_BPF_PROGS=100000

# set_cmd TOOL PROG [CMDLINE]: CMD=(the command that runs PROG with that tracer)
# A program that is a file (*.bt) is run as a script file.  PR_ENV: the
# environment of perf-run's runs (part h compiles afresh each time).
set_cmd() {
	local e=-e
	case $2 in /*.bt) e="" ;; esac
	case $1 in
	perf-run) CMD=(env ${PR_ENV:-} "$PERFRUN" ${e:+"$e"} "$2") ;;
	bpftrace) CMD=(bpftrace ${e:+"$e"} "$2") ;;
	esac
	[ -n "${3:-}" ] && CMD+=(-c "$3")
	return 0
}

have() {
	case $1 in
	perf-run) [ -n "$HAVE_PR" ] ;;
	bpftrace) [ -n "$HAVE_BT" ] ;;
	perf*) [ -n "$HAVE_PERF" ] ;;
	esac
}

why_not() {
	case $1 in
	perf-run) echo "$WHY_PR" ;;
	bpftrace) echo "bpftrace not installed" ;;
	*) echo "perf not installed" ;;
	esac
}

# ---- samples and results -------------------------------------------------

: >"$LOG"
printf 'metric\ttool\tmedian\tmin\tmax\tunit\n' >"$TSV"
declare -A REASON

# field NAME: a field of the last stamp summary.
field() { sed -n 's/.*\b'"$1"'=\([-0-9.]*\).*/\1/p' "$W/res" | tail -1; }

# run_stamp STAMP_OPTS... -- CMD...: one run; summary in $W/res, stderr in $W/err.
run_stamp() {
	$B/stamp -e "$W/err" "$@" >"$W/res" 2>>"$LOG"
	log "# $*"
	cat "$W/res" >>"$LOG"
	grep -v -e RLIMIT_MEMLOCK -e '^stamp_now=' -e '^loop_' -e '^cpu_ns=' "$W/err" | head -5 | sed 's/^/  stderr: /' >>"$LOG"
	[ "$(field timeout)" = 0 ] || return 2
	[ "$(field status)" = 0 ] || return 1
}

# last error line of the tracer, for n/a reasons
tail_err() {
	local l
	l=$(grep -v -e RLIMIT_MEMLOCK -e '^stamp_now=' -e '^loop_' -e '^cpu_ns=' "$W/err" |
		grep -i -m1 -e error -e fatal)
	[ -n "$l" ] || l=$(grep -v -e RLIMIT_MEMLOCK -e '^stamp_now=' -e '^loop_' -e '^cpu_ns=' "$W/err" | tail -1)
	echo "${l:0:110}"
}

sample() { echo "$3" >>"$W/s.$(echo "$1.$2" | tr '/ ' '__')"; }

# finish METRIC TOOL UNIT: median, min and max of the samples into the TSV.
finish() {
	local f=$W/s.$(echo "$1.$2" | tr '/ ' '__')
	if [ ! -s "$f" ]; then
		na "$1" "$2" "$3" "${REASON[$1.$2]:-no sample}"
		return
	fi
	sort -g "$f" | awk -v m="$1" -v t="$2" -v u="$3" '
		{ v[NR] = $1 }
		END {
			med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%s\t%s\t%.6g\t%.6g\t%.6g\t%s\n", m, t, med, v[1], v[NR], u
		}' >>"$TSV"
	rm -f "$f"
}

na() {
	printf '%s\t%s\tn/a\tn/a\tn/a\t%s\n' "$1" "$2" "$3" >>"$TSV"
	REASON[$1.$2]=$4
	echo "$1	$2	$4" >>"$W/reasons"
}

# ---- a: exec -> attached -----------------------------------------------

# startup CASE PR_PROG BT_PROG [CMDLINE]: attached (banner line), released
# (the traced loop starts: probes are live), total wall time.
startup() {
	local c=$1 cmd=${4:-} tool prog i v
	for tool in perf-run bpftrace; do
		prog=$2; [ $tool = bpftrace ] && prog=$3
		if ! have $tool; then
			REASON[startup.$c.attached.$tool]=$(why_not $tool)
		else
			for ((i = 0; i < RUNS; i++)); do
				set_cmd $tool "$prog" "$cmd"
				if ! run_stamp -t "$TMO" -m Attach -- "${CMD[@]}"; then
					REASON[startup.$c.attached.$tool]="failed: $(tail_err)"
					break
				fi
				v=$(field attach_ms); [ "$v" != -1.000 ] && sample startup.$c.attached $tool "$v"
				v=$(field release_ms); [ "$v" != -1.000 ] && sample startup.$c.released $tool "$v"
				sample startup.$c.total $tool "$(field total_ms)"
				sample rss.$c $tool "$(field rss_kb)"
			done
		fi
		REASON[startup.$c.released.$tool]=${REASON[startup.$c.attached.$tool]:-}
		REASON[startup.$c.total.$tool]=${REASON[startup.$c.attached.$tool]:-}
		REASON[rss.$c.$tool]=${REASON[startup.$c.attached.$tool]:-}
		finish startup.$c.attached $tool ms
		[ -n "$cmd" ] && finish startup.$c.released $tool ms
		finish startup.$c.total $tool ms
		finish rss.$c $tool KB
	done
}

# perf_total CASE PROBE_SPEC EVENT CMDLINE: [perf probe -a,] perf stat, [perf probe -d].
perf_total() {
	local c=$1 i sh="perf stat -e $3 -- $4 >/dev/null"
	if ! have perf; then
		na startup.$c.total perf ms "perf not installed"
		return
	fi
	if [ -n "$2" ]; then
		PROBES_MADE=1
		sh="perf probe -q -x $LOOP -a '$2' && $sh; rc=\$?; perf probe -q -d '$3'; exit \$rc"
	fi
	for ((i = 0; i < RUNS; i++)); do
		if ! run_stamp -t "$TMO" -m '@@none@@' -- sh -c "$sh"; then
			REASON[startup.$c.total.perf]="failed: $(tail_err)"
			break
		fi
		sample startup.$c.total perf "$(field total_ms)"
	done
	finish startup.$c.total perf ms
}

part_a() {
	startup begin_exit 'BEGIN { exit(); }' 'BEGIN { exit(); }'
	startup tracepoint 'tracepoint:syscalls:sys_enter_openat { @[comm] = count(); }' \
		'tracepoint:syscalls:sys_enter_openat { @[comm] = count(); }' "$LOOP 1000"
	perf_total tracepoint "" "syscalls:sys_enter_openat" "$LOOP 1000"
	startup uprobe "uprobe:$LOOP:hit { @ = count(); }" \
		"uprobe:$LOOP:hit { @ = count(); }" "$LOOP 1000"
	perf_total uprobe "$PGROUP:hit=hit" "$PGROUP:hit" "$LOOP 1000"
	startup uprobe_dwarf "uprobe:$LOOP:use_req { @ = sum(args.r->len); }" \
		"uprobe:$LOOP:use_req { @ = sum(args->r->len); }" "$LOOP 1000"
	perf_total uprobe_dwarf "$PGROUP:req=use_req r->len" "$PGROUP:req" "$LOOP 1000"
}

# ---- b: compile (to "Attached") of every script in scripts/ ------------------

part_b() {
	local f name tool i
	set -- scripts/*.bt
	if [ ! -e "$1" ]; then
		na compile.scripts perf-run ms "scripts/ is empty"
		return
	fi
	for f in scripts/*.bt; do
		name=$(basename "$f")
		for tool in perf-run bpftrace; do
			if ! have $tool; then
				na compile.$name $tool ms "$(why_not $tool)"
				continue
			fi
			if [ $tool = perf-run ]; then
				CMD=("$PERFRUN" "$f")
			else
				# bpftrace spells perf-run's args.NAME args->NAME
				sed 's/\<args\./args->/g' "$f" >"$W/$name"
				CMD=(bpftrace "$W/$name")
			fi
			for ((i = 0; i < RUNS; i++)); do
				# Only the time to attached counts: SIGKILL then, as some
				# scripts take long to print their stacks on SIGINT.
				run_stamp -t "$TMO" -m Attach -s 9 -- "${CMD[@]}"
				if [ "$(field attach_ms)" = -1.000 ]; then
					REASON[compile.$name.$tool]="failed: $(tail_err)"
					break
				fi
				sample compile.$name $tool "$(field attach_ms)"
			done
			finish compile.$name $tool ms
		done
	done
}

# ---- c: attach + detach of 1,000 and 10,000 uprobes --------------------------

# The traced many<N> 0 calls nothing and writes stamp_now= as it starts, i.e.
# once every probe is live; the rest of the run is its exit and the detach.
# attach_many CASE PROG CMDLINE N: attached (the command starts), detach
# (from then to the tracer's exit) and total, for a script on many probes;
# N is the uprobe count (bpftrace is skipped above 1,000 unless BENCH_BIG).
attach_many() {
	local c=$1 prog=$2 cmd=$3 n=$4 btprog=${5:-$2} tool i runs tmo t r m=${PREFIX:-attach}.$1 x late lp
	for tool in perf-run bpftrace; do
		late=""
		if ! have $tool; then
			na $m.attached $tool ms "$(why_not $tool)"
			continue
		fi
		runs=$RUNS tmo=$TMO
		[ $tool = bpftrace ] && runs=$SLOW_RUNS tmo=$SLOW_TMO
		if [ $tool = bpftrace ] && [ $n -gt 1000 ] && [ -z "${BENCH_BIG:-}" ]; then
			# A timeout does not help: killed, it still closes its perf
			# events one by one, each waiting for an RCU grace period.
			na $m.total $tool ms "skipped: bpftrace detaches one uprobe at a time (see uprobes1000.detach); BENCH_BIG=1 runs it"
			continue
		fi
		for ((i = 0; i < runs; i++)); do
			if [ $tool = bpftrace ]; then set_cmd $tool "$btprog" "$cmd"
			else set_cmd $tool "$prog" "$cmd"; fi
			# PROGS=1: the first run also lists the tracer's programs
			# at its banner (stamp -b), as progs.CASE
			lp=""
			[ -n "${PROGS:-}" ] && [ $i = 0 ] && lp=-b
			run_stamp -t "$tmo" -m Attach $lp -- "${CMD[@]}"
			case $? in
			2) late=1; break ;;
			1) REASON[$m.attached.$tool]="failed: $(tail_err)"; break ;;
			esac
			t=$(field total_ms) r=$(field release_ms)
			if [ -n "$lp" ] && grep -q '^prog ' "$W/res"; then
				awk -v c="$m" -v t="$tool" '/^prog / { n++ }
					END { printf "%s.progs\t%s\t%d\t%d\t%d\tprogs\n", c, t, n, n, n }' \
					"$W/res" >>"$TSV"
			fi
			sample $m.attached $tool "$r"
			sample $m.detach $tool "$(echo "$t - $r" | bc)"
			sample $m.total $tool "$t"
			sample rss.$c $tool "$(field rss_kb)"
		done
		if [ -n "$late" ]; then
			# Not finished within the bound: "> T s", as ">T000" ms in the TSV.
			printf '%s\t%s\t>%d\t>%d\t>%d\tms\n' $m.total $tool $((tmo * 1000)) \
				$((tmo * 1000)) $((tmo * 1000)) >>"$TSV"
			rm -f "$W"/s.$m.* "$W"/s.rss.$c.$tool
			continue
		fi
		for x in attached detach total; do
			REASON[$m.$x.$tool]=${REASON[$m.attached.$tool]:-}
			finish $m.$x $tool ms
		done
		REASON[rss.$c.$tool]=${REASON[$m.attached.$tool]:-}
		finish rss.$c $tool KB
	done
}

part_c() {
	local n
	for n in 1000 10000; do
		attach_many uprobes$n "uprobe:$ROOT/$B/many$n:f* { @ = count(); }" "$ROOT/$B/many$n 0" $n
	done
	# Every syscall tracepoint: the kernel tears each perf event down on
	# its own, with two grace periods (perf-run: one raw_syscalls program).
	attach_many syscalls 'tracepoint:syscalls:sys_enter_* { @[probe] = count(); }' "$LOOP 1000" 0
	# Every sched tracepoint (~28): perf events for bpftrace, raw
	# tracepoints for perf-run (the program reads no args).
	attach_many sched 'tracepoint:sched:* { @[probe] = count(); }' "$LOOP 1000" 0
}

# ---- h: scale: programs shared by sites, compile time per probe x map -------

# A thousand DWARF probes (the same read of args.x at every function: one
# program with a cookie per site, compiler/codegen.c gen_shared), `probe` at
# a thousand functions (one program, a name table), and N probes with a map
# each (LLVM's BTF writer, issue 15), each compiled afresh
# (PERF_RUN_NO_CACHE=1).  bpftrace runs the 250-probe case only above the
# wildcards: it detaches one uprobe at a time (~0.1 s each here).
part_h() {
	local n f big=${BENCH_BIG:+1}
	for n in 1000 2000; do
		if [ ! -x $B/many${n}g ] || [ tests/progs/many_gen.sh -nt $B/many${n}g ]; then
			echo "building $B/many${n}g (with -g)..."
			MANY_CFLAGS="-O0 -g" tests/progs/many_gen.sh $n $B/many${n}g || return 1
		fi
	done
	if [ ! -x $B/many1000u ] || [ tests/progs/many_gen.sh -nt $B/many1000u ]; then
		echo "building $B/many1000u (with USDT probes)..."
		MANY_USDT=1 MANY_CFLAGS="-O0 -g" tests/progs/many_gen.sh 1000 $B/many1000u || return 1
	fi
	PR_ENV=PERF_RUN_NO_CACHE=1 PREFIX=scale attach_many dwarf1000 \
		"uprobe:$ROOT/$B/many1000g:f* { @[args.x] = count(); }" "$ROOT/$B/many1000g 0" 1000 \
		"uprobe:$ROOT/$B/many1000g:f* { @[args->x] = count(); }"
	PR_ENV=PERF_RUN_NO_CACHE=1 PREFIX=scale attach_many probe1000 \
		"uprobe:$ROOT/$B/many1000g:f* { @[probe] = count(); }" "$ROOT/$B/many1000g 0" 1000
	# print(args) at 1,000 functions of one layout: one format, one program
	# (bpftrace 0.17 cannot print args: it prints the one member instead)
	PROGS=1 PR_ENV=PERF_RUN_NO_CACHE=1 PREFIX=scale attach_many printargs1000 \
		"uprobe:$ROOT/$B/many1000g:f* { print(args); }" "$ROOT/$B/many1000g 0" 1000 \
		"uprobe:$ROOT/$B/many1000g:f* { printf(\"{ .x = %d }\\n\", args->x); }"
	# 1,000 USDT probes whose argument reads the same way (-4@-4(%rbp))
	PROGS=1 PR_ENV=PERF_RUN_NO_CACHE=1 PREFIX=scale attach_many usdt1000 \
		"usdt:$ROOT/$B/many1000u:many:* { @[arg0] = count(); }" "$ROOT/$B/many1000u 0" 1000
	for n in 250 500 1000 2000; do
		f=$W/maps$n.bt
		awk -v n=$n -v b="$ROOT/$B/many2000g" 'BEGIN { for (i = 0; i < n; i++)
			printf "uprobe:%s:f%d { @m%d = count(); }\n", b, i, i }' >"$f"
		PR_ENV=PERF_RUN_NO_CACHE=1 PREFIX=scale attach_many maps$n "$f" "$ROOT/$B/many2000g 0" \
			$((n > 250 && !${big:-0} ? 100000 : n))
	done
}

# ---- d: cost per hit ---------------------------------------------------------

# The cost of a probe is charged to the traced process, as CPU time: loop
# and cputime (around dd) report theirs.  CPU time, unlike wall time, does
# not grow when other work takes the CPU away, and each traced run is paired
# with an untraced run just before it, so that drift in the machine's load
# cancels out.
loop_ns() { sed -n 's/^loop_ns=//p' "$W/err" | tail -1; }
loop_cpu_ns() { sed -n 's/^loop_cpu_ns=//p' "$W/err" | tail -1; }
cpu_ns() { sed -n 's/^cpu_ns=//p' "$W/err" | tail -1; }

# untraced VALUE_FN CMD...: the command alone, its CPU ns (VALUE_FN reads $W/err).
untraced() {
	local fn=$1
	shift
	"$@" >/dev/null 2>"$W/err"
	$fn
}

# per_hit METRIC TOOL N VALUE_FN UNTRACED_CMD -- TRACER_CMD...: samples
# (traced - untraced) / N in ns, an untraced run before every traced one.
per_hit() {
	local m=$1 tool=$2 n=$3 fn=$4 base i v
	local -a plain=()
	shift 4
	while [ "$1" != -- ]; do plain+=("$1"); shift; done
	shift
	for ((i = 0; i < RUNS; i++)); do
		base=$(untraced $fn "${plain[@]}")
		[ -n "$base" ] || { REASON[$m.$tool]="no timing from the untraced command"; break; }
		if ! run_stamp -t "$TMO" -m Attach -- "$@"; then
			REASON[$m.$tool]="failed: $(tail_err)"
			break
		fi
		v=$($fn)
		[ -n "$v" ] || { REASON[$m.$tool]="no timing from the traced command"; break; }
		echo "$tool $m: traced $v untraced $base" >>"$LOG"
		sample $m $tool "$(echo "scale=3; ($v - $base) / $n" | bc)"
	done
	finish $m $tool ns
}

median_of() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

part_d() {
	local tool body name
	local loop=("$LOOP" "$HITS")
	for name in empty count hist printf; do
		case $name in
		empty) body='{ }' ;;
		count) body='{ @ = count(); }' ;;
		hist) body='{ @ = hist(arg0); }' ;;
		printf) body='{ printf("%d\n", arg0); }' ;;
		esac
		for tool in perf-run bpftrace; do
			if ! have $tool; then na hit.uprobe.$name $tool ns "$(why_not $tool)"; continue; fi
			set_cmd $tool "uprobe:$LOOP:hit $body" "${loop[*]}"
			per_hit hit.uprobe.$name $tool "$HITS" loop_cpu_ns "${loop[@]}" -- "${CMD[@]}"
		done
	done
	if have perf && PROBES_MADE=1 && perf probe -q -x $LOOP -a "$PGROUP:hit=hit" 2>>"$LOG"; then
		per_hit hit.uprobe.count perf-stat "$HITS" loop_cpu_ns "${loop[@]}" -- \
			perf stat -e $PGROUP:hit -- "${loop[@]}"
		per_hit hit.uprobe.printf perf-record "$HITS" loop_cpu_ns "${loop[@]}" -- \
			perf record -q -e $PGROUP:hit -o "$W/perf.data" -- "${loop[@]}"
		perf probe -q -d "$PGROUP:hit" 2>>"$LOG"
	else
		na hit.uprobe.count perf-stat ns "perf probe failed"
	fi

	# An absolute path: bpftrace -c refuses a name found twice (/bin, /usr/bin).
	local dd=("$ROOT/$B/cputime" "$(command -v dd)" if=/dev/zero of=/dev/null bs=1 count=$DD_N)
	for tool in perf-run bpftrace; do
		if ! have $tool; then na hit.tracepoint.count $tool ns "$(why_not $tool)"; continue; fi
		set_cmd $tool 'tracepoint:syscalls:sys_enter_write { @ = count(); }' "${dd[*]}"
		per_hit hit.tracepoint.count $tool "$DD_N" cpu_ns "${dd[@]}" -- "${CMD[@]}"
	done
	if have perf; then
		per_hit hit.tracepoint.count perf-stat "$DD_N" cpu_ns "${dd[@]}" -- \
			perf stat -e syscalls:sys_enter_write -- "${dd[@]}"
	fi
}

# ---- e: printf events delivered --------------------------------------------

# received: printf lines (numbers) on the tracer's stdout
received() { grep -c '^[0-9]' "$W/out"; }
# reported_lost: what the tool said it lost, on stderr (stamp's lost=) or,
# as bpftrace prints "Lost N events", on stdout.
reported_lost() {
	local v
	v=$(field lost); [ "$v" = -1 ] && v=0
	echo $((v + $(awk '/^Lost [0-9]+ events/ { s += $2 } END { print s + 0 }' "$W/out")))
}

part_e() {
	local tool i m got ns
	local body='{ printf("%d\n", arg0); }'
	for tool in perf-run bpftrace; do
		if ! have $tool; then
			na events.printf.delivered $tool ev/s "$(why_not $tool)"
			continue
		fi
		set_cmd $tool "uprobe:$LOOP:hit $body" "$LOOP $EVENTS"
		for ((i = 0; i < RUNS; i++)); do
			if ! run_stamp -t "$TMO" -m Attach -o "$W/out" -- "${CMD[@]}"; then
				REASON[events.printf.delivered.$tool]="failed: $(tail_err)"
				break
			fi
			got=$(received) ns=$(loop_ns)
			sample events.printf.delivered $tool "$(echo "$got * 1000000000 / $ns" | bc)"
			sample events.printf.lost_pct $tool "$(echo "scale=3; ($EVENTS - $got) * 100 / $EVENTS" | bc)"
			sample events.printf.reported_lost $tool "$(reported_lost)"
		done
		for m in delivered:ev/s lost_pct:% reported_lost:events; do
			REASON[events.printf.${m%%:*}.$tool]=${REASON[events.printf.delivered.$tool]:-}
			finish events.printf.${m%%:*} $tool "${m#*:}"
		done
		# On the uprobe the probe's own cost caps the rate; on a syscall
		# tracepoint that the loop calls (getppid) the tool's reading does.
		lossless $tool events.printf "uprobe:$LOOP:hit $body" ""
		lossless $tool events.printf_tp \
			'tracepoint:syscalls:sys_enter_getppid /comm == "loop"/ { printf("%d\n", 1); }' sys
		flood $tool
	done
}

# lossless TOOL METRIC PROG LOOPARG: METRIC.max_lossless_rate, the fastest
# paced run of PROG on `loop N R LOOPARG` (10k ... 3M/s, half a second of
# events each) whose every line arrived, as the rate the loop reached.
lossless() {
	local tool=$1 metric=$2 prog=$3 arg=$4 i r n best ns
	for ((i = 0; i < RUNS; i++)); do
		best=0
		for r in 10000 30000 100000 300000 1000000 3000000; do
			n=$((r / 2))
			set_cmd $tool "$prog" "$LOOP $n $r${arg:+ $arg}"
			run_stamp -t "$TMO" -m Attach -o "$W/out" -- "${CMD[@]}" || break
			[ "$(received)" -eq $n ] || break
			ns=$(loop_ns)
			best=$(echo "$n * 1000000000 / $ns" | bc)
			[ "$best" -ge $((r * 8 / 10)) ] || break
		done
		sample $metric.max_lossless_rate $tool $best
	done
	finish $metric.max_lossless_rate $tool ev/s
}

# flood TOOL: the rate above is capped by the uprobe's own cost, the same
# for both tools.  Here the kernel sends faster than either tool reads (100
# records every 20 us from a timer) for 2 s, then SIGINT: records read per
# second from attached to exit, and the losses the tool reported.
flood() {
	local tool=$1 i got ms
	local prog='interval:us:20 { unroll(100) { printf("%d\n", 12345); } }'
	for ((i = 0; i < RUNS; i++)); do
		set_cmd $tool "$prog"
		if ! run_stamp -t "$TMO" -m Attach -s 2 -d 2000 -o "$W/out" -- "${CMD[@]}"; then
			REASON[events.flood.read_rate.$tool]="failed: $(tail_err)"
			break
		fi
		got=$(received)
		ms=$(echo "$(field total_ms) - $(field attach_ms)" | bc)
		sample events.flood.read_rate $tool "$(echo "$got * 1000 / $ms" | bc)"
		sample events.flood.reported_lost $tool "$(reported_lost)"
	done
	REASON[events.flood.reported_lost.$tool]=${REASON[events.flood.read_rate.$tool]:-}
	finish events.flood.read_rate $tool ev/s
	finish events.flood.reported_lost $tool events
}

# ---- f: BPF instructions per program, as the kernel reports them --------------

part_f() {
	local c tool prog pr bt
	while IFS='|' read -r c pr bt; do
		for tool in perf-run bpftrace; do
			prog=$pr; [ $tool = bpftrace ] && prog=$bt
			if ! have $tool; then
				na insns.$c $tool insns "$(why_not $tool)"
				continue
			fi
			set_cmd $tool "$prog"
			if ! run_stamp -t "$TMO" -m Attach -b -s 2 -d 500 -- "${CMD[@]}" ||
			   ! grep -q '^prog ' "$W/res"; then
				na insns.$c $tool insns "failed: $(tail_err)"
				na progs.$c $tool progs "failed"
				continue
			fi
			echo "$c $tool: $(awk '/^prog /{printf "%s=%s ", $4, $5}' "$W/res")" >>"$W/insns"
			awk -v c="$c" -v t="$tool" '/^prog / { s += $5; n++ }
				END { printf "insns.%s\t%s\t%d\t%d\t%d\tinsns\n", c, t, s, s, s
				      printf "progs.%s\t%s\t%d\t%d\t%d\tprogs\n", c, t, n, n, n }' "$W/res" >>"$TSV"
		done
	done <<-EOT
	tracepoint|tracepoint:syscalls:sys_enter_openat { @[comm] = count(); }|tracepoint:syscalls:sys_enter_openat { @[comm] = count(); }
	uprobe_count|uprobe:$LOOP:hit { @ = count(); }|uprobe:$LOOP:hit { @ = count(); }
	uprobe_hist|uprobe:$LOOP:hit { @ = hist(arg0); }|uprobe:$LOOP:hit { @ = hist(arg0); }
	uprobe_printf|uprobe:$LOOP:hit { printf("%d\n", arg0); }|uprobe:$LOOP:hit { printf("%d\n", arg0); }
	uprobe_dwarf|uprobe:$LOOP:use_req { @ = sum(args.r->len); }|uprobe:$LOOP:use_req { @ = sum(args->r->len); }
	tracepoint_str|tracepoint:syscalls:sys_enter_openat { printf("%s %s\n", comm, str(args.filename)); }|tracepoint:syscalls:sys_enter_openat { printf("%s %s\n", comm, str(args->filename)); }
	EOT
}

# ---- report -----------------------------------------------------------------

# One block per metric: each tool's median [min-max], and perf-run / tool.
table() {
	awk -F'\t' -v reasons="$W/reasons" '
		BEGIN { while ((getline l < reasons) > 0) { split(l, f, "\t"); why[f[1] "|" f[2]] = f[3] } }
		NR == 1 { next }
		{
			if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }
			k = $1 "|" $2; rows[$1] = rows[$1] SUBSEP $2
			med[k] = $3; lo[k] = $4; hi[k] = $5; unit[k] = $6
		}
		END {
			printf "%-36s %-12s %14s %25s  %s\n", "metric", "tool", "median", "min-max", "perf-run/tool"
			for (i = 1; i <= n; i++) {
				m = order[i]; c = split(substr(rows[m], 2), tools, SUBSEP)
				pr = m "|perf-run"
				for (j = 1; j <= c; j++) {
					k = m "|" tools[j]
					if (med[k] == "n/a") {
						printf "%-36s %-12s %14s   %s\n", m, tools[j], "n/a", why[k]
						continue
					}
					if (med[k] ~ /^>/) {
						printf "%-36s %-12s %14s\n", m, tools[j], "> " substr(med[k], 2) / 1000 " s"
						continue
					}
					ratio = ""
					if (tools[j] != "perf-run" && (pr in med) && med[pr] != "n/a" && med[k] + 0 != 0)
						ratio = sprintf("%.3g", (med[pr] ~ /^>/ ? substr(med[pr], 2) : med[pr]) / med[k])
					printf "%-36s %-12s %14s %25s  %s\n", m, tools[j], med[k] " " unit[k],
					       "[" lo[k] " - " hi[k] "]", ratio
				}
			}
		}' "$TSV"
}

main() {
	local p
	build || { echo "bench: building the helpers failed" >&2; exit 1; }
	[ -n "$HAVE_PR" ] || echo "note: $WHY_PR; perf-run columns are n/a"
	for p in a b c d e f h; do
		part $p || continue
		echo "== part $p ($(date +%T))"
		part_$p
	done
	touch "$W/reasons"
	echo
	table
	[ -s "$W/insns" ] && { echo; echo "BPF programs (name=xlated insns):"; cat "$W/insns"; }
	# Measures of their own, each printing its table: ustack through CFI
	# against frame pointers and bpftrace, reads of memory not paged in, one
	# FDE of many rows, and a soak of SOAK_SECONDS (600) per tracer.
	for p in ${BENCH_EXTRA-ustack pagein hugefde soak exporter formats kmulti bigbin}; do
		echo
		echo "== $p.sh ($(date +%T))"
		PERF_RUN=$PERFRUN bash tests/bench/$p.sh || echo "bench: $p.sh exited $?"
	done
	echo
	echo "results: $TSV, run log: $LOG"
}

main "$@"; exit $?
