# SPDX-License-Identifier: GPL-2.0-only
# values_lib.sh - sourced by values.sh and realcode.sh: variable values
# perf-run reads at probe addresses against gdb's and perf probe's.
#
# At every address the `p` specs of a specs file resolve to (those with
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
#   values_init DIR            work in DIR (removed at exit)
#   values_add NAME BIN SRC SPECS [ARG...]
#                              one binary: gdb's and perf-run's values at the
#                              sites of SPECS, run as BIN ARG...; perf probe
#                              events for them
#   values_record              one perf record of every binary's workload
#   values_report GROUP        compares, prints per group of GROUP binaries
#                              (one compiler and level) the counts; sets
#                              passed and failed
# VALUES_VERBOSE=-v shows every difference; VALUES_KEEP=1 keeps DIR.
# Needs: top (the tree), PERF_RUN (absolute).

group=perfrun_values_$$
run="env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin"
names=() bins=() pies=() cmds=()
passed=0 failed=0

. "$top/tests/dwarf/specs.sh"  # expand

values_cleanup() { perf probe -q -d "$group:*" >/dev/null 2>&1; }

values_init() {  # DIR
	out=$1
	mkdir -p "$out" || exit 1
	R=$out/resolve_main
	# elfsym.c matches C++ names through lib/demangle.cc (LLVM's demanglers)
	if ! g++ -std=c++17 -fno-exceptions -fno-rtti -g -I"$top" -I/usr/lib/llvm-19/include \
		-c -o "$out/demangle.o" "$top/lib/demangle.cc" ||
	   ! gcc -std=gnu11 -Wall -Wextra -Werror -g -I"$top" -o "$R" \
		"$top/tests/dwarf/resolve_main.c" "$top"/compiler/dwarf*.c "$top/lib/types.c" \
		"$top/lib/elfsym.c" "$top/lib/safefile.c" "$out/demangle.o" \
		-L/usr/lib/llvm-19/lib -lLLVM-19 -lstdc++ -ldw -lelf -lz; then
		echo "cannot build resolve_main"; echo "0 passed, 1 failed"; exit 1
	fi
	trap 'values_cleanup; [ -n "${VALUES_KEEP:-}" ] || rm -rf "$out"' EXIT
	values_cleanup
}

# A function named alone is probed at FUNC+0 too (its first instruction,
# inside the prologue), unless VALUES_NO_ENTRY is set.
site_addrs() {  # BIN SRC SPECS: addresses of the sites that have variables
	local kind spec
	while read -r kind spec; do
		[ "$kind" = p ] || continue
		"$R" -d "$1" "$(expand "$spec" "$2")" 2>/dev/null
		# (a C++ function by its demangled name: "ns::C::f(int) const")
		[[ -z ${VALUES_NO_ENTRY:-} && ( $spec =~ ^[A-Za-z_][A-Za-z0-9_]*$ ||
			( $spec == *::* && ! $spec =~ :[0-9]+$ ) ) ]] &&
			"$R" -d "$1" "$spec+0" 2>/dev/null
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

# "ADDR NAME" of the variables whose location at ADDR, as perf-run reads
# it, matches the ERE: xmm registers (what a BPF program cannot read,
# counted apart), or entry values (DW_OP_entry_value).
loc_vars() {  # ERE BIN ADDRS...
	local ere=$1 bin=$2
	shift 2
	[ $# -gt 0 ] || return 0
	"$R" -d "$bin" "$@" 2>/dev/null | awk -v ere="$ere" '
		$1 == "site" { a = $NF; next }
		/^    / && $0 ~ ere { n = $0; sub(/: .*/, "", n); k = split(n, w, " "); print a, w[k] }'
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
	(perf probe -q -x "$bin" "${evs[@]}" >/dev/null 2>&1; exit $?) 2>/dev/null && return 0
	for ((a = 1; a < ${#evs[@]}; a += 2)); do  # one by one: skip those perf refuses
		(perf probe -q -x "$bin" -a "${evs[a]}" >/dev/null 2>&1; exit $?) 2>/dev/null  # perf 6.1 crashes on some
	done
	return 0
}

# gdb's values at ADDRS of BIN run with ARGs: OUT.gdb, and OUT.inl the
# variables of inlined copies' frames.
gdb_values() {  # OUT ADDRS BIN [ARG...]
	local o=$1 a=$2
	shift 2
	: > "$o.gdbout"
	timeout 300 $run VALUES_BIN="$1" VALUES_ADDRS="$a" VALUES_OUT="$o.gdbout" \
		gdb -q -batch -nx -x "$top/tests/dwarf/gdb_frames.py" --args "$@" >/dev/null 2>&1
	sed -n 's/^@v //p' "$o.gdbout" > "$o.gdb"
	sed -n 's/^@i //p' "$o.gdbout" > "$o.inl"
}

# "ADDR P->M" of the members gdb read through a struct pointer P at ADDR
# (tests/dwarf/gdb_frames.py, VALUES_MEMBERS of each) that perf-run can read
# P at: each read with args.P->M as well.
members() {  # K BIN ADDRS...
	local k=$1 bin=$2
	shift 2
	"$R" -d "$bin" "$@" 2>/dev/null | awk '
		$1 == "site" { a = $NF; next }
		/^    (inlined )?(param|var) / && !/optimised:|unsupported:|implicit/ {
			n = $0; sub(/: .*/, "", n); k = split(n, w, " "); print a, w[k] }' \
		> "$out/$k.readable"
	awk 'NR == FNR { ok[$1 " " $2] = 1; next }
	     $2 ~ /->/ { p = $2; sub(/->.*/, "", p); if (ok[$1 " " p]) print $1, $2 }' \
		"$out/$k.readable" "$out/$k.gdb" | sort -u > "$out/$k.members"
}

# The perf-run script for binary K: print(args) at each address's first
# hit, and each member of $out/K.members after a line "@m ADDR P->M".
values_script() {  # K BIN ADDRS...
	local k=$1 bin=$2 i a m script="END { clear(@seen); } "
	shift 2
	local addrs=("$@")
	for i in "${!addrs[@]}"; do
		a=${addrs[i]}
		m=$(awk -v a="$a" '$1 == a { printf "printf(\"@m %s %s\\n\"); print(args.%s); ", a, $2, $2 }' \
			"$out/$k.members")
		script+="uprobe:$bin:$a /@seen[$i] == 0/ { @seen[$i] = 1; printf(\"@$a\\n\"); print(args); $m} "
	done
	printf '%s' "$script"
}

values_add() {  # NAME BIN SRC SPECS [ARG...]
	local k=${#bins[@]} name=$1 bin=$2 src=$3 specs=$4 a i script addrs
	shift 4
	names+=("$name")
	bins+=("$bin")
	pies+=(0)
	cmds+=("$(printf '%q ' "$bin" "$@")")
	rm -f "$out/$k".*
	if [ ! -x "$bin" ]; then
		echo "cannot build $bin" > "$out/$k.err"; return
	fi
	readelf -h "$bin" | grep -q 'DYN' && pies[k]=1
	mapfile -t addrs < <(site_addrs "$bin" "$src" "$specs" | on_insn "$bin")
	[ ${#addrs[@]} -gt 0 ] || return
	loc_vars 'xmm[0-9]' "$bin" "${addrs[@]}" > "$out/$k.xmm"
	loc_vars 'entry\(' "$bin" "${addrs[@]}" > "$out/$k.entry"
	# Inside a prologue gdb reads slots not written yet: parameters read
	# as passed are compared with gdb's values where the prologue ends.
	loc_vars 'as passed' "$bin" "${addrs[@]}" > "$out/$k.passed"
	# (only where the prologue ends on an instruction: in optimised code
	# perf-run takes the entry alone, entry+1, for the prologue)
	"$R" -d "$bin" "${addrs[@]}" 2>/dev/null |
		awk '$1 == "site" { a = $NF } $1 == "prologue" { print $3, a }' > "$out/$k.prologue"
	on_insn "$bin" < "$out/$k.prologue" | awk '{ print $2, $1 }' > "$out/$k.body"
	"$R" -a "$bin" "${addrs[@]}" > "$out/$k.nopiece" 2>/dev/null
	gdb_values "$out/$k" "${addrs[*]} $(awk '{ print $2 }' "$out/$k.body" | sort -u)" "$bin" "$@"
	members "$k" "$bin" "${addrs[@]}"
	# Only the first hit is compared (gdb stops there once): the others
	# print nothing, so a hot line costs the trap alone.
	# (a file: one -e argument of real code's sites passes the 128 KiB an
	# argument may have)
	values_script "$k" "$bin" "${addrs[@]}" > "$out/$k.bt"
	if ! "$PERF_RUN" --dump probes "$out/$k.bt" >/dev/null 2>"$out/$k.members.err"; then
		: > "$out/$k.members"  # a member perf-run refuses: none read, and said
		echo "members through pointers not read: $(head -1 "$out/$k.members.err")" >&2
		values_script "$k" "$bin" "${addrs[@]}" > "$out/$k.bt"
	fi
	timeout 300 $run "$PERF_RUN" -q -o "$out/$k.ours" "$out/$k.bt" -- setarch -R "$bin" "$@" \
		> /dev/null 2> "$out/$k.err"
	perf_events "$k" "$bin" "${addrs[@]}"
}

# One perf record for every binary, each started as perf-run and gdb start it.
values_record() {
	local c all=
	: > "$out/perf.txt"
	perf probe -q -l "$group:*" 2>/dev/null | grep -q . || return 0
	for c in "${cmds[@]}"; do
		all+="$run setarch -R $c >/dev/null; "
	done
	perf record -q -o "$out/perf.data" -e "$group:*" -- sh -c "$all" >/dev/null 2>&1
	perf script -i "$out/perf.data" 2>/dev/null |
		python3 "$top/tests/dwarf/perf_triples.py" "${pies[@]}" > "$out/perf.txt"
	values_cleanup
}

summary() {  # CC LVL < values_cmp count lines
	python3 "$top/tests/dwarf/values_cmp.py" --sum "$@"
}

values_report() {  # GROUP
	local k a lines= res
	for k in "${!bins[@]}"; do
		[ -n "${VALUES_VERBOSE:-}" ] && echo "${names[k]}"
		if [ ! -s "$out/$k.ours" ]; then
			echo "${names[k]}: perf-run printed nothing: $(head -2 "$out/$k.err" 2>/dev/null)"
			failed=$((failed + 1))
		else
			awk -v k=$k '$1 == k { $1 = ""; sub(/^ /, ""); print }' "$out/perf.txt" > "$out/$k.perf"
			# Where ours differ, gdb once more: memory not yet written
			# (a local before its first store) reads differently each run.
			a=$(python3 "$top/tests/dwarf/values_cmp.py" "$out/$k.gdb" "$out/$k.ours" --differing)
			: > "$out/$k.again.gdb"
			: > "$out/$k.ours2"
			[ -n "$a" ] && (eval "set -- ${cmds[k]}"; gdb_values "$out/$k.again" "$a" "$@"
				# and perf-run once more: a value the program itself
				# changes between runs (a heap address a thread moves)
				timeout 300 $run "$PERF_RUN" -q -o "$out/$k.ours2" "$out/$k.bt" -- \
					setarch -R "$@" > /dev/null 2>&1)
			if res=$(python3 "$top/tests/dwarf/values_cmp.py" ${VALUES_VERBOSE:-} \
				--xmm "$out/$k.xmm" --gdb-entry "$out/$k.entry" "$out/$k.inl" \
				--gdb2 "$out/$k.again.gdb" --ours2 "$out/$k.ours2" --no-piece "$out/$k.nopiece" \
				--passed "$out/$k.passed" "$out/$k.body" "$out/$k.prologue" \
				"$out/$k.gdb" "$out/$k.ours" "$out/$k.perf"); then
				passed=$((passed + 1))
			else
				failed=$((failed + 1))
				echo "${names[k]}: values differ from gdb's (-v shows them)"
			fi
			[ -n "${VALUES_VERBOSE:-}" ] && printf '%s\n' "$res" | head -n -1
			lines+="$(printf '%s\n' "$res" | tail -1)"$'\n'
		fi
		if (((k + 1) % $1 == 0)); then
			set -- "$1" ${names[k]}
			printf '%s' "$lines" | summary "$2" "${3#-O}"
			lines=
		fi
	done
}
