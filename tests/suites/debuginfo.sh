#!/bin/bash
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

echo "$passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ]
