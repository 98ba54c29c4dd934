# SPDX-License-Identifier: GPL-2.0-only
# stacks_lib.sh - sourced by realcode.sh: user stacks perf-run takes at a
# uprobe against perf's own DWARF unwinder, frame by frame, in real C++.
#
# At the entry of FUNC (a demangled name as perf prints it, every
# overload, "leveldb::TableBuilder::Add"), the first hit's stack:
#   - perf: `perf probe` at each overload's address, `perf record
#     --call-graph dwarf`, `perf script`;
#   - perf-run: `uprobe:BIN:FUNC { @[ustack] = count(); exit(); }` written
#     as a perf.data file (-f perf) that the same `perf script` reads: each
#     frame's function and offset as perf names them, from perf-run's
#     addresses;
#   - perf-run's own names: the same probe with -f folded (perf's short
#     demangled names, root first), against the names perf printed.
# perf prints a caller at its return address - 1, perf-run at the return
# address: perf's callers are compared one byte on.  perf repeats a pc for
# each function inlined there ("(inlined)"): those are compared by name
# only (-f folded), since perf looks them up at the address it is given
# (perf-run's return address, not the call).  perf's chain ends at an
# address it cannot name ([unknown]: libstdc++ has no symbols): the frames
# before it are compared, and perf-run's chain must not be shorter.
#
#   stacks_check LABEL BIN FUNC [ARG...]   one probe; adds a result line
#   stacks_report                          per LABEL: probes, frames, equal
# Needs: out (a work directory), PERF_RUN, run (the environment).

stacks_group=perfrun_stacks_$$

# "ADDR<tab>NAME+OFF" (decimal) per line of the first sample of perf.data
# file $1, leaf first, callers' offsets + $2 (1 for perf's own
# unwinding), "ADDR<tab>NAME [inlined]" where perf marks a function
# inlined at ADDR, in perf's order; up to the first address perf cannot
# name.
stacks_frames() {
	perf script -i "$1" -F ip,sym,symoff 2>/dev/null | awk -v bump="$2" '
		function hex(s,  v, i) {
			v = 0
			for (i = 3; i <= length(s); i++)
				v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v
		}
		NF == 0 { if (n) exit; next }
		$2 == "[unknown]" { exit }
		{ s = $0; sub(/^[ \t]*[0-9a-f]+ /, "", s)
		  inl = sub(/ \(inlined\)$/, "", s)
		  i = match(s, /\+0x[0-9a-f]+$/)
		  name = i ? substr(s, 1, i - 1) : s; off = i ? hex(substr(s, i + 1)) : 0
		  if (inl) { print $1 "\t" name " [inlined]"; next }
		  print $1 "\t" name "+" (off + (n++ ? bump : 0)) }'
}

stacks_check() {  # LABEL BIN FUNC [ARG...]
	local label=$1 bin=$2 func=$3 a addrs k try res
	shift 3
	local f=$out/stk
	# the overloads' addresses: nm's demangled names (the ".cold" parts aside)
	mapfile -t addrs < <(nm -C --defined-only "$bin" 2>/dev/null |
		awk -v f="$func" '$2 ~ /^[Tt]$/ && !/\[clone/ { n = substr($0, 20)
			if (n == f || index(n, f "(") == 1) print $1 }')
	if [ ${#addrs[@]} = 0 ]; then
		echo "$label|$func|absent|0|0|0|0|no symbol (inlined everywhere)" >> "$out/stacks.txt"
		return
	fi
	# twice if perf recorded nothing: perf probe fails now and then while
	# another perf probe edits the kernel's uprobe_events
	for try in 1 2; do
		perf probe -q -d "$stacks_group:*" >/dev/null 2>&1
		k=0
		for a in "${addrs[@]}"; do
			perf probe -q -x "$bin" -a "$stacks_group:t$((k++))=0x$a" >/dev/null 2>&1
		done
		$run perf record -q -e "$stacks_group:*" --call-graph dwarf -o "$f.perf.data" -- \
			setarch -R "$bin" "$@" >/dev/null 2>&1
		perf probe -q -d "$stacks_group:*" >/dev/null 2>&1
		stacks_frames "$f.perf.data" 1 > "$f.perf"
		[ -s "$f.perf" ] && break
	done
	local prog="uprobe:$bin:$func /pid == cpid/ { @[ustack] = count(); exit(); }"
	$run "$PERF_RUN" -q -f perf -o "$f.run.data" -e "$prog" -- setarch -R "$bin" "$@" \
		>/dev/null 2>"$f.err"
	stacks_frames "$f.run.data" 0 > "$f.run"
	$run "$PERF_RUN" -q -f folded -o "$f.folded" -e "$prog" -- setarch -R "$bin" "$@" \
		>/dev/null 2>>"$f.err"
	# perf-run's names, leaf first, against perf's (the inlined ones too)
	sed 's/ [0-9]*$//' "$f.folded" | head -1 | tr ';' '\n' | tac > "$f.names"
	res=$(python3 - "$f.perf" "$f.run" "$f.names" <<'EOF'
import sys
def rd(p):
    return [l.split("\t", 1) for l in open(p).read().split("\n") if "\t" in l]
perf, run = rd(sys.argv[1]), rd(sys.argv[2])
rn = open(sys.argv[3]).read().split("\n")[:-1]
def real(v):
    """One frame per address: its symbol and offset (perf repeats an
    address for each function inlined there, most lines marked
    "(inlined)", some not)."""
    out, last = [], None
    for a, t in v:
        if a != last:
            out.append(None)
            last = a
        if out[-1] is None and not t.endswith(" [inlined]"):
            out[-1] = t
    return [t or "?" for t in out]
pf, rf = real(perf), real(run)  # frames: the functions' own, by address
n, eq = len(pf), sum(1 for a, b in zip(pf, rf) if a == b)
why = []
if not pf:
    why.append("perf recorded no stack")
if len(rf) < n:
    why.append("perf-run's stack has %d frames of perf's %d" % (len(rf), n))
for i, (a, b) in enumerate(zip(pf, rf)):
    if a != b:
        why.append("frame %d: perf %s, perf-run %s" % (i, a, b))
        break
# names: perf's at each address (a function and those inlined there)
# against as many of -f folded's; where functions are inlined at the
# address a difference is counted apart: binutils' addr2line, which perf
# 6.1 uses, names some inlined C++ functions by their caller's name
groups, last = [], None
for a, t in perf:
    if a != last:
        groups.append([])
        last = a
    groups[-1].append(t[:-len(" [inlined]")] if t.endswith(" [inlined]") else t.rsplit("+", 1)[0])
neq = inl = k = 0
for g in groups:
    mine = rn[k:k + len(g)]
    k += len(g)
    if sorted(mine) == sorted(g):
        neq += len(g)
    elif len(g) > 1:
        inl += 1
        why.append("inlined at one pc: perf %s, perf-run %s" % (" / ".join(g), " / ".join(mine)))
    else:
        why.append("name: perf %s, perf-run -f folded %s" % (g[0], " / ".join(mine)))
ok = bool(pf) and eq == n and len(rf) >= n and len(rn) >= k and \
    all(w.startswith("inlined at one pc") for w in why)
print("%s|%d|%d|%d|%d|%s" % ("equal" if ok else "differ", n, eq, neq, inl, "; ".join(why)))
EOF
)
	echo "$label|$func|$res" >> "$out/stacks.txt"
}

# Per label (compiler and level): probes, frames compared, equal; each
# probe that differs, and sets stacks_failed.
stacks_report() {
	stacks_failed=0
	[ -s "$out/stacks.txt" ] || return 0
	awk -F'|' '
		{ p[$1]++; fr[$1] += $4; eq[$1] += $5; nm[$1] += $6; il[$1] += $7
		  if ($3 == "differ") { d[$1]++; print "stacks: " $1 " " $2 ": " $8 }
		  else if ($7 > 0) print "stacks: " $1 " " $2 " (inlined names differ): " $8
		  if ($3 == "absent") a[$1]++
		  if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
		END { for (i = 1; i <= n; i++) { l = order[i]
			printf "stacks %s: %d probes (%d absent: inlined everywhere), %d frames of perf'"'"'s, %d equal; names (-f folded) equal %d, at %d pcs perf'"'"'s inlined names differ; %d probes differ\n",
				l, p[l], a[l], fr[l], eq[l], nm[l], il[l], d[l] } }' "$out/stacks.txt"
	stacks_failed=$(grep -c '|differ|' "$out/stacks.txt")
}
