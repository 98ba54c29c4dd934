#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# perf_triples.py - `perf script` output of the events values_lib.sh adds
# ("GROUP:pK_ADDR") to "K ADDR NAME VALUE" lines, ADDR where the event
# really fired (perf moves FUNC+0 past the prologue of unoptimised code),
# less the load bias of a PIE.  Only the first hit of each event is kept.
#
#   perf script | perf_triples.py PIE-FLAG...     flag K: 1 if binary K is a PIE
import re
import sys

PIE_BASE = 0x555555554000  # where ld.so puts a PIE without randomisation
EVENT = re.compile(r":p(\d+)_0x[0-9a-f]+:$")


def main():
    pies = sys.argv[1:]
    seen = set()
    out = sys.stdout
    for line in sys.stdin:
        f = line.split()
        for i, w in enumerate(f):
            m = EVENT.search(w)
            if m and i + 1 < len(f) and re.fullmatch(r"\([0-9a-f]+\)", f[i + 1]):
                break
        else:
            continue
        if w in seen:
            continue
        seen.add(w)
        k = int(m.group(1))
        addr = int(f[i + 1][1:-1], 16) - (PIE_BASE if k < len(pies) and pies[k] == "1" else 0)
        for kv in f[i + 2:]:
            if "=" in kv:
                name, _, value = kv.partition("=")
                out.write("%d 0x%x %s %s\n" % (k, addr, name, value))


if __name__ == "__main__":
    main()
