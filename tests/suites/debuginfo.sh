#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# debuginfo.sh - separate debuginfo found by build-id: a test program split
# with objcopy into a stripped binary and its .debug file, placed as
# DIR/.build-id/NN/REST.debug; perf-run looks there when
# PERF_RUN_DEBUGINFO_DIR=DIR (else under /usr/lib/debug).
# Last line: "N passed, N failed, N skipped".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
PERF_RUN=${PERF_RUN:-build/perf-run}
passed=0 failed=0 skipped=0
tmp=$(mktemp -d /tmp/perfrun-debuginfo.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

check() {  # NAME WANT-REGEX OUTPUT
	if grep -qE -- "$2" <<<"$3"; then
		echo "PASS $1"; passed=$((passed + 1))
	else
		echo "FAIL $1: no line matches /$2/ in:"; sed 's/^/    | /' <<<"$3"
		failed=$((failed + 1))
	fi
}

src=tests/progs/greet
id=$(readelf -n "$src" | awk '/Build ID/ { print $3 }')
if [ -z "$id" ]; then
	echo "SKIP greet has no build-id"; echo "0 passed, 0 failed, 1 skipped"; exit 0
fi
mkdir -p "$tmp/dbg/.build-id/${id:0:2}"
objcopy --only-keep-debug "$src" "$tmp/dbg/.build-id/${id:0:2}/${id:2}.debug" &&
	objcopy --strip-debug "$src" "$tmp/greet" || { echo "0 passed, 1 failed, 0 skipped"; exit 1; }
if readelf -S "$tmp/greet" | grep -q '\.debug_info'; then
	echo "FAIL the stripped copy still has .debug_info"; failed=$((failed + 1))
fi
prog="uprobe:$tmp/greet:handle { @len = sum(args.r->len); } uprobe:$tmp/greet:greet { @g[str(args.name)] = count(); }"

out=$(PERF_RUN_DEBUGINFO_DIR=$tmp/dbg timeout 20 "$PERF_RUN" -e "$prog" -- "$tmp/greet" 10 2>&1)
check "args through debuginfo found by build-id" '^@len: 55$' "$out"
check "strings through debuginfo found by build-id" '^@g\[hello, perf-run\]: 10$' "$out"

out=$(PERF_RUN_DEBUGINFO_DIR=$tmp/dbg timeout 20 "$PERF_RUN" -V "$tmp/greet:handle" 2>&1)
check "-V through debuginfo found by build-id" 'struct req\*[[:space:]]+r' "$out"

out=$(PERF_RUN_DEBUGINFO_DIR=$tmp/none timeout 20 "$PERF_RUN" -e "$prog" -- "$tmp/greet" 1 2>&1)
check "no debuginfo: a clear error" 'args needs debuginfo, and .* has none at handle' "$out"

out=$(PERF_RUN_DEBUGINFO_DIR=$tmp/none timeout 20 "$PERF_RUN" \
	-e "uprobe:$tmp/greet:handle { @n = count(); }" -- "$tmp/greet" 7 2>&1)
check "no debuginfo: symbol probes still work" '^@n: 7$' "$out"

# A debug file of another build under this binary's build-id path: its
# locations and types would be read silently wrong.  It must be refused.
cc=${CC:-gcc}
flags="-g -O1 -fno-omit-frame-pointer"
other_id=
if $cc -O0 -g -o "$tmp/other" tests/progs/greet.c 2>/dev/null; then
	other_id=$(readelf -n "$tmp/other" | awk '/Build ID/ { print $3 }')
	mkdir -p "$tmp/bad/.build-id/${id:0:2}"
	objcopy --only-keep-debug "$tmp/other" "$tmp/bad/.build-id/${id:0:2}/${id:2}.debug"
fi
if [ -n "$other_id" ] && [ "$other_id" != "$id" ]; then
	out=$(PERF_RUN_DEBUGINFO_DIR=$tmp/bad timeout 20 "$PERF_RUN" -e "$prog" -- "$tmp/greet" 1 2>&1)
	check "debuginfo of another build: a warning naming both build-ids" \
		"^perf-run: warning: ignoring $tmp/bad/.build-id/${id:0:2}/${id:2}.debug: its build-id $other_id is not the binary's $id\$" "$out"
	check "debuginfo of another build: not used" 'args needs debuginfo, and .* has none at handle' "$out"
else
	echo "SKIP debuginfo of another build: cannot build a second greet"; skipped=$((skipped + 1))
fi

# .gnu_debuglink: the debug file beside the binary, in .debug/ beside it,
# or under the debug root at the binary's directory (as gdb looks).
for where in beside dotdebug root; do
	d=$tmp/link-$where
	mkdir -p "$d/bin"
	objcopy --only-keep-debug "$src" "$d/greet.debug"
	objcopy --strip-debug --add-gnu-debuglink="$d/greet.debug" "$src" "$d/bin/greet"
	case $where in
	beside) mv "$d/greet.debug" "$d/bin/" ;;
	dotdebug) mkdir -p "$d/bin/.debug"; mv "$d/greet.debug" "$d/bin/.debug/" ;;
	root) mkdir -p "$d/root$d/bin"; mv "$d/greet.debug" "$d/root$d/bin/" ;;
	esac
	out=$(PERF_RUN_DEBUGINFO_DIR=$d/root timeout 20 "$PERF_RUN" \
		-e "uprobe:$d/bin/greet:handle { @len = sum(args.r->len); }" -- "$d/bin/greet" 10 2>&1)
	check ".gnu_debuglink: debug file $where" '^@len: 55$' "$out"
done

# Without build-ids only the CRC tells one build from another.
if $cc $flags -Wl,--build-id=none -o "$tmp/noid" tests/progs/greet.c 2>/dev/null &&
   $cc -O0 -g -Wl,--build-id=none -o "$tmp/noid-other" tests/progs/greet.c 2>/dev/null; then
	d=$tmp/crc
	mkdir -p "$d"
	objcopy --only-keep-debug "$tmp/noid" "$d/greet.debug"
	objcopy --strip-debug --add-gnu-debuglink="$d/greet.debug" "$tmp/noid" "$d/greet"
	out=$(PERF_RUN_DEBUGINFO_DIR=$tmp/none timeout 20 "$PERF_RUN" \
		-e "uprobe:$d/greet:handle { @len = sum(args.r->len); }" -- "$d/greet" 10 2>&1)
	check ".gnu_debuglink without build-id: CRC matches" '^@len: 55$' "$out"
	objcopy --only-keep-debug "$tmp/noid-other" "$d/greet.debug"
	out=$(PERF_RUN_DEBUGINFO_DIR=$tmp/none timeout 20 "$PERF_RUN" \
		-e "uprobe:$d/greet:handle { @len = sum(args.r->len); }" -- "$d/greet" 10 2>&1)
	check ".gnu_debuglink without build-id: a CRC mismatch is refused" \
		"^perf-run: warning: ignoring $d/greet.debug: its CRC 0x[0-9a-f]{8} is not the 0x[0-9a-f]{8} that .gnu_debuglink names\$" "$out"
	check ".gnu_debuglink without build-id: a CRC mismatch is not used" \
		'args needs debuginfo, and .* has none at handle' "$out"
else
	echo "SKIP .gnu_debuglink CRC: cannot build greet without a build-id"; skipped=$((skipped + 1))
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ]
