#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# libperf.sh - builds libperf.a and libapi.a from the kernel source tarball
# (Debian does not package libperf) into build/libperf, with the public
# headers in build/libperf/include and the source tree's internal headers in
# build/libperf/internal-include (the runtime may need internal/evsel.h).
# Cached: does nothing when libperf.a is newer than the tarball.
set -euo pipefail

TARBALL=${TARBALL:-/usr/src/linux-source-6.1.tar.xz}
BUILD=${BUILD:-build}
OUT=$BUILD/libperf
SRC=$BUILD/linux-src

if [[ -f $OUT/libperf.a && -f $OUT/libapi.a && $OUT/libperf.a -nt $TARBALL ]]; then
	exit 0
fi
[[ -f $TARBALL ]] || { echo "libperf: $TARBALL missing (apt-get install linux-source-6.1)" >&2; exit 1; }

# The tarball's top directory (linux-source-6.1) is stripped so paths stay short.
PARTS=(tools/lib/perf tools/lib/api tools/lib/str_error_r.c tools/lib/zalloc.c
       tools/lib/ctype.c tools/lib/string.c tools/include tools/scripts tools/build
       tools/arch/x86/include)
if [[ ! -f $SRC/.extracted ]]; then
	echo "libperf: extracting ${#PARTS[@]} paths of $TARBALL (about 15 s)"
	rm -rf "$SRC"
	mkdir -p "$SRC"
	top=$(basename "$TARBALL" .tar.xz)
	tar -xJf "$TARBALL" -C "$SRC" --strip-components=1 \
		--wildcards "${PARTS[@]/#/$top/}"
	touch "$SRC/.extracted"
fi

SRCABS=$(cd "$SRC" && pwd)
OUTABS=$(mkdir -p "$OUT" && cd "$OUT" && pwd)
JOBS=$(nproc 2>/dev/null || echo 2)
# Kernel tools makefiles are noisy and treat warnings of newer compilers as
# errors; neither matters for a static library we only link.
MAKEVARS=(ARCH=x86 EXTRA_CFLAGS="-fPIC -Wno-error" V=0)

echo "libperf: building libapi.a and libperf.a"
make -s -C "$SRCABS/tools/lib/api" -j"$JOBS" "${MAKEVARS[@]}" >/dev/null
make -s -C "$SRCABS/tools/lib/perf" -j"$JOBS" "${MAKEVARS[@]}" >/dev/null

rm -rf "$OUTABS/include" "$OUTABS/internal-include"
mkdir -p "$OUTABS/include/perf" "$OUTABS/internal-include"
cp "$SRCABS"/tools/lib/perf/include/perf/*.h "$OUTABS/include/perf/"
# internal/*.h need the tools tree's own <linux/...> and <asm/...> with
# relative includes into tools/arch, so they are linked, not copied; the
# Makefile adds the rest of that tree (LIBPERF_INTERNAL_CFLAGS) only for
# sources that include <internal/...>, since it shadows <linux/types.h>.
ln -s ../../linux-src/tools/lib/perf/include/internal "$OUTABS/internal-include/internal"
ln -s ../../linux-src/tools/include "$OUTABS/internal-include/tools-include"
cp "$SRCABS/tools/lib/api/libapi.a" "$SRCABS/tools/lib/perf/libperf.a" "$OUTABS/"
echo "libperf: done ($OUT)"
