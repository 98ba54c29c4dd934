#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# prologue.sh - parameters read inside a function's prologue, where -O0
# DWARF names stack slots not written yet: tests/progs/dwarf_prologue.c
# built with gcc and clang-19 at -O0..-O3, each function probed as `f`
# (past the prologue), `f+0`, `0xENTRY`, and `f+N` at the first and the
# last instruction inside the prologue (before gdb's breakpoint address).
# The truth is what the program prints it passed (stderr), not gdb, which
# reads the same unwritten slots.  At -O0 the values no integer register or
# stack slot of the call holds (SSE) and locals must be refused at compile
# time, saying why.
# Last line: "N passed, N failed, N skipped".  Root (uprobes).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
P=${PERF_RUN:-$top/build/perf-run}
src=$top/tests/progs/dwarf_prologue.c
tmp=$(mktemp -d /tmp/prologue.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0 skip=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

FUNCS="pi ps pm pr p7"
declare -A body=(
	[pi]='printf("pi i=%d l=%d c=%d\n", args.i, args.l, args.c);'
	[ps]='printf("ps p.a=%d p.b=%d t.x=%d t.y=%d after=%d\n", args.p.a, args.p.b, args.t.x, args.t.y, args.after);'
	[pm]='printf("pm b.v[2]=%d i=%d j=%d\n", args.b.v[2], args.i, args.j);'
	[pr]='printf("pr i=%d l=%d\n", args.i, args.l);'
	[p7]='printf("p7 a=%d f=%d g=%d\n", args.a, args.f, args.g);'
)

# Instruction addresses of function $2 in $1, one a line (hex, no 0x).
insns() {
	objdump -d --no-show-raw-insn "$1" | awk -v f="<$2>:" '
		$2 == f { on = 1; next } on && NF == 0 { exit } on { sub(":", "", $1); print $1 }'
}

# gdb's breakpoint address for `break FUNC` (past the prologue), hex.
gdb_bp() {
	gdb -nx -batch -ex "break $2" "$1" 2>/dev/null |
		sed -n 's/^Breakpoint 1 at 0x\([0-9a-f]*\).*/\1/p'
}

# The spec of each function for form $2 of binary $1 ("" if the form has
# no instruction there, or DWARF no location: clang-19 at -O1 and above
# gives pr, which returns its struct through a hidden pointer, parameters
# without one, refused as optimised out).
spec_of() {
	local bin=$1 form=$2 f=$3 entry bp inner
	[[ $f = pr && $bin = *clang_O[123] ]] && return
	entry=$(insns "$bin" "$f" | head -1)
	case $form in
	name) echo "$f" ;;
	plus0) echo "$f+0" ;;
	addr) echo "0x$entry" ;;
	first|last)
		bp=$(gdb_bp "$bin" "$f")
		inner=$(insns "$bin" "$f" | while read -r a; do
			[ $((16#$a)) -gt $((16#$entry)) ] && [ $((16#$a)) -lt $((16#$bp)) ] && echo "$a"
		done)
		[ -z "$inner" ] && return
		a=$( [ "$form" = first ] && echo "$inner" | head -1 || echo "$inner" | tail -1)
		echo "$f+$((16#$a - 16#$entry))" ;;
	esac
}

run_form() {
	local bin=$1 form=$2 prog="" f s want got
	for f in $FUNCS; do
		s=$(spec_of "$bin" "$form" "$f")
		[ -n "$s" ] && prog+="uprobe:$bin:$s { ${body[$f]} } "
	done
	if [ -z "$prog" ]; then
		skip=$((skip + 1))
		return
	fi
	if ! "$P" -q -o "$tmp/out" -e "$prog" -c "$bin 3" 2>"$tmp/err" >/dev/null; then
		bad "$bin $form: perf-run failed: $(grep -v '^p[a-z0-9]* ' "$tmp/err" | head -3)"
		return
	fi
	for f in $FUNCS; do
		s=$(spec_of "$bin" "$form" "$f")
		[ -z "$s" ] && continue
		want=$(grep "^$f " "$tmp/err")
		got=$(grep "^$f " "$tmp/out")
		if [ -z "$want" ]; then
			bad "$bin: the program printed no '$f' line"
		elif [ "$want" = "$got" ]; then
			ok
			[ -n "${VERBOSE:-}" ] && echo "ok $bin:$s"
		else
			bad "$bin:$s: read '$(echo $got)', the program passed '$(echo $want)'"
		fi
	done
}

# At -O0 in the prologue: what no integer register holds is refused,
# naming the variable and why.
refused() {
	local bin=$1 spec=$2 expr=$3 want=$4
	if "$P" -e "uprobe:$bin:$spec { print($expr); }" --dump probes >/dev/null 2>"$tmp/rerr"; then
		bad "$bin:$spec: $expr was accepted"
	elif grep -q -- "$want" "$tmp/rerr"; then
		ok
	else
		bad "$bin:$spec: $expr refused without '$want': $(head -2 "$tmp/rerr")"
	fi
}

# main+0 at -O0: argc as libc passed it (gcc marks main DW_CC_program).
main_argc() {
	local bin=$1 got
	got=$("$P" -q -e "uprobe:$bin:main+0 { printf(\"argc=%d\\n\", args.argc); exit(); }" \
		-c "$bin 3" 2>/dev/null | grep '^argc=')
	if [ "$got" = "argc=2" ]; then ok; else bad "$bin:main+0: read '$got', libc passed argc=2"; fi
}

for cc in gcc clang-19; do
	command -v $cc >/dev/null || { echo "SKIP: no $cc"; skip=$((skip + 1)); continue; }
	for o in 0 1 2 3; do
		bin=$tmp/pro_${cc%-19}_O$o
		if ! $cc -g -O$o -o "$bin" "$src" 2>"$tmp/cc.err"; then
			bad "$cc -O$o: $(head -3 "$tmp/cc.err")"
			continue
		fi
		for form in name plus0 addr first last; do
			run_form "$bin" "$form"
		done
	done
	bin=$tmp/pro_${cc%-19}_O0
	main_argc "$bin"
	refused "$bin" pm+0 args.m "SSE registers"
	refused "$bin" pm+0 args.d "SSE registers"
	refused "$bin" pi+0 args.local "not set up yet"
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
