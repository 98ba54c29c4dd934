#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# dist.sh - `make dist` (mk/dist.mk): writes $BUILD/perf-run-$VERSION.tar.xz,
# the upstream tarball, and prints its path on the last line.  The files are
# those git knows or would add (the tree as it is, uncommitted edits
# included), without debian/ and fuzz/corpus/elf/; their times are the last commit's, their
# owner root, their order by name, so a tree gives the same tarball twice.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
VERSION=${VERSION:?}
top=perf-run-$VERSION
out=$BUILD/$top.tar.xz

if [[ $(git rev-parse --show-toplevel 2>/dev/null) == "$PWD" ]]; then   # not a tarball unpacked inside another tree
	files() { git ls-files -z --cached --others --exclude-standard; }
	mtime=@$(git log -1 --format=%ct)
else
	files() { find . \( -path ./build -o -path ./.git \) -prune -o -type f -print0 | sed -z 's|^\./||'; }
	mtime=@$(stat -c %Y Makefile)
fi
mkdir -p "$BUILD"
# fuzz/corpus/elf holds ELF files (a built library, a hand-made crash
# input) with no source beside them: a release carries none (Debian's
# source-is-missing); the fuzz suite's ELF corpus is the git tree's.
files | grep -zv -e '^debian/' -e '^build/' -e '^fuzz/corpus/elf/' | while IFS= read -r -d '' f; do
	[[ -e $f || -L $f ]] && printf '%s\0' "$f"
done | LC_ALL=C sort -z >"$BUILD/dist.list"
# Every file the Makefile builds from must be in it.
for need in Makefile LICENSE README.md perf-plugin/main.c mk/libperf.sh; do
	grep -qzx -- "$need" "$BUILD/dist.list" || { echo "dist: $need is missing from the file list" >&2; exit 1; }
done
tar --null -T "$BUILD/dist.list" --transform="flags=r;s|^|$top/|" --sort=name \
	--owner=0 --group=0 --numeric-owner --mtime="$mtime" --mode='u+rw,go+r,go-w' \
	-cf - | xz -6 -T1 >"$out.tmp"
mv "$out.tmp" "$out"
echo "dist: $(tr -cd '\0' <"$BUILD/dist.list" | wc -c) files, $(du -k "$out" | cut -f1) KiB" >&2
echo "$out"
