#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# deps.sh - `make deps`: installs the Debian packages perf-run builds and
# tests with, then builds libperf (mk/libperf.sh).  A stamp newer than the
# dpkg database and the libperf archive make a second run a no-op.
# `deps.sh --check` (make check) installs nothing: it says which packages
# the build lacks, in one sentence, and fails.  `deps.sh --build` (make
# install) installs only what builds perf-run itself (SELF_PKGS), none of
# the test peers.  Missing packages are installed with --no-upgrade: an
# installed package is never upgraded by it.
set -euo pipefail

BUILD=${BUILD:-build}
STAMP=$BUILD/.deps-ok
TARBALL=/usr/src/linux-source-6.1.tar.xz
DPKG_STATUS=/var/lib/dpkg/status

# What building perf-run, its unit tests and test programs needs (make check).
# systemtap-sdt-dev gives <sys/sdt.h> to the USDT test program; gcc-multilib
# (with libc6-dev-i386) builds the 32-bit test programs.  liblzma-dev and
# libbz2-dev: build/perf-run links libdw statically, and libdw reads
# compressed debuginfo with them.  libclang-19-dev: ctypes.c's clang-c headers.
# g++: lib/demangle.cc.  protobuf-c-compiler, libprotobuf-c-dev,
# golang-github-google-pprof-dev: -f pprof's profile.proto compiled at build
# time (mk/pprof.mk).  libmicrohttpd-dev: exporter.c's header (--listen; the
# library is dlopen()ed).
SELF_PKGS=(gcc g++ make pkg-config llvm-19-dev libclang-19-dev libbpf-dev libelf-dev
      libdw-dev zlib1g-dev libzstd-dev liblzma-dev libbz2-dev linux-source-6.1 xz-utils
      libmicrohttpd-dev protobuf-c-compiler libprotobuf-c-dev golang-github-google-pprof-dev)
BUILD_PKGS=("${SELF_PKGS[@]}" systemtap-sdt-dev gcc-multilib)
# bpftrace, linux-perf and gdb are peers the tests and benchmarks compare
# with; libc6-dbg is separate debuginfo found by build-id, as users have it.
# libclang-rt-19-dev is clang-19's libFuzzer, for the fuzz targets of
# tests/suites/fuzz.sh.  g++ builds lib/demangle.cc; rustc the Rust test programs.
PKGS=("${BUILD_PKGS[@]}" clang-19 bpftrace linux-perf gdb libc6-dbg libclang-rt-19-dev rustc)

missing=()
missing_of() {
	local p st
	for p in "$@"; do
		st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
		[[ $st == installed ]] || missing+=("$p")
	done
}

if [[ ${1:-} == --check || ${1:-} == --check-build ]]; then
	# --check-build (plain make, before libperf): what perf-run itself needs
	if [[ $1 == --check-build ]]; then missing_of "${SELF_PKGS[@]}"; else missing_of "${BUILD_PKGS[@]}"; fi
	((${#missing[@]} == 0)) && exit 0
	n=${#missing[@]}
	echo "check: the build needs the Debian package$( ((n > 1)) && echo s) ${missing[*]}," \
	     "not installed; \`make deps\` (as root) installs $( ((n > 1)) && echo them || echo it)." >&2
	exit 1
fi

if [[ -f $STAMP && $STAMP -nt $DPKG_STATUS && -f $BUILD/libperf/libperf.a &&
      $BUILD/libperf/libperf.a -nt $TARBALL ]]; then
	exit 0
fi

if [[ ${1:-} == --build ]]; then
	PKGS=("${SELF_PKGS[@]}")
	STAMP=$BUILD/.deps-build-ok
	[[ -f $STAMP && $STAMP -nt $DPKG_STATUS && -f $BUILD/libperf/libperf.a &&
	   $BUILD/libperf/libperf.a -nt $TARBALL ]] && exit 0
fi
missing_of "${PKGS[@]}"

if ((${#missing[@]})); then
	cmd=(apt-get install -y --no-install-recommends --no-upgrade "${missing[@]}")
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
