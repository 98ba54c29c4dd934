#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# deb.sh - `make deb`: the Debian source and binary packages, built the way
# Debian builds them.  The upstream tarball comes from `make dist`
# (mk/dist.sh) and is the .orig.tar.xz of a `3.0 (quilt)` source package;
# unpacked under $BUILD/deb with debian/ added, `dpkg-buildpackage -us -uc`
# builds the source package and the binary ones (perf-run and its -dbgsym)
# from it, then `lintian --pedantic -I` checks all of them (the .changes).
#
# What the build lacks (dpkg-dev, debhelper, lintian, the Build-Depends) is
# installed, as root, only if missing, and never by upgrading a package the
# host has: apt-get is asked first (-s) and the install is refused, naming
# the packages, if it would upgrade one (dpkg or perl, say).
#
# Progress goes to stderr (each debhelper step, the compile every 25
# objects); the whole log is $BUILD/deb/build.log, lintian's
# $BUILD/deb/lintian.log.  The packages are copied to $BUILD/; the last
# line printed is the path of the binary package.
set -euo pipefail

cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
say() { echo "deb: $*" >&2; }

# ---- what the build needs, installed only if missing, upgrading nothing ----
missing_of() {
	local p st
	for p in "$@"; do
		st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
		[[ $st == installed ]] || echo "$p"
	done
}
install_missing() {
	(($#)) || return 0
	if ((EUID != 0)); then
		say "missing packages: $*; as root: apt-get install --no-install-recommends --no-upgrade $*"
		exit 1
	fi
	local sim upgrades
	sim=$(apt-get -s -o Debug::NoLocking=1 install --no-install-recommends --no-upgrade "$@" 2>&1) || {
		echo "$sim" | tail -n 5 >&2
		say "apt-get cannot install $*"
		exit 1
	}
	# `Inst NAME [OLD] (NEW ...)`: an installed package would be upgraded.
	upgrades=$(echo "$sim" | sed -n 's/^Inst \([^ ]*\) \[.*/\1/p' | tr '\n' ' ')
	if [[ -n $upgrades ]]; then
		say "installing $* would upgrade packages of this host: ${upgrades% }; not done"
		say "install them yourself if that is wanted, then run make deb again"
		exit 1
	fi
	say "installing $* ($(echo "$sim" | grep -c '^Inst ') packages, none upgraded)"
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -q \
		--no-install-recommends --no-upgrade "$@" >"$BUILD/deb-apt.log" 2>&1 || {
		tail -n 20 "$BUILD/deb-apt.log" >&2
		say "apt-get install failed (log: $BUILD/deb-apt.log)"
		exit 1
	}
}
mkdir -p "$BUILD"
mapfile -t need < <(missing_of dpkg-dev debhelper lintian)
install_missing "${need[@]}"
# Build-Depends, as dpkg-checkbuilddeps reads them from debian/control.
unmet=$(dpkg-checkbuilddeps 2>&1 | sed -n 's/.*Unmet build dependencies: //p' |
	sed 's/([^)]*)//g; s/|[^ ]*//g')
# shellcheck disable=SC2086
install_missing $unmet

# ---- the upstream tarball and the unpacked source ----
version=$(dpkg-parsechangelog -S Version)
upstream=${version%-*}
code_version=$(sed -n 's/^#define PERF_RUN_VERSION "\(.*\)"/\1/p' perf-plugin/main.c)
[[ $upstream == "$code_version" ]] || {
	say "debian/changelog's version $version is not of upstream $code_version (perf-plugin/main.c)"
	exit 1
}
arch=$(dpkg --print-architecture)
top=$BUILD/deb
src=$top/perf-run-$upstream
rm -rf "$top"
mkdir -p "$top"
tarball=$("${MAKE:-make}" --no-print-directory -s dist BUILD="$BUILD" | tail -n 1)
cp "$tarball" "$top/perf-run_$upstream.orig.tar.xz"
tar -xJf "$tarball" -C "$top"
cp -a debian "$src/"
say "$tarball is the upstream tarball perf-run_$upstream.orig.tar.xz"

# ---- dpkg-buildpackage: source and binary, progress shown ----
jobs=$(nproc 2>/dev/null || echo 2)
say "dpkg-buildpackage -us -uc in $src (log: $top/build.log)"
t0=$(date +%s)
# One line per debhelper step and dpkg-* stage, one per 25 compiled objects.
progress() {
	local line n=0
	while IFS= read -r line; do
		case $line in
		'   dh_'* | '   debian/rules'* | dpkg-source:\ info:\ building* | \
		dpkg-buildpackage:\ info:\ source\ version* | dpkg-deb:\ building* | libperf:\ *)
			line=${line#   }
			printf 'deb: [%3ds] %.100s\n' $(($(date +%s) - t0)) "$line" ;;
		*' -c -o '*.o' '*)
			((++n % 25)) || printf 'deb: [%3ds] compiled %d objects\n' $(($(date +%s) - t0)) $n ;;
		esac
	done
}
set +e
(cd "$src" && DEB_BUILD_OPTIONS="parallel=$jobs ${DEB_BUILD_OPTIONS:-}" dpkg-buildpackage -us -uc) 2>&1 |
	tee "$top/build.log" |
	progress >&2
rc=${PIPESTATUS[0]}
set -e
if ((rc != 0)); then
	tail -n 30 "$top/build.log" >&2
	say "dpkg-buildpackage failed (log: $top/build.log)"
	exit 1
fi
say "built in $(($(date +%s) - t0)) s"

# ---- lintian on the source and the binary packages ----
changes=$top/perf-run_${version}_${arch}.changes
lintian --pedantic -I --show-overrides "$changes" >"$top/lintian.log" 2>"$top/lintian.err" || true
# A tag line is `X: package[ type]: tag ...`; lintian's notes (N:) and its
# warning about running as root are not tags.
tags=$(grep -cE '^[EWIPXOC]: ' "$top/lintian.log" || true)
errs=$(grep -cE '^[EW]: ' "$top/lintian.log" || true)
bysev=$(grep -oE '^[EWIPXOC]: ' "$top/lintian.log" | sort | uniq -c | awk '{printf "%s%s %s", sep, $1, $2; sep=", "}')
if ((errs)); then
	cat "$top/lintian.log" >&2
	say "lintian --pedantic -I: $tags tags, $errs errors or warnings"
	exit 1
fi
say "lintian --pedantic -I on $(basename "$changes"): $tags tags${bysev:+ ($bysev)}, no error, no warning"
((tags == 0)) || sed 's/^/deb:   /' "$top/lintian.log" >&2

# ---- the results ----
for f in "$top"/perf-run_"$version".dsc "$top"/perf-run_"$version".debian.tar.* \
	 "$top"/perf-run_"$upstream".orig.tar.xz "$top"/perf-run-dbgsym_"${version}"_"$arch".*deb; do
	[[ -e $f ]] && cp "$f" "$BUILD/" && say "$BUILD/$(basename "$f")"
done
deb=perf-run_${version}_${arch}.deb
cp "$top/$deb" "$BUILD/$deb"
echo "$BUILD/$deb"
