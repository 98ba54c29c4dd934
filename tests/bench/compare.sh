#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# compare.sh - two results.tsv files of `make bench` side by side: for each
# metric, perf-run's median before and after, and each as a ratio to the
# other tools' medians of the same file (bpftrace, perf...).  Lower ratios
# are better for times, insns and RSS; higher for ev/s.
#
#   tests/bench/compare.sh build/bench/before.tsv build/bench/results.tsv
set -eu

if [ $# -ne 2 ]; then
	echo "usage: $0 BEFORE.tsv AFTER.tsv" >&2
	exit 2
fi

awk -F'\t' '
	FNR == 1 { file++; next }
	{
		k = $1 SUBSEP $2
		if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }
		if ($2 != "perf-run" && !(($1, $2) in other)) { other[$1, $2] = 1; tools[$1] = tools[$1] " " $2 }
		val[file, k] = $3; unit[$1] = $6
	}
	function num(v) { return v ~ /^>/ ? substr(v, 2) + 0 : v + 0 }
	function ratio(a, b) {
		if (a == "" || b == "" || a == "n/a" || b == "n/a" || num(b) == 0) return "-"
		return sprintf("%.3g", num(a) / num(b))
	}
	END {
		printf "%-34s %-6s %12s %12s  %-10s %10s %10s\n", "metric", "unit", "before", "after",
		       "vs", "before", "after"
		for (i = 1; i <= n; i++) {
			m = order[i]
			b = val[1, m SUBSEP "perf-run"]; a = val[2, m SUBSEP "perf-run"]
			c = split(tools[m], t, " ")
			if (c == 0) {
				printf "%-34s %-6s %12s %12s\n", m, unit[m], b == "" ? "-" : b, a == "" ? "-" : a
				continue
			}
			for (j = 1; j <= c; j++) {
				o1 = val[1, m SUBSEP t[j]]; o2 = val[2, m SUBSEP t[j]]
				printf "%-34s %-6s %12s %12s  %-10s %10s %10s\n", j == 1 ? m : "", j == 1 ? unit[m] : "",
				       j == 1 ? (b == "" ? "-" : b) : "", j == 1 ? (a == "" ? "-" : a) : "",
				       t[j], ratio(b, o1), ratio(a, o2)
			}
		}
	}' "$1" "$2"
