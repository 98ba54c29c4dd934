#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# realcode.sh - the values check of values.sh on real C code: Debian 12
# source packages (lua5.4, zlib, cjson) built with gcc and clang-19 at
# -O0..-O3 with -g, each run on a deterministic workload.
#
# Probe points are chosen mechanically: the functions the workload reaches
# (counted by perf-run on the gcc -O0 build), every $REALCODE_FUNC_EVERY-th
# of them by name, probed at their entry (FUNC) and at every
# $REALCODE_LINE_EVERY-th line `-L FUNC` lists as probeable in each build
# (FUNC:N).  At each address they resolve to, gdb in batch mode is the
# truth for every argument and local it shows (one level of members) and
# perf-run's print(args) and perf probe's $vars are compared with it
# (tests/dwarf/values_lib.sh).
#
# Sources and builds are cached in build/conformance/.  Without apt access
# to deb.debian.org (or without gdb, clang-19 or perf) it skips, saying why.
# Prints per compiler and level the counts, then "N passed, N failed".
# Run from the top of the tree, as root.
#
# The C++ projects (leveldb, snappy: `make conformance` builds them at -O0
# and -O2 with g++ and clang++-19) are probed by demangled names, and
# user stacks at a few of their functions are compared with perf's
# (tests/dwarf/stacks_lib.sh); what bpftrace 0.17 can read at their
# entries is counted beside (tests/dwarf/peer_bpftrace.sh).
#
#   tests/dwarf/realcode.sh [-v] [PROJECT...]     -v shows every difference
# REALCODE_CCS="gcc" and REALCODE_LEVELS="1 2" narrow the builds;
# REALCODE_NO_VALUES=1 compares the stacks only.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
PERF_RUN=${PERF_RUN:-$top/build/perf-run}
case $PERF_RUN in /*) ;; *) PERF_RUN=$top/$PERF_RUN;; esac
VALUES_VERBOSE=
[ "${1:-}" = -v ] && { VALUES_VERBOSE=-v; shift; }
projects=(${*:-lua zlib cjson})
cache=$top/build/conformance
FUNC_EVERY=${REALCODE_FUNC_EVERY:-5}
LINE_EVERY=${REALCODE_LINE_EVERY:-6}
CCS=${REALCODE_CCS:-gcc clang-19}
LEVELS=${REALCODE_LEVELS:-0 1 2 3}

skip() { echo "realcode: skipped: $*"; echo "0 passed, 0 failed"; exit 0; }

for t in gdb perf clang-19 clang++-19 gcc g++ apt-get dpkg-source; do
	command -v $t >/dev/null || skip "$t is not installed"
done

# ---- the projects: Debian source package, build, workload ----

# A C++ project's namespace: its functions are the ones probed.
ns_of() {
	case $1 in leveldb) echo leveldb;; snappy) echo snappy;; esac
}

# A C++ project's functions whose stacks are compared with perf's
# (tests/dwarf/stacks_lib.sh): perf's names, every overload; the main
# thread's paths and (leveldb) the compaction thread's, through
# libstdc++'s thread start and libc's.
stacks_of() {
	case $1 in
	leveldb) echo leveldb::DBImpl::Write leveldb::MemTable::Add leveldb::log::Writer::AddRecord \
		leveldb::crc32c::Extend leveldb::DBImpl::Get leveldb::Version::Get \
		leveldb::TableBuilder::Add leveldb::BuildTable leveldb::Block::Iter::Seek \
		leveldb::DBImpl::BackgroundCompaction leveldb::PutVarint32;;
	snappy) echo snappy::Compress snappy::RawUncompress snappy::internal::CompressFragment \
		snappy::RawUncompressToIOVec snappy::IsValidCompressedBuffer snappy_uncompress \
		snappy::GetUncompressedLength;;
	esac
}

pkg_of() {
	case $1 in lua) echo lua5.4;; zlib) echo zlib;; cjson) echo cjson;; *) echo "$1";; esac
}

# Debian's luaconf.h includes a header its build generates; the seed of
# the string hashes is fixed so that gdb's run and ours hash alike.
build_lua() {  # CC LEVEL SRC BIN
	mkdir -p "$cache/inc"
	echo '#define DEB_HOST_MULTIARCH "x86_64-linux-gnu"' > "$cache/inc/lua5.4-deb-multiarch.h"
	$1 -g -O$2 -std=gnu99 -I"$cache/inc" -DLUA_COMPAT_5_3 -DLUA_USE_LINUX \
		'-Dluai_makeseed(L)=0u' -o "$4" $(ls "$3"/src/*.c | grep -v '/luac\.c$') -lm -ldl
}
work_lua() { echo "$top/tests/dwarf/realcode/work.lua" "$out/lua.out"; }

build_zlib() {
	(cd "$3" && $1 -g -O$2 -DHAVE_UNISTD_H -DHAVE_STDARG_H -I. -o "$4" test/example.c \
		adler32.c compress.c crc32.c deflate.c gzclose.c gzlib.c gzread.c gzwrite.c \
		infback.c inffast.c inflate.c inftrees.c trees.c uncompr.c zutil.c)
}
work_zlib() { echo "$out/foo.gz"; }

build_cjson() {
	$1 -g -O$2 -I"$3" -o "$4" "$top/tests/dwarf/realcode/cjson_work.c" \
		"$3/cJSON.c" "$3/cJSON_Utils.c" -lm
}
work_cjson() { ls "$1"/tests/inputs/test* | grep -v '\.expected$'; }

# C++: the C compiler's C++ driver.
cxx() { case $1 in gcc) echo g++;; clang-*) echo "clang++-${1#clang-}";; *) echo "$1";; esac; }

# leveldb's CMake configuration, as -D flags and the header it generates
# (without snappy and crc32c: self-contained), the library but its tests,
# benchmarks and Windows files, with a driver of ours.
build_leveldb() {
	mkdir -p "$cache/inc-leveldb/port"
	sed 's/#cmakedefine01 \(.*\)/#define \1 0/' "$3/port/port_config.h.in" \
		> "$cache/inc-leveldb/port/port_config.h"
	$(cxx $1) -g -O$2 -std=c++11 -DLEVELDB_PLATFORM_POSIX=1 -DLEVELDB_IS_BIG_ENDIAN=0 \
		-DHAVE_FDATASYNC=1 -DHAVE_O_CLOEXEC=1 -I"$cache/inc-leveldb" -I"$3" -I"$3/include" \
		-o "$4" "$top/tests/dwarf/realcode/leveldb_work.cc" \
		$(ls "$3"/db/*.cc "$3"/table/*.cc "$3"/util/*.cc |
		  grep -Ev '_test\.cc$|_bench|windows|testutil|leveldbutil|/c\.cc$') -lpthread
}
work_leveldb() { echo "$out/leveldb.db"; }

# snappy's CMake configuration likewise (no SSSE3 or BMI2: the baseline
# x86-64 build), with a driver of ours.
build_snappy() {
	mkdir -p "$cache/inc-snappy"
	sed -e 's/#cmakedefine01 \(.*\)/#define \1 0/' \
	    -e 's/#cmakedefine \(HAVE_BUILTIN_.*\|HAVE_ATTRIBUTE_.*\|HAVE_SYS_UIO_H\|HAVE_UNISTD_H\|HAVE_SYS_MMAN_H\|HAVE_FUNC_MMAP\|HAVE_FUNC_SYSCONF\) 1/#define \1 1/' \
	    -e '/#cmakedefine/d' "$3/cmake/config.h.in" > "$cache/inc-snappy/config.h"
	sed -e 's/\${HAVE_SYS_UIO_H_01}/1/' -e 's/\${PROJECT_VERSION_MAJOR}/1/' \
	    -e 's/\${PROJECT_VERSION_MINOR}/1/' -e 's/\${PROJECT_VERSION_PATCH}/9/' \
		"$3/snappy-stubs-public.h.in" > "$cache/inc-snappy/snappy-stubs-public.h"
	$(cxx $1) -g -O$2 -std=c++11 -DHAVE_CONFIG_H -I"$cache/inc-snappy" -I"$3" -o "$4" \
		"$top/tests/dwarf/realcode/snappy_work.cc" "$3/snappy.cc" "$3/snappy-c.cc" \
		"$3/snappy-sinksource.cc" "$3/snappy-stubs-internal.cc"
}
work_snappy() { :; }

# ---- sources, builds ----

# The source tree of PKG (debian/patches applied), fetched once through a
# sources list of this test's own: deb-src of the mirror the machine uses.
fetch() {  # PKG
	local d mirror
	d=$(ls -d "$cache/src/$1"-*/ 2>/dev/null | head -1)
	if [ -z "$d" ]; then
		mirror=$(grep -rhoE 'https?://[^ ]*debian\.org/debian/?' /etc/apt/sources.list \
			/etc/apt/sources.list.d/ 2>/dev/null | head -1)
		mkdir -p "$cache/apt/lists/partial" "$cache/src"
		echo "deb-src ${mirror:-http://deb.debian.org/debian} bookworm main" > "$cache/apt/sources.list"
		local o=(-o Dir::Etc::SourceList="$cache/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
			-o Dir::State::Lists="$cache/apt/lists" -o Debug::NoLocking=1)
		[ -n "$(ls "$cache/apt/lists" | grep Sources)" ] ||
			apt-get -q "${o[@]}" update > "$cache/apt/update.log" 2>&1
		(cd "$cache/src" && apt-get -q "${o[@]}" source "$1") > "$cache/apt/$1.log" 2>&1
		d=$(ls -d "$cache/src/$1"-*/ 2>/dev/null | head -1)
	fi
	[ -n "$d" ] && echo "${d%/}"
}

build() {  # PROJECT CC LEVEL SRC: echoes the binary
	local bin=$cache/bin/$1-$2-O$3
	mkdir -p "$cache/bin"
	if [ ! -x "$bin" ] || [ "$bin" -ot "$0" ]; then
		build_$1 "$2" "$3" "$4" "$bin.tmp" > "$cache/bin/$1-$2-O$3.log" 2>&1 &&
			mv "$bin.tmp" "$bin" || rm -f "$bin" "$bin.tmp"
	fi
	echo "$bin"
}

# The functions with DWARF the workload reaches in BIN (the gcc -O0 build:
# nothing inlined), by name.
reached() {  # BIN ARG...
	"$PERF_RUN" -q -e "uprobe:$1:* { @[func] = count(); }" -- setarch -R "$@" 2>/dev/null |
		sed -n 's/^@\[\(.*\)\]: [0-9]*$/\1/p' | sort -u | own_names |
		while read -r f; do
			"$R" -L "$1" "$f" >/dev/null 2>&1 && echo "$f"
		done
}

# C++ functions by their demangled names as func prints them (bpftrace's
# form: "leveldb::DBImpl::Write(leveldb::WriteOptions const&, ...)", a
# template's with its return type), those of the project's own namespace
# ($ns, with its template arguments and parameters left aside) and C
# ones: not the instances of the standard library's templates, which
# would be most of them.
own_names() {
	[ -n "$ns" ] || { cat; return; }
	awk -v ns="$ns" '{
		q = $0
		while (gsub(/<[^<>]*>/, "", q)) ;     # template arguments, innermost first
		sub(/\(.*/, "", q)                      # parameters and what follows
		n = split(q, w, " ")                     # a return type before the name
		if (w[n] ~ "^" ns "::" || w[n] !~ /::/) print
	}'
}

# The specs of BIN: every FUNC_EVERY-th function of FUNCS, at its entry and
# every LINE_EVERY-th line -L lists as probeable.
specs() {  # BIN FUNCS-FILE
	local f n
	awk -v e=$FUNC_EVERY '(NR - 1) % e == 0' "$2" | while read -r f; do
		echo "p $f"
		"$R" -L "$1" "$f" 2>/dev/null | awk -v e=$LINE_EVERY -v f="$f" '
			/^<.*>$/ { if (++hdr > 1) exit }   # the first instance of a static name
			$1 ~ /^[0-9]+$/ && n++ % e == e - 1 { print "p " f ":" $1 }'
	done
}

. "$top/tests/dwarf/values_lib.sh"
. "$top/tests/dwarf/stacks_lib.sh"
. "$top/tests/dwarf/peer_bpftrace.sh"
values_init "$top/build/realcode-values/$$"

srcs=()
for p in "${projects[@]}"; do
	s=$(fetch "$(pkg_of "$p")") || skip "cannot fetch the Debian source package $(pkg_of "$p") (no network or apt source?): $(tail -1 "$cache/apt/$(pkg_of "$p").log" 2>/dev/null)"
	srcs+=("$s")
done

nsites=0
for cc in $CCS; do
	for lvl in $LEVELS; do
		for i in "${!projects[@]}"; do
			p=${projects[i]} src=${srcs[i]}
			ns=$(ns_of "$p")
			read -r -a work <<< "$(work_$p "$src")"
			funcs=$cache/reached-$p.txt
			if [ ! -s "$funcs" ] || [ "$funcs" -ot "$0" ]; then
				b0=$(build "$p" gcc 0 "$src")
				reached "$b0" "${work[@]}" > "$funcs"
			fi
			bin=$(build "$p" "$cc" "$lvl" "$src")
			specs "$bin" "$funcs" > "$out/$p-$cc-O$lvl.specs"
			nsites=$((nsites + $(wc -l < "$out/$p-$cc-O$lvl.specs")))
			[ -n "${REALCODE_NO_VALUES:-}" ] ||
				values_add "$cc -O$lvl $p" "$bin" "$src" "$out/$p-$cc-O$lvl.specs" "${work[@]}"
			for f in $(stacks_of "$p"); do
				stacks_check "$cc -O$lvl" "$bin" "$f" "${work[@]}"
			done
			[ -z "$ns" ] || bpftrace_count "$cc -O$lvl" "$bin" "$out/$p-$cc-O$lvl.specs"
		done
	done
done
echo "realcode: ${projects[*]}: $nsites specs"
if [ -z "${REALCODE_NO_VALUES:-}" ]; then
	values_record
	values_report ${#projects[@]}
fi
stacks_report
[ "$stacks_failed" = 0 ] || failed=$((failed + 1))
bpftrace_report
echo "$passed passed, $failed failed"
[ $failed = 0 ]
