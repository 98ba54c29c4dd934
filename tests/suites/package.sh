#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# package.sh - installing: `make install` / `make uninstall` with PREFIX
# and DESTDIR into a scratch tree, `perf run` finding the installed binary
# on PATH and `perf help run` its man page, and `make deb` (dpkg-buildpackage
# over debian/, lintian with no error or warning): the package's
# files and Depends (resolvable by apt on Debian 12), installed with
# `dpkg --root` into a scratch root whose binary then traces.
# Last line: `N passed, N failed, N skipped`.
set -uo pipefail

cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
MAKE=${MAKE:-make}
TMP=$(mktemp -d /tmp/perf-run-pkg.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
passed=0 failed=0 skipped=0

ok() { echo "PASS $1"; ((passed++)); }
bad() {
	echo "FAIL $1"
	((failed++))
	[[ -z ${2:-} || ! -s $2 ]] || tail -n 20 "$2" | sed 's/^/    | /'
}
check() {   # NAME COMMAND...: passes if the command succeeds
	local name=$1
	shift
	if "$@" >"$TMP/out" 2>&1; then ok "$name"; else bad "$name" "$TMP/out"; fi
}
B() { timeout -s KILL 60 "$@"; }

EP=$(perf --exec-path 2>/dev/null || true)

# ---- make install / uninstall ----
D=$TMP/destdir
check "make install DESTDIR PREFIX" \
	"$MAKE" --no-print-directory install DESTDIR="$D" PREFIX=/opt/pr BUILD="$BUILD"
check "installed binary, man page and scripts" \
	test -x "$D/opt/pr/bin/perf-run" -a -f "$D/opt/pr/share/man/man1/perf-run.1" \
	-a -x "$D/opt/pr/share/perf-run/tools/opensnoop.bt" \
	-a -f "$D/opt/pr/share/bash-completion/completions/perf-run"
if [[ -n $EP ]]; then
	# perf's exec path is outside /opt/pr: no link there, even in DESTDIR.
	check "no link in perf's exec path outside PREFIX" test ! -e "$D$EP/perf-run" -a ! -L "$D$EP/perf-run"
fi
check "installed binary runs a program" bash -c \
	"timeout -s KILL 60 '$D/opt/pr/bin/perf-run' -q -e 'BEGIN { printf(\"ok\\n\"); exit(); }' | grep -qx ok"
check "make uninstall leaves no file behind" bash -c \
	"'$MAKE' --no-print-directory uninstall DESTDIR='$D' PREFIX=/opt/pr BUILD='$BUILD' >/dev/null &&
	 test -z \"\$(find '$D' ! -type d)\""

# ---- perf run, perf help run ----
if command -v perf >/dev/null; then
	R=$TMP/prefix
	"$MAKE" --no-print-directory install PREFIX="$R" BUILD="$BUILD" >"$TMP/inst.log" 2>&1 ||
		bad "install into a scratch PREFIX" "$TMP/inst.log"
	check "perf run finds perf-run on PATH" bash -c \
		"PATH='$R/bin':\$PATH timeout -s KILL 60 perf run -q -e 'BEGIN { printf(\"via perf\\n\"); exit(); }' | grep -qx 'via perf'"
	check "perf run --version" bash -c "PATH='$R/bin':\$PATH perf run --version | grep -q '^perf-run '"
	# The other way perf finds it: a link in its exec path (what make
	# install puts in perf --exec-path), with perf-run not on PATH.
	mkdir -p "$TMP/exec-path"
	ln -s "$R/bin/perf-run" "$TMP/exec-path/perf-run"
	check "perf run through perf's exec path" bash -c \
		"env PATH=/usr/bin:/bin perf --exec-path='$TMP/exec-path' run -q -e 'BEGIN { printf(\"exec path\\n\"); exit(); }' | grep -qx 'exec path'"
	if command -v man >/dev/null; then
		check "perf help run shows the man page" bash -c \
			"MANPATH='$R/share/man' MANPAGER=cat PAGER=cat MANWIDTH=80 perf help run 2>&1 | grep -q 'perf-run - Run a tracing program'"
		check "perf run --help opens the man page" bash -c \
			"PATH='$R/bin':\$PATH MANPATH='$R/share/man' MANPAGER=cat PAGER=cat MANWIDTH=80 perf run --help 2>&1 | grep -q 'perf-run - Run a tracing program'"
	else
		echo "SKIP perf help run: no man"
		((skipped++))
	fi
else
	echo "SKIP perf run: linux-perf is not installed"
	((skipped++))
fi

# ---- make deb ----
if ! command -v dpkg-deb >/dev/null; then
	echo "SKIP make deb: no dpkg-deb"
	((skipped++))
else
	deb=
	if "$MAKE" --no-print-directory deb BUILD="$BUILD" >"$TMP/deb.log" 2>&1; then
		deb=$(tail -n 1 "$TMP/deb.log")
		[[ -f $deb ]] && ok "make deb" || bad "make deb (no package: $deb)" "$TMP/deb.log"
	else
		bad "make deb" "$TMP/deb.log"
	fi
	if [[ -f $deb ]]; then
		dpkg-deb -f "$deb" Depends | tr -d ' ' | tr ',' '\n' | sed 's/(.*//' >"$TMP/depends"
		dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/bin/perf-run >"$TMP/bin"
		chmod +x "$TMP/bin"
		check "libperf is linked in (no libperf.so needed)" bash -c \
			"! readelf -d '$TMP/bin' | grep -q 'libperf'"
		# Every library the packaged binary links directly (DT_NEEDED; the
		# libraries those need are their packages' business) comes from a
		# package that Depends names.
		for so in $(readelf -d "$TMP/bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			# ldd shows "so => path", or the loader as its path alone.
			lib=$(ldd "$TMP/bin" | awk -v so="$so" '$1 == so && $2 == "=>" {print $3}
				substr($1, length($1) - length(so)) == "/" so {print $1}')
			[[ -n $lib ]] || { bad "$so is not found by ldd"; continue; }
			pkg=$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null | head -n 1 | cut -d: -f1)
			[[ -n $pkg ]] || pkg=$(dpkg -S "$lib" 2>/dev/null | head -n 1 | cut -d: -f1)
			check "Depends names $pkg (for $(basename "$lib"))" grep -qx -- "$pkg" "$TMP/depends"
		done
		dpkg-deb -c "$deb" | awk '{print $6}' >"$TMP/files"
		for f in ./usr/bin/perf-run ./usr/share/man/man1/perf-run.1.gz \
			 ./usr/share/perf-run/tools/execsnoop.bt ${EP:+.$EP/perf-run} \
			 ./usr/share/bash-completion/completions/perf-run \
			 ./lib/systemd/system/perf-run-exporter@.service; do
			check "package holds $f" grep -qx -- "$f" "$TMP/files"
		done
		# Every Depends resolves against Debian 12's archive (the apt lists
		# of this machine), simulated on a machine with nothing installed.
		if command -v apt-get >/dev/null && compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null; then
			: >"$TMP/empty-status"
			check "apt-get on an empty machine resolves the Depends" bash -c \
				"timeout -s KILL 60 apt-get install -s --no-install-recommends \
				 -o Dir::State::status='$TMP/empty-status' '$PWD/$deb' >'$TMP/apt' 2>&1 &&
				 grep -q '^Inst libc6 ' '$TMP/apt' && grep -q '^Inst perf-run ' '$TMP/apt'"
		else
			echo "SKIP apt-get simulation: no apt lists (run apt-get update)"
			((skipped++))
		fi
		root=$TMP/root
		mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
		: >"$root/var/lib/dpkg/status"
		# The scratch root has no other package: its dependencies are the
		# host's, which the check above shows apt would install.
		check "dpkg --root installs the package" \
			B dpkg --root="$root" --force-depends --force-script-chrootless -i "$deb"
		check "dpkg --root knows its files" bash -c "dpkg --root='$root' -L perf-run | grep -qx /usr/bin/perf-run"
		check "installed package binary traces a tracepoint" bash -c \
			"timeout -s KILL 60 '$root/usr/bin/perf-run' -q -e 'tracepoint:syscalls:sys_enter_openat /comm == \"opener\"/ { @n = count(); }' -c './tests/progs/opener /etc/hostname 3' | grep -q '^@n: [0-9]'"
		check "perf run through the package's binary" bash -c \
			"PATH='$root/usr/bin':\$PATH timeout -s KILL 60 perf run -q -e 'BEGIN { printf(\"deb ok\\n\"); exit(); }' | grep -qx 'deb ok'"
		check "dpkg --root removes the package" bash -c \
			"dpkg --root='$root' --force-script-chrootless -r perf-run >/dev/null && test ! -e '$root/usr/bin/perf-run'"
	fi
fi

echo "$passed passed, $failed failed, $skipped skipped"
((failed == 0))
