# fuzz.mk - `make fuzz`: libFuzzer targets for the front end (script text →
# checked AST) and for attach-point parsing, built with clang-19 and
# ASan+UBSan, each run for FUZZ_SECONDS with the seeds kept in fuzz/corpus/.
# Only the compiler modules of the front end are linked (no code generation,
# no runtime; LLVM only for the X86 disassembler that checks uprobe offsets,
# libclang if the C-declaration module uses it).  What the fuzzer finds goes to $(BUILD)/fuzz/work-*
# (kept between runs); a crash leaves $(BUILD)/fuzz/crash-* and fails.
#
#   make fuzz                     both targets, FUZZ_SECONDS each (60)
#   make fuzz FUZZ_SECONDS=600    longer
#   make fuzz-build               only build them
#   make fuzz-merge               keep what the runs found in fuzz/corpus/
#   make fuzz-replay              the kept corpus through the gcc ASan build
#                                 (no libFuzzer needed)

FUZZ_CC      ?= clang-19
FUZZ_SECONDS ?= 60
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_TARGETS := frontend probe elf
# fuzz_elf reads ELF files as root reads a traced binary's: unwind.c's
# .eh_frame walk too.
FUZZ_SRCS    := $(filter-out compiler/codegen.c compiler/cg_%.c compiler/compile.c,\
	$(wildcard lib/*.c compiler/*.c)) runtime/unwind.c
FUZZ_OBJS    := $(FUZZ_SRCS:%.c=$(FUZZ_DIR)/obj/%.o) $(CXX_SRCS:%.cc=$(FUZZ_DIR)/obj/%.o)
FUZZ_CXX     ?= clang++-19
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer
FUZZ_CFLAGS  := -std=gnu11 -g -O1 -MMD -MP -Wall -Wextra -Wno-unused-parameter $(FUZZ_SAN) -I. $(LLVM_CFLAGS)
FUZZ_LIBS    := -lbpf -ldw -lelf -lz -lpthread $(CLANG_LIBS) $(LLVM_LIBS) -lstdc++
# fuzz_elf's seeds: test programs with CFI, DWARF location lists and USDT
# notes (an ELF file is larger than a script: max_len 65536 for it).
FUZZ_ELF_SEEDS := tests/progs/unwind_o2 tests/progs/dwarf_opt tests/progs/sdt_tick \
	tests/progs/libdlo.so
FUZZ_BINS    := $(FUZZ_TARGETS:%=$(FUZZ_DIR)/fuzz_%)
FUZZ_REPLAY  := $(FUZZ_TARGETS:%=$(FUZZ_DIR)/replay_%)
# Leaks and undefined behaviour are failures, as in the test suite.
FUZZ_ENV     := ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/fuzz/lsan.supp:print_suppressions=0

.PHONY: fuzz fuzz-build fuzz-replay fuzz-merge

fuzz-build: $(FUZZ_BINS) $(FUZZ_REPLAY)

$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_DIR)/obj/%.o: %.cc
	@mkdir -p $(@D)
	$(FUZZ_CXX) -std=c++17 -g -O1 -MMD -MP -Wall -Wextra -fno-exceptions -fno-rtti $(FUZZ_SAN) \
		-I. $(LLVM_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

# syscalls.c includes the table the Makefile generates from the C library.
$(FUZZ_DIR)/obj/lib/sysnames.o: $(BUILD)/gen/sysnums.h
$(FUZZ_DIR)/obj/lib/sysnames.o: FUZZ_CFLAGS += -I$(BUILD)/gen

$(FUZZ_DIR)/fuzz_%: $(FUZZ_DIR)/obj/fuzz/fuzz_%.o $(FUZZ_OBJS)
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(FUZZ_LIBS)

# The replay driver with gcc's ASan objects of the same modules.
$(FUZZ_DIR)/replay_%: fuzz/replay.c fuzz/fuzz_%.c $(FUZZ_SRCS:%.c=$(BUILD)/asan/obj/%.o) $(ASAN_CXX_OBJS)
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(WARN) -g $(ASAN_FLAGS) -I. -o $@ $^ $(FUZZ_LIBS)

fuzz: fuzz-build progs
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_DIR)/work-$$t; \
		echo "== fuzz_$$t for $(FUZZ_SECONDS) s"; \
		seeds=fuzz/corpus/$$t; [ $$t != frontend ] || seeds="$$seeds tests/errors"; \
		ml=4096; if [ $$t = elf ]; then ml=65536; seeds="$$seeds $(FUZZ_DIR)/seeds-elf"; \
			mkdir -p $(FUZZ_DIR)/seeds-elf; cp $(FUZZ_ELF_SEEDS) $(FUZZ_DIR)/seeds-elf/; fi; \
		$(FUZZ_ENV) $(FUZZ_DIR)/fuzz_$$t $(FUZZ_DIR)/work-$$t $$seeds \
			-dict=fuzz/$$t.dict -max_len=$$ml -max_total_time=$(FUZZ_SECONDS) -timeout=20 \
			-rss_limit_mb=4096 -print_final_stats=1 \
			-artifact_prefix=$(FUZZ_DIR)/crash-$$t- 2>$(FUZZ_DIR)/fuzz_$$t.log || \
			{ grep -A40 -E '^==[0-9]+==ERROR|runtime error|Sanitizer|Test unit written' \
				$(FUZZ_DIR)/fuzz_$$t.log | head -60; \
			  echo "fuzz_$$t failed: the input is in $(FUZZ_DIR)/crash-$$t-*"; exit 1; }; \
		grep -E '^stat::(number_of_executed_units|new_units_added)' $(FUZZ_DIR)/fuzz_$$t.log; \
	done

# Adds to fuzz/corpus/ the inputs of the last runs that reach edges the kept
# ones do not (existing files stay, so crash inputs are never dropped); edge
# coverage only, without hit counts, keeps the corpus small enough for git.
fuzz-merge: $(FUZZ_BINS)
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_DIR)/work-$$t; \
		ml=4096; [ $$t != elf ] || ml=65536; \
		$(FUZZ_ENV) $(FUZZ_DIR)/fuzz_$$t -merge=1 -use_counters=0 -use_cmp=0 -max_len=$$ml -timeout=20 \
			fuzz/corpus/$$t $(FUZZ_DIR)/work-$$t 2>$(FUZZ_DIR)/merge_$$t.log || \
			{ tail -20 $(FUZZ_DIR)/merge_$$t.log; exit 1; }; \
		grep -E '^MERGE-OUTER: [0-9]+ new files' $(FUZZ_DIR)/merge_$$t.log; \
	done

fuzz-replay: $(FUZZ_REPLAY)
	@for t in $(FUZZ_TARGETS); do \
		$(FUZZ_ENV) $(FUZZ_DIR)/replay_$$t fuzz/corpus/$$t || exit 1; \
	done

-include $(wildcard $(FUZZ_DIR)/obj/*/*.d)
