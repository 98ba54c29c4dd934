#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# formats.sh - the profile formats against their real consumers: -f perf
# read by perf report and perf script (and compared with `perf record
# --call-graph dwarf` of the same workload: the same top functions, the
# same heaviest call chain), -f pprof read by `go tool pprof` (Debian's
# golang-go, a test peer installed here, never by make install), -f folded
# and folded-perf as flame-graph tools take them, and -o's refusal of
# another user's symbolic link.  The workload is tests/progs/flame: main ->
# run -> descend x4 -> hot (3/4 of the work), run -> cold (1/4).
# Last line: `N passed, N failed, N skipped`.
set -u   # no pipefail: grep -q ends the pipes into it early (SIGPIPE to the writer)

cd "$(dirname "$0")/../.."
PERF_RUN=${PERF_RUN:-build/perf-run}
TMP=$(mktemp -d /tmp/perf-run-formats.XXXXXX)
chmod 755 "$TMP"
passed=0 failed=0 skipped=0
trap 'rm -rf "$TMP"' EXIT

pass() { echo "PASS $1"; ((passed++)); }
fail() { echo "FAIL $1"; shift; for l in "$@"; do echo "    $l"; done; ((failed++)); }
skip() { echo "SKIP $1 ($2)"; ((skipped++)); }
check() {   # NAME CONDITION-STATUS DETAIL...
	local name=$1 ok=$2
	shift 2
	if ((ok == 0)); then pass "$name"; else fail "$name" "$@"; fi
}

FLAME=./tests/progs/flame
SYSMIX=./tests/progs/sysmix
[[ -x $FLAME && -x $SYSMIX ]] || make -s "$FLAME" "$SYSMIX" >/dev/null

# go tool pprof: a test peer only (Debian's golang-go)
have_go=1
if ! command -v go >/dev/null; then
	apt-get -o DPkg::Lock::Timeout=900 install -y --no-install-recommends golang-go \
		>"$TMP/apt.log" 2>&1 || true
	command -v go >/dev/null || have_go=0
fi
have_perf=1
perf version >/dev/null 2>&1 || have_perf=0
export HOME=${HOME:-/root} GOCACHE=$TMP/gocache GOFLAGS=-mod=mod

# The top N function names by self share of a perf.data file, one a line.
perf_top() {
	perf report --stdio --no-children -g none --sort sym -i "$1" 2>/dev/null |
		awk '/^#/ || NF == 0 { next } { sub(/^ *[0-9.]+% +\[[^]]*\] +/, ""); print }' |
		head -n "$2"
}

# The heaviest call chain of a perf.data file (weighted by period): its
# function names from the leaf to main, joined by ';'.
perf_chain() {
	perf script -F period,ip,sym -i "$1" 2>/dev/null | awk '
		NF == 1 && $1 ~ /^[0-9]+$/ { p = $1; c = ""; done = 0; next }
		NF == 0 { if (c != "") w[c] += p; c = ""; next }
		done { next }
		{ name = $2; c = c (c == "" ? "" : ";") name; if (name == "main") done = 1 }
		END { if (c != "") w[c] += p
		      for (k in w) if (w[k] > best) { best = w[k]; top = k }
		      print top }'
}

ours_perf=$TMP/ours.data ref_perf=$TMP/ref.data
if ((have_perf)); then
	"$PERF_RUN" -q -f perf -o "$ours_perf" \
		-e 'profile:hz:499 /pid == cpid/ { @[ustack] = count(); }' -- "$FLAME" 1500 \
		>"$TMP/perf.out" 2>"$TMP/perf.err"
	perf record -q -F 499 --call-graph dwarf -o "$ref_perf" -- "$FLAME" 1500 \
		>/dev/null 2>"$TMP/rec.err"

	ours=$(perf_top "$ours_perf" 2 | sort | tr '\n' ' ')
	ref=$(perf_top "$ref_perf" 2 | sort | tr '\n' ' ')
	first=$(perf_top "$ours_perf" 1)
	[[ -n $ours && $ours == "$ref" && $ours == *hot* && $ours == *cold* && $first == hot ]]
	check "perf report: perf-run's perf.data has the top functions of perf record --call-graph dwarf ($ours), hot first" $? \
		"ours: $ours (first: $first)" "perf record: $ref" "stderr: $(cat "$TMP/perf.err")"

	ours=$(perf_chain "$ours_perf") ref=$(perf_chain "$ref_perf")
	[[ -n $ours && $ours == "$ref" && $ours == hot\;descend*\;run\;main ]]
	check "perf script: the heaviest chain is perf record's ($ours)" $? "ours: $ours" "perf record: $ref"

	perf script -i "$ours_perf" 2>&1 | grep -q 'hot+0x[0-9a-f]* (.*/tests/progs/flame)'
	check "perf script: frames named from the mapped file (hot+0x... (.../flame))" $? \
		"$(perf script -i "$ours_perf" 2>&1 | head -12)"

	perf annotate --stdio -i "$ours_perf" hot 2>/dev/null | grep -Eq '^ +[1-9][0-9.]* : +[0-9a-f]+:'
	check "perf annotate: hot's instructions with their shares" $? \
		"$(perf annotate --stdio -i "$ours_perf" hot 2>&1 | head -20)"

	perf report --header-only -i "$ours_perf" 2>/dev/null | grep -q '^# event : name = @,'
	check "perf report --header: one event named after the map" $? \
		"$(perf report --header-only -i "$ours_perf" 2>&1 | grep event)"

	"$PERF_RUN" -q -f perf -o "$TMP/sys.data" -e \
		'tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @[kstack, ustack] = count(); }' \
		-- "$SYSMIX" 100 >/dev/null 2>"$TMP/sys.err"
	total=$(perf script -F period -i "$TMP/sys.data" 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
	perf script -F ip,sym,dso -i "$TMP/sys.data" 2>/dev/null | awk '
		/kernel.kallsyms/ { k = 1 } /sysmix\)/ && k { ok = 1 } NF == 0 { k = 0 }
		END { exit !ok }'
	chain=$?
	[[ $chain == 0 && $total == 100 ]]
	check "perf script: @[kstack, ustack] is one chain, kernel frames then user frames, periods add up to the 100 calls" $? \
		"total $total" "$(perf script -i "$TMP/sys.data" 2>&1 | head -20)" "$(cat "$TMP/sys.err")"
else
	skip "perf.data read by perf" "perf (linux-perf) is not installed: make deps"
fi

if ((have_go)); then
	"$PERF_RUN" -q -f pprof -o "$TMP/p.pb.gz" \
		-e 'profile:hz:499 /pid == cpid/ { @[ustack] = count(); }' -- "$FLAME" 1500 \
		>/dev/null 2>"$TMP/p.err"
	go tool pprof -top "$TMP/p.pb.gz" >"$TMP/top" 2>&1
	read -r h_flat < <(awk '$6 == "hot" { sub(/%/, "", $2); print $2 }' "$TMP/top")
	read -r c_flat < <(awk '$6 == "cold" { sub(/%/, "", $2); print $2 }' "$TMP/top")
	top2=$(awk 'f && NF >= 6 { print $6 } /flat%/ { f = 1 }' "$TMP/top" | head -2 | sort | tr '\n' ' ')
	ok=1
	[[ -n ${h_flat:-} && -n ${c_flat:-} ]] && awk -v h="$h_flat" -v c="$c_flat" \
		'BEGIN { exit !(h > c && h > 40 && c > 5) }' && ok=0
	if ((have_perf)) && [[ -f $ref_perf ]]; then
		ref=$(perf_top "$ref_perf" 2 | sort | tr '\n' ' ')
		[[ $top2 == "$ref" ]] || ok=1
	fi
	check "go tool pprof -top: hot ${h_flat:-?}% and cold ${c_flat:-?}% flat, the top two of perf record too" $ok \
		"$(head -15 "$TMP/top")" "$(cat "$TMP/p.err")"

	go tool pprof -traces "$TMP/p.pb.gz" 2>/dev/null | grep -A6 '^ *[0-9]* *hot$' | grep -q 'descend' &&
		go tool pprof -raw "$TMP/p.pb.gz" 2>/dev/null | grep -q 'Build ID\|build.*id\|[0-9a-f]\{40\}'
	check "go tool pprof: hot's callers (descend) and the mappings' build-ids are in the profile" $? \
		"$(go tool pprof -traces "$TMP/p.pb.gz" 2>&1 | head -20)"

	# counts, hists' totals, labels and an escaped comm
	esc=$'fl\x1bame'
	cp "$FLAME" "$TMP/$esc"
	"$PERF_RUN" -f pprof -o "$TMP/h.pb.gz" -e "uprobe:cold { @c[ustack, comm] = count(); @h[ustack] = hist(arg0); @n = count(); }" \
		-- "$TMP/$esc" 300 >"$TMP/h.out" 2>"$TMP/h.err"
	calls=$(sed -n 's/^hot=[0-9]* cold=\([0-9]*\)$/\1/p' "$TMP/h.err")
	tot_c=$(go tool pprof -sample_index=@c -top "$TMP/h.pb.gz" 2>/dev/null | sed -n 's/.* of \([0-9]*\) total.*/\1/p')
	tot_h=$(go tool pprof -sample_index=@h -top "$TMP/h.pb.gz" 2>/dev/null | sed -n 's/.* of \([0-9]*\) total.*/\1/p')
	[[ -n $calls && $tot_c == "$calls" && $tot_h == "$calls" ]]
	check "go tool pprof -sample_index: a count and a hist's total are the $calls calls the program made" $? \
		"@c $tot_c, @h $tot_h, calls ${calls:-?}" "$(cat "$TMP/h.err")"

	go tool pprof -tags "$TMP/h.pb.gz" 2>/dev/null | grep -qF 'fl\x1bame' &&
		go tool pprof -raw "$TMP/h.pb.gz" 2>/dev/null | grep -qF 'fl\x1bame' &&
		! go tool pprof -raw -tags "$TMP/h.pb.gz" 2>/dev/null | grep -q $'\x1b'
	check "pprof labels and mappings: a comm and a file name with a control character escaped (\\x1b), not dropped" $? \
		"$(go tool pprof -tags "$TMP/h.pb.gz" 2>&1 | head)"

	n_said=$(grep -c '^perf-run: @n is not in the pprof file: it is keyed by something other than a stack' "$TMP/h.err")
	[[ $n_said == 1 ]] && grep -qx "@n: $calls" "$TMP/h.out"
	check "pprof: a map without a stack is said once on stderr and printed as text" $? \
		"stdout: $(cat "$TMP/h.out")" "stderr: $(cat "$TMP/h.err")"

	if [[ -x build/asan/perf-run ]]; then
		build/asan/perf-run -q -f pprof -o "$TMP/a.pb.gz" -e \
			"uprobe:$FLAME:cold { @c[ustack, comm] = count(); @h[kstack, ustack] = hist(arg0); }" \
			-- "$FLAME" 200 >/dev/null 2>"$TMP/a.err"
		st=$?
		build/asan/perf-run -q -f perf -o "$TMP/a.data" -e \
			"uprobe:$FLAME:cold { @c[ustack, comm] = count(); @s[kstack] = sum(2); }" \
			-- "$FLAME" 200 >/dev/null 2>>"$TMP/a.err"
		((st == 0 && $? == 0)) && ! grep -q 'Sanitizer\|runtime error' "$TMP/a.err" &&
			go tool pprof -top "$TMP/a.pb.gz" >/dev/null 2>&1
		check "ASan+UBSan build writes both formats cleanly" $? "$(cat "$TMP/a.err")"
	fi
else
	skip "pprof read by go tool pprof" "golang-go could not be installed: $(tail -1 "$TMP/apt.log" 2>/dev/null)"
fi

# -o and its file
"$PERF_RUN" -f perf -e 'BEGIN { exit(); }' >/dev/null 2>"$TMP/noo.err"
st=$?
((st == 1)) && grep -qx 'perf-run: -f perf writes a file: give it with -o FILE' "$TMP/noo.err"
check "-f perf without -o: one sentence, exit 1" $? "status $st: $(cat "$TMP/noo.err")"

mkdir -m 1777 "$TMP/shared"
echo keep >"$TMP/target"
ln -s "$TMP/target" "$TMP/shared/link"
chown -h nobody "$TMP/shared/link"
for f in pprof text; do
	"$PERF_RUN" -q -f "$f" -o "$TMP/shared/link" -e 'BEGIN { printf("x\n"); exit(); }' \
		>/dev/null 2>"$TMP/link.err"
	st=$?
	((st == 1)) && [[ $(cat "$TMP/target") == keep ]] &&
		grep -q "cannot write '$TMP/shared/link': $TMP/shared/link is a symbolic link owned by uid" "$TMP/link.err"
	check "-o through another user's symlink is refused (-f $f), the target untouched" $? \
		"status $st: $(cat "$TMP/link.err")"
done
ln -s "$TMP/target" "$TMP/mylink"
"$PERF_RUN" -q -o "$TMP/mylink" -e 'BEGIN { printf("through\n"); exit(); }' 2>"$TMP/link.err"
[[ $(cat "$TMP/target") == through ]]
check "-o through one's own symlink writes its target" $? "$(cat "$TMP/link.err")"

# flame graphs
"$PERF_RUN" -q -f folded -e 'profile:hz:499 /pid == cpid/ { @[ustack] = count(); }' \
	-c "sh -c 'echo CMDOUT; exec $FLAME 300'" >"$TMP/fold.out" 2>"$TMP/fold.err"
! grep -q CMDOUT "$TMP/fold.out" && grep -qx CMDOUT "$TMP/fold.err" &&
	grep -Eq '^([^; ]+;)*main;run;descend;descend;descend;descend;hot [0-9]+$' "$TMP/fold.out" &&
	! grep -vEq ' [0-9]+$' "$TMP/fold.out"
check "-f folded on stdout: the command's own output goes to stderr, only stacks on stdout" $? \
	"stdout: $(head -5 "$TMP/fold.out")" "stderr: $(cat "$TMP/fold.err")"

"$PERF_RUN" -q -f folded-perf -e \
	'tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @[kstack, ustack, comm] = count(); }' \
	-- "$SYSMIX" 50 >"$TMP/fp.out" 2>/dev/null
grep -Eq '^sysmix;([^; ]+;)*main;([^; ]+;)*entry_SYSCALL_64[^; ]*;([^; ]+;)*[^; ]+ [0-9]+$' "$TMP/fp.out"
check "-f folded-perf: comm;user frames;kernel frames, whatever the key order" $? "$(head -5 "$TMP/fp.out")"

"$PERF_RUN" -q -f folded scripts/profile.bt -c "$FLAME 600" >"$TMP/prof.out" 2>/dev/null
grep -Eq '^flame;([^; ]+;)*main;run;descend;([^; ]+;)*hot( |;)' "$TMP/prof.out"
check "scripts/profile.bt -f folded: the command's name at the root, then user frames root first" $? \
	"$(grep '^flame' "$TMP/prof.out" | head -5)"

echo "$passed passed, $failed failed, $skipped skipped"
((failed == 0))
