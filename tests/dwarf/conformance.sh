#!/bin/bash
# conformance.sh - the dwarf module against perf probe, on the test programs
# tests/progs/dwarf_*.c (and tests/dwarf/twocu/, two compile units with a
# static function of the same name) built with gcc and clang-19 at -O0..-O3.
#
# For each spec of tests/dwarf/PROG.specs:
#   p SPEC  the sorted file offsets of `resolve_main BIN SPEC` must equal
#           those of `perf probe -x BIN -D 'SPEC $params'` ($params makes perf
#           skip the prologue of unoptimised code as perf-run does); both
#           failing counts as equal.  Then every variable `perf probe -V`
#           lists at each place must be among ours (we read more forms).
#   r SPEC  the same for SPEC%return (without $params).
#   l SPEC  `resolve_main -L` must print what `perf probe -L` prints.
# Prints per compiler and level the counts, then "N passed, N failed".
# Run from the top of the tree, as root (perf probe reads tracefs).
#
#   tests/dwarf/conformance.sh [-v] [PROG...]     -v shows every mismatch
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/dwarf
verbose=0
[ "${1:-}" = -v ] && { verbose=1; shift; }
progs=${*:-dwarf_types dwarf_scopes dwarf_inline twocu}
passed=0 failed=0

mkdir -p "$out" || exit 1
cc_main="gcc -std=gnu11 -Wall -Wextra -Werror -g -I$top"
if ! $cc_main -o "$out/resolve_main" "$top/tests/dwarf/resolve_main.c" \
	"$top"/compiler/dwarf*.c "$top/compiler/types.c" -ldw -lelf; then
	echo "cannot build resolve_main"; echo "0 passed, 1 failed"; exit 1
fi
R=$out/resolve_main

say() { [ $verbose = 1 ] && printf '%s\n' "$@"; }

# Replaces @TEXT@ with the line number of /* TEXT */ in the source.
expand() {
	local spec=$1 src=$2 mark line
	while [[ $spec =~ @([^@]*)@ ]]; do
		mark=${BASH_REMATCH[1]}
		line=$(grep -n -F "/* $mark */" "$src" | head -1 | cut -d: -f1)
		spec=${spec/@$mark@/$line}
	done
	printf '%s' "$spec"
}

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
	else
		failed=$((failed + 1))
		say "  ADDR $2: perf [$(echo $p)] ours [$(echo $o)]"
	fi
	[ "$p" = error ] && return
	pv=$(perf probe -q -x "$1" -V "$2" 2>/dev/null | vars_of)
	ov=$("$R" -V "$1" "$2" 2>/dev/null | vars_of)
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
		n_specs=0 n_addr=0 n_err=0 n_pvars=0 n_ovars=0 n_lists=0 n_lines=0
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
		printf '%-8s -O%s: specs %d, addresses equal %d (both refuse %d), variables perf %d, ours %d, listings equal %d/%d\n' \
			"$cc" "$lvl" "$n_specs" "$n_addr" "$n_err" "$n_pvars" "$n_ovars" "$n_lines" "$n_lists"
	done
done
echo "$passed passed, $failed failed"
[ $failed = 0 ]
