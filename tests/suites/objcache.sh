#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# objcache.sh - the compiled-object cache (lib/objcache.h): a second
# run of the same script reuses the BPF object and prints the same results;
# an entry that does not match byte for byte, that another user could
# write, or that PERF_RUN_NO_CACHE / --dump rule out is not used.  -v says
# when an object came from the cache.  A symbolic link or another user's
# folder in the cache path turns the cache off with one warning; the cache
# stays under PERF_RUN_CACHE_MAX, evicting the least recently used entry.
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

# A folder in the cache path that another user planted: a symbolic link
# (in a sticky shared base, like /tmp) or a folder they own.  Neither is
# used, the run works, and one line says why.
WARN='not using the object cache'
shared=$tmp/shared
mkdir -p "$shared" "$tmp/target/obj" && chmod 1777 "$shared" && chmod 700 "$tmp/target" "$tmp/target/obj"
ln -s "$tmp/target" "$shared/perf-run" && chown -h 65534 "$shared/perf-run"
out=$(XDG_CACHE_HOME=$shared run)
if grep -q '^@n: 10$' <<<"$out" && grep -q "$WARN: .*perf-run is a symbolic link" <<<"$out" &&
   [ -z "$(ls -A "$tmp/target/obj")" ]; then
	pass "a symbolic link another user planted in the path is not followed"
else
	fail "a symbolic link another user planted in the path is not followed" \
		"$out$(ls -la "$tmp/target/obj")"
fi
shared2=$tmp/shared2
mkdir -p "$shared2/perf-run/obj" && chmod 1777 "$shared2" && chmod 700 "$shared2/perf-run/obj"
chown 65534 "$shared2/perf-run"
out=$(XDG_CACHE_HOME=$shared2 run)
if grep -q '^@n: 10$' <<<"$out" && grep -q "$WARN: .*perf-run is owned by uid 65534" <<<"$out" &&
   [ -z "$(ls -A "$shared2/perf-run/obj")" ]; then
	pass "a folder another user owns in the path is not used"
else
	fail "a folder another user owns in the path is not used" "$out$(ls -la "$shared2/perf-run/obj")"
fi

mkdir -p "$tmp/rootdir" && ln -s "$tmp/rootdir" "$tmp/userlink" && chown -h 65534 "$tmp/userlink"
out=$(XDG_CACHE_HOME=$tmp/userlink run)
if grep -q '^@n: 10$' <<<"$out" && grep -q "$WARN: .*userlink is a symbolic link owned by uid 65534" <<<"$out" &&
   [ -z "$(ls -A "$tmp/rootdir")" ]; then
	pass "a cache base that is another user's symbolic link is not followed"
else
	fail "a cache base that is another user's symbolic link is not followed" "$out$(ls -la "$tmp/rootdir")"
fi

# HOME itself another user's link to a folder root owns (reliability-2
# F4): only the base's last component was checked, so root made
# .cache/perf-run/obj there and wrote its objects.
mkdir -p "$tmp/roothome" && ln -s "$tmp/roothome" "$tmp/homelink" && chown -h 65534 "$tmp/homelink"
out=$(HOME=$tmp/homelink XDG_CACHE_HOME= run)
if grep -q '^@n: 10$' <<<"$out" && grep -q "$WARN: .*homelink is a symbolic link owned by uid 65534" <<<"$out" &&
   [ -z "$(ls -A "$tmp/roothome")" ]; then
	pass "a HOME that is another user's symbolic link is not followed"
else
	fail "a HOME that is another user's symbolic link is not followed" "$out$(ls -laR "$tmp/roothome")"
fi

# The size cap (PERF_RUN_CACHE_MAX) evicts the least recently used entry:
# room for three entries; a, b, c are stored, a is used again, d evicts b.
export XDG_CACHE_HOME=$tmp/capped
objdir=$XDG_CACHE_HOME/perf-run/obj
runm() { timeout 20 "$PERF_RUN" -v -e "uprobe:./tests/progs/loop:func { @$1 = count(); }" \
	-- ./tests/progs/loop 10 2>&1; }
newest() { ls -t "$objdir" | head -1; }
runm a >/dev/null
size=$(stat -c %s "$objdir/$(newest)")
rm -rf "$XDG_CACHE_HOME"
export PERF_RUN_CACHE_MAX=$((size * 7 / 2))
declare -A ent
for m in a b c; do runm $m >/dev/null; ent[$m]=$(newest); sleep 0.05; done
ra=$(runm a)
sleep 0.05
runm d >/dev/null
ent[d]=$(newest)
total=$(cat "$objdir"/*.o | wc -c)
if grep -q "$REUSED" <<<"$ra" && [ ! -e "$objdir/${ent[b]}" ] && [ -e "$objdir/${ent[a]}" ] &&
   [ -e "$objdir/${ent[c]}" ] && [ -e "$objdir/${ent[d]}" ] && [ "$total" -le "$PERF_RUN_CACHE_MAX" ]; then
	pass "the cache keeps under its cap by evicting the least recently used entry"
else
	fail "the cache keeps under its cap by evicting the least recently used entry" \
		"cap $PERF_RUN_CACHE_MAX total $total a=${ent[a]} b=${ent[b]} c=${ent[c]} d=${ent[d]}
$(ls -la --time-style=full-iso "$objdir")"
fi
PERF_RUN_CACHE_MAX=$((size / 2)) runm e >/dev/null
if [ "$(ls "$objdir" | wc -l)" = 3 ]; then
	pass "an entry bigger than the cap is not stored"
else
	fail "an entry bigger than the cap is not stored" "$(ls -la "$objdir")"
fi
unset PERF_RUN_CACHE_MAX

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
