#!/usr/bin/env bash
# deb.sh - builds $BUILD/perf-run_VERSION_ARCH.deb with dpkg-deb: the
# files of `make install` with PREFIX=/usr (binary, man page, scripts, the
# link in perf's exec path), the binary stripped, and Depends computed from
# the shared libraries it really links (dpkg-shlibdeps, else dpkg -S on
# each library ldd finds).  libperf is a static archive, linked in;
# libclang is opened with dlopen only for scripts that declare C types,
# hence a Recommends.
# Prints the path of the package on its last line.
set -euo pipefail

cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
MAKE=${MAKE:-make}
STAGE=$BUILD/deb/root
BIN=$BUILD/perf-run

version=$("$BIN" --version | awk '{print $2}')
arch=$(dpkg --print-architecture)
out=$BUILD/perf-run_${version}_${arch}.deb

rm -rf "$BUILD/deb"
mkdir -p "$STAGE"
"$MAKE" --no-print-directory install DESTDIR="$PWD/$STAGE" PREFIX=/usr >"$BUILD/deb/install.log"
strip --strip-unneeded "$STAGE/usr/bin/perf-run"
gzip -9n "$STAGE/usr/share/man/man1/perf-run.1"
install -d "$STAGE/usr/share/doc/perf-run"
cp README.md "$STAGE/usr/share/doc/perf-run/README.md"

# Depends: dpkg-shlibdeps wants a debian/control beside it, so it runs in
# a scratch directory holding a minimal one.
shlibdeps() {
	local dir=$BUILD/deb/shlibdeps
	mkdir -p "$dir/debian"
	printf 'Source: perf-run\n\nPackage: perf-run\nArchitecture: any\n' >"$dir/debian/control"
	(cd "$dir" && dpkg-shlibdeps -O "$OLDPWD/$STAGE/usr/bin/perf-run" 2>/dev/null) |
		sed -n 's/^shlibs:Depends=//p'
}

# Without dpkg-dev: the package of each library, at its installed
# version or later.
libdeps() {
	ldd "$STAGE/usr/bin/perf-run" | awk '/=> \// {print $3}' | while read -r lib; do
		pkg=$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null | head -n 1 | cut -d: -f1) ||
			pkg=$(dpkg -S "$lib" 2>/dev/null | head -n 1 | cut -d: -f1) || continue
		[[ -n $pkg ]] || continue
		echo "$pkg (>= $(dpkg-query -W -f='${Version}' "$pkg"))"
	done | sort -u | paste -sd, | sed 's/,/, /g'
}

depends=
command -v dpkg-shlibdeps >/dev/null && depends=$(shlibdeps || true)
[[ -n $depends ]] || depends=$(libdeps)
[[ -n $depends ]] || { echo "deb.sh: cannot work out the package's Depends" >&2; exit 1; }

size=$(du -sk "$STAGE" | cut -f1)
mkdir -p "$STAGE/DEBIAN"
cat >"$STAGE/DEBIAN/control" <<CONTROL
Package: perf-run
Version: $version
Architecture: $arch
Maintainer: perf-run developers <perf-run@localhost>
Installed-Size: $size
Depends: $depends
Recommends: linux-perf, libclang1-19
Section: devel
Priority: optional
Homepage: https://localhost/perf-run
Description: run bpftrace-language programs at perf probe points
 perf-run compiles a tracing script with LLVM's BPF back end, loads it with
 libbpf and attaches it to probe points written in perf probe syntax
 (functions, source lines, DWARF variables), tracepoints, USDT notes and
 perf events, aggregating in the kernel.  It is a perf subcommand:
 perf run -e PROGRAM.
CONTROL
dpkg-deb --root-owner-group -Zxz --build "$STAGE" "$out" >/dev/null
echo "$out"
