#!/bin/bash
# values.sh - variable values against gdb: the test programs
# tests/progs/dwarf_*.c built with gcc and clang-19 at -O0..-O3; at every
# address the `p` specs of tests/dwarf/PROG.specs resolve to (those with
# DWARF variables), perf-run's print(args) at the first hit must show, for
# each variable flattened to scalars (struct members, array elements),
# what gdb prints at the same address in batch mode
# (tests/dwarf/gdb_frames.py).  perf probe's values are checked the same
# way: an event per address (as FUNC+OFF) fetching the scalar variables
# `perf probe -V` lists there, recorded with perf record.
#
# The three runs see the same environment and no address randomisation,
# so pointers into the stack and heap agree too.
#
# Prints per compiler and level the counts, then "N passed, N failed".
# A check is one binary: it passes if no value perf-run reads differs from
# gdb's and gdb saw the addresses.  perf probe's differences are counted
# and shown with -v, not failed: they are perf's.
# Run from the top of the tree, as root.
#
#   tests/dwarf/values.sh [-v] [PROG...]     -v shows every difference
# VALUES_CCS="gcc" and VALUES_LEVELS="1 2" narrow the builds.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/dwarf-values/$$   # per run: suites may run side by side
PERF_RUN=${PERF_RUN:-$top/build/perf-run}
case $PERF_RUN in /*) ;; *) PERF_RUN=$top/$PERF_RUN;; esac
verbose=
[ "${1:-}" = -v ] && { verbose=-v; shift; }
progs=(${*:-dwarf_types dwarf_scopes dwarf_inline dwarf_pieces})
passed=0 failed=0
group=perfrun_values_$$
run="env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin"
PIE_BASE=$((0x555555554000))   # where ld.so puts a PIE without randomisation

mkdir -p "$out" || exit 1
R=$out/resolve_main
if ! gcc -std=gnu11 -Wall -Wextra -Werror -g -I"$top" -o "$R" \
	"$top/tests/dwarf/resolve_main.c" "$top"/compiler/dwarf*.c "$top/compiler/types.c" "$top/compiler/elfsym.c" \
	-ldw -lelf -lz; then
	echo "cannot build resolve_main"; echo "0 passed, 1 failed"; exit 1
fi
cleanup() { perf probe -q -d "$group:*" >/dev/null 2>&1; }
trap 'cleanup; rm -rf "$out"' EXIT

. "$top/tests/dwarf/specs.sh"  # expand

site_addrs() {  # BIN SRC SPECS: addresses of the sites that have variables
	local kind spec
	while read -r kind spec; do
		[ "$kind" = p ] || continue
		"$R" -d "$1" "$(expand "$spec" "$2")" 2>/dev/null
	done < "$3" | awk '$1 == "site" { a = $NF; next } /^    / && a { print a } { a = "" }' |
		sort -u
}

# Only the addresses that start an instruction: a spec such as set_flags+4
# or 0x1139 can fall inside one at some level, and perf-run refuses those
# (tests/runtime/uprobe.test checks that); gdb would read there regardless.
on_insn() {  # BIN < ADDRS
	awk 'NR == FNR { ok[$1] = 1; next } ok[$1]' \
		<(objdump -d --no-show-raw-insn "$1" |
		  awk '/^ +[0-9a-f]+:/ { a = $1; sub(/:$/, "", a); printf "0x%s\n", a }') -
}

# ADDR → FUNC+OFF through the symbol table: perf probe takes no bare
# address of a uprobe binary.
sym_off() {  # NM-FILE ADDR
	local s z t name
	while read -r s z t name; do
		[[ $t == [tT] ]] || continue
		if (($2 >= 0x$s && $2 < 0x$s + 0x$z)); then
			echo "$name+$(($2 - 0x$s))"
			return
		fi
	done < "$1"
}

# Adds perf probe events "$group:pK_ADDR" for binary number K, each
# fetching $vars: what perf probe can read there.
perf_events() {  # K BIN ADDRS...
	local k=$1 bin=$2 a at evs=()
	shift 2
	nm -S --defined-only "$bin" > "$out/nm.txt" 2>/dev/null
	for a in "$@"; do
		at=$(sym_off "$out/nm.txt" "$a")
		[ -n "$at" ] && evs+=(-a "$group:p${k}_$a=$at \$vars")
	done
	[ ${#evs[@]} -gt 0 ] || return 0
	perf probe -q -x "$bin" "${evs[@]}" >/dev/null 2>&1 && return 0
	for ((a = 1; a < ${#evs[@]}; a += 2)); do  # one by one: skip those perf refuses
		perf probe -q -x "$bin" -a "${evs[a]}" >/dev/null 2>&1
	done
	return 0
}

# perf script → "K ADDR NAME VALUE", ADDR where the event really fired
# (perf moves FUNC+0 past the prologue of unoptimised code).
perf_triples() {  # PIE-FLAGS...
	perf script -i "$out/perf.data" 2>/dev/null | awk -v base=$PIE_BASE -v pies="$*" '
		BEGIN { split(pies, pie, " ") }
		{
			for (i = 1; i <= NF; i++) if ($i ~ /:p[0-9]+_0x[0-9a-f]+:$/) break
			if (i > NF || $(i + 1) !~ /^\([0-9a-f]+\)$/) next
			ev = $i; sub(/^.*:p/, "", ev); sub(/:$/, "", ev); split(ev, kv, "_")
			ip = $(i + 1); gsub(/[()]/, "", ip)
			print kv[1], ip, pie[kv[1] + 1] ? base : 0
			for (j = i + 2; j <= NF; j++) if ($j ~ /=/)
				print "=", substr($j, 1, index($j, "=") - 1), substr($j, index($j, "=") + 1)
		}' | while read -r a b c; do
		if [ "$a" = = ]; then
			echo "$k 0x$(printf %x $addr) $b $c"
		else
			k=$a addr=$((0x$b - c))
		fi
	done
}

names=() bins=() pies=()
cleanup
for cc in ${VALUES_CCS:-gcc clang-19}; do
	for lvl in ${VALUES_LEVELS:-0 1 2 3}; do
		for prog in "${progs[@]}"; do
			k=${#bins[@]}
			bin=$out/$prog-$cc-O$lvl
			names+=("$cc -O$lvl $prog")
			bins+=("$bin")
			pies+=(0)
			rm -f "$out/$k.gdb" "$out/$k.ours" "$out/$k.err"
			if ! $cc -g -O$lvl -o "$bin" "$top/tests/progs/$prog.c" 2>/dev/null; then
				echo "cannot build $bin" > "$out/$k.err"; continue
			fi
			readelf -h "$bin" | grep -q 'DYN' && pies[k]=1
			mapfile -t addrs < <(site_addrs "$bin" "$top/tests/progs/$prog.c" \
				"$top/tests/dwarf/$prog.specs" | on_insn "$bin")
			[ ${#addrs[@]} -gt 0 ] || continue
			timeout 60 $run VALUES_BIN="$bin" VALUES_ADDRS="${addrs[*]}" gdb -q -batch -nx \
				-x "$top/tests/dwarf/gdb_frames.py" --args "$bin" 2>/dev/null |
				grep -E '^0x[0-9a-f]+ ' > "$out/$k.gdb"
			script=
			for a in "${addrs[@]}"; do
				script+="uprobe:$bin:$a { printf(\"@$a\\n\"); print(args); } "
			done
			timeout 60 $run "$PERF_RUN" -q -e "$script" -- setarch -R "$bin" \
				> "$out/$k.ours" 2> "$out/$k.err"
			perf_events "$k" "$bin" "${addrs[@]}"
		done
	done
done

# One perf record for every binary, each started as perf-run and gdb start it.
: > "$out/perf.txt"
if perf probe -q -l "$group:*" 2>/dev/null | grep -q .; then
	cmds=
	for bin in "${bins[@]}"; do
		cmds+="$run setarch -R $(printf %q "$bin") >/dev/null; "
	done
	perf record -q -o "$out/perf.data" -e "$group:*" -- sh -c "$cmds" >/dev/null 2>&1
	perf_triples "${pies[@]}" > "$out/perf.txt"
fi
cleanup

summary() {  # CC LVL < values_cmp count lines
	python3 -c '
import re, sys
tot = {}
for line in sys.stdin:
    for part in line.split("; "):
        m = re.match(r"(\w+) (\d+) \(equal (\d+), differ (\d+), gdb has none (\d+)\), lacking (\d+)", part)
        if m:
            t = tot.setdefault(m.group(1), [0] * 5)
            for i in range(5):
                t[i] += int(m.group(i + 2))
name = {"ours": "perf-run", "perf": "perf probe"}
print("%-8s -O%s: " % (sys.argv[1], sys.argv[2]) + "; ".join(
    "%s read %d, equal to gdb %d, differ %d, unchecked %d, gdb reads more %d"
    % ((name.get(k, k),) + tuple(v)) for k, v in tot.items()))' "$@"
}

lines=
for k in "${!bins[@]}"; do
	[ -n "$verbose" ] && echo "${names[k]}"
	if [ ! -s "$out/$k.ours" ]; then
		echo "${names[k]}: perf-run printed nothing: $(head -2 "$out/$k.err" 2>/dev/null)"
		failed=$((failed + 1))
	else
		awk -v k=$k '$1 == k { $1 = ""; sub(/^ /, ""); print }' "$out/perf.txt" > "$out/$k.perf"
		if res=$(python3 "$top/tests/dwarf/values_cmp.py" $verbose "$out/$k.gdb" \
			"$out/$k.ours" "$out/$k.perf"); then
			passed=$((passed + 1))
		else
			failed=$((failed + 1))
			echo "${names[k]}: values differ from gdb's (-v shows them)"
		fi
		[ -n "$verbose" ] && printf '%s\n' "$res" | head -n -1
		lines+="$(printf '%s\n' "$res" | tail -1)"$'\n'
	fi
	if (((k + 1) % ${#progs[@]} == 0)); then
		set -- ${names[k]}
		printf '%s' "$lines" | summary "$1" "${2#-O}"
		lines=
	fi
done
echo "$passed passed, $failed failed"
[ $failed = 0 ]
