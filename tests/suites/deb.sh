#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# deb.sh - what a Debian maintainer checks before an upload:
#  - `make deb`: dpkg-buildpackage of the source (3.0 (quilt), the orig
#    tarball from `make dist`) and the binary packages, lintian --pedantic -I
#    on both with no error and no warning (mk/deb.sh); reused when the
#    package is newer than every file of the tree, so a second run is quick;
#  - the binary as Debian links it: a PIE, the shared libLLVM-19, no static
#    LLVM; no -Werror in the package build;
#  - `make install DESTDIR=... PREFIX=/usr`: every tool a command (#! line,
#    run bit) in /usr/share/perf-run/tools, none over bpftrace's
#    /usr/sbin/*.bt, each with its example, the exec-path link inside /usr;
#  - on a clean Debian 12 root (debootstrap, cached in $BUILD/pkgtest/root,
#    shared with pkg_chroot.sh), apt installs the package and three tools run
#    by name: `syscount.bt 1`, execsnoop.bt and functrace.bt on a program.
# Every step has a timeout: about 3 minutes with a fresh package to build,
# seconds otherwise.  Without root, dpkg-buildpackage or a reachable
# mirror, the steps that need them SKIP, saying why.
# Last line: `N passed, N failed, N skipped`.
set -uo pipefail

cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
MAKE=${MAKE:-make}
TMP=$(mktemp -d /tmp/perf-run-deb.XXXXXX)
passed=0 failed=0 skipped=0
source tests/lib/chroot_mounts.sh
cleanup() {
	chroot_unmount
	rm -rf "$TMP"
}
trap cleanup EXIT

ok() { echo "PASS $1"; ((passed++)); }
bad() { echo "FAIL $1"; ((failed++)); [[ -z ${2:-} || ! -s $2 ]] || tail -n 20 "$2" | sed 's/^/    | /'; }
skip() { echo "SKIP $1"; ((skipped++)); }
check() {   # NAME COMMAND...: passes if the command succeeds
	local name=$1
	shift
	if "$@" >"$TMP/out" 2>&1; then ok "$name"; else bad "$name" "$TMP/out"; fi
}
finish() { echo "$passed passed, $failed failed, $skipped skipped"; ((failed == 0)); exit; }

# ---- make install DESTDIR PREFIX=/usr: the tools are commands ----
D=$TMP/destdir
if timeout -s KILL 300 "$MAKE" --no-print-directory install DESTDIR="$D" PREFIX=/usr \
	PERF_EXEC_PATH=/usr/lib/perf-core BUILD="$BUILD" >"$TMP/install.log" 2>&1; then
	ok "make install DESTDIR=... PREFIX=/usr"
	for f in scripts/*.bt; do
		t=$D/usr/share/perf-run/tools/${f##*/}
		check "${f##*/} installed as a command (#!/usr/bin/env perf-run, mode 755) with its example" \
			bash -c "test -x '$t' && head -n 1 '$t' | grep -qx '#!/usr/bin/env perf-run' &&
				 test \"\$(stat -c %a '$t')\" = 755 &&
				 test -f '$D/usr/share/doc/perf-run/examples/$(basename "$f" .bt)_example.txt'"
	done
	check "no tool under /usr/sbin (bpftrace's /usr/sbin/*.bt stay its own)" test ! -e "$D/usr/sbin"
	check "no tool names a test program" bash -c "! grep -l 'tests/progs' '$D'/usr/share/perf-run/tools/*"
	check "the perf exec-path link is inside the prefix" \
		test "$(readlink "$D/usr/lib/perf-core/perf-run")" = /usr/bin/perf-run
else
	bad "make install DESTDIR=... PREFIX=/usr" "$TMP/install.log"
fi

# ---- make deb: source and binary, lintian --pedantic -I ----
if ! command -v dpkg-buildpackage >/dev/null && ((EUID != 0)); then
	skip "make deb: no dpkg-buildpackage, and not root to install it"
	finish
fi
version=$(dpkg-parsechangelog -S Version)
deb=$BUILD/perf-run_${version}_$(dpkg --print-architecture).deb
newest=$(git ls-files -z --cached --others --exclude-standard 2>/dev/null | xargs -0 stat -c %Y 2>/dev/null | sort -n | tail -n 1)
if [[ -f $deb && -f $BUILD/deb/lintian.log && -n $newest && $(stat -c %Y "$deb") -gt $newest ]]; then
	echo "deb: $deb is newer than the tree: not built again"
elif timeout -s KILL 900 "$MAKE" --no-print-directory deb BUILD="$BUILD" >"$TMP/deb.log" 2>&1 &&
     [[ $(tail -n 1 "$TMP/deb.log") == "$deb" ]]; then
	ok "make deb: dpkg-buildpackage -us -uc (source and binary) and lintian --pedantic -I"
	grep -E '^deb: (lintian|built)' "$TMP/deb.log" | sed 's/^/    /'
else
	bad "make deb" "$TMP/deb.log"
	finish
fi
check "the source package is 3.0 (quilt) with an orig tarball" bash -c \
	"grep -qx 'Format: 3.0 (quilt)' '$BUILD/perf-run_$version.dsc' &&
	 test -f '$BUILD/perf-run_${version%-*}.orig.tar.xz' && test -f '$BUILD/perf-run_$version.debian.tar.xz'"
check "the orig tarball (make dist) has LICENSE and the Makefile, no debian/ and no build/" bash -c \
	"tar -tJf '$BUILD/perf-run_${version%-*}.orig.tar.xz' >'$TMP/list' &&
	 grep -qx 'perf-run-${version%-*}/LICENSE' '$TMP/list' && grep -qx 'perf-run-${version%-*}/Makefile' '$TMP/list' &&
	 ! grep -Eq '^perf-run-[^/]*/(debian|build)/' '$TMP/list'"
check "the -dbgsym package is copied" bash -c "ls '$BUILD'/perf-run-dbgsym_${version}_*.deb"
check "lintian: no error or warning, on the source and the binary package" bash -c \
	"grep -q 'perf-run source' '$BUILD/deb/lintian.log' || true; ! grep -E '^[EW]: ' '$BUILD/deb/lintian.log'"
dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/bin/perf-run >"$TMP/bin"
check "the packaged binary is a PIE" bash -c "readelf -h '$TMP/bin' | grep -q 'Type: *DYN'"
check "it links the shared libLLVM-19 and carries no copy of LLVM" bash -c \
	"readelf -d '$TMP/bin' | grep -q 'NEEDED.*libLLVM' && ! nm -D --defined-only '$TMP/bin' | grep -q ' LLVM' &&
	 test \$(stat -c %s '$TMP/bin') -lt 8000000"
check "Depends names libllvm19, no lintian override hides hardening" bash -c \
	"dpkg-deb -f '$deb' Depends | grep -q libllvm19 && ! dpkg-deb -c '$deb' | grep -q lintian/overrides/perf-run.*no-pie &&
	 ! grep -rq hardening debian/*.lintian-overrides"
# (Debian's own -Werror=format-security stays: it is one warning, chosen.)
check "the package build compiles without -Werror" bash -c \
	"grep -q ' -c -o debian/build/obj/' '$BUILD/deb/build.log' &&
	 ! grep ' -c -o debian/build/obj/' '$BUILD/deb/build.log' | grep -Eq -- '-Werror( |\$)'"

# ---- a clean Debian 12 root: apt installs it, three tools run by name ----
if ((EUID != 0)); then
	skip "clean root: needs root"
	finish
fi
ROOT=${PKGROOT:-$BUILD/pkgtest/root}   # PKGROOT=DIR: another root, made fresh if empty
mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
mirror=${mirror:-http://deb.debian.org/debian}
if [[ ! -f $ROOT/.complete ]]; then
	if ! command -v debootstrap >/dev/null; then
		skip "clean root: debootstrap is not installed (apt-get install debootstrap)"
		finish
	fi
	mkdir -p "$BUILD/pkgtest" "$(dirname "$ROOT")"
	rm -rf "$ROOT.tmp"
	if ! timeout 600 debootstrap --variant=minbase \
		--include=libbpf1,libdw1,libelf1,libzstd1,zlib1g,libllvm19,linux-perf \
		bookworm "$ROOT.tmp" "$mirror" >"$BUILD/pkgtest/debootstrap.log" 2>&1; then
		skip "clean root: debootstrap could not build a root from $mirror (log: $BUILD/pkgtest/debootstrap.log)"
		finish
	fi
	touch "$ROOT.tmp/.complete"
	rm -rf "$ROOT"
	mv "$ROOT.tmp" "$ROOT"
fi
chroot_mount "$ROOT"
cp "$deb" "$ROOT/tmp/perf-run.deb"
cp tests/progs/src_acc "$ROOT/tmp/src_acc"
C() { timeout -s KILL 300 chroot "$ROOT" env -i PATH=/usr/share/perf-run/tools:/usr/sbin:/usr/bin:/sbin:/bin \
	LANG=C.UTF-8 HOME=/root "$@"; }
# Its Depends (libllvm19 since it is linked shared) come from the mirror
# when the cached root lacks them.
if C apt-get install -y --no-install-recommends /tmp/perf-run.deb >"$TMP/apt.log" 2>&1 ||
   { C apt-get update >>"$TMP/apt.log" 2>&1 &&
     C apt-get install -y --no-install-recommends /tmp/perf-run.deb >>"$TMP/apt.log" 2>&1; }; then
	ok "apt installs $(basename "$deb") on a clean Debian 12 root"
else
	bad "apt install on the clean root (mirror $mirror)" "$TMP/apt.log"
	finish
fi
check "syscount.bt 1 runs by name in the root" bash -c \
	"$(declare -f C); ROOT='$ROOT'; C syscount.bt 1 >'$TMP/sc' 2>&1; grep -q '^@process\[' '$TMP/sc'"
check "execsnoop.bt runs by name and sees a program started" bash -c \
	"$(declare -f C); ROOT='$ROOT'; C sh -c '(sleep 2; /bin/true) & timeout -s INT 4 execsnoop.bt' >'$TMP/es' 2>&1;
	 grep -Eq '^[0-9]+ +[0-9]+ +[^ ]+ +/bin/true$' '$TMP/es'"
check "functrace.bt runs by name on a program, parameters by name" bash -c \
	"$(declare -f C); ROOT='$ROOT'; C functrace.bt accumulate -- /tmp/src_acc 5 >'$TMP/ft' 2>&1;
	 grep -Eq '^[0-9]+ +-> \{ \.n = 5, ' '$TMP/ft' && grep -Eq '^[0-9]+ +<- = 30 ' '$TMP/ft'"
check "man perf-run's page and the examples are installed" \
	C test -f /usr/share/man/man1/perf-run.1.gz -a -f /usr/share/doc/perf-run/examples/syscount_example.txt
C dpkg -r perf-run >"$TMP/out" 2>&1 && ! C test -e /usr/bin/perf-run && ok "dpkg -r removes it" ||
	bad "dpkg -r" "$TMP/out"
rm -f "$ROOT/tmp/perf-run.deb" "$ROOT/tmp/src_acc"
finish
