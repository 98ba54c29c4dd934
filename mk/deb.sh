#!/usr/bin/env bash
# deb.sh - `make deb`: builds the Debian package the way Debian builds it,
# `dpkg-buildpackage -us -uc -b` over debian/ (debhelper, dh $@), in a copy
# of the source tree under $BUILD/deb/src (dpkg-buildpackage writes its
# results next to the tree, and the tree's own build/ stays out of it),
# then runs lintian on the result and copies the package to
# $BUILD/perf-run_VERSION_ARCH.deb.  The build log is $BUILD/deb/build.log,
# lintian's report $BUILD/deb/lintian.log.
# Prints the path of the package on its last line.
set -euo pipefail

cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}

# The packaging tools are needed only here, not by `make deps`.
if ! command -v dh >/dev/null || ! command -v lintian >/dev/null; then
	if ((EUID == 0)); then
		echo "deb: installing debhelper lintian" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
			debhelper lintian dpkg-dev >&2
	fi
fi
for tool in dpkg-buildpackage dh lintian; do
	command -v "$tool" >/dev/null || {
		echo "deb: $tool missing (apt-get install dpkg-dev debhelper lintian)" >&2
		exit 1
	}
done
version=$(dpkg-parsechangelog -S Version)
arch=$(dpkg --print-architecture)
name=perf-run_${version}_${arch}
top=$BUILD/deb/src
src=$top/perf-run-$version

rm -rf "$BUILD/deb"
mkdir -p "$src"
# The tree as it is (uncommitted edits included), without what is built.
tar -c --exclude=./build --exclude=./.git --exclude='*.o' --exclude='*.d' \
	--exclude-ignore-recursive=.gitignore . | tar -x -C "$src"

echo "deb: dpkg-buildpackage -us -uc -b (log: $BUILD/deb/build.log)" >&2
if ! (cd "$src" && dpkg-buildpackage -us -uc -b) >"$BUILD/deb/build.log" 2>&1; then
	tail -n 30 "$BUILD/deb/build.log" >&2
	echo "deb: dpkg-buildpackage failed" >&2
	exit 1
fi
grep '^dpkg-buildpackage: info: binary-only upload' "$BUILD/deb/build.log" >&2 || true

# lintian: no error and no warning (overrides, each with its reason, are
# in debian/perf-run.lintian-overrides).
lintian --fail-on error,warning "$top/${name}.changes" >"$BUILD/deb/lintian.log" 2>&1 || {
	cat "$BUILD/deb/lintian.log" >&2
	echo "deb: lintian reports errors or warnings" >&2
	exit 1
}
echo "deb: lintian: $(grep -c . "$BUILD/deb/lintian.log" || true) tags (no error, no warning)" >&2
cp "$top/${name}.deb" "$BUILD/${name}.deb"
echo "$BUILD/${name}.deb"
