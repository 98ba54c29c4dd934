# Makefile - builds build/perf-run from every compiler/*.c, runtime/*.c and
# perf-plugin/*.c (picked by wildcard, so adding a module needs no edit
# here), the unit tests, an ASan+UBSan build, the test programs, and runs
# the suite.  libperf comes from the kernel source tarball (mk/libperf.sh).

BUILD       := build
PREFIX      ?= /usr/local
DESTDIR     ?=
ifeq ($(origin CC),default)
CC          := gcc
endif
# lib/demangle.cc, the one C++ file (LLVM's demanglers have no C API)
ifeq ($(origin CXX),default)
CXX         := g++
endif
LLVM_CONFIG ?= llvm-config-19

# llvm-config's --cflags is meant for C++ and also defines _GNU_SOURCE,
# which our files define themselves: keep only -I and the other -D.
LLVM_CFLAGS  = $(filter-out -D_GNU_SOURCE,$(filter -I% -D%,$(shell $(LLVM_CONFIG) --cflags 2>/dev/null)))
LLVM_LIBS    = $(shell $(LLVM_CONFIG) --ldflags 2>/dev/null) -lLLVM-19

LIBPERF_DIR  := $(BUILD)/libperf
LIBPERF_A    := $(LIBPERF_DIR)/libperf.a $(LIBPERF_DIR)/libapi.a
LINUX_TOOLS  := $(BUILD)/linux-src/tools
# Only for sources that include <internal/...> (found below): the tools
# tree's <linux/types.h> and friends must not shadow the system's elsewhere.
LIBPERF_INTERNAL_CFLAGS := -I$(LIBPERF_DIR)/internal-include -I$(LINUX_TOOLS)/lib \
	-I$(LINUX_TOOLS)/include -I$(LINUX_TOOLS)/arch/x86/include

SRCS        := $(wildcard lib/*.c compiler/*.c runtime/*.c perf-plugin/*.c)
LIB_SRCS    := $(wildcard lib/*.c compiler/*.c runtime/*.c)
# C++ sources (lib/demangle.cc): objects beside the C ones, linked by $(CC)
# with libstdc++ (CXX_LIBS; mk/llvm-static.mk links it statically).
CXX_SRCS    := $(wildcard lib/*.cc)
CXX_LIBS    = -lstdc++
INTERNAL_SRCS := $(shell grep -l '^[[:space:]]*\#[[:space:]]*include[[:space:]]*<internal/' $(SRCS) /dev/null 2>/dev/null)

# libclang is not linked: it costs about 12 ms of start-up to every run, so
# compiler/ctypes.c loads it (dlopen) only for scripts that declare C types.
CLANG_LIBS  ?=

# WERROR= drops -Werror (debian/rules does: a distribution build must not
# fail on the warnings of the next compiler or LLVM header).
WERROR      ?= -Werror
WARN        := -Wall -Wextra $(WERROR)
CFLAGS      ?= -O2 -g
BASE_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) -MMD -MP
CPPFLAGS_ALL = -I. -I$(LIBPERF_DIR)/include $(LLVM_CFLAGS) $(CPPFLAGS)
SYS_LIBS     = -lbpf -ldw -lelf -lz -lprotobuf-c
LDLIBS_ALL   = $(LIBPERF_A) $(LLVM_LIBS) $(CLANG_LIBS) $(SYS_LIBS) $(CXX_LIBS) $(LDLIBS)

ASAN_FLAGS  := -fsanitize=address,undefined -fno-omit-frame-pointer
# -Werror holds here too: where GCC's sanitizer instrumentation makes a path
# that does not exist (format.c, fmt_addf), the code ends that path.
ASAN_CFLAGS := $(ASAN_FLAGS)

CXX_OBJS    := $(CXX_SRCS:%.cc=$(BUILD)/obj/%.o)
ASAN_CXX_OBJS := $(CXX_SRCS:%.cc=$(BUILD)/asan/obj/%.o)
OBJS        := $(SRCS:%.c=$(BUILD)/obj/%.o) $(CXX_OBJS)
LIB_OBJS    := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o) $(CXX_OBJS)
ASAN_OBJS   := $(SRCS:%.c=$(BUILD)/asan/obj/%.o) $(ASAN_CXX_OBJS)
ASAN_LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/asan/obj/%.o) $(ASAN_CXX_OBJS)
# Generated from pprof's profile.proto (mk/pprof.mk), for runtime/out_pprof.c.
GEN_OBJS    := gen/profile.pb-c.o
OBJS        += $(GEN_OBJS:%=$(BUILD)/obj/%)
LIB_OBJS    += $(GEN_OBJS:%=$(BUILD)/obj/%)
ASAN_OBJS   += $(GEN_OBJS:%=$(BUILD)/asan/obj/%)
ASAN_LIB_OBJS += $(GEN_OBJS:%=$(BUILD)/asan/obj/%)

# Unit tests: each tests/unit/test_*.c is a program; other tests/unit/*.c
# are helpers linked into every one of them.
UNIT_SRCS   := $(wildcard tests/unit/test_*.c)
UNIT_HELPERS := $(filter-out $(UNIT_SRCS),$(wildcard tests/unit/*.c))
UNIT_BINS   := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
ASAN_UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/asan/tests/%)
UNIT_HELPER_OBJS := $(UNIT_HELPERS:%.c=$(BUILD)/obj/%.o)
ASAN_UNIT_HELPER_OBJS := $(UNIT_HELPERS:%.c=$(BUILD)/asan/obj/%.o)
# Kept: deleted as intermediates after a first build, they were made again
# by the second, where their .d files name them (a relink of every unit test).
.SECONDARY: $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/obj/tests/unit/%.o) \
	$(UNIT_SRCS:tests/unit/%.c=$(BUILD)/asan/obj/tests/unit/%.o)

# Test programs are built like the distribution builds programs (PIE),
# next to their sources, since cases name them as ./tests/progs/NAME.
PROG_SRCS   := $(wildcard tests/progs/*.c)
PROG_BINS   := $(PROG_SRCS:.c=)
PROG_CFLAGS := -g -O1 -fno-omit-frame-pointer -Wall -Wextra -Werror

# Benchmark helpers, optimised as a release would be.
BENCH_BINS  := $(patsubst tests/bench/%.c,$(BUILD)/bench/%,$(wildcard tests/bench/*.c))

SCRIPTS     := $(wildcard scripts/*.bt)
# bash-completion loads completions/NAME when NAME is first completed
BASH_COMPLETION_DIR ?= $(PREFIX)/share/bash-completion/completions
PERF_EXEC_PATH = $(shell perf --exec-path 2>/dev/null)

.PHONY: all deps deps-build test demo install uninstall bench compat clean distclean unit asan progs \
	test-build check
.DEFAULT_GOAL := all

all: $(BUILD)/perf-run

deps:
	@BUILD=$(BUILD) mk/deps.sh

# A fresh tree's first step: says in one sentence which packages are
# missing (`make deps` installs them) rather than failing in a compile.
# DEPS_CHECK=0: debian/rules, where Build-Depends are the list.
DEPS_CHECK ?= 1
$(LIBPERF_A) &:
	@[ "$(DEPS_CHECK)" = 0 ] || BUILD=$(BUILD) mk/deps.sh --check-build
	@BUILD=$(BUILD) mk/libperf.sh

$(BUILD)/perf-run: $(OBJS) $(LIBPERF_A)
	$(CC) $(LDFLAGS) -o $@ $(OBJS) $(LDLIBS_ALL)

$(BUILD)/asan/perf-run: $(ASAN_OBJS) $(LIBPERF_A)
	$(CC) $(ASAN_FLAGS) $(LDFLAGS) -o $@ $(ASAN_OBJS) $(LDLIBS_ALL)

# Objects wait for libperf (order only) since its headers must exist first.
$(BUILD)/obj/%.o: %.c | $(LIBPERF_A)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(CPPFLAGS_ALL) -c -o $@ $<

$(BUILD)/asan/obj/%.o: %.c | $(LIBPERF_A)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(ASAN_CFLAGS) $(CPPFLAGS_ALL) -c -o $@ $<

# The C++ file: same warnings; no exceptions or RTTI (LLVM has neither).
BASE_CXXFLAGS := -std=c++17 $(WARN) $(CFLAGS) -fno-exceptions -fno-rtti -MMD -MP
$(BUILD)/obj/%.o: %.cc
	@mkdir -p $(@D)
	$(CXX) $(BASE_CXXFLAGS) -I. $(LLVM_CFLAGS) -c -o $@ $<

$(BUILD)/asan/obj/%.o: %.cc
	@mkdir -p $(@D)
	$(CXX) $(BASE_CXXFLAGS) $(ASAN_CFLAGS) -I. $(LLVM_CFLAGS) -c -o $@ $<

# lib/sysnames.c's table of syscall numbers, from the C library's headers.
$(BUILD)/gen/sysnums.h:
	@mkdir -p $(@D)
	printf '#include <sys/syscall.h>\n' | $(CC) -dM -E - | \
		sed -n 's/^#define SYS_\([a-z0-9_]*\) .*/\t{ "\1", SYS_\1 },/p' | LC_ALL=C sort >$@.tmp
	mv $@.tmp $@

$(BUILD)/obj/lib/sysnames.o $(BUILD)/asan/obj/lib/sysnames.o: $(BUILD)/gen/sysnums.h
$(BUILD)/obj/lib/sysnames.o $(BUILD)/asan/obj/lib/sysnames.o: CPPFLAGS += -I$(BUILD)/gen

$(foreach s,$(INTERNAL_SRCS),$(eval $(BUILD)/obj/$(s:.c=.o) $(BUILD)/asan/obj/$(s:.c=.o): \
	CPPFLAGS += $(LIBPERF_INTERNAL_CFLAGS)))

unit: $(UNIT_BINS)
asan: $(BUILD)/asan/perf-run $(ASAN_UNIT_BINS)
progs: $(PROG_BINS) $(BUILD)/bench/many1000
test-build: all unit asan progs

$(BUILD)/tests/test_%: $(BUILD)/obj/tests/unit/test_%.o $(UNIT_HELPER_OBJS) $(LIB_OBJS) $(LIBPERF_A)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $< $(UNIT_HELPER_OBJS) $(LIB_OBJS) $(LDLIBS_ALL)

$(BUILD)/asan/tests/test_%: $(BUILD)/asan/obj/tests/unit/test_%.o $(ASAN_UNIT_HELPER_OBJS) $(ASAN_LIB_OBJS) $(LIBPERF_A)
	@mkdir -p $(@D)
	$(CC) $(ASAN_FLAGS) $(LDFLAGS) -o $@ $< $(ASAN_UNIT_HELPER_OBJS) $(ASAN_LIB_OBJS) $(LDLIBS_ALL)

tests/progs/%: tests/progs/%.c
	$(CC) $(PROG_CFLAGS) -o $@ $< -pthread

# A program with N distinct functions f0..f(N-1), for batch attach.
$(BUILD)/bench/many%: tests/progs/many_gen.sh
	sh $< $* $@

$(BENCH_BINS): $(BUILD)/bench/%: tests/bench/%.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -Wall -Wextra -Werror -o $@ $<

$(BUILD)/demo: examples/demo.c
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -o $@ $<

test: deps
	@MAKE="$(MAKE)" BUILD=$(BUILD) tests/run.sh

# The fast loop, for any user (mk/check.sh): build, unit programs, golden
# diagnostics compile-only, layering rules (mk/layers.sh).  Not `deps`: it
# installs nothing, and says which package is missing.
check:
	@MAKE="$(MAKE)" BUILD=$(BUILD) mk/check.sh

# Targets that need deps build in a second make, so that with -j nothing
# compiles before the packages are there.
demo: deps
	@$(MAKE) --no-print-directory $(BUILD)/perf-run $(BUILD)/demo
	@echo "== tracing build/demo: histogram of work()'s argument (microseconds slept)"
	$(BUILD)/perf-run -e 'uprobe:./$(BUILD)/demo:work { @us = hist(arg0); @calls = count(); }' \
		-- ./$(BUILD)/demo

# bpftrace 0.17 beside perf-run on tests/compat/*.compat and on bpftrace's
# own tools: prints `compat: N same of M`; a measure, not a gate.
compat: deps
	@$(MAKE) --no-print-directory $(BUILD)/perf-run progs
	@PERF_RUN=$(BUILD)/perf-run tests/compat/run.sh

bench: deps
	@$(MAKE) --no-print-directory $(BUILD)/perf-run progs $(BENCH_BINS)
	@for f in tests/bench/run.sh tests/bench/bench.sh; do \
		if [ -f $$f ]; then exec bash $$f; fi; \
	done; echo "bench: no tests/bench/run.sh yet" >&2; exit 1

# perf runs `perf run` as perf-run found in its exec path or on PATH.  The
# link into the exec path is made only where it stays inside PREFIX (with
# or without DESTDIR: PREFIX=/usr/local never writes /usr/lib/perf-core);
# elsewhere perf finds perf-run on PATH.
# INSTALL_DEPS= skips `make deps-build` (debian/rules: dpkg-buildpackage has
# checked Build-Depends, and a package build must not apt-get install).
# `make install` needs only what builds perf-run, not the test peers.
# The tools (scripts/*.bt, each `#!/usr/bin/env perf-run`) are commands in
# TOOLS_DIR, off PATH since bpftrace's package owns /usr/sbin/NAME.bt;
# their examples (scripts/NAME_example.txt) go to EXAMPLES_DIR.
INSTALL_DEPS ?= deps-build
TOOLS_DIR    ?= $(PREFIX)/share/perf-run/tools
EXAMPLES_DIR ?= $(PREFIX)/share/doc/perf-run/examples
TOOL_EXAMPLES := $(wildcard scripts/*_example.txt)
deps-build:
	@BUILD=$(BUILD) mk/deps.sh --build

install: $(INSTALL_DEPS)
	@$(MAKE) --no-print-directory $(BUILD)/perf-run
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(TOOLS_DIR) $(DESTDIR)$(BASH_COMPLETION_DIR)
	install -m 755 $(BUILD)/perf-run $(DESTDIR)$(PREFIX)/bin/perf-run
	install -m 644 perf-plugin/perf-run.1 $(DESTDIR)$(PREFIX)/share/man/man1/perf-run.1
	install -m 644 perf-plugin/perf-run.bash $(DESTDIR)$(BASH_COMPLETION_DIR)/perf-run
	$(if $(SCRIPTS),install -m 755 $(SCRIPTS) $(DESTDIR)$(TOOLS_DIR)/)
	$(if $(TOOL_EXAMPLES),install -d $(DESTDIR)$(EXAMPLES_DIR) && \
		install -m 644 $(TOOL_EXAMPLES) $(DESTDIR)$(EXAMPLES_DIR)/)
	@ep='$(PERF_EXEC_PATH)'; \
	if [ -n "$$ep" ] && case "$$ep/" in $(PREFIX)/*) true;; *) false;; esac; then \
		install -d "$(DESTDIR)$$ep" && ln -sf $(PREFIX)/bin/perf-run "$(DESTDIR)$$ep/perf-run" && \
		echo "linked $(DESTDIR)$$ep/perf-run"; \
	elif [ -n "$$ep" ]; then \
		echo "perf exec path $$ep is outside $(PREFIX): perf finds perf-run on PATH"; \
	fi
	@echo "tools: $(TOOLS_DIR) (PATH=$(TOOLS_DIR):\$$PATH runs them by name, before bpftrace's /usr/sbin/*.bt)"

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/perf-run $(DESTDIR)$(PREFIX)/share/man/man1/perf-run.1 \
		$(DESTDIR)$(BASH_COMPLETION_DIR)/perf-run
	rm -rf $(DESTDIR)$(PREFIX)/share/perf-run $(DESTDIR)$(TOOLS_DIR) $(DESTDIR)$(EXAMPLES_DIR)
	@ep='$(PERF_EXEC_PATH)'; \
	if [ -n "$$ep" ] && [ -L "$(DESTDIR)$$ep/perf-run" ] && \
	   [ "$$(readlink "$(DESTDIR)$$ep/perf-run")" = "$(PREFIX)/bin/perf-run" ]; then \
		rm -f "$(DESTDIR)$$ep/perf-run"; \
	fi

# The libperf build and the extracted kernel tools survive `clean`: they
# cost most of a fresh build and never change.
clean:
	rm -rf $(BUILD)/obj $(BUILD)/asan $(BUILD)/tests $(BUILD)/perf-run $(BUILD)/demo \
		$(BUILD)/bench $(BUILD)/test-logs $(BUILD)/check-logs $(PROG_BINS) $(CLEAN_EXTRA)

distclean: clean
	rm -rf $(BUILD)

-include $(OBJS:.o=.d) $(ASAN_OBJS:.o=.d) $(UNIT_HELPER_OBJS:.o=.d) $(ASAN_UNIT_HELPER_OBJS:.o=.d) \
	$(UNIT_SRCS:tests/unit/%.c=$(BUILD)/obj/tests/unit/%.d) \
	$(UNIT_SRCS:tests/unit/%.c=$(BUILD)/asan/obj/tests/unit/%.d)

# Optional targets (fuzz, deb, test-kernel, ...) each live in their own mk/NAME.mk.
include $(wildcard mk/*.mk)
