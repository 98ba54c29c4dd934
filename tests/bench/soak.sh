#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# soak.sh - sustained load, as an SRE would leave a tracer running
# (issue 27): for SOAK_SECONDS (600) each, perf-run and then bpftrace 0.17
# run the same script over the same workload:
#   - a profile of user stacks at 99 Hz of a program that makes 32768
#     distinct stacks (tests/progs/manystacks, two copies), printed (top 5)
#     and cleared every second: more stacks than ustack keeps ids for;
#   - a map of high cardinality (a key per syscall's nsecs % 100000) that
#     fills its 4096 keys between two clears;
#   - a printf stream, ten lines a second.
# Every 10 s the tracer's RSS, open files and BPF objects (fds that are
# bpf-prog, bpf-map or bpf-link) are sampled: they must stay flat.  At the
# end: samples printed under an empty stack key (@s[]), user stacks cut by
# ids used up (and perf-run's ids given back, from -v), and how often a
# full map or a loss was said while running.  The workload's comm is
# manystacks: another manystacks started meanwhile is profiled too.
# Run as root from the top of the tree after `make test-build`.
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
SECS=${SOAK_SECONDS:-600}
PERFRUN=${PERF_RUN:-build/perf-run}
W=$(mktemp -d /tmp/perf-run-soak.XXXXXX)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
	rm -rf "$W"
}
trap cleanup EXIT

SCRIPT='profile:hz:99 /comm == "manystacks"/ { @s[ustack] = count(); }
tracepoint:raw_syscalls:sys_enter { @k[nsecs % 100000] = count(); }
interval:ms:100 { printf("tick %d\n", elapsed); }
interval:s:1 { print(@s, 5); clear(@s); clear(@k); }'

# Prints "RSS_KB FDS BPF_FDS" of pid.
sample() {
	local pid=$1 rss fds bpf=0 f
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
	fds=$(ls "/proc/$pid/fd" 2>/dev/null | wc -l)
	for f in /proc/"$pid"/fd/*; do
		case $(readlink "$f" 2>/dev/null) in anon_inode:bpf-*) ((bpf++)) ;; esac
	done
	echo "${rss:-0} $fds $bpf"
}

# soak TOOL CMD...: runs CMD for SECS over the workload, samples it.
soak() {
	local tool=$1 pid t w1 w2
	shift
	./tests/progs/manystacks 2000000000 15 >/dev/null 2>&1 &
	w1=$!
	./tests/progs/manystacks 2000000000 15 >/dev/null 2>&1 &
	w2=$!
	pids+=("$w1" "$w2")
	"$@" >"$W/$tool.out" 2>"$W/$tool.err" &
	pid=$!
	pids+=("$pid")
	for ((t = 10; t <= SECS; t += 10)); do
		sleep 10
		kill -0 "$pid" 2>/dev/null || break
		echo "$tool $t $(sample "$pid")" >>"$W/samples"
	done
	kill -INT "$pid" 2>/dev/null
	sleep 3
	kill -KILL "$pid" "$w1" "$w2" 2>/dev/null
	wait "$pid" "$w1" "$w2" 2>/dev/null
}

summary() {
	local tool=$1 empty idfull drops lost first last
	empty=$(grep -c '^@s\[\]' "$W/$tool.out")
	idfull=$(grep -c 'no stack id left' "$W/$tool.out")
	drops=$(grep -c 'updates\? dropped (' "$W/$tool.err")
	lost=$(grep -ciE 'lost|dropped' "$W/$tool.err")
	first=$(awk -v t="$tool" '$1 == t { print $3, $4, $5; exit }' "$W/samples")
	last=$(awk -v t="$tool" '$1 == t { l = $3 " " $4 " " $5 } END { print l }' "$W/samples")
	printf '%-9s %-22s %-22s %8s %12s %14s %12s\n' "$tool" "${first:-n/a}" "${last:-n/a}" \
		"$empty" "$idfull" "$drops" "$lost"
}

[ -x "$PERFRUN" ] && [ -x tests/progs/manystacks ] || {
	echo "soak: build first (make test-build)" >&2
	exit 1
}
: >"$W/samples"
echo "soak: ${SECS} s each, perf-run then bpftrace"
soak perf-run "$PERFRUN" -v -q -e "$SCRIPT"
if command -v bpftrace >/dev/null; then
	soak bpftrace bpftrace -e "$SCRIPT"
fi
echo
echo "every 10 s: tool seconds rss_kb open_fds bpf_fds"
cat "$W/samples"
echo
printf '%-9s %-22s %-22s %8s %12s %14s %12s\n' tool "first (rss fds bpf)" \
	"last (rss fds bpf)" "@s[]" "ids-used-up" "drops-at-print" "loss-lines"
summary perf-run
command -v bpftrace >/dev/null && summary bpftrace
grep -h 'ustack ids:' "$W/perf-run.err"
