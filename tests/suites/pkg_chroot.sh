#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# pkg_chroot.sh - the Debian package on a clean root: a Debian 12 minbase
# chroot made with debootstrap from the mirror of /etc/apt/sources.list.d
# (cached in $BUILD/pkgtest/root, so a second run takes seconds), where
# apt installs $BUILD/perf-run_*.deb (make deb) and `perf run -e ...` runs
# through perf's exec path, with /proc, /sys, tracefs and bpffs bound in.
# SKIPs, saying why, without debootstrap or a reachable mirror.
# Last line: `N passed, N failed, N skipped`.
set -uo pipefail

cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
MAKE=${MAKE:-make}
CACHE=$BUILD/pkgtest
ROOT=$CACHE/root
passed=0 failed=0 skipped=0
t0=$(date +%s)

ok() { echo "PASS $1"; ((passed++)); }
bad() { echo "FAIL $1"; ((failed++)); [[ -z ${2:-} ]] || tail -n 20 "$2" | sed 's/^/    | /'; }
skip() { echo "SKIP $1"; ((skipped++)); echo "$passed passed, $failed failed, $skipped skipped"; exit 0; }

((EUID == 0)) || skip "chroot: needs root"
mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
mirror=${mirror:-http://deb.debian.org/debian}

# ---- the clean root (cached) ----
mkdir -p "$CACHE"
if [[ ! -f $ROOT/.complete ]]; then
	command -v debootstrap >/dev/null ||
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends debootstrap \
			>"$CACHE/apt.log" 2>&1 || skip "chroot: debootstrap is not installed and cannot be"
	rm -rf "$ROOT.tmp"
	# The package's Depends and linux-perf come in now, so that installing
	# the .deb later needs no network.
	if ! timeout 900 debootstrap --variant=minbase \
		--include=libbpf1,libdw1,libelf1,libzstd1,zlib1g,libllvm19,linux-perf \
		bookworm "$ROOT.tmp" "$mirror" >"$CACHE/debootstrap.log" 2>&1; then
		tail -n 3 "$CACHE/debootstrap.log"
		skip "chroot: debootstrap could not build a root from $mirror (log: $CACHE/debootstrap.log)"
	fi
	touch "$ROOT.tmp/.complete"
	rm -rf "$ROOT"
	mv "$ROOT.tmp" "$ROOT"
fi
echo "root ready after $(($(date +%s) - t0)) s"

deb=$(ls -t "$BUILD"/perf-run_*.deb 2>/dev/null | head -n 1)
if [[ -z $deb ]]; then
	"$MAKE" --no-print-directory deb BUILD="$BUILD" >"$CACHE/deb.log" 2>&1 || { bad "make deb" "$CACHE/deb.log"; deb=; }
	deb=$(ls -t "$BUILD"/perf-run_*.deb 2>/dev/null | head -n 1)
fi
[[ -n $deb ]] || { echo "$passed passed, $((failed + 1)) failed, $skipped skipped"; exit 1; }

# ---- mounts, undone on exit in reverse ----
source tests/lib/chroot_mounts.sh
cleanup() {
	chroot_unmount
	rm -f "$ROOT/tmp/perf-run.deb"
}
trap cleanup EXIT
chroot_mount "$ROOT"

cp "$deb" "$ROOT/tmp/perf-run.deb"
C() { timeout -s KILL 120 chroot "$ROOT" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }
out=$CACHE/out
if C apt-get install -y --no-download /tmp/perf-run.deb >"$out" 2>&1 ||
   C dpkg -i /tmp/perf-run.deb >>"$out" 2>&1; then
	ok "apt installs $(basename "$deb") on a clean Debian 12 root"
else
	bad "install on the clean root" "$out"
fi
if C perf run -q -e 'BEGIN { printf("hi\n"); exit(); }' >"$out" 2>&1 && grep -qx hi "$out"; then
	ok "perf run -e 'BEGIN { printf(\"hi\\n\"); exit(); }' in the root prints hi"
else
	bad "perf run in the root" "$out"
fi
if C perf run -q -e 'tracepoint:syscalls:sys_enter_openat /comm == "cat"/ { @n = count(); }' \
	-c 'cat /etc/hostname' >"$out" 2>&1 && grep -q '^@n: [1-9]' "$out"; then
	ok "the installed perf-run traces a tracepoint of a command in the root"
else
	bad "tracepoint in the root" "$out"
fi
if C test -f /usr/share/bash-completion/completions/perf-run -a -L /usr/lib/perf-core/perf-run; then
	ok "completion and exec-path link installed"
else
	bad "completion and exec-path link installed"
fi
C dpkg -r perf-run >"$out" 2>&1 && ! C test -e /usr/bin/perf-run && ok "dpkg -r removes it" ||
	bad "dpkg -r" "$out"
echo "took $(($(date +%s) - t0)) s"
echo "$passed passed, $failed failed, $skipped skipped"
((failed == 0))
