#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# kline_values.sh SPEC 'CMD' NAME=PERFARG|EXPR ... - the values at a kernel
# source line, as perf probe reads them and as perf-run does, for the same
# workload (run in the test-kernel guest, which has the kernel's DWARF).
#
#   SPEC     perf probe's point (vfs_read:8, read_write.c:557); MOD:POINT
#            in a loaded module (perf probe -m with its debuginfo)
#   CMD      the workload, words without shell syntax; only hits of its
#            command name are kept
#   PERFARG  perf probe's fetch argument (count, file->f_flags,
#            +0(tmp->name):string: a string, compared without quotes)
#   EXPR     perf-run's expression for the same value (args.count,
#            str(args.tmp->name) for a string)
#
# perf probe -a 'EV=SPEC NAME=PERFARG ...' writes each hit to tracefs; perf-run
# printf()s the expressions at kprobe:SPEC.  Each value is compared as a
# 64-bit integer (perf prints hex or decimal by type) or as a string, hit by
# hit.  Prints `SPEC: N hits, K values: equal` (exit 0), or the first rows
# that differ (exit 1); with -t, one markdown row per value for
# docs/conformance.md.
set -u
table=0
[[ ${1:-} == -t ]] && { table=1; shift; }
spec=$1 cmd=$2
shift 2
comm=${cmd%% *}
comm=${comm##*/}
T=/sys/kernel/tracing
ev=kl$$
t=$(mktemp -d) || exit 1
cleanup() {
	[[ -e $T/events/probe/enable ]] && echo 0 >"$T/events/probe/enable"
	perf probe -q -d "probe:$ev*" >/dev/null 2>&1
	rm -rf "$t"
}
trap cleanup EXIT

names=() pargs=() exprs=() fmt=
for a; do
	n=${a%%=*} r=${a#*=}
	names+=("$n")
	pargs+=("$n=${r%%|*}")
	exprs+=("${r#*|}")
	[[ ${r%%|*} == *:string ]] && fmt+="%s	" || fmt+="%d	"
done
fmt=${fmt%	}

# a module's point: perf probe -m takes its debuginfo
. "$(dirname "$0")/kmod.sh"
kmod_split "$spec"
# perf probe: one event per address (EV, EV_1, ... for inlined copies)
# kcomm=$comm: the command's name when the event fired (tracefs shows a
# pid's last name: an exec's own opens of the binary would count as its)
if ! perf probe -q "${mopt[@]}" -a "$ev=$pspec ${pargs[*]} kcomm=\$comm" >"$t/add" 2>&1; then
	echo "perf probe -a '$spec ${pargs[*]}' failed: $(head -3 "$t/add")"
	exit 1
fi
# exec'd from a fork of this shell, as perf-run -c runs it, its output to
# a descriptor open already: what a shell or the fork opened would show up
# under the command's name (tracefs names a pid by its last comm)
exec 5>/dev/null
echo >"$T/trace"
echo 1 >"$T/events/probe/enable"
$cmd >&5 2>&5
echo 0 >"$T/events/probe/enable"
grep -E "^ *$comm-[0-9]+ .* $ev(_[0-9]+)?: .* kcomm=\"$comm\"$" "$T/trace" >"$t/trace"

# perf probe's line: "... ev: (vfs_read+0x4b/0x370) count=0x340 name="x""
while IFS= read -r line; do
	row=
	for n in "${names[@]}"; do
		v=${line##* $n=}
		if [[ $v == \"* ]]; then
			v=${v#\"}
			v=${v%%\"*}
		else
			v=${v%% *}
			v=$((v))
		fi
		row+="$v	"
	done
	echo "${row%	}"
done <"$t/trace" >"$t/perf"

prog="kprobe:$spec /comm == \"$comm\"/ { printf(\"$fmt\\n\", $(IFS=,; echo "${exprs[*]}")); }"
"$PERF_RUN" -q -o "$t/raw" -e "$prog" -c "$cmd" >/dev/null 2>"$t/err" ||
	{ echo "perf-run failed: $(head -3 "$t/err")"; exit 1; }
while IFS= read -r line; do
	[[ -n $line ]] || continue
	row=
	IFS='	' read -ra vs <<<"$line"
	for i in "${!names[@]}"; do
		v=${vs[i]:-}
		[[ ${pargs[i]} == *:string ]] || v=$((v))
		row+="$v	"
	done
	echo "${row%	}"
done <"$t/raw" >"$t/ours"

hits=$(wc -l <"$t/perf")
if ((table)); then
	for i in "${!names[@]}"; do
		p=$(cut -f$((i + 1)) "$t/perf" | head -4 | paste -sd, -)
		o=$(cut -f$((i + 1)) "$t/ours" | head -4 | paste -sd, -)
		# no process substitution: the guest's devtmpfs has no /dev/fd
		cut -f$((i + 1)) "$t/perf" >"$t/p1"
		cut -f$((i + 1)) "$t/ours" >"$t/o1"
		same=no
		cmp -s "$t/p1" "$t/o1" && same=yes
		echo "| \`$spec\` | \`${pargs[i]#*=}\` / \`${exprs[i]}\` | $hits / $(wc -l <"$t/ours") | $p | $o | $same |"
	done
fi
if ((hits == 0)); then
	echo "$spec: perf probe saw no hit of $comm"
	exit 1
fi
if ! cmp -s "$t/perf" "$t/ours"; then
	echo "$spec: the values differ (perf probe, then perf-run; ${names[*]}):"
	diff "$t/perf" "$t/ours" | head -10
	exit 1
fi
echo "$spec: $hits hits, ${#names[@]} values: equal"
