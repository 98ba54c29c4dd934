#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# formats.sh - the cost of writing a 10,000-stack map in each output
# format: @[ustack] = count() on leaf() of tests/progs/manystacks 10000 14
# (each call a distinct user stack of about 16 frames), written as text,
# json, folded, folded-perf, perf.data (-f perf) and pprof (-f pprof).
# Timed from outside by build/bench/stamp: from END's printf (the maps are
# printed after it) to perf-run's exit, which holds reading the map,
# naming the frames, writing the output and the same clean-up for every
# format; "over text" is that time less text's.  Median of BENCH_FORMAT_RUNS
# (3) runs, with the output's size and perf-run's peak RSS.
# Run as root from the top of the tree after `make progs` (make bench does).
set -uo pipefail
cd "$(dirname "$0")/../.."
PERF_RUN=${PERF_RUN:-build/perf-run}
RUNS=${BENCH_FORMAT_RUNS:-3}
STAMP=build/bench/stamp
PROG=./tests/progs/manystacks
W=$(mktemp -d /tmp/perf-run-fmtbench.XXXXXX)
trap 'rm -rf "$W"' EXIT

[[ -x $STAMP && -x $PROG ]] || make -s "$STAMP" "$PROG" >/dev/null || exit 1
SCRIPT="uprobe:$PROG:leaf { @[ustack] = count(); } END { printf(\"end_of_run\\n\"); }"

median() { sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "n/a" }'; }

printf '%-12s %10s %12s %10s %10s %s\n' format ms over_text size_kb rss_mb "(10,000 stacks, median of $RUNS)"
base=
for f in text json folded folded-perf perf pprof; do
	: >"$W/ms"; : >"$W/rss"
	for ((i = 0; i < RUNS; i++)); do
		# the text formats on stdout, which stamp keeps (END's line with
		# them: in a -o file stamp would not see it); perf and pprof in -o
		out=$W/out.$f
		case $f in
		perf|pprof) line=$("$STAMP" -m end_of_run -t 120 -e "$W/err" -- "$PERF_RUN" -q -f "$f" \
				-o "$out" -e "$SCRIPT" -- "$PROG" 10000 14 | tail -1) ;;
		*) line=$("$STAMP" -m end_of_run -t 120 -o "$out" -e "$W/err" -- "$PERF_RUN" -q -f "$f" \
				-e "$SCRIPT" -- "$PROG" 10000 14 | tail -1) ;;
		esac
		a=$(sed -n 's/.*attach_ms=\([0-9.-]*\).*/\1/p' <<<"$line")
		t=$(sed -n 's/.*total_ms=\([0-9.-]*\).*/\1/p' <<<"$line")
		r=$(sed -n 's/.*rss_kb=\([0-9-]*\).*/\1/p' <<<"$line")
		if [[ -z $a || -z $t || $a == -1* ]]; then
			echo "bench formats: $f: no measure: $line $(head -3 "$W/err")" >&2
			continue
		fi
		awk -v a="$a" -v t="$t" 'BEGIN { printf "%.1f\n", t - a }' >>"$W/ms"
		echo "$r" >>"$W/rss"
	done
	ms=$(median <"$W/ms") rss=$(median <"$W/rss")
	[[ $f == text ]] && base=$ms
	over=$(awk -v m="$ms" -v b="${base:-}" 'BEGIN { if (m == "n/a" || b == "") print "n/a"; else printf "%+.1f", m - b }')
	size=$(du -k "$W/out.$f" 2>/dev/null | cut -f1)
	printf '%-12s %10s %12s %10s %10s\n' "$f" "$ms" "$over" "${size:-n/a}" \
		"$(awk -v r="$rss" 'BEGIN { if (r ~ /^[0-9]+$/) printf "%.0f", r / 1024; else print "n/a" }')"
done
