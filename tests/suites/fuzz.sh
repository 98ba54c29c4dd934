#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# fuzz.sh - a short, bounded fuzz run of the front end, of attach-point
# parsing and of the ELF readers (fuzz/fuzz_*.c), and a replay of the kept corpus (fuzz/corpus/)
# and of the golden error scripts (tests/errors/*.bt).  No crash, no
# sanitizer report, no leak.  `make fuzz` runs the same targets longer.
#
# Cases, per target: the libFuzzer build, the kept corpus replayed by it,
# a FUZZ_SMOKE_SECONDS run (default 12), and the corpus replayed through
# the gcc ASan+UBSan build (fuzz/replay.c, needs no libFuzzer); then the
# error scripts through the front-end replay, and tests/run-errors.sh with
# the ASan+UBSan perf-run.  Without clang-19's libFuzzer the libFuzzer
# cases are skipped with the reason.
#
# Run from the top of the tree; BUILD (build), MAKE (make).
# Last line: `N passed, N failed, N skipped`.
set -uo pipefail

cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
MAKE=${MAKE:-make}
SECONDS_EACH=${FUZZ_SMOKE_SECONDS:-12}
FUZZ=$BUILD/fuzz
LOG=$BUILD/test-logs/fuzz
mkdir -p "$LOG"
TMP=$(mktemp -d /tmp/perf-run-fuzz.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
passed=0 failed=0 skipped=0

pass() { echo "PASS fuzz: $1"; ((passed++)); }
skip() { echo "SKIP fuzz: $1"; ((skipped++)); }
fail() {
	echo "FAIL fuzz: $1"
	((failed++))
	[[ -f ${2:-} ]] || return 0
	grep -E -A30 '^==[0-9]+==ERROR|runtime error|SUMMARY|Test unit written|deadly signal' "$2" |
		head -n 50 | sed 's/^/    | /'
	echo "    (full log: $2)"
}

# Leaks and undefined behaviour end a run with an error.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS=suppressions=$PWD/fuzz/lsan.supp:print_suppressions=0

have_libfuzzer() {
	command -v clang-19 >/dev/null &&
		echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' |
		clang-19 -x c -fsanitize=fuzzer -o "$TMP/probe-fuzzer" - 2>/dev/null
}

targets=(frontend probe elf)
# fuzz_elf starts from test programs with CFI, DWARF location lists and
# USDT notes; an ELF file needs more room than a script.
elf_seeds=(tests/progs/unwind_o2 tests/progs/dwarf_opt tests/progs/sdt_tick tests/progs/libdlo.so)
mkdir -p "$TMP/seeds-elf"
cp "${elf_seeds[@]}" "$TMP/seeds-elf/" 2>/dev/null
fuzzer=0
if have_libfuzzer; then
	fuzzer=1
fi

for t in "${targets[@]}"; do
	bin=$FUZZ/fuzz_$t
	if ((fuzzer == 0)); then
		skip "fuzz_$t (clang-19 with libFuzzer is not installed)"
	elif "$MAKE" -j2 --no-print-directory BUILD="$BUILD" "$bin" >"$LOG/build-$t.log" 2>&1; then
		pass "build fuzz_$t"
		if "$bin" -runs=0 -timeout=20 -artifact_prefix="$FUZZ/crash-$t-" "fuzz/corpus/$t" >"$LOG/corpus-$t.log" 2>&1; then
			pass "fuzz_$t replays fuzz/corpus/$t ($(find "fuzz/corpus/$t" -type f | wc -l) inputs)"
		else
			fail "fuzz_$t on fuzz/corpus/$t" "$LOG/corpus-$t.log"
		fi
		mkdir -p "$TMP/work-$t"
		seeds=("fuzz/corpus/$t") max_len=4096
		[[ $t != frontend ]] || seeds+=(tests/errors)
		[[ $t != elf ]] || { seeds+=("$TMP/seeds-elf"); max_len=65536; }
		if "$bin" "$TMP/work-$t" "${seeds[@]}" -dict="fuzz/$t.dict" -max_len=$max_len \
			-max_total_time="$SECONDS_EACH" -timeout=20 -rss_limit_mb=4096 \
			-print_final_stats=1 -artifact_prefix="$FUZZ/crash-$t-" >"$LOG/smoke-$t.log" 2>&1; then
			runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$LOG/smoke-$t.log")
			pass "fuzz_$t for ${SECONDS_EACH} s (${runs:-?} inputs, no crash, no leak)"
		else
			fail "fuzz_$t for ${SECONDS_EACH} s: the input is kept as $FUZZ/crash-$t-*" \
				"$LOG/smoke-$t.log"
		fi
	else
		fail "build fuzz_$t" "$LOG/build-$t.log"
		grep -E 'error' "$LOG/build-$t.log" | head -n 20 | sed 's/^/    | /'
	fi

	replay=$FUZZ/replay_$t
	if ! "$MAKE" -j2 --no-print-directory BUILD="$BUILD" "$replay" >"$LOG/build-replay-$t.log" 2>&1; then
		fail "build replay_$t" "$LOG/build-replay-$t.log"
		grep -E 'error' "$LOG/build-replay-$t.log" | head -n 20 | sed 's/^/    | /'
		continue
	fi
	if "$replay" "fuzz/corpus/$t" >"$LOG/replay-$t.log" 2>&1; then
		pass "replay_$t (gcc ASan+UBSan) on fuzz/corpus/$t: $(tail -n 1 "$LOG/replay-$t.log")"
	else
		fail "replay_$t on fuzz/corpus/$t" "$LOG/replay-$t.log"
	fi
done

# The error scripts are malformed input by design: each must end in errors,
# never in a crash or a leak.
if [[ -x $FUZZ/replay_frontend ]]; then
	if "$FUZZ/replay_frontend" tests/errors/*.bt >"$LOG/replay-errors.log" 2>&1; then
		pass "replay_frontend on tests/errors: $(tail -n 1 "$LOG/replay-errors.log")"
	else
		fail "replay_frontend on tests/errors" "$LOG/replay-errors.log"
	fi
fi

# The same scripts through the whole ASan+UBSan perf-run (driver, every
# error path): the expected diagnostics, and no leak on the way out.
asan=$BUILD/asan/perf-run
if "$MAKE" -j2 --no-print-directory BUILD="$BUILD" "$asan" >"$LOG/build-asan.log" 2>&1; then
	LSAN_OPTIONS=suppressions=$PWD/mk/lsan.supp:print_suppressions=0 \
		PERF_RUN=$asan tests/run-errors.sh >"$LOG/errors-asan.log" 2>&1
	counts=$(tail -n 1 "$LOG/errors-asan.log")
	if [[ $counts =~ ^[0-9]+\ passed,\ 0\ failed ]]; then
		pass "tests/errors under $asan: $counts"
	else
		fail "tests/errors under $asan: $counts"
		grep -v '^PASS ' "$LOG/errors-asan.log" | head -n 40 | sed 's/^/    | /'
	fi
else
	fail "build $asan" "$LOG/build-asan.log"
fi

echo "$passed passed, $failed failed, $skipped skipped"
((failed == 0))
