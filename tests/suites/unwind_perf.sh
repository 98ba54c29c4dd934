#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# unwind_perf.sh - ustack through CFI against perf's own DWARF unwinder,
# frame by frame: the same uprobe (funcD of unwind_o2, built -O2 without
# frame pointers by gcc and by clang; malloc in libc under ls) through
# `perf probe` + `perf record --call-graph dwarf` + `perf script`, and
# through perf-run's `@[ustack] = count()`.  perf prints a caller at its
# return address - 1, perf-run (as bpftrace) at the return address, and
# perf repeats a pc for each function inlined there; names are compared
# without symbol versions (@@GLIBC_...) and without the __GI_ and _impl of
# perf's names (from libc's debuginfo) for the same addresses.  Last line: `N passed, N failed, N skipped`.
set -uo pipefail

cd "$(dirname "$0")/../.."
PERF_RUN=${PERF_RUN:-build/perf-run}
TMP=$(mktemp -d /tmp/perf-run-unwind.XXXXXX)
GROUP=prunw$$
passed=0 failed=0 skipped=0

cleanup() {
	perf probe -q -d "$GROUP:*" >/dev/null 2>&1
	rm -rf "$TMP"
}
trap cleanup EXIT

# name+decimal offset per line, leaf first, of perf script's first sample.
# perf prints the functions inlined at a pc as lines "(inlined)" of the
# same address before the function's own: as perf-run, "name [inlined]";
# a pc whose last line is "(inlined)" too (libc's __libc_start_main_impl,
# DWARF's name for the symbol __libc_start_main) is that function's.
perf_frames() {
	perf script -i "$1" -F ip,sym,symoff 2>/dev/null | awk '
		function hex(s,  v, i, c) {
			v = 0
			for (i = 3; i <= length(s); i++) {
				c = index("0123456789abcdef", substr(s, i, 1)) - 1
				v = v * 16 + c
			}
			return v
		}
		function flush(  k) {
			for (k = 0; k < g; k++)
				print (k < g - 1 ? gname[k] " [inlined]" : gframe[k])
			g = 0
		}
		NF == 0 { if (n) { flush(); exit } next }
		$1 != last { flush() }
		{ last = $1 }
		$2 == "[unknown]" { gname[g] = "?"; gframe[g++] = "?"; n++; next }
		{ s = $2; i = index(s, "+0x")
		  name = substr(s, 1, i - 1); off = hex(substr(s, i + 1))
		  if (n && !g) off++;   # perf: return address - 1
		  else if (g) off = goff
		  goff = off
		  sub(/@.*/, "", name); sub(/_impl$/, "", name); sub(/^__GI_/, "", name)
		  gname[g] = name; gframe[g++] = name "+" off; n++ }
		END { flush() }'
}

# the same from perf-run's text output of the first stack key.  Past a
# signal frame perf differs in two ways that the awk undoes: it names the
# frame at __restore_rt - 1, outside any symbol ([unknown]), and the next
# pc is the interrupted instruction itself, not a return address (which
# perf_frames takes it for).
run_frames() {
	awk '/^@\[$/ { on = 1; next } /^\]/ { if (on) exit } on {
		s = $1; if (s ~ /^0x/) { print "?"; next }
		i = index(s, "+"); name = i ? substr(s, 1, i - 1) : s
		sub(/@.*/, "", name); sub(/_impl$/, "", name)
		if ($2 == "[inlined]") { print name " [inlined]"; next }
		if (name == "__restore_rt") { print "?"; sig = 1; next }
		off = substr(s, i + 1) + sig; sig = 0
		print name "+" off }' "$1"
}

# check NAME BIN FUNC WORKLOAD...: FUNC of BIN probed by both
check() {
	local name=$1 bin=$2 func=$3
	shift 3
	perf probe -q -d "$GROUP:*" >/dev/null 2>&1
	if ! perf probe -q -x "$bin" -a "$GROUP:target=$func" >"$TMP/probe.log" 2>&1; then
		echo "SKIP $name (perf probe failed: $(head -1 "$TMP/probe.log"))"
		((skipped++))
		return
	fi
	perf record -q -e "$GROUP:target" --call-graph dwarf -o "$TMP/perf.data" -- "$@" \
		>/dev/null 2>"$TMP/record.log"
	perf_frames "$TMP/perf.data" >"$TMP/perf.txt"
	perf probe -q -d "$GROUP:*" >/dev/null 2>&1
	"$PERF_RUN" -q -e "uprobe:$bin:$func /pid == cpid/ { @[ustack] = count(); exit(); }" -- "$@" \
		>"$TMP/run.out" 2>"$TMP/run.err"
	run_frames "$TMP/run.out" >"$TMP/run.txt"
	if [[ -s $TMP/perf.txt ]] && cmp -s "$TMP/perf.txt" "$TMP/run.txt"; then
		echo "PASS $name ($(wc -l <"$TMP/run.txt") frames)"
		((passed++))
	else
		echo "FAIL $name"
		diff "$TMP/perf.txt" "$TMP/run.txt" | sed 's/^/    | /'
		sed 's/^/    | /' "$TMP/run.err" "$TMP/record.log"
		((failed++))
	fi
}

if ! command -v perf >/dev/null; then
	echo "SKIP perf is not installed"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
top=$(pwd)
check "gcc -O2 funcD: perf-run's stack is perf's" "$top/tests/progs/unwind_o2" funcD \
	"$top/tests/progs/unwind_o2" 3
check "clang -O2 funcD: perf-run's stack is perf's" "$top/tests/progs/unwind_o2_clang" funcD \
	"$top/tests/progs/unwind_o2_clang" 3
check "a signal handler (-O2): through __restore_rt to the code the signal interrupted" \
	"$top/tests/progs/unwind_sig" sig_probe "$top/tests/progs/unwind_sig" 3
check "a probe in a library dlopen'd by the command (-O2): its tables from the probe" \
	"$top/tests/progs/libunwind_late.so" late_c "$top/tests/progs/unwind_late" \
	"$top/tests/progs/libunwind_late.so" 3
check "inlined functions at a return address (-O2, DWARF): perf's inlined frames" \
	"$top/tests/progs/unwind_inline" in_leaf "$top/tests/progs/unwind_inline" 2
libc=$(ldd /bin/ls | awk '/libc.so/ { print $3 }')
check "libc malloc under ls (stripped, libc from .eh_frame): perf-run's stack is perf's" \
	"$libc" malloc /bin/ls /
echo "$passed passed, $failed failed, $skipped skipped"
((failed == 0))
