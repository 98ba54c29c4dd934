#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# cxx_perf_names.sh FOLDED BIN: each C++ frame of perf-run's folded stacks
# in FOLDED (perf's form: shop::Cart::add) is a name perf script prints
# for BIN's code, from a profile of BIN (cxx_shop, run long enough that
# perf samples each of its functions).  Fails naming the first that is not.
folded=$1 bin=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
perf record -q -o "$tmp/perf.data" -e cpu-clock -F 999 -g -- "$bin" 30000000 >/dev/null 2>&1 || exit 1
perf script -i "$tmp/perf.data" 2>/dev/null | sed -n 's/^[[:space:]]*[0-9a-f]* \(.*\)+0x[0-9a-f]* (.*/\1/p' |
	sort -u >"$tmp/perf.names"
tr ';' '\n' <"$folded" | sed 's/ [0-9]*$//' | grep '^shop::' | sort -u >"$tmp/run.names"
[ -s "$tmp/run.names" ] || { echo "no shop:: frame in $folded"; exit 1; }
missing=$(comm -23 "$tmp/run.names" "$tmp/perf.names" | head -1)
[ -z "$missing" ] || { echo "perf script has no frame named '$missing'"; exit 1; }
