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
# Names are compared per pc: perf's at each frame (the function and those
# inlined there) against perf-run's (-f folded's names, cut into frames
# by the count of names per frame of its `ustack(perf)`).  Where they
# differ, perf (binutils' addr2line) is often the one that is wrong: it
# names some inlined functions by their caller.  There llvm-symbolizer-19
# --inlining (Debian's llvm-19, installed here if missing: a test peer) is
# asked at perf's address, in the ELF file perf names, and the pc counted
# as "perf-run agrees with llvm-symbolizer", "perf agrees" or "neither".
# Its names are taken as linkage names (--no-demangle), shortened by
# c++filt -p (binutils' demangler: perf's form); one it gives bare (an
# inlined method without a linkage name: gcc's in an anonymous namespace)
# matches a qualified name that ends with it.  A probe differs where the
# frames differ or at a pc perf-run does not agree with llvm-symbolizer
# (without llvm-symbolizer: where a pc with one function differs).
#
#   stacks_check LABEL BIN FUNC [ARG...]   one probe; adds a result line
#   stacks_report                          per LABEL: probes, frames, equal
# Needs: out (a work directory), PERF_RUN, run (the environment).

stacks_group=perfrun_stacks_$$

# "ADDR<tab>NAME+OFF<tab>DSO" (offset decimal) per line of the first
# sample of perf.data file $1, leaf first, callers' offsets + $2 (1 for
# perf's own unwinding), "ADDR<tab>NAME [inlined]<tab>DSO" where perf marks
# a function inlined at ADDR, in perf's order; up to the first address
# perf cannot name.  ADDR is perf's: the offset in DSO's file.
stacks_frames() {
	perf script -i "$1" -F ip,sym,symoff,dso 2>/dev/null | awk -v bump="$2" '
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
		  dso = ""
		  if (match(s, / \([^()]*\)$/)) {
			dso = substr(s, RSTART + 2, RLENGTH - 3); s = substr(s, 1, RSTART - 1) }
		  inl += sub(/ \(inlined\)$/, "", s)
		  i = match(s, /\+0x[0-9a-f]+$/)
		  name = i ? substr(s, 1, i - 1) : s; off = i ? hex(substr(s, i + 1)) : 0
		  if (inl) { print $1 "\t" name " [inlined]\t" dso; next }
		  print $1 "\t" name "+" (off + (n++ ? bump : 0)) "\t" dso }'
}

# llvm-symbolizer-19, installed once if missing (Debian's llvm-19); empty
# if it cannot be.
stacks_symbolizer() {
	if [ -z "${stacks_llvm_sym+set}" ]; then
		command -v llvm-symbolizer-19 >/dev/null ||
			apt-get -o DPkg::Lock::Timeout=900 install -y -q --no-install-recommends \
				llvm-19 >/dev/null 2>&1
		stacks_llvm_sym=$(command -v llvm-symbolizer-19)
		[ -n "$stacks_llvm_sym" ] ||
			echo "stacks: llvm-symbolizer-19 is not installed and could not be (apt-get install llvm-19): names that differ are not arbitrated" >&2
	fi
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
		echo "$label|$func|absent|0|0|0|0|0|0|0|no symbol (inlined everywhere)" >> "$out/stacks.txt"
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
	local progp="uprobe:$bin:$func /pid == cpid/ { @[ustack(perf)] = count(); exit(); }"
	$run "$PERF_RUN" -q -f perf -o "$f.run.data" -e "$prog" -- setarch -R "$bin" "$@" \
		>/dev/null 2>"$f.err"
	stacks_frames "$f.run.data" 0 > "$f.run"
	$run "$PERF_RUN" -q -f folded -o "$f.folded" -e "$prog" -- setarch -R "$bin" "$@" \
		>/dev/null 2>>"$f.err"
	# perf-run's names, leaf first, against perf's (the inlined ones too),
	# and per frame how many there are (its ustack(perf): a line per name)
	sed 's/ [0-9]*$//' "$f.folded" | head -1 | tr ';' '\n' | tac > "$f.names"
	$run "$PERF_RUN" -q -o "$f.ustk" -e "$progp" -- setarch -R "$bin" "$@" \
		>/dev/null 2>>"$f.err"
	stacks_symbolizer
	res=$(python3 - "$f.perf" "$f.run" "$f.names" "$f.ustk" "$stacks_llvm_sym" <<'EOF'
import re, subprocess, sys
def rd(p):
    return [(l.split("\t") + ["", ""])[:3] for l in open(p).read().split("\n") if "\t" in l]
perf, run = rd(sys.argv[1]), rd(sys.argv[2])
rn = open(sys.argv[3]).read().split("\n")[:-1]
llvm = sys.argv[5]
def real(v):
    """One frame per address: its symbol and offset (perf repeats an
    address for each function inlined there, most lines marked
    "(inlined)", some not)."""
    out, last = [], None
    for a, t, _ in v:
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
# perf's names per frame (a function and those inlined there), with its
# address and file (which perf gives on the function's own line)
groups, last = [], None
for a, t, dso in perf:
    if a != last:
        groups.append([a, dso, []])
        last = a
    groups[-1][1] = groups[-1][1] or dso
    groups[-1][2].append(t[:-len(" [inlined]")] if t.endswith(" [inlined]") else t.rsplit("+", 1)[0])
# perf-run's: -f folded's names, as many per frame as its ustack(perf)
# has lines at the frame's address
counts, last = [], None
for l in open(sys.argv[4]).read().split("\n"):
    m = re.match(r"^\t([0-9a-f]+) ", l)
    if not m:
        continue
    if m.group(1) != last:
        counts.append(0)
        last = m.group(1)
    counts[-1] += 1
mine, k = [], 0
for c in counts:
    mine.append(rn[k:k + c])
    k += c
if k != len(rn):
    why.append("perf-run's -f folded has %d names, its ustack(perf) %d" % (len(rn), k))
def segments(path):
    """(file offset, size, address) of the ELF file's loadable segments."""
    try:
        out = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True).stdout
    except OSError:
        return []
    return [(int(m.group(1), 16), int(m.group(4), 16), int(m.group(2), 16))
            for m in re.finditer(r"LOAD\s+0x([0-9a-f]+) 0x([0-9a-f]+) 0x([0-9a-f]+) 0x([0-9a-f]+)", out)]
def vaddr(path, off):
    for fo, sz, va in segments(path):
        if fo <= off < fo + sz:
            return off - fo + va
    return off
def short(names):
    """Linkage names as perf prints them: binutils' demangler without the
    parameters (c++filt -p); other names as they are."""
    mangled = [x for x in names if x.startswith("_Z")]
    if mangled:
        dm = subprocess.run(["c++filt", "-p"], input="\n".join(mangled) + "\n",
                            capture_output=True, text=True).stdout.split("\n")
        d = dict(zip(mangled, dm))
        names = [d.get(x) or x for x in names]
    return names
def symbolize(dso, addr):
    """llvm-symbolizer's functions at addr (an offset in dso's file),
    innermost first; None if not asked."""
    if not llvm or not dso.startswith("/"):
        return None
    try:
        out = subprocess.run([llvm, "--inlining", "--no-demangle", "--functions=linkage",
                              "-e", dso, "0x%x" % vaddr(dso, int(addr, 16))],
                             capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = [l for l in out.split("\n") if l]
    return short(lines[0::2])
def same(a, b):
    return a == b or ("::" not in a and b.endswith("::" + a))
def agrees(ll, names):
    """names are llvm-symbolizer's ll, in any order; a name ll gives bare
    matches a qualified one that ends with it."""
    left = list(names)
    if len(left) != len(ll):
        return False
    for x in ll:
        m = [y for y in left if y == x] or [y for y in left if same(x, y)]
        if not m:
            return False
        left.remove(m[0])
    return True
neq = npc = arun = aperf = anone = 0
for i, (a, dso, g) in enumerate(groups):
    my = mine[i] if i < len(mine) else []
    if sorted(my) == sorted(g):
        neq += len(g)
        continue
    npc += 1
    ll = symbolize(dso, a)
    ans = "perf %s, perf-run %s" % (" / ".join(g), " / ".join(my) or "(none)")
    if ll is None:
        why.append(("inlined at one pc: " if len(g) > 1 else "name: ") + ans)
        continue
    ans = "%s 0x%x: %s, llvm-symbolizer %s" % (dso.rsplit("/", 1)[-1], vaddr(dso, int(a, 16)),
                                               ans, " / ".join(ll) or "(none)")
    if agrees(ll, my):
        arun += 1
        why.append("names at a pc, perf-run agrees with llvm-symbolizer: " + ans)
    elif agrees(ll, g):
        aperf += 1
        why.append("names at a pc, perf agrees with llvm-symbolizer: " + ans)
    else:
        anone += 1
        why.append("names at a pc, neither agrees with llvm-symbolizer: " + ans)
ok = bool(pf) and eq == n and len(rf) >= n and k == len(rn) and \
    all(w.startswith(("inlined at one pc", "names at a pc, perf-run agrees")) for w in why)
print("%s|%d|%d|%d|%d|%d|%d|%d|%s" % ("equal" if ok else "differ", n, eq, neq, npc,
                                       arun, aperf, anone, "; ".join(why)))
EOF
)
	echo "$label|$func|$res" >> "$out/stacks.txt"
}

# Per label (compiler and level): probes, frames compared, equal; names
# equal, the pcs where they differ and whom llvm-symbolizer agrees with
# there; each probe that differs or has names that differ, and sets
# stacks_failed.
stacks_report() {
	stacks_failed=0
	[ -s "$out/stacks.txt" ] || return 0
	awk -F'|' '
		{ p[$1]++; fr[$1] += $4; eq[$1] += $5; nm[$1] += $6; pc[$1] += $7
		  ar[$1] += $8; ap[$1] += $9; an[$1] += $10
		  if ($3 == "differ") { d[$1]++; print "stacks: " $1 " " $2 ": " $11 }
		  else if ($7 > 0) print "stacks: " $1 " " $2 " (names differ at a pc): " $11
		  if ($3 == "absent") a[$1]++
		  if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
		END { for (i = 1; i <= n; i++) { l = order[i]
			printf "stacks %s: %d probes (%d absent: inlined everywhere), %d frames of perf'"'"'s, %d equal; names (-f folded) equal %d, at %d pcs they differ: llvm-symbolizer agrees with perf-run at %d, with perf at %d, with neither at %d (%d not asked); %d probes differ\n",
				l, p[l], a[l], fr[l], eq[l], nm[l], pc[l], ar[l], ap[l], an[l],
				pc[l] - ar[l] - ap[l] - an[l], d[l] } }' "$out/stacks.txt"
	stacks_failed=$(grep -c '|differ|' "$out/stacks.txt")
}
