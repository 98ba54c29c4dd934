#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# faults.sh - what a tracer must survive, checked against the kernel's own
# state rather than the tracer's word:
#   - SIGKILL while attached (uprobe, uprobe_multi, tracepoint, profile,
#     interval) leaves no BPF program, map or link (BPF_*_GET_NEXT_ID lists
#     through tests/progs/bpfids), no breakpoint in the traced process's
#     text (its bytes read through /proc/PID/mem), no tracefs uprobe;
#   - SIGINT and SIGTERM run END and print the maps;
#   - the traced binary replaced or deleted while traced;
#   - perf-run stopped: a -c command that gets signals goes on;
#   - a burst of events faster than they are read: printed + lost = sent;
#   - without root or CAP_BPF + CAP_PERFMON: one sentence, exit 1.
# Other tracers may run on this machine at the same time: only the objects
# perf-run's own file descriptors held (/proc/PID/fdinfo) are looked for.
# Last line: `N passed, N failed, N skipped`.
set -uo pipefail

cd "$(dirname "$0")/../.."
PERF_RUN=${PERF_RUN:-build/perf-run}
PROGS=tests/progs
TMP=$(mktemp -d /tmp/perf-run-faults.XXXXXX)
passed=0 failed=0 skipped=0
bg_pids=()

cleanup() {
	local p
	for p in "${bg_pids[@]}"; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	rm -rf "$TMP"
}
trap cleanup EXIT

pass() { echo "PASS $1"; ((passed++)); }
skip() { echo "SKIP $1"; ((skipped++)); }
# fail NAME WHY [FILE...]: the files are shown, indented.
fail() {
	local name=$1 why=$2 f
	shift 2
	echo "FAIL $name"
	echo "    - $why"
	for f in "$@"; do
		[[ -s $f ]] || continue
		echo "    $f:"
		sed -e 's/^/    | /' "$f" | head -n 40
	done
	((failed++))
}

# Starts a command in the background; its pid is in $bg.
start() {
	"$@" &
	bg=$!
	bg_pids+=("$bg")
}

# Stops a background command started by start().
stop() {
	kill -KILL "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

# Waits (at most 10 s) for a line (ERE) in a file, "Attached" by default.
wait_attached() {
	local i
	for ((i = 0; i < 200; i++)); do
		grep -qE "${2:-^Attached }" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# Waits (at most 10 s) for a process to end; its status is in $status.
wait_end() {
	local i
	for ((i = 0; i < 200; i++)); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.05
	done
	wait "$1" 2>/dev/null
	status=$?
}

# The first byte of FUNC's code in the running process PID of BINARY.
text_byte() {
	local pid=$1 bin=$2 func=$3 vaddr base
	vaddr=$(nm "$bin" | awk -v f="$func" '$3 == f && ($2 == "T" || $2 == "t") { print $1 }')
	base=$(awk -v b="$(realpath "$bin")" '$6 == b && $3 == "00000000" { split($1, r, "-"); print r[1]; exit }' \
		"/proc/$pid/maps")
	[[ -n $vaddr && -n $base ]] || return 1
	dd if="/proc/$pid/mem" bs=1 count=1 skip=$((0x$base + 0x$vaddr)) iflag=skip_bytes \
		status=none 2>/dev/null | od -An -tx1 | tr -d ' \n'
}

# The BPF objects a process holds, as "prog ID", "map ID", "link ID" lines,
# from the fdinfo of its file descriptors: exactly its own, whatever other
# tracers do meanwhile.
held_by() {
	cat /proc/"$1"/fdinfo/* 2>/dev/null |
		sed -n 's/^\(prog\|map\|link\)_id:[[:space:]]*\([0-9][0-9]*\)$/\1 \2/p' | sort -u
}

# ---- perf-run stopped: the traced command goes on ----

# With ptrace, each of the command's signals waited for perf-run to let it
# through: a stopped perf-run froze a command that gets signals.
stopped_case() {
	local name="perf-run stopped (SIGSTOP): a -c command that gets signals goes on" pid i
	rm -f "$TMP/storm"
	start "$PERF_RUN" -e 'uprobe:./tests/progs/sigstorm:sigstorm_done { printf("done %d\n", arg0); }' \
		-c "./tests/progs/sigstorm 1000 300 $TMP/storm" >"$TMP/out" 2>"$TMP/err"
	pid=$bg
	if ! wait_attached "$TMP/err"; then
		fail "$name" "never attached" "$TMP/err"
		stop "$pid"
		return
	fi
	kill -STOP "$pid"
	for ((i = 0; i < 60; i++)); do
		[[ -s $TMP/storm ]] && break
		sleep 0.05
	done
	kill -CONT "$pid"
	wait_end "$pid"
	if ! grep -qx 'signals=1000 tracer=0' "$TMP/storm" 2>/dev/null; then
		fail "$name" "the command did not finish within 3 s while perf-run was stopped" \
			"$TMP/out" "$TMP/err"
	elif ((status != 0)) || ! grep -qx 'done 1000' "$TMP/out"; then
		fail "$name" "exit status $status, or the probe's line missing" "$TMP/out" "$TMP/err"
	else
		pass "$name"
	fi
}

# ---- a low soft RLIMIT_NOFILE ----

# One fd per program: 111 programs (probe in a wildcard) under a soft limit
# of 64 failed as "the kernel verifier rejected this probe: (no message)".
# The soft limit is raised to the hard one; the command keeps its own.
nofile_case() {
	local name="soft RLIMIT_NOFILE 64: 111 programs attach, the command keeps its limit; EMFILE named" n lim
	local bin=build/bench/many1000
	if [[ ! -x $bin ]]; then
		skip "$name (requires: $bin, make progs)"
		return
	fi
	(ulimit -S -n 64 && exec timeout 100 "$PERF_RUN" -q \
		-e "uprobe:$bin:f1* { @[probe] = count(); }" -c "$bin") >"$TMP/out" 2>"$TMP/err"
	status=$?
	n=$(grep -c '^@\[uprobe:' "$TMP/out")
	lim=$(ulimit -S -n 64 && "$PERF_RUN" -q -e 'BEGIN { }' -c "sh -c 'ulimit -Sn'" 2>&1 | head -1)
	if ((status != 0 || n != 111)); then
		fail "$name" "exit status $status, $n of 111 probes counted" "$TMP/err"
	elif [[ $lim != 64 ]]; then
		fail "$name" "the command's soft limit is '$lim', not 64"
	elif (ulimit -n 40 && exec "$PERF_RUN" -q -e "uprobe:$bin:f1* { @[probe] = count(); }" \
		-c "$bin") 2>&1 | grep 'verifier' >/dev/null; then
		fail "$name" "under a hard limit of 40, EMFILE is called a verifier rejection"
	else
		pass "$name"
	fi
}

# ---- SIGKILL while attached ----

sigkill_case() {
	local name="SIGKILL while attached leaves nothing behind" tp pp i left
	local script='uprobe:./tests/progs/ticker:tick { @c = count(); }
uprobe:./tests/progs/ticker:t*ck { @w[func] = count(); printf("%s\n", func); }
tracepoint:syscalls:sys_enter_nanosleep { @n = count(); }
profile:hz:99 { @p[ustack] = count(); }
interval:ms:50 { @i = count(); }'
	local orig_tick orig_tock during_tick during_tock after_tick after_tock
	start "$PROGS/ticker" 100000 2 2>/dev/null
	tp=$bg
	sleep 0.1
	orig_tick=$(text_byte "$tp" "$PROGS/ticker" tick)
	orig_tock=$(text_byte "$tp" "$PROGS/ticker" tock)
	grep ticker /sys/kernel/tracing/uprobe_events >"$TMP/uprobes.before" 2>/dev/null
	: >"$TMP/err"   # before the job starts: no old line may be seen
	"$PERF_RUN" -p "$tp" -e "$script" >"$TMP/out" 2>"$TMP/err" &
	pp=$!
	bg_pids+=("$pp")
	if ! wait_attached "$TMP/err"; then
		fail "$name" "perf-run did not attach" "$TMP/err"
		stop "$pp"; stop "$tp"
		return
	fi
	sleep 0.3
	held_by "$pp" >"$TMP/ours"
	during_tick=$(text_byte "$tp" "$PROGS/ticker" tick)
	during_tock=$(text_byte "$tp" "$PROGS/ticker" tock)
	kill -KILL "$pp"
	wait "$pp" 2>/dev/null
	# The kernel frees what a dead process held through RCU and work
	# queues: give it a moment before calling anything a leak.
	for ((i = 0; i < 40; i++)); do
		"$PROGS/bpfids" >"$TMP/after"
		left=$(awk 'NR == FNR { want[$1 " " $2] = 1; next } want[$1 " " $2]' \
			"$TMP/ours" "$TMP/after")
		after_tick=$(text_byte "$tp" "$PROGS/ticker" tick)
		after_tock=$(text_byte "$tp" "$PROGS/ticker" tock)
		[[ -z $left && $after_tick == "$orig_tick" && $after_tock == "$orig_tock" ]] && break
		sleep 0.05
	done
	grep ticker /sys/kernel/tracing/uprobe_events >"$TMP/uprobes.after" 2>/dev/null
	stop "$tp"
	local nprog nmap nlink
	nprog=$(grep -c '^prog' "$TMP/ours")
	nmap=$(grep -c '^map' "$TMP/ours")
	nlink=$(grep -c '^link' "$TMP/ours")
	if ((nprog < 5 || nmap < 5 || nlink < 5)); then
		fail "$name" "while attached, expected >= 5 programs, maps and links of perf-run, saw $nprog, $nmap, $nlink" "$TMP/ours" "$TMP/err"
	elif [[ $during_tick != cc || $during_tock != cc ]]; then
		fail "$name" "while attached, tick/tock should start with a breakpoint (cc), read '$during_tick' '$during_tock'"
	elif [[ -n $left ]]; then
		fail "$name" "left in the kernel after SIGKILL: $(echo $left)" "$TMP/after"
	elif [[ $after_tick != "$orig_tick" || $after_tock != "$orig_tock" ]]; then
		fail "$name" "breakpoints left in the text: tick $orig_tick -> $after_tick, tock $orig_tock -> $after_tock"
	elif ! cmp -s "$TMP/uprobes.before" "$TMP/uprobes.after"; then
		fail "$name" "tracefs uprobe_events changed for ticker" "$TMP/uprobes.before" "$TMP/uprobes.after"
	else
		pass "$name ($nprog programs, $nmap maps, $nlink links, 2 breakpoints gone)"
	fi
}

# ---- SIGINT / SIGTERM ----

signal_case() {
	local sig=$1 mode=$2 name="SIG$1 runs END and prints the maps ($2)" tp pp
	local script='uprobe:./tests/progs/ticker:tick { @c = count(); } END { printf("end ran\n"); }'
	if [[ $mode == -p ]]; then
		start "$PROGS/ticker" 100000 2 2>/dev/null
		tp=$bg
		sleep 0.05
		: >"$TMP/err"
		"$PERF_RUN" -p "$tp" -e "$script" >"$TMP/out" 2>"$TMP/err" &
	else
		tp=
		: >"$TMP/err"
		"$PERF_RUN" -e "$script" -- "$PROGS/ticker" 100000 2 >"$TMP/out" 2>"$TMP/err" &
	fi
	pp=$!
	bg_pids+=("$pp")
	if ! wait_attached "$TMP/err"; then
		fail "$name" "perf-run did not attach" "$TMP/err"
		stop "$pp"; [[ -n $tp ]] && stop "$tp"
		return
	fi
	sleep 0.3
	kill -"$sig" "$pp"
	wait_end "$pp"
	[[ -n $tp ]] && stop "$tp"
	if ((status != 0)); then
		fail "$name" "exit status $status" "$TMP/out" "$TMP/err"
	elif ! grep -qx 'end ran' "$TMP/out"; then
		fail "$name" "END did not print" "$TMP/out" "$TMP/err"
	elif ! grep -qE '^@c: [1-9][0-9]*$' "$TMP/out"; then
		fail "$name" "no @c line" "$TMP/out" "$TMP/err"
	else
		pass "$name"
	fi
}

# ---- the traced binary replaced / deleted ----

replace_case() {
	local how=$1 name="the traced binary is $1 while traced" pp
	mkdir -p "$TMP/bin"
	cp "$PROGS/ticker" "$TMP/bin/t"
	: >"$TMP/err"
	"$PERF_RUN" -e "uprobe:$TMP/bin/t:tick { @[func] = count(); }" -- "$TMP/bin/t" 60 5 \
		>"$TMP/out" 2>"$TMP/err" &
	pp=$!
	bg_pids+=("$pp")
	if ! wait_attached "$TMP/err" '^ticker started$'; then
		fail "$name" "the traced command did not start" "$TMP/err"
		stop "$pp"
		return
	fi
	if [[ $how == replaced ]]; then   # as package managers do: a new file renamed over it
		cp "$PROGS/loop" "$TMP/bin/t.new"
		mv -f "$TMP/bin/t.new" "$TMP/bin/t"
	else
		rm -f "$TMP/bin/t"
	fi
	wait_end "$pp"
	if ((status != 0)); then
		fail "$name" "exit status $status" "$TMP/out" "$TMP/err"
	elif ! grep -qx '@\[tick\]: 60' "$TMP/out"; then
		fail "$name" "expected @[tick]: 60 (every call counted, named from the old file)" \
			"$TMP/out" "$TMP/err"
	else
		pass "$name"
	fi
	rm -rf "$TMP/bin"
}

# ---- a burst: every record is printed or counted as lost ----

burst_case() {
	local name="a burst faster than it is read: printed + lost = sent" n=120000 lines lost i
	# The reader is held up (a pipe nobody reads) until the traced command
	# has made all its calls, so that the 4 MB ring buffer (about 75000 of
	# these records) overflows for certain, however fast this machine is.
	: >"$TMP/err"
	"$PERF_RUN" -e 'uprobe:./tests/progs/loop:func { printf("%d %s %s\n", arg0, comm, comm); }' \
		-- "$PROGS/loop" "$n" 2>"$TMP/err" | {
		for ((i = 0; i < 1200; i++)); do
			grep -q '^calls=' "$TMP/err" && break
			sleep 0.05
		done
		cat >"$TMP/out"
	}
	lines=$(grep -c '^[0-9]' "$TMP/out")
	lost=$(sed -n 's/^\([0-9][0-9]*\) events lost$/\1/p' "$TMP/err")
	if [[ -z $lost ]]; then
		fail "$name" "no 'N events lost' line ($lines of $n printed)" "$TMP/err"
	elif ((lines + lost != n)); then
		fail "$name" "$lines printed + $lost lost != $n sent" "$TMP/err"
	else
		pass "$name ($lines printed, $lost lost)"
	fi
}

# exit() in a full ring buffer: its record is lost, its flag is not.  The
# reader is held up for 6 s, so that the buffer (about 75000 records) is
# full when call 100000 calls exit(): 1.5 s of uprobe hits on a quiet
# machine, and under CI's load 2 s was once not enough; traced to the end,
# the command would go on for a minute.
exit_lost_case() {
	local name="exit() whose record a full ring buffer dropped still ends the run"
	local start secs lines
	start=$(date +%s)
	timeout 40 "$PERF_RUN" -e 'uprobe:./tests/progs/loop:func { printf("%d %s %s\n", arg0, comm, comm); }
		uprobe:./tests/progs/loop:func /arg0 == 100000/ { exit(); } END { printf("end\n"); }' \
		-- "$PROGS/loop" 10000000 2>"$TMP/err" | { sleep 6; cat >"$TMP/out"; }
	secs=$(($(date +%s) - start))
	lines=$(grep -c '^[0-9]' "$TMP/out")
	# sent after exit(): at most what one full buffer held when the flag
	# was seen (4 MB of 56-byte records: 74898)
	after=$(awk '$1 > 100000' "$TMP/out" | wc -l)
	if ((secs >= 30)); then
		fail "$name" "still running after ${secs}s ($lines printed)" "$TMP/err"
	elif ! grep -qx end "$TMP/out"; then
		fail "$name" "END did not run" "$TMP/err" "$TMP/out"
	elif ! grep -q '^[0-9]* events lost$' "$TMP/err"; then
		fail "$name" "the ring buffer never overflowed ($lines printed)" "$TMP/err"
	elif ((after > 74898)); then
		fail "$name" "$after records sent after exit() were printed" "$TMP/err"
	else
		pass "$name (${secs}s, $lines printed, $after of them sent after exit())"
	fi
}

# ---- privilege ----

# perf-run killed by SIGKILL: nothing is left to kill its -c command but
# the kernel (PR_SET_PDEATHSIG); bpftrace 0.17's is killed too.
orphan_case() {
	local name="perf-run killed by SIGKILL: its -c command goes with it" pid cmd i
	local dur=3600.$$
	start "$PERF_RUN" -e 'interval:ms:100 { @n = count(); }' -c "sleep $dur" >"$TMP/out" 2>"$TMP/err"
	pid=$bg
	if ! wait_attached "$TMP/err"; then
		fail "$name" "never attached" "$TMP/err"
		stop "$pid"
		return
	fi
	cmd=$(pgrep -P "$pid" -f "^sleep $dur\$")
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	for ((i = 0; i < 40; i++)); do
		pgrep -f "^sleep $dur\$" >/dev/null || break
		sleep 0.05
	done
	if [[ -z $cmd ]]; then
		fail "$name" "the command was not found running under perf-run" "$TMP/err"
	elif pgrep -f "^sleep $dur\$" >/dev/null; then
		pkill -KILL -f "^sleep $dur\$"
		fail "$name" "the command (pid $cmd) outlived perf-run by 2 s"
	else
		pass "$name"
	fi
}

# | head -1: the reader goes away.  The write's EPIPE ends the run as
# Ctrl-C does (END, the summary, the command killed), status 141 as a
# shell shows a pipeline's SIGPIPE.
pipe_case() {
	local name="a reader that closes the pipe (| head -1): END runs, the command is killed, status 141"
	local dur=3601.$$ st i
	timeout -s KILL 20 "$PERF_RUN" -c "sleep $dur" \
		-e 'interval:ms:10 { printf("x\n"); } END { printf("end\n"); }' 2>"$TMP/err" |
		head -n 1 >"$TMP/out"
	st=${PIPESTATUS[0]}
	for ((i = 0; i < 40; i++)); do
		pgrep -f "^sleep $dur\$" >/dev/null || break
		sleep 0.05
	done
	if pgrep -f "^sleep $dur\$" >/dev/null; then
		pkill -KILL -f "^sleep $dur\$"
		fail "$name" "the command outlived perf-run" "$TMP/err"
	elif ((st != 141)) || [[ $(cat "$TMP/out") != x ]]; then
		fail "$name" "exit status $st (expected 141), or not one line 'x'" "$TMP/out" "$TMP/err"
	elif ! grep -q "^perf-run: the output's reader closed it; [0-9]* records\? not written$" "$TMP/err"; then
		fail "$name" "no summary of what was not written" "$TMP/err"
	else
		pass "$name"
	fi
}

# Closed standard streams: a file perf-run opens must not take their
# numbers (an -o file would get stderr's lines).
closed_fds_case() {
	local name="stderr closed at start: the -o file holds the output only"
	rm -f "$TMP/o.txt"
	timeout -s KILL 20 "$PERF_RUN" -o "$TMP/o.txt" -e 'BEGIN { printf("data\n"); exit(); }' 2>&-
	if [[ $(cat "$TMP/o.txt" 2>/dev/null) != data ]]; then
		fail "$name" "the -o file holds more than the script's line" "$TMP/o.txt"
	else
		pass "$name"
	fi
}

# A traced process chooses the paths its maps show: a mapped library
# replaced by a FIFO (maps then says "PATH (deleted)"), or a path with a
# space ("/d/my lib.so" with a FIFO at "/d/my").  With ustack, perf-run
# (root) reads the unwind tables of every mapping at start: it must open
# the mapped files themselves, never a path that blocks (reliability-2 N1).
hostile_maps_case() {
	local kind=$1 name="ustack -p of a process whose mapped library is now $1: no hang" pid lib
	rm -rf "$TMP/maps"
	mkdir -p "$TMP/maps"
	if [[ $kind == "a FIFO" ]]; then
		lib=$TMP/maps/lib3.so
		cp tests/progs/libdlo.so "$lib"
		LD_PRELOAD=$lib start ./tests/progs/ticker 1000 20 >/dev/null 2>&1
		pid=$bg
		sleep 0.3
		rm -f "$lib"
		mkfifo "$lib"
	else
		lib="$TMP/maps/my lib.so"
		cp tests/progs/libdlo.so "$lib"
		start ./tests/progs/dlopener "$lib" 2000000000 >/dev/null 2>&1
		pid=$bg
		sleep 0.3
		mkfifo "$TMP/maps/my"
	fi
	timeout -s KILL 20 "$PERF_RUN" -p "$pid" -e 'profile:hz:99 { @[ustack] = count(); } interval:ms:300 { exit(); }' \
		>"$TMP/out" 2>"$TMP/err"
	local st=$?
	stop "$pid"
	if ((st == 137)); then
		fail "$name" "perf-run hung (killed after 20 s)" "$TMP/err"
	elif ((st != 0)); then
		fail "$name" "exit status $st" "$TMP/out" "$TMP/err"
	else
		pass "$name"
	fi
}

# exit() in the hit that also stops the process for its watchpoint: no
# record was handled after exit(), so a -p process was left stopped for
# ever (state T) after perf-run ended with status 0 (reliability-2 N5).
# Both orders of the two probes.
watch_exit_case() {
	local order=$1 name="exit() at a watched function ($1 the watchpoint): the -p process goes on" pid st prog
	local wp='watchpoint:increment+arg1:4:w { @w = count(); }'
	local ex='uprobe:./tests/progs/wpfunc:increment { exit(); }'
	[[ $order == before ]] && prog="$ex $wp" || prog="$wp $ex"
	start ./tests/progs/wpfunc 20000000 1 1500 >/dev/null 2>&1
	pid=$bg
	sleep 0.2
	timeout -s KILL 20 "$PERF_RUN" -p "$pid" -e "$prog" >"$TMP/out" 2>"$TMP/err"
	st=$?
	sleep 0.3
	if grep -qE '^[0-9]+ \(.*\) T' "/proc/$pid/stat" 2>/dev/null; then
		fail "$name" "the process is left stopped (state T) after perf-run ended (status $st)" "$TMP/err"
	elif ((st != 0)); then
		fail "$name" "exit status $st" "$TMP/out" "$TMP/err"
	else
		pass "$name"
	fi
	stop "$pid"
}

# perf-run killed by SIGKILL while its watchpoint holds the -p process
# stopped (the SIGSTOP came from BPF, perf-run had not set the breakpoint
# and sent SIGCONT yet): the process stayed stopped for ever, as bpftrace
# 0.17 leaves it.  perf-run is stopped first so that it cannot let it go
# itself; its watchdog (runtime/watchdog.c) does, once perf-run is dead.
watch_kill_case() {
	local name="perf-run killed by SIGKILL while its watchpoint holds the -p process stopped: the process goes on" pid pr i
	# the target's first call comes 8 s on: perf-run must be attached
	# and stopped before it, even on a loaded machine
	start ./tests/progs/wpfunc 20000000 1 8000 >/dev/null 2>&1
	pid=$bg
	# -p reads the process's executable: the forked shell must have exec'd
	for ((i = 0; i < 100; i++)); do [[ $(readlink "/proc/$pid/exe") == */wpfunc ]] && break; sleep 0.05; done
	"$PERF_RUN" -p "$pid" -e 'watchpoint:increment+arg1:4:w { @w = count(); }' >"$TMP/out" 2>"$TMP/err" &
	pr=$!
	for ((i = 0; i < 70; i++)); do grep -q '^Attached' "$TMP/err" && break; sleep 0.1; done
	kill -STOP "$pr"
	for ((i = 0; i < 150; i++)); do grep -qE '^[0-9]+ \(.*\) T' "/proc/$pid/stat" 2>/dev/null && break; sleep 0.1; done
	if ! grep -q '^Attached' "$TMP/err"; then
		# not the case's subject: its setup (seen at times under load)
		skip "$name (perf-run was not attached 7 s after it started, before the target's first call)"
		kill -KILL "$pr" 2>/dev/null
		wait "$pr" 2>/dev/null
		stop "$pid"
		return
	fi
	if ! grep -qE '^[0-9]+ \(.*\) T' "/proc/$pid/stat" 2>/dev/null; then
		kill -KILL "$pr" 2>/dev/null
		wait "$pr" 2>/dev/null
		stop "$pid"
		# seen once in 33 runs on a loaded machine, not understood yet
		# (perf-run attached, the target's call came 8 s later, no stop):
		# the setup is tried once more, and a second miss fails
		if [[ -z ${wk_retried:-} ]]; then
			wk_retried=1
			echo "NOTE $name: the watchpoint did not stop the process; setting it up again"
			watch_kill_case
			return
		fi
		fail "$name" "the watchpoint never stopped the process (twice)" "$TMP/err"
		return
	fi
	kill -KILL "$pr"
	wait "$pr" 2>/dev/null
	for ((i = 0; i < 50; i++)); do grep -qE '^[0-9]+ \(.*\) T' "/proc/$pid/stat" 2>/dev/null || break; sleep 0.1; done
	if grep -qE '^[0-9]+ \(.*\) T' "/proc/$pid/stat" 2>/dev/null; then
		fail "$name" "the process is left stopped (state T) 5 s after perf-run died" "$TMP/err"
	else
		pass "$name"
	fi
	stop "$pid"
}

# More programs and maps than the hard limit of open files allows: said
# before compiling, not after it as a load failure (reliability-2 F13:
# 10,000 probes with a map each compiled for 37 s, then EMFILE).
fd_budget_case() {
	local name="more probes and maps than open files allow: refused before compiling" st
	python3 -c "print(''.join('BEGIN { @x%d = 1; }\n' % i for i in range(400)) + 'BEGIN { exit(); }')" >"$TMP/many.bt"
	(ulimit -n 300 && exec timeout -s KILL 20 "$PERF_RUN" -q "$TMP/many.bt") >"$TMP/out" 2>"$TMP/err"
	st=$?
	if ((st != 1)); then
		fail "$name" "exit status $st, expected 1" "$TMP/out" "$TMP/err"
	elif ! grep -q "error: this script needs at least 865 file descriptors (one per program, map and link; 401 probes, 400 maps) and the hard limit is 300" "$TMP/err"; then
		fail "$name" "no line says so before compiling" "$TMP/err"
	elif grep -q "compiling" "$TMP/err"; then
		fail "$name" "it compiled first" "$TMP/err"
	else
		pass "$name"
	fi
}

priv_case() {
	local name=$1 caps=$2 want=$3 st
	local args=("${@:4}")
	((${#args[@]})) || args=(-e 'BEGIN { printf("ran\n"); exit(); }')
	local user=nobody group
	group=$(id -gn nobody 2>/dev/null) || group=nogroup
	cp "$PERF_RUN" "$TMP/perf-run"
	chmod 755 "$TMP" "$TMP/perf-run"
	setpriv --reuid="$user" --regid="$group" --clear-groups --inh-caps="$caps" \
		--ambient-caps="$caps" "$TMP/perf-run" "${args[@]}" >"$TMP/out" 2>"$TMP/err"
	st=$?
	if ((st != 1)); then
		fail "$name" "exit status $st, expected 1" "$TMP/out" "$TMP/err"
	elif [[ -s $TMP/out ]]; then
		fail "$name" "something ran" "$TMP/out"
	elif [[ $(wc -l <"$TMP/err") != 1 ]] || ! grep -qE "$want" "$TMP/err"; then
		fail "$name" "expected one line matching: $want" "$TMP/err"
	else
		pass "$name: $(cat "$TMP/err")"
	fi
}

if [[ ! -x $PERF_RUN || ! -x $PROGS/bpfids || ! -x $PROGS/ticker || ! -x $PROGS/loop || ! -x $PROGS/sigstorm ]]; then
	echo "FAIL faults: $PERF_RUN or the test programs are not built (make test-build)"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi

sigkill_case
stopped_case
nofile_case
signal_case INT -p
signal_case TERM -p
signal_case INT -c
signal_case TERM -c
replace_case replaced
replace_case deleted
burst_case
exit_lost_case
orphan_case
pipe_case
closed_fds_case
fd_budget_case
hostile_maps_case "a FIFO"
if ./tests/progs/kcan breakpoint >/dev/null; then
	watch_exit_case before
	watch_exit_case after
	watch_kill_case
else
	skip "exit() at a watched function ($(./tests/progs/kcan breakpoint))"
	skip "perf-run killed while its watchpoint holds the process ($(./tests/progs/kcan breakpoint))"
fi
hostile_maps_case "at a path with a space, and a FIFO where the space cuts it"
if command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	priv_case "without privileges: one sentence, exit 1, nothing run" -all \
		'^perf-run: .*CAP_BPF.*CAP_PERFMON'
	priv_case "with CAP_BPF alone: names CAP_PERFMON as missing" -all,+bpf \
		'^perf-run: .*missing CAP_PERFMON'
	# it said "No such file or directory" (reliability-2 F12)
	if ! setpriv --reuid=nobody --regid="$(id -gn nobody)" --clear-groups test -x /sys/kernel/tracing/events; then
		priv_case "-l of tracepoints without root: says tracefs is root's" -all \
			'readable by root only; run -l as root$' -l 'tracepoint:sched:*'
	else
		skip "-l of tracepoints without root (tracefs is readable by other users here)"
	fi
else
	skip "privilege cases (requires: setpriv and a nobody user)"
fi

echo "$passed passed, $failed failed, $skipped skipped"
