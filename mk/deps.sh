#!/usr/bin/env bash
# deps.sh - `make deps`: installs the Debian packages perf-run builds and
# tests with, then builds libperf (mk/libperf.sh).  A stamp newer than the
# dpkg database and the libperf archive make a second run a no-op.
set -euo pipefail

BUILD=${BUILD:-build}
STAMP=$BUILD/.deps-ok
TARBALL=/usr/src/linux-source-6.1.tar.xz
DPKG_STATUS=/var/lib/dpkg/status

if [[ -f $STAMP && $STAMP -nt $DPKG_STATUS && -f $BUILD/libperf/libperf.a &&
      $BUILD/libperf/libperf.a -nt $TARBALL ]]; then
	exit 0
fi

# bpftrace, linux-perf and gdb are peers the tests and benchmarks compare
# with; systemtap-sdt-dev gives <sys/sdt.h> to the USDT test program;
# libc6-dbg is separate debuginfo found by build-id, as users have it.
# gcc-multilib (with libc6-dev-i386) builds the 32-bit test programs.
# liblzma-dev and libbz2-dev: build/perf-run links libdw statically, and
# libdw reads compressed debuginfo with them.  libclang-rt-19-dev is
# clang-19's libFuzzer, for the fuzz targets of tests/suites/fuzz.sh.
PKGS=(gcc make pkg-config llvm-19-dev libclang-19-dev clang-19 libbpf-dev libelf-dev
      libdw-dev zlib1g-dev libzstd-dev liblzma-dev libbz2-dev linux-source-6.1 xz-utils systemtap-sdt-dev bpftrace linux-perf gdb
      libc6-dbg libclang-rt-19-dev gcc-multilib)

missing=()
for p in "${PKGS[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[[ $st == installed ]] || missing+=("$p")
done

if ((${#missing[@]})); then
	cmd=(apt-get install -y --no-install-recommends "${missing[@]}")
	if ((EUID != 0)); then
		echo "deps: missing packages: ${missing[*]}" >&2
		echo "deps: run as root: apt-get update && ${cmd[*]}" >&2
		exit 1
	fi
	echo "deps: installing ${missing[*]}"
	apt-get update
	DEBIAN_FRONTEND=noninteractive "${cmd[@]}"
fi

BUILD=$BUILD "$(dirname "$0")/libperf.sh"
mkdir -p "$BUILD"
touch "$STAMP"
