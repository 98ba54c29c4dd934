#!/usr/bin/env python3
# values_cmp.py - compares variable values read at probe addresses with
# gdb's (tests/dwarf/values.sh).
#
#   values_cmp.py [-v] GDB OURS [PERF]
#
# GDB: "ADDR NAME VALUE" lines from gdb_frames.py.
# OURS: perf-run output: "@ADDR" lines (printf of the probe's address)
#   each followed by the print(args) record of that hit.
# PERF: "ADDR NAME VALUE" lines of the values perf probe fetched.
# Only the first hit of each address counts.  Prints one line of counts:
#   "ours A (equal E, differ D, gdb has none N), lacking L; perf ..."
# and, with -v, each difference.  Exit status 1 if any of OURS differs.
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
        if s.startswith(" }", i):
            return out, i + 2
        if s.startswith("}", i):
            return out, i + 1
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
    with open(path, errors="replace") as f:
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
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
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
    alts = g.split("=") if "=" in g else [g]  # an enum: NAME=NUMBER
    if v in alts:
        return True
    try:  # perf probe prints unsigned integers in hex, enums as numbers
        return (int(v, 0) - int(alts[-1], 0)) % (1 << 32) == 0
    except ValueError:
        return False


def compare(label, mine, gdb, verbose):
    n = equal = differ = nogdb = 0
    # perf probe fetches a whole struct as its first bytes: not compared
    records = {(a, k.split(".")[0].split("[")[0]) for a, k in gdb if "." in k or "[" in k}
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
        else:
            differ += 1
            if verbose:
                print("  %s 0x%x %s: %s, gdb %s" % (label, key[0], key[1], v, g))
    addrs = {a for a, _ in mine}
    lack = sorted(k for k, g in gdb.items() if not unknown(g) and unknown(mine.get(k))
                  and k[0] in addrs and k not in records)
    for k in lack if verbose else ():
        print("  %s 0x%x %s: %s, gdb %s" % (label, k[0], k[1], mine.get(k, "none"), gdb[k]))
    lacking = len(lack)
    return n, equal, differ, nogdb, lacking


def main():
    args = sys.argv[1:]
    verbose = bool(args) and args[0] == "-v"
    if verbose:
        args = args[1:]
    gdb = read_triples(args[0])
    ours = read_ours(args[1])
    res = [("ours", compare("ours", ours, gdb, verbose))]
    if len(args) > 2:
        res.append(("perf", compare("perf", read_triples(args[2]), gdb, verbose)))
    print("; ".join("%s %d (equal %d, differ %d, gdb has none %d), lacking %d" % ((k,) + r)
                    for k, r in res))
    # Our values that differ fail, and so does a gdb that saw nothing;
    # perf probe's differences are only counted (values.sh).
    return 1 if res[0][1][2] or not gdb else 0


if __name__ == "__main__":
    sys.exit(main())
