#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# values.sh - variable values against gdb: the test programs
# tests/progs/dwarf_*.c (and tests/dwarf/cxx/*.cc with g++ and clang++-19)
# built with gcc and clang-19 at -O0..-O3; at every
# address the `p` specs of tests/dwarf/PROG.specs resolve to, perf-run's
# values against gdb's and perf probe's (tests/dwarf/values_lib.sh).
#
# Prints per compiler and level the counts, then "N passed, N failed".
# A check is one binary: it passes if no value perf-run reads differs from
# gdb's and gdb saw the addresses.  perf probe's differences are counted
# and shown with -v, not failed: they are perf's.
# Run from the top of the tree, as root.
#
#   tests/dwarf/values.sh [-v] [PROG...]     -v shows every difference
# VALUES_CCS="gcc" and VALUES_LEVELS="1 2" narrow the builds.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
PERF_RUN=${PERF_RUN:-$top/build/perf-run}
case $PERF_RUN in /*) ;; *) PERF_RUN=$top/$PERF_RUN;; esac
VALUES_VERBOSE=
[ "${1:-}" = -v ] && { VALUES_VERBOSE=-v; shift; }
progs=(${*:-dwarf_types dwarf_scopes dwarf_inline dwarf_pieces dwarf_real dwarf_implptr dwarf_oddpieces shop})

. "$top/tests/dwarf/values_lib.sh"
values_init "$top/build/dwarf-values/$$"   # per run: suites may run side by side

for cc in ${VALUES_CCS:-gcc clang-19}; do
	for lvl in ${VALUES_LEVELS:-0 1 2 3}; do
		for prog in "${progs[@]}"; do
			bin=$out/$prog-$cc-O$lvl
			src=$top/tests/progs/$prog.c comp=$cc
			if [ ! -e "$src" ]; then  # C++: tests/dwarf/cxx/PROG.cc
				src=$top/tests/dwarf/cxx/$prog.cc comp=${cc/gcc/g++}
				comp=${comp/clang-/clang++-}
			fi
			$comp -g -O$lvl -o "$bin" "$src" 2>/dev/null || rm -f "$bin"
			values_add "$cc -O$lvl $prog" "$bin" "$src" "$top/tests/dwarf/$prog.specs"
		done
	done
done
values_record
values_report ${#progs[@]}
echo "$passed passed, $failed failed"
[ $failed = 0 ]
