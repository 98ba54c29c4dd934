#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# conformance.sh - the dwarf module against perf probe, on the test programs
# tests/progs/dwarf_*.c (and tests/dwarf/twocu/, two compile units with a
# static function of the same name) built with gcc and clang-19 at -O0..-O3.
#
# For each spec of tests/dwarf/PROG.specs:
#   p SPEC  the sorted file offsets of `resolve_main BIN SPEC` must equal
#           those of `perf probe -x BIN -D 'SPEC $params'` ($params makes perf
#           skip the prologue of unoptimised code as perf-run does); both
#           failing counts as equal; so does a line perf refuses because
#           its address is another line's (we probe it, as gdb does).  Then every variable `perf probe -V`
#           lists at each place must be among ours (we read more forms).
#   r SPEC  the same for SPEC%return (without $params).
#   l SPEC  `resolve_main -L` must print what `perf probe -L` prints.
# For each p spec `resolve_main -V` (the listing at a function's first
# instruction, where perf probe -V looks; perf-run -V lists at its probe's
# address, past the prologue) must also print what `perf probe -V`
# prints, once the variables only we can read are taken out of ours.
# Prints per compiler and level the counts, then "N passed, N failed".
# Run from the top of the tree, as root (perf probe reads tracefs).
#
#   tests/dwarf/conformance.sh [-v] [PROG...]     -v shows every mismatch
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/dwarf
verbose=0
[ "${1:-}" = -v ] && { verbose=1; shift; }
progs=${*:-dwarf_types dwarf_scopes dwarf_inline dwarf_pieces twocu}
passed=0 failed=0

mkdir -p "$out" || exit 1
cc_main="gcc -std=gnu11 -Wall -Wextra -Werror -g -I$top"
# elfsym.c matches C++ names through lib/demangle.cc (LLVM's demanglers)
if ! g++ -std=c++17 -fno-exceptions -fno-rtti -g -I"$top" -I/usr/lib/llvm-19/include \
	-c -o "$out/demangle.o" "$top/lib/demangle.cc" ||
   ! $cc_main -o "$out/resolve_main" "$top/tests/dwarf/resolve_main.c" \
	"$top"/compiler/dwarf*.c "$top/lib/types.c" "$top/lib/elfsym.c" \
	"$top/lib/safefile.c" "$out/demangle.o" -L/usr/lib/llvm-19/lib -lLLVM-19 -lstdc++ \
	-ldw -lelf -lz; then
	echo "cannot build resolve_main"; echo "0 passed, 1 failed"; exit 1
fi
R=$out/resolve_main

say() { [ $verbose = 1 ] && printf '%s\n' "$@"; }

. "$top/tests/dwarf/specs.sh"  # expand

perf_addrs() {  # BIN SPEC [ARGS]: sorted offsets, or "error"
	local o
	o=$(perf probe -q -x "$1" -D "$2${3:+ $3}" 2>/dev/null | awk '/^[pr]:/ {
		n = split($2, a, ":"); print a[n] }' | sort -u)
	printf '%s\n' "${o:-error}"
}

our_addrs() {  # [-r] BIN SPEC
	local o
	o=$("$R" "$@" 2>/dev/null | awk '$NF ~ /^0x/ { print $NF }' | sort -u)
	printf '%s\n' "${o:-error}"
}

# "-V" listings as "PLACE NAME" lines.
vars_of() {
	awk '/^\t@</ { place = $1 } /^\t\t/ && !/No matched/ { print place, $NF }' | sort -u
}

check_probe() {  # BIN SPEC
	local p o pv ov missing
	# $params only where it changes perf's address: plain FUNC[@SRC].
	case $2 in
	0x*|*[:+\;%]*) p=$(perf_addrs "$1" "$2");;
	*) p=$(perf_addrs "$1" "$2" '$params');;
	esac
	o=$(our_addrs "$1" "$2")
	n_specs=$((n_specs + 1))
	if [ "$p" = "$o" ]; then
		n_addr=$((n_addr + 1)); passed=$((passed + 1))
		[ "$p" = error ] && n_err=$((n_err + 1))
	elif [ "$p" = error ] && [ "$o" != error ] &&
		perf probe -x "$1" -D "$2" 2>&1 | grep -q 'sharing the address with other lines'; then
		# A line with an address another line's row maps to first: perf
		# probe refuses the line, perf-run probes it where gdb breaks (its
		# own addresses, else the shared one, with a note for -v).
		n_shared=$((n_shared + 1)); passed=$((passed + 1))
	else
		failed=$((failed + 1))
		say "  ADDR $2: perf [$(echo $p)] ours [$(echo $o)]"
	fi
	[ "$p" = error ] && return
	PL=$(perf probe -q -x "$1" -V "$2" 2>/dev/null)
	OL=$("$R" -V "$1" "$2" 2>/dev/null)
	check_listing "$2"
	pv=$(printf '%s\n' "$PL" | vars_of)
	ov=$(printf '%s\n' "$OL" | vars_of)
	n_pvars=$((n_pvars + $(printf '%s' "$pv" | grep -c .)))
	n_ovars=$((n_ovars + $(printf '%s' "$ov" | grep -c .)))
	missing=$(comm -23 <(printf '%s\n' "$pv") <(printf '%s\n' "$ov") | grep .)
	if [ -z "$missing" ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		say "  VARS $2: perf has, we lack: $(echo $missing)"
	fi
}

# perf run -V against perf probe -V: the same text once the variables only
# perf-run can read (locations perf probe does not support) are dropped
# from ours; counts exact equality too.
check_listing() {  # SPEC, with the listings in PL (perf) and OL (ours)
	local p=$PL o=$OL f
	[ -n "$p" ] || return  # perf probe -V takes no address of a uprobe binary
	f=$(awk -v perf="$p" '
		BEGIN { n = split(perf, l, "\n")
			for (i = 1; i <= n; i++) { if (l[i] ~ /^\t@</) pl = l[i]; else if (l[i] ~ /^\t\t/) have[pl SUBSEP l[i]] = 1 } }
		/^\t@</ { place = $0 }
		!/^\t\t/ || (place SUBSEP $0) in have' <<<"$o")
	n_vlists=$((n_vlists + 1))
	[ "$p" = "$o" ] && n_vsame=$((n_vsame + 1))
	# A place where perf probe reads nothing says "(No matched variables)".
	if [ "$(grep -v 'No matched variables' <<<"$p")" = "$(grep -v 'No matched variables' <<<"$f")" ]; then
		n_vlist=$((n_vlist + 1)); passed=$((passed + 1))
	else
		failed=$((failed + 1))
		say "  -V $1:" "$(diff <(printf '%s\n' "$p") <(printf '%s\n' "$f") | head -10)"
	fi
}

check_return() {
	local p o
	p=$(perf_addrs "$1" "$2%return")
	o=$(our_addrs -r "$1" "$2")
	n_specs=$((n_specs + 1))
	if [ "$p" = "$o" ]; then
		n_addr=$((n_addr + 1)); passed=$((passed + 1))
		[ "$p" = error ] && n_err=$((n_err + 1))
	else
		failed=$((failed + 1))
		say "  RET $2: perf [$(echo $p)] ours [$(echo $o)]"
	fi
}

check_lines() {
	local p o
	p=$(perf probe -q -x "$1" -L "$2" 2>/dev/null)
	o=$("$R" -L "$1" "$2" 2>/dev/null)
	n_lists=$((n_lists + 1))
	if [ "$p" = "$o" ]; then
		n_lines=$((n_lines + 1)); passed=$((passed + 1))
	else
		failed=$((failed + 1))
		say "  LINES $2:" "$(diff <(printf '%s\n' "$p") <(printf '%s\n' "$o") | head -10)"
	fi
}

for cc in gcc clang-19; do
	for lvl in 0 1 2 3; do
		n_specs=0 n_addr=0 n_err=0 n_shared=0 n_pvars=0 n_ovars=0 n_lists=0 n_lines=0
		n_vlists=0 n_vlist=0 n_vsame=0
		for prog in $progs; do
			src=$top/tests/progs/$prog.c
			srcs=$src
			if [ $prog = twocu ]; then  # two CUs, each with a static helper()
				src=$top/tests/dwarf/twocu/b_part.c
				srcs="$top/tests/dwarf/twocu/a_part.c $src"
			fi
			bin=$out/$prog-$cc-O$lvl
			if ! $cc -g -O$lvl -o "$bin" $srcs 2>/dev/null; then
				echo "cannot build $bin"; failed=$((failed + 1)); continue
			fi
			say "$cc -O$lvl $prog"
			while read -r kind spec; do
				case $kind in ''|'#'*) continue;; esac
				spec=$(expand "$spec" "$src")
				case $kind in
				p) check_probe "$bin" "$spec";;
				r) check_return "$bin" "$spec";;
				l) check_lines "$bin" "$spec";;
				esac
			done < "$top/tests/dwarf/$prog.specs"
		done
		printf '%-8s -O%s: specs %d, addresses equal %d (both refuse %d), shared lines only we probe %d, variables perf %d, ours %d, -L equal %d/%d, -V equal %d/%d (%d without variables only we read)\n' \
			"$cc" "$lvl" "$n_specs" "$n_addr" "$n_err" "$n_shared" "$n_pvars" "$n_ovars" "$n_lines" "$n_lists" \
			"$n_vsame" "$n_vlists" "$n_vlist"
	done
done
echo "$passed passed, $failed failed"
[ $failed = 0 ]
