#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# same_line_addr.sh SPEC: whether perf-run's kprobe:SPEC (a kernel source
# line) is at the address perf probe puts it (perf probe -D prints
# "p:probe/NAME _text+N" or "SYMBOL+N"); run in the test-kernel guest.
set -u
spec=$1
ours=$("$PERF_RUN" --dump probes -e "kprobe:$spec { }" 2>/dev/null | sed -n 's/^  site //p')
perfs=$(perf probe -D "$spec" 2>/dev/null | sed -n 's/^p:[^ ]* //p')
ksym() { awk -v s="$1" '$3 == s { print $1; exit }' /proc/kallsyms; }
# SYMBOL+N as an address
addr() {
	local sym=${1%+*} off=${1##*+} a
	[[ $1 == *+* ]] || off=0
	a=$(ksym "$sym")
	[ -n "$a" ] || return 1
	echo $((0x$a + off))
}
[ -n "$ours" ] && [ -n "$perfs" ] || { echo "ours '$ours', perf '$perfs'"; exit 1; }
[ "$(wc -l <<<"$ours")" = "$(wc -l <<<"$perfs")" ] || { echo "ours '$ours', perf '$perfs'"; exit 1; }
a=$(while read -r s; do addr "$s"; done <<<"$ours" | sort)
b=$(while read -r s; do addr "$s"; done <<<"$perfs" | sort)
[ -n "$a" ] && [ "$a" = "$b" ] || { echo "ours '$ours' ($a), perf '$perfs' ($b)"; exit 1; }
