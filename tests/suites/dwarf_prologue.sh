#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# dwarf_prologue.sh - parameters read inside a function's prologue against
# what the program passed: tests/dwarf/prologue.sh (gcc and clang-19,
# -O0..-O3, probes at f, f+0, 0xENTRY and f+N inside the prologue).
# Last line: "N passed, N failed, N skipped".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
PERF_RUN=${PERF_RUN:-$top/build/perf-run} exec "$top/tests/dwarf/prologue.sh"
