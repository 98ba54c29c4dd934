#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# cfi_ra_patch.sh FILE: see the docstring below (python3 does the work).
exec python3 - "$1" <<'EOF'
"""cfi_ra_patch.sh FILE: rewrites, in place, every CIE's initial rule
"return address (r16) at CFA-8" (DW_CFA_offset r16, 1: bytes 90 01 after
DW_CFA_def_cfa r7, 8: 0c 07 08) in FILE's .eh_frame into the same rule for
r15 (8f 01).  The size, the layout and the build-id stay; the program
still runs (nothing in it unwinds), but every row of its CFI leaves the
return address undefined, so a stack through it ends at its first frame:
a doctored copy with the build-id of the original (review item N4)."""
import struct
import sys


def section(data, name):
    """(offset, size) of the section called name in a 64-bit ELF."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    def hdr(i):
        return struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
    stroff = hdr(shstrndx)[4]
    for i in range(shnum):
        nm, _, _, _, off, size = hdr(i)
        end = data.index(b"\0", stroff + nm)
        if data[stroff + nm:end] == name:
            return off, size
    sys.exit("no section " + name.decode())


path = sys.argv[1]
data = bytearray(open(path, "rb").read())
off, size = section(data, b".eh_frame")
old, new = b"\x0c\x07\x08\x90\x01", b"\x0c\x07\x08\x8f\x01"
body = data[off:off + size]
if body.count(old) == 0:
    sys.exit("no CIE rule to patch")
data[off:off + size] = body.replace(old, new)
open(path, "wb").write(data)
EOF
