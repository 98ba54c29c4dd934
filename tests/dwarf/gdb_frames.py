# SPDX-License-Identifier: GPL-2.0-only
# gdb_frames.py - ground truth for tests/dwarf/values.sh, run inside gdb:
#   VALUES_ADDRS="0x1139 0x1150" VALUES_BIN=/abs/bin gdb -q -batch -nx -x gdb_frames.py --args BIN
# Breaks at each address (a virtual address in the file; the load bias of a
# PIE is added here), and at the first hit of each prints every argument and
# local of the frame gdb stops in and of the functions it is inlined into
# (the inner one wins a name), flattened to scalars, one per line:
#   @v ADDR NAME VALUE     e.g. "0x1139 r->fl.mode 5", "0x1139 n.bytes DCBA"
# and "@i ADDR NAME" for each variable that came from an inlined copy's
# frame; values in the form perf-run's print(args) uses: integers in decimal, enums by
# NAME=NUMBER, pointers in hex, char arrays as text up to the NUL, floating point
# with the digits that read back (%.9g float, %.17g double), "<optimized out>"
# where gdb has no value.
import os
import sys

import gdb

BIN = os.environ["VALUES_BIN"]
# Its own file: on stdout the program's output, which need not end in a
# newline, could run into a line.
OUT = open(os.environ["VALUES_OUT"], "w") if os.environ.get("VALUES_OUT") else sys.stdout
ADDRS = [int(a, 16) for a in os.environ["VALUES_ADDRS"].split()]


def load_base():
    for line in gdb.execute("info proc mappings", to_string=True).splitlines():
        f = line.split()
        if len(f) >= 5 and f[-1] == BIN and int(f[3], 16) == 0:
            return int(f[0], 16)
    return 0


def scalar(v, t):
    code = t.code
    if code == gdb.TYPE_CODE_PTR:
        if str(v).endswith("<synthetic pointer>"):  # DW_OP_implicit_pointer: no value
            return "<synthetic pointer>"          # (int() of it would give 0)
        return "0x%x" % (int(v) & 0xFFFFFFFFFFFFFFFF)
    if code in (gdb.TYPE_CODE_REF, getattr(gdb, "TYPE_CODE_RVALUE_REF", gdb.TYPE_CODE_REF)):
        # a C++ reference: perf-run reads it as the address it binds to
        return "0x%x" % (int(v.referenced_value().address) & 0xFFFFFFFFFFFFFFFF)
    if code == gdb.TYPE_CODE_ENUM:
        n = int(v)
        for f in t.fields():
            if f.enumval == n:
                return "%s=%d" % (f.name, n)  # the name, or the number perf probe prints
        return str(n)
    if code == gdb.TYPE_CODE_FLT:
        fmt = {4: "%.9g", 8: "%.17g"}.get(t.sizeof)  # as gdb and perf-run print them
        if not fmt:
            return None
        return fmt % float(v)
    if code in (gdb.TYPE_CODE_INT, gdb.TYPE_CODE_CHAR, gdb.TYPE_CODE_BOOL):
        return str(int(v))
    return None


def flatten(name, v, out):
    """Appends (name, text) pairs for v; text None where the form is not compared."""
    try:
        t = v.type.strip_typedefs()
        if v.is_optimized_out:
            # gdb marks an aggregate so if any piece is missing: the
            # members that are there still have their values.
            parts = []
            if t.code in (gdb.TYPE_CODE_STRUCT, gdb.TYPE_CODE_UNION, gdb.TYPE_CODE_ARRAY):
                flatten_members(name, v, t, parts)
            if not parts or all(text == "<optimized out>" for _, text in parts):
                out.append((name, "<optimized out>"))
            else:
                out.extend(parts)
            return
        if t.code in (gdb.TYPE_CODE_STRUCT, gdb.TYPE_CODE_UNION):
            for f in t.fields():
                if f.is_base_class:  # perf-run has a C++ base's members as its own
                    flatten(name, v.cast(f.type), out)
                elif f.name and not f.artificial and hasattr(f, "bitpos"):  # not static
                    flatten("%s.%s" % (name, f.name), v[f.name], out)
            return
        if t.code == gdb.TYPE_CODE_ARRAY:
            lo, hi = t.range()
            et = t.target().strip_typedefs()
            if et.sizeof == 1 and et.code in (gdb.TYPE_CODE_INT, gdb.TYPE_CODE_CHAR):
                b = bytes(int(v[i]) & 0xFF for i in range(lo, hi + 1))
                out.append((name, b.split(b"\0")[0].decode("latin-1")))
                return
            for i in range(lo, hi + 1):
                flatten("%s[%d]" % (name, i - lo), v[i], out)
            return
        out.append((name, scalar(v, t)))
    except gdb.error as e:
        out.append((name, "<%s>" % e))


MEMBERS = int(os.environ.get("VALUES_MEMBERS", "3"))


def through_pointer(name, v, out):
    """The first MEMBERS scalar members of the struct v points to, as
    NAME->MEMBER (perf-run reads them with args.NAME->MEMBER)."""
    try:
        t = v.type.strip_typedefs()
        if v.is_optimized_out or t.code != gdb.TYPE_CODE_PTR or int(v) == 0:
            return
        tt = t.target().strip_typedefs()
        if tt.code not in (gdb.TYPE_CODE_STRUCT, gdb.TYPE_CODE_UNION):
            return
        n = 0
        for f in tt.fields():
            if n >= MEMBERS:
                break
            if f.is_base_class or not f.name or f.artificial or not hasattr(f, "bitpos") \
                    or f.bitsize:
                continue
            ft = f.type.strip_typedefs()
            if ft.code not in (gdb.TYPE_CODE_INT, gdb.TYPE_CODE_CHAR, gdb.TYPE_CODE_BOOL,
                               gdb.TYPE_CODE_PTR, gdb.TYPE_CODE_ENUM):
                continue
            try:
                text = scalar(v.dereference()[f.name], ft)
            except gdb.error:
                continue  # not readable there: not compared
            if text is not None:
                out.append(("%s->%s" % (name, f.name), text))
                n += 1
    except gdb.error:
        pass


def flatten_members(name, v, t, out):
    """Members of a partly optimised-out aggregate, each with its own state."""
    try:
        if t.code == gdb.TYPE_CODE_ARRAY:
            lo, hi = t.range()
            if t.target().strip_typedefs().sizeof == 1:
                return  # text: shown whole or not at all
            for i in range(lo, hi + 1):
                flatten("%s[%d]" % (name, i - lo), v[i], out)
            return
        for f in t.fields():
            if f.name and not f.artificial:
                flatten("%s.%s" % (name, f.name), v[f.name], out)
    except gdb.error:
        del out[:]


def frame_vars(fr):
    try:
        block = fr.block()
    except RuntimeError:
        return []
    names, seen = [], set()
    while block is not None:
        for sym in block:
            if (sym.is_argument or sym.is_variable) and sym.name not in seen:
                seen.add(sym.name)
                names.append(sym)
        if block.function is not None:
            break
        block = block.superblock
    return names


gdb.execute("set pagination off")
gdb.execute("set startup-with-shell off")
gdb.execute("set confirm off")
gdb.execute("unset environment LINES")
gdb.execute("unset environment COLUMNS")
gdb.execute("unset environment VALUES_BIN")
gdb.execute("unset environment VALUES_ADDRS")
gdb.execute("unset environment VALUES_OUT")
gdb.execute("starti", to_string=True)
base = load_base()
bps = {}
for a in ADDRS:
    bps[a] = gdb.Breakpoint("*%d" % (base + a), internal=True)
seen = set()
while len(seen) < len(ADDRS):
    try:
        gdb.execute("continue", to_string=True)
    except gdb.error:
        break
    try:
        fr = gdb.selected_frame()
        pc = fr.pc() - base
    except gdb.error:
        break
    if pc not in bps or pc in seen:
        continue
    seen.add(pc)
    bps[pc].enabled = False
    # The frame gdb stops in, then the functions it is inlined into (perf
    # probe shows those too); a name already seen keeps the inner value.
    names = set()
    f = fr
    while f is not None:
        for sym in frame_vars(f):
            if sym.name in names:
                continue
            names.add(sym.name)
            out = []
            try:
                val = sym.value(f)
                flatten(sym.name, val, out)
                if f == fr:
                    through_pointer(sym.name, val, out)
            except gdb.error as e:
                out.append((sym.name, "<%s>" % e))
            for n, text in out:
                if text is not None:
                    print("@v 0x%x %s %s" % (pc, n, text), file=OUT)  # @v: not gdb's
            if f.type() == gdb.INLINE_FRAME:
                print("@i 0x%x %s" % (pc, sym.name), file=OUT)  # from an inlined copy's frame
        f = f.older() if f.type() == gdb.INLINE_FRAME else None
OUT.flush()
try:
    gdb.execute("kill", to_string=True)
except gdb.error:
    pass
