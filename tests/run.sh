#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# run.sh - what `make test` runs: builds perf-run, the unit tests, the
# ASan+UBSan build and the test programs, then runs the unit tests (plain
# and ASan), the golden diagnostics (run-errors.sh) and the runtime cases
# (run-runtime.sh: all with build/perf-run, the `ASAN yes` ones again with
# build/asan/perf-run).  Every build step and every case counts; the last
# line is exactly `N passed, N failed, N skipped`.  Run as root from the
# top of the tree (make test does both).
set -uo pipefail

cd "$(dirname "$0")/.."
MAKE=${MAKE:-make}
BUILD=${BUILD:-build}
JOBS=$(nproc 2>/dev/null || echo 2)
LOG=$BUILD/test-logs
mkdir -p "$LOG"

passed=0 failed=0 skipped=0
failures=()

pass() { echo "PASS $1"; ((passed++)); }
fail() { echo "FAIL $1"; failures+=("$1"); ((failed++)); }

# Adds the `N passed, N failed, N skipped` last line of a child runner.
add_counts() {
	local name=$1 last=$2 re='^([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?$'
	if [[ $last =~ $re ]]; then
		((passed += BASH_REMATCH[1], failed += BASH_REMATCH[2], skipped += ${BASH_REMATCH[4]:-0}))
		((BASH_REMATCH[2] == 0)) || failures+=("$name")
	else
		fail "$name (runner did not report its counts)"
	fi
}

# One build step is one case: a failure shows the compiler's errors.
build() {
	local name=$1
	shift
	if "$MAKE" -k -j"$JOBS" --no-print-directory BUILD="$BUILD" "$@" >"$LOG/$name.log" 2>&1; then
		pass "build $name"
	else
		fail "build $name"
		grep -E ': (fatal )?error|undefined reference|No rule to make' "$LOG/$name.log" | head -n 40 | sed 's/^/    | /'
		echo "    (full log: $LOG/$name.log)"
	fi
}

run_child() {
	local name=$1 out=$LOG/$1.out
	shift
	"$@" 2>&1 | tee "$out" | grep -v '^PASS '
	add_counts "$name" "$(tail -n 1 "$out")"
}

# A unit test that ends with `N passed, N failed` counts its checks;
# otherwise the program is one case, passed if it exits 0.
unit_tests() {
	local kind=$1 dir=$2 src bin name log st re='^([0-9]+) passed, ([0-9]+) failed'
	for src in tests/unit/test_*.c; do
		[[ -e $src ]] || continue
		name=$(basename "$src" .c)
		bin=$dir/$name
		log=$LOG/$kind-$name.log
		if [[ ! -x $bin ]]; then
			fail "$kind $name (not built)"
			continue
		fi
		timeout -s KILL 120 "$bin" >"$log" 2>&1
		st=$?
		if [[ $(tail -n 1 "$log") =~ $re ]] && ((st == 0 || BASH_REMATCH[2] > 0)); then
			((passed += BASH_REMATCH[1], failed += BASH_REMATCH[2]))
			if ((BASH_REMATCH[2])); then
				failures+=("$kind $name")
				grep -v '^PASS ' "$log" | head -n 60 | sed 's/^/    | /'
			fi
		elif ((st == 0)); then
			pass "$kind $name"
		else
			fail "$kind $name (exit $st)"
			tail -n 40 "$log" | sed 's/^/    | /'
		fi
	done
}

if ((EUID != 0)); then
	echo "run.sh: the runtime cases load BPF programs: run as root" >&2
fi
if ! mountpoint -q /sys/kernel/tracing 2>/dev/null; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
		echo "run.sh: tracefs is not mounted at /sys/kernel/tracing" >&2
fi

echo "== build"
build perf-run all
build unit-tests unit
build asan asan
build test-programs progs

# Compiled objects are cached (lib/objcache.h); the suite keeps its
# own cache in the build folder, not in the user's home, and starts empty.
XDG_CACHE_HOME=$BUILD/test-cache
[[ $BUILD == /* ]] || XDG_CACHE_HOME=$PWD/$XDG_CACHE_HOME
export XDG_CACHE_HOME
rm -rf "$XDG_CACHE_HOME"

# Leaks and undefined behaviour fail a run, not just print.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/mk/lsan.supp:print_suppressions=0}

echo "== unit tests"
unit_tests unit "$BUILD/tests"
unit_tests asan-unit "$BUILD/asan/tests"

echo "== diagnostics"
run_child errors env PERF_RUN="$BUILD/perf-run" tests/run-errors.sh

if [[ -x tests/dwarf/conformance.sh ]]; then
	echo "== DWARF conformance with perf probe"
	run_child dwarf tests/dwarf/conformance.sh
fi

# Further suites (faults, fuzz smoke runs, kernel probes under qemu): each
# is a script whose last line is `N passed, N failed[, N skipped]`.
for suite in tests/suites/*.sh; do
	[[ -x $suite ]] || continue
	echo "== $(basename "$suite" .sh)"
	run_child "suite-$(basename "$suite" .sh)" env PERF_RUN="$BUILD/perf-run" BUILD="$BUILD" "$suite"
done

echo "== runtime"
run_child runtime env PERF_RUN="$BUILD/perf-run" tests/run-runtime.sh
echo "== runtime under ASan+UBSan"
run_child runtime-asan env PERF_RUN="$BUILD/asan/perf-run" tests/run-runtime.sh -a

if ((${#failures[@]})); then
	echo "== failed:"
	printf '    %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed, $skipped skipped"
((failed == 0))
