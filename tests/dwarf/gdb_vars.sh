#!/bin/sh
# gdb_vars.sh - ground truth for variable values: runs BIN under gdb to the
# first hit of ADDR (a virtual address in the file, as dw_resolve gives it;
# the load bias of a PIE is added here) and prints "NAME = VALUE" for each
# NAME, or for every argument and local gdb sees there when none is given.
# Meant for comparing with what perf-run prints at the same uprobe.
#
#   tests/dwarf/gdb_vars.sh BIN ADDR [NAME...] [-- ARGS...]
set -eu

if [ $# -lt 2 ]; then
	echo "usage: $0 BIN ADDR [NAME...] [-- ARGS...]" >&2
	exit 2
fi
bin=$(realpath "$1")
addr=$2
shift 2
names=""
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	names="$names $1"
	shift
done
[ "${1:-}" = -- ] && shift
pie=0
readelf -h "$bin" | grep -q 'DYN' && pie=1

py=$(mktemp /tmp/gdb_vars.XXXXXX.py)
trap 'rm -f "$py"' EXIT
cat > "$py" <<PY
import gdb
gdb.execute("starti", to_string=True)
base = 0
if $pie:
    for line in gdb.execute("info proc mappings", to_string=True).splitlines():
        f = line.split()
        if len(f) >= 5 and f[-1] == "$bin" and int(f[3], 16) == 0:
            base = int(f[0], 16)
            break
gdb.execute("break *%d" % (base + $addr), to_string=True)
gdb.execute("continue", to_string=True)
names = "$names".split()
if not names:
    fr = gdb.selected_frame()
    try:
        block = fr.block()
    except RuntimeError:
        block = None
    seen = set()
    while block is not None:
        for sym in block:
            if (sym.is_argument or sym.is_variable) and sym.name not in seen:
                seen.add(sym.name)
                names.append(sym.name)
        if block.function is not None:
            break
        block = block.superblock
for n in names:
    try:
        print("%s = %s" % (n, gdb.parse_and_eval(n)))
    except gdb.error as e:
        print("%s = <%s>" % (n, e))
gdb.execute("kill", to_string=True)
PY
gdb -q -batch -nx -x "$py" --args "$bin" "$@" 2>/dev/null | grep -E '^[A-Za-z_][^ ]* = '
