#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# values_cmp.py - compares variable values read at probe addresses with
# gdb's (tests/dwarf/values.sh).
#
#   values_cmp.py [-v] [--xmm XMM] [--gdb-entry ENTRY INLINE] [--gdb2 GDB2] [--ours2 OURS2]
#                 [--no-piece ABSENT] [--passed PASSED BODY PROLOGUE] GDB OURS [PERF]
#   values_cmp.py GDB OURS --differing    addresses where OURS differs
#   values_cmp.py --sum CC LEVEL < count lines   one summary line
#
# GDB: "ADDR NAME VALUE" lines from gdb_frames.py.
# OURS: perf-run output: "@ADDR" lines (printf of the probe's address)
#   each followed by the print(args) record of that hit.
# PERF: "ADDR NAME VALUE" lines of the values perf probe fetched.
# XMM: "ADDR NAME" of the variables only in xmm registers at ADDR; ENTRY
# of those perf-run reads as entry values, INLINE of those gdb shows from
# an inlined copy's frame (see compare()).  ABSENT: "ADDR NAME" of the
# members of variables in pieces whose bytes no piece gives a location for
# at ADDR (resolve_main -a): gdb shows those as 0, a value it makes up
# ("gdb invents"; not counted in gdb's values); and "ADDR NAME uninit" of
# those of variables whose location DWARF marks DW_OP_GNU_uninit, which
# gdb reads and perf-run does not ("DWARF uninit", not counted either).
# PASSED: "ADDR NAME" of the parameters perf-run reads inside a prologue as
# the call passed them; BODY: "ADDR BODY", the end of that prologue, where
# gdb's values are the truth for them (see compare()), where that is an
# instruction; PROLOGUE: "END ADDR" of every address inside a prologue
# (in optimised code only the entry, END = entry + 1), where what gdb shows
# and perf-run refuses (a local's slot) is counted apart as "prologue".
# Only the first hit of each address counts.  Prints one line of counts:
#   "ours read A (equal E, differ D, unstable U, gdb has none N), lacking L
#   (xmm X) of gdb G, gdb invents I, DWARF uninit U; perf ..." (lacking: values gdb shows that are not
#   read; unstable: see compare())
# and, with -v, each difference.  Exit status 1 if any of OURS differs.
import re
import sys


def parse_value(s, i, stops):
    """Parses one print(args) value at s[i]; returns (value, next index)."""
    if s.startswith("{", i):
        return parse_record(s, i)
    if s.startswith("[", i):
        out, i = [], i + 1
        while i < len(s) and s[i] != "]":
            v, i = parse_value(s, i, (",", "]"))
            out.append(v)
            if s.startswith(",", i):
                i += 1
        return out, i + 1
    end = len(s)
    for st in stops:
        k = s.find(st, i)
        if k >= 0:
            end = min(end, k)
    return s[i:end], end


def parse_record(s, i):
    out = {}
    i += 1  # "{"
    while i < len(s):
        j = i
        while s.startswith(" ", j):  # "{  }": an empty struct (a C++ comparator)
            j += 1
        if s.startswith("}", j):
            return out, j + 1
        if s.startswith(", ", i):
            i += 2
        elif s.startswith(" ", i):
            i += 1
        if not s.startswith(".", i):
            raise ValueError("bad record at %d: %r" % (i, s[i:i + 20]))
        eq = s.index(" = ", i)
        name = s[i + 1:eq]
        v, i = parse_value(s, eq + 3, (", .", " }"))
        out[name] = v
    raise ValueError("unterminated record")


def flatten(prefix, v, out):
    if isinstance(v, dict):
        for k, x in v.items():
            flatten("%s.%s" % (prefix, k) if prefix else k, x, out)
    elif isinstance(v, list):
        for k, x in enumerate(v):
            flatten("%s[%d]" % (prefix, k), x, out)
    else:
        out[prefix] = v


def read_triples(path):
    vals = {}
    with open(path, errors="replace", newline="\n") as f:
        for line in f:
            parts = line.rstrip("\n").split(" ", 2)
            if len(parts) == 3 and parts[0].startswith("0x"):
                v = parts[2]
                if v.startswith("0x"):
                    v = "0x%x" % int(v, 16)
                vals.setdefault((int(parts[0], 16), parts[1]), v)
    return vals


def read_ours(path):
    vals, seen, addr = {}, set(), None
    # Bytes as latin-1, as gdb_frames.py turns char arrays into text; lines
    # end at "\n" only (a char array printed as text may hold a "\r").
    member = None  # "@m ADDR P->M": the next line is its value (print())
    with open(path, encoding="latin-1", newline="\n") as f:
        for line in f:
            line = line.rstrip("\n")
            if member:
                vals.setdefault(member, line)
                member = None
                continue
            if line.startswith("@m "):
                a = line.split()
                member = (int(a[1], 16), a[2])
                continue
            if line.startswith("@0x"):
                addr = int(line[1:], 16)
                continue
            if addr is None or not line.startswith("{"):
                continue
            if addr not in seen:
                seen.add(addr)
                flat = {}
                try:
                    flatten("", parse_record(line, 0)[0], flat)
                except ValueError as e:
                    flat = {"<parse>": str(e)}
                for k, v in flat.items():
                    vals[(addr, k)] = v
            addr = None
    return vals


def unknown(v):
    return v is None or v.startswith("<")


def same(v, g):
    # an enum: NAME=NUMBER (not text with '=' in it: C++'s __PRETTY_FUNCTION__
    # "... [with Writer = snappy::SnappyArrayWriter]")
    alts = g.split("=") if re.fullmatch(r"[A-Za-z_][\w:]*=-?\d+", g) else [g]
    if len(alts) == 2:  # gdb qualifies a C++ enumerator ("leveldb::kLogFile"), DWARF does not
        alts.append(alts[0].rsplit("::", 1)[-1])
    if v in alts:
        return True
    try:  # perf probe prints unsigned integers in hex, enums as numbers
        return (int(v, 0) - int(alts[1 if len(alts) > 1 else 0], 0)) % (1 << 32) == 0
    except ValueError:
        return False


def as_text(mine, gdb):
    """A byte array perf-run prints as numbers, where gdb shows it as text
    (up to the NUL): joined into gdb's form."""
    arrays = {}
    for (a, k), v in mine.items():
        m = re.match(r"(.*)\[(\d+)\]$", k)
        if m and (a, m.group(1)) in gdb and (a, m.group(1)) not in mine:
            arrays.setdefault((a, m.group(1)), {})[int(m.group(2))] = v
    if not arrays:
        return mine
    out = dict(mine)
    for key, elems in arrays.items():
        try:
            b = bytes(int(elems[i], 0) & 0xFF for i in range(len(elems)))
        except (KeyError, ValueError):
            continue
        for i in range(len(elems)):
            del out[(key[0], "%s[%d]" % (key[1], i))]
        out[key] = b.split(b"\0")[0].decode("latin-1")
    return out


def top_name(key):
    return (key[0], key[1].split("->")[0].split(".")[0].split("[")[0])


def compare(label, mine, gdb, verbose, xmm=frozenset(), third=None, gdb_entry=frozenset(),
            gdb2=None, absent=frozenset(), uninit=frozenset(), passed=None,
            in_prologue=frozenset(), ours2=None):
    """Counts of mine against gdb: (read, equal, differ, unstable, gdb has
    none, lacking, of those xmm-only, gdb's values).  Unstable: mine, gdb's
    and third's (perf probe's) are three different values, as memory not
    yet written (a local before its first store, at -O0) reads in three
    runs; not counted as differing.  gdb_entry: variables of an inlined
    copy's frame that are entry values (DW_OP_entry_value): gdb 13
    evaluates those against the wrong call site (its own outer frame shows
    the "@entry" value perf-run reads); differences there are counted as
    unstable and shown as such, not as differing.  gdb2: a second gdb run's
    values; one it reads differently from the first is unstable too.
    absent: values DWARF gives no piece for at the address; where mine is
    not read and gdb shows one, gdb made it up: counted as invented, not as
    gdb's.  uninit: values whose location DWARF marks as maybe not holding
    them (DW_OP_GNU_uninit); where mine is not read, gdb's is counted apart
    (it reads them, and is wrong at some), not as gdb's.  passed: ADDR →
    (BODY, the parameters perf-run reads there as the call passed them):
    ADDR is inside a prologue, where gdb reads stack slots not written yet;
    those parameters are compared with gdb's values at BODY, past the
    prologue, in the same call, and what gdb shows there of the rest (not
    read by mine) is counted apart as "prologue"."""
    n = equal = differ = unstable = nogdb = lacking = in_xmm = 0
    passed = passed or {}
    body_only = {b for b, _ in passed.values()} - {k[0] for k in mine}
    gdb_at = gdb
    gdb = {k: g for k, g in gdb.items() if k[0] not in body_only}
    def is_passed(key):
        b = passed.get(key[0])
        return b is not None and top_name(key)[1] in b[1]
    for key in [k for k in gdb if is_passed(k)]:
        g = gdb_at.get((passed[key[0]][0], key[1]))
        if g is None:
            del gdb[key]
        else:
            gdb[key] = g
    mine = as_text(mine, gdb)
    # perf probe fetches a whole struct as its first bytes: not compared
    records = {top_name(k) for k in gdb if "." in k[1] or "[" in k[1]}
    for key, v in sorted(mine.items()):
        if unknown(v) or (key not in gdb and key in records):
            continue
        n += 1
        g = gdb.get(key)
        if g is None or unknown(g):
            nogdb += 1
            if verbose:
                print("  %s 0x%x %s: %s, gdb %s" % (label, key[0], key[1], v, g or "has none"))
        elif same(v, g):
            equal += 1
        elif is_passed(key):  # gdb past the prologue, in the same call: no second guess
            differ += 1
            if verbose:
                print("  %s 0x%x %s: %s, gdb past the prologue %s" % (label, key[0], key[1], v, g))
        elif third and not unknown(third.get(key)) and not same(third[key], g) \
                and not same(v, third[key]) and not same(third[key], v):
            unstable += 1
            if verbose:
                print("  %s 0x%x %s: %s, gdb %s, perf %s (unstable)"
                      % (label, key[0], key[1], v, g, third[key]))
        elif gdb2 is not None and key in gdb2 and not same(gdb2[key], g):
            unstable += 1
            if verbose:
                print("  %s 0x%x %s: %s, gdb %s, gdb again %s (unstable)"
                      % (label, key[0], key[1], v, g, gdb2[key]))
        elif ours2 is not None and not unknown(ours2.get(key)) and not same(ours2[key], v):
            unstable += 1  # the program's own value differs between runs (a heap address
            if verbose:    # that leveldb's background thread moves)
                print("  %s 0x%x %s: %s, gdb %s, ours again %s (unstable)"
                      % (label, key[0], key[1], v, g, ours2[key]))
        elif top_name(key) in gdb_entry:
            unstable += 1
            if verbose:
                print("  %s 0x%x %s: %s, gdb %s (gdb's entry value in an inlined frame)"
                      % (label, key[0], key[1], v, g))
        else:
            differ += 1
            if verbose:
                print("  %s 0x%x %s: %s, gdb %s" % (label, key[0], key[1], v, g))
    def set_apart(known, which, why):
        """The keys of known that are in which and not read by mine, counted
        apart from gdb's (listed with why); returns (the rest, how many)."""
        apart = [k for k in known if k in which and unknown(mine.get(k))]
        for k in apart if verbose else ():
            print("  %s 0x%x %s: %s, gdb %s (%s)"
                  % (label, k[0], k[1], mine.get(k, "none"), gdb[k], why))
        return [k for k in known if k not in apart], len(apart)
    known = sorted(k for k, g in gdb.items() if not unknown(g) and k not in records)
    known, invents = set_apart(known, absent, "gdb invents: DWARF gives no piece for it")
    known, unreliable = set_apart(known, uninit,
                                  "DWARF: maybe uninitialised, DW_OP_GNU_uninit")
    known, prologue = set_apart(known, {k for k in known if k[0] in in_prologue},
                                "in the prologue: gdb reads a stack slot not written yet")
    for k in known:
        if not unknown(mine.get(k)):
            continue
        lacking += 1
        x = top_name(k) in xmm
        in_xmm += x
        if verbose:
            print("  %s 0x%x %s: %s, gdb %s%s" % (label, k[0], k[1], mine.get(k, "none"), gdb[k],
                                                 " (xmm)" if x else ""))
    return (n, equal, differ, unstable, nogdb, lacking, in_xmm, len(known), invents, unreliable,
            prologue)


FIELDS = ("read %d (equal %d, differ %d, unstable %d, gdb has none %d), lacking %d (xmm %d) "
          "of gdb %d, gdb invents %d, DWARF uninit %d, prologue %d")
NF = FIELDS.count("%d")


def read_xmm(path, tag=None):
    """The "ADDR NAME" lines of path (with tag: the "ADDR NAME TAG" ones)."""
    out = set()
    try:
        with open(path) as f:
            for line in f:
                a = line.split()
                if len(a) == (2 if tag is None else 3) and (tag is None or a[2] == tag):
                    out.add((int(a[0], 16), a[1]))
    except OSError:
        pass
    return out


def summarise(cc, lvl):
    """Sums the count lines of values_cmp runs on stdin into one line."""
    tot = {}
    pat = re.compile(r"(\w+) " + re.escape(FIELDS).replace("%d", r"(\d+)"))
    for line in sys.stdin:
        for part in line.rstrip("\n").split("; "):
            m = pat.match(part)
            if m:
                t = tot.setdefault(m.group(1), [0] * NF)
                for i in range(NF):
                    t[i] += int(m.group(i + 2))
    o = tot.get("ours", [0] * NF)
    pp = tot.get("perf", [0] * NF)
    g, x = o[7], o[6]
    pct = lambda a, b: "%.1f%%" % (100.0 * a / b) if b else "-"
    print("%-8s -O%s: gdb %d; perf-run equal %d (%s, %s of non-xmm), wrong %d, unstable %d, "
          "beyond gdb %d, missing %d; perf probe equal %d (%s), wrong %d; xmm-only %d"
          % (cc, lvl, g, o[1], pct(o[1], g), pct(o[1], g - x), o[2], o[3], o[4], o[5] - x,
             pp[1], pct(pp[1], g), pp[2], x))
    print("%-8s -O%s: gdb invents: %d (DWARF gives no piece for the bytes; -v lists them)"
          % (cc, lvl, o[8]))
    print("%-8s -O%s: DWARF uninit: %d (gdb reads a location DWARF marks DW_OP_GNU_uninit; "
          "-v lists them)" % (cc, lvl, o[9]))
    print("%-8s -O%s: prologue: %d (gdb reads a slot not written yet; perf-run reads "
          "parameters as passed, compared with gdb's past the prologue; -v lists them)"
          % (cc, lvl, o[10]))


def main():
    args = sys.argv[1:]
    if args and args[0] == "--sum":
        summarise(args[1], args[2])
        return 0
    verbose = bool(args) and args[0] == "-v"
    if verbose:
        args = args[1:]
    xmm, gdb_entry = set(), set()
    if args and args[0] == "--xmm":
        xmm = read_xmm(args[1])
        args = args[2:]
    if args and args[0] == "--gdb-entry":  # ENTRY-VARS INLINE-FRAME-VARS
        gdb_entry = read_xmm(args[1]) & read_xmm(args[2])
        args = args[3:]
    gdb2 = None
    if args and args[0] == "--gdb2":
        gdb2 = read_triples(args[1])
        args = args[2:]
    ours2 = None
    if args and args[0] == "--ours2":  # a second perf-run run where ours differ
        ours2 = read_ours(args[1])
        args = args[2:]
    absent, uninit = set(), set()
    if args and args[0] == "--no-piece":
        absent = read_xmm(args[1])
        uninit = read_xmm(args[1], "uninit")
        args = args[2:]
    passed, in_prologue = {}, set()
    if args and args[0] == "--passed":  # PASSED BODY PROLOGUE (see the top)
        names = read_xmm(args[1])
        for a, b in read_xmm(args[2]):
            passed[a] = (int(b, 16), {nm for x, nm in names if x == a})
        in_prologue = {int(a, 16) for _, a in read_xmm(args[3])}
        args = args[4:]
    gdb = read_triples(args[0])
    ours = read_ours(args[1])
    if args and args[-1] == "--differing":  # the addresses where ours differ, for --gdb2
        quiet = {}
        for key, v in ours.items():
            g = gdb.get(key)
            if not unknown(v) and g is not None and not unknown(g) and not same(v, g):
                quiet["0x%x" % key[0]] = 1
        print(" ".join(quiet))
        return 0
    perf = read_triples(args[2]) if len(args) > 2 and args[2] != "--differing" else None
    res = [("ours", compare("ours", ours, gdb, verbose, xmm, perf, gdb_entry, gdb2,
                                absent, uninit, passed, in_prologue | set(passed), ours2))]
    if perf is not None:
        res.append(("perf", compare("perf", perf, gdb, verbose, third=ours)))
    print("; ".join(("%s " + FIELDS) % ((k,) + r) for k, r in res))
    # Our values that differ fail, and so does a gdb that saw nothing;
    # perf probe's differences are only counted (values.sh).
    return 1 if res[0][1][2] or not gdb else 0


if __name__ == "__main__":
    sys.exit(main())
