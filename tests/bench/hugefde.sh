#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# hugefde.sh [N...] - cost of the unwind tables of one FDE with many rows
# (review item N6; tests/bench/hugefde_gen.sh: late_a with ~2N rows), for
# N = 5000 20000 50000 by default, tables built afresh (PERF_RUN_NO_CACHE=1):
#   start-up  the table build of `uprobe:OUT:late_cb { @[ustack] = count(); }
#             -c OUT`: wall and CPU ms from -v's "unwind: ... objects" line
#   run-time  OUT.so dlopen()ed by tests/progs/unwind_late under a trace
#             whose interval:ms:500 calls exit(): the wall time from the
#             start to perf-run's exit (the event loop must honour exit()
#             while the library's tables are built), and -v's "loaded at
#             run time ... in T ms" if the load ended before the exit.
# HUGEFDE_FUNCS=M: M such functions (hugefde_gen.sh's third argument),
# e.g. `HUGEFDE_FUNCS=2000 tests/bench/hugefde.sh 512`: 2000 FDEs of 1032
# rows, a 6 MB .eh_frame of the costliest kind once rows are capped.
# Each run is bounded by BENCH_TIMEOUT seconds (default 120: SIGINT, then
# SIGKILL 5 s later).  Run as root from the top of the tree after `make
# test-build`; PERF_RUN picks the binary (default build/perf-run).
set -uo pipefail
cd "$(dirname "$0")/../.."
PERF_RUN=${PERF_RUN:-build/perf-run}
T=${BENCH_TIMEOUT:-120}
dir=build/bench/hugefde
mkdir -p "$dir"
(($#)) || set -- 5000 20000 50000
m=${HUGEFDE_FUNCS:-1}

now() { date +%s%N; }
# run LOG CMD...: runs CMD bounded by $T s, stderr into LOG; prints wall ms
run() {
	local log=$1 t0
	shift
	t0=$(now)
	PERF_RUN_NO_CACHE=1 timeout -s INT -k 5 "$T" "$@" >/dev/null 2>"$log"
	echo $((($(now) - t0) / 1000000))
}

printf '%-7s %-8s %-9s %-26s %-16s %s\n' N rows eh_frame "start-up build (wall/CPU)" "run-time: exit" "run-time load"
for n in "$@"; do
	out=$PWD/$dir/h$n
	((m == 1)) || out=$PWD/$dir/h${n}x$m
	[[ -x $out && -f $out.so ]] || sh tests/bench/hugefde_gen.sh "$n" "$out" "$m" || exit 1
	ehkb=$((0x$(objdump -h "$out.so" | awk '$2 == ".eh_frame" { print $3 }') / 1024))
	run "$dir/start$n.log" "$PERF_RUN" -v -q -e "uprobe:$out:late_cb { @[ustack] = count(); }" \
		-- "$out" 2 >/dev/null
	rows=$(sed -n "s|^perf-run: unwind: $out: \([0-9]*\) rows.*|\1|p" "$dir/start$n.log")
	build=$(sed -n 's/^perf-run: unwind: [0-9]* objects, .* in \([0-9.]*\) ms (\([0-9.]*\) ms of CPU).*/\1 \/ \2 ms/p' \
		"$dir/start$n.log")
	wall=$(run "$dir/late$n.log" "$PERF_RUN" -v -q -e \
		"uprobe:$PWD/tests/progs/unwind_late:late_cb { @[ustack] = count(); } interval:ms:500 { exit(); }" \
		-- "$PWD/tests/progs/unwind_late" "$out.so" 100000 10)
	late=$(sed -n 's/^perf-run: unwind: .*\.so: .* loaded at run time .* in \([0-9.]*\) ms.*/\1 ms/p' \
		"$dir/late$n.log")
	printf '%-7s %-8s %-9s %-26s %-16s %s\n' "$n" "${rows:-?}" "$ehkb KB" "${build:-n/a}" \
		"$wall ms" "${late:-not loaded by then}"
done
