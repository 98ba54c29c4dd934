#!/bin/bash
# objcache.sh - the compiled-object cache (compiler/objcache.h): a second
# run of the same script reuses the BPF object and prints the same results;
# an entry that does not match byte for byte, that another user could
# write, or that PERF_RUN_NO_CACHE / --dump rule out is not used.  -v says
# when an object came from the cache.
# Last line: "N passed, N failed, N skipped".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
PERF_RUN=${PERF_RUN:-build/perf-run}
passed=0 failed=0 skipped=0
tmp=$(mktemp -d /tmp/perfrun-objcache.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME=$tmp/cache
unset PERF_RUN_NO_CACHE
REUSED='reused from the cache'

pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; sed 's/^/    | /' <<<"$2"; failed=$((failed + 1)); }
# NAME yes|no OUTPUT: the output has the result line, and says it reused
# the object (yes) or not (no).
check() {
	local reused=no
	grep -q "$REUSED" <<<"$3" && reused=yes
	if grep -q '^@n: 10$' <<<"$3" && [ "$reused" = "$2" ]; then
		pass "$1"
	else
		fail "$1 (wanted @n: 10 and reused=$2, reused=$reused)" "$3"
	fi
}
run() { timeout 20 "$PERF_RUN" -v "$@" -e 'uprobe:./tests/progs/loop:func { @n = count(); }' \
	-- ./tests/progs/loop 10 2>&1; }
entry() { ls "$XDG_CACHE_HOME"/perf-run/obj/*.o 2>/dev/null | head -1; }

check "first run compiles" no "$(run)"
e=$(entry)
if [ -n "$e" ] && [ "$(stat -c %a "$e")" = 600 ] &&
   [ "$(stat -c %a "$XDG_CACHE_HOME/perf-run/obj")" = 700 ]; then
	pass "entry written, readable by its owner only"
else
	fail "entry written, readable by its owner only" "$(ls -la "$XDG_CACHE_HOME"/perf-run/obj 2>&1)"
fi
check "second run reuses the object" yes "$(run)"
check "PERF_RUN_NO_CACHE=1 compiles" no "$(PERF_RUN_NO_CACHE=1 run)"

# Flip one byte of the stored IR (just past the header): a mismatch.
if [ -n "$e" ]; then
	off=$(( $(head -2 "$e" | wc -c) + 16 + 8 ))
	printf 'X' | dd of="$e" bs=1 seek="$off" conv=notrunc status=none
	check "an entry whose IR differs is not used" no "$(run)"
	check "and is rewritten" yes "$(run)"
	chmod 0620 "$e"
	check "a group-writable entry is not used" no "$(run)"
	e=$(entry)
	chown 65534 "$e"
	check "an entry owned by another user is not used" no "$(run)"
	check "the entry, rewritten by its owner, is used again" yes "$(run)"
	chmod 0770 "$XDG_CACHE_HOME/perf-run/obj"
	check "a group-writable cache directory is not used" no "$(run)"
	chmod 0700 "$XDG_CACHE_HOME/perf-run/obj"
	check "restored directory is used" yes "$(run)"
else
	fail "no cache entry to tamper with" ""
fi

# Another user's home (sudo -E): no folder is made in it, the run works.
other=$tmp/other-home
mkdir -p "$other/.cache" && chown -R 65534 "$other"
out=$(HOME=$other XDG_CACHE_HOME= run)
if grep -q '^@n: 10$' <<<"$out" && [ ! -e "$other/.cache/perf-run" ]; then
	pass "nothing is created in a cache folder another user owns"
else
	fail "nothing is created in a cache folder another user owns" "$out$(ls -la "$other/.cache")"
fi

out=$(timeout 20 "$PERF_RUN" -v --dump bpf -e 'uprobe:./tests/progs/loop:func { @n = count(); }' \
	-- ./tests/progs/loop 10 2>&1)
if grep -q 'exit$' <<<"$out" && ! grep -q "$REUSED" <<<"$out"; then
	pass "--dump bpf compiles with LLVM"
else
	fail "--dump bpf compiles with LLVM" "$out"
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
