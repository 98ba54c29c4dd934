# progs-extra.mk - test programs that the Makefile's tests/progs/% rule
# (one .c to one executable) cannot build: tests/progs/libdlo.so, the
# library tests/progs/dlopener loads late.  Its source is named
# libdlo.so.c so that PROG_BINS lists it; this explicit rule overrides the
# pattern rule for it.
tests/progs/libdlo.so: tests/progs/libdlo.so.c
	$(CC) $(PROG_CFLAGS) -shared -fPIC -o $@ $<

# dwarf_opt is the optimised-code target: -O2 as a release build.
tests/progs/dwarf_opt: tests/progs/dwarf_opt.c
	$(CC) $(PROG_CFLAGS) -O2 -o $@ $<

# unwind_o2 as distributions build: -O2 without frame pointers, with gcc
# and with clang, for user stacks through CFI (.eh_frame).
tests/progs/unwind_o2: tests/progs/unwind_o2.c
	$(CC) $(PROG_CFLAGS) -O2 -fomit-frame-pointer -o $@ $<
tests/progs/unwind_o2_clang: tests/progs/unwind_o2.c
	clang-19 -g -O2 -fomit-frame-pointer -Wall -Wextra -Werror -o $@ $<
progs: tests/progs/unwind_o2_clang
CLEAN_EXTRA += tests/progs/unwind_o2_clang

# The library unwind_late dlopen()s, without frame pointers: its unwind
# tables are loaded while the trace runs.
tests/progs/libunwind_late.so: tests/progs/libunwind_late.so.c
	$(CC) $(PROG_CFLAGS) -O2 -fomit-frame-pointer -shared -fPIC -o $@ $<

# unwind_sig: a signal handler's stack through the signal frame, -O2
# without frame pointers.
tests/progs/unwind_sig: tests/progs/unwind_sig.c
	$(CC) $(PROG_CFLAGS) -O2 -fomit-frame-pointer -o $@ $<

# unwind_inline: inlined frames in user stacks, -O2 without frame pointers.
tests/progs/unwind_inline: tests/progs/unwind_inline.c
	$(CC) $(PROG_CFLAGS) -O2 -fomit-frame-pointer -o $@ $<

# wild_o0: -O0, where DWARF puts parameters in stack slots the prologue fills.
tests/progs/wild_o0: tests/progs/wild_o0.c
	$(CC) $(PROG_CFLAGS) -O0 -o $@ $<

# unwind_remap maps libunwind_remap.so then libunwind_remap_b.so (the same
# code at the same offset, another frame size) at one address, in turns.
tests/progs/unwind_remap: tests/progs/unwind_remap.c
	$(CC) $(PROG_CFLAGS) -O2 -fomit-frame-pointer -o $@ $<
tests/progs/libunwind_remap.so: tests/progs/libunwind_remap.so.c
	$(CC) $(PROG_CFLAGS) -shared -fPIC -Wl,-e,remap_spin -o $@ $<
tests/progs/libunwind_remap_b.so: tests/progs/libunwind_remap.so.c
	$(CC) $(PROG_CFLAGS) -DREMAP_SMALL_FRAME -shared -fPIC -Wl,-e,remap_spin -o $@ $<
progs: tests/progs/libunwind_remap_b.so
CLEAN_EXTRA += tests/progs/libunwind_remap_b.so

# unwind_depth: stacks of chosen depths (recursion), -O2 without frame pointers.
tests/progs/unwind_depth: tests/progs/unwind_depth.c
	$(CC) $(PROG_CFLAGS) -O2 -fomit-frame-pointer -o $@ $<

# unwind_ctx: a stack of its own that ends a few hundred bytes above the
# probed frame, -O2 without frame pointers.
tests/progs/unwind_ctx: tests/progs/unwind_ctx.c
	$(CC) $(PROG_CFLAGS) -O2 -fomit-frame-pointer -o $@ $<

# elf32 and elf32_o2: i386 code (gcc -m32, gcc-multilib) at -O0 and -O2.
# Where -m32 cannot link, neither is built and tests/runtime/elf32.test
# skips, saying why.
ELF32_CC = $(CC) -m32 -g -fno-omit-frame-pointer -Wall -Wextra -Werror
tests/progs/elf32: tests/progs/elf32.c
	@$(ELF32_CC) -O0 -o $@ $< 2>/dev/null || echo "elf32: gcc -m32 cannot link (install gcc-multilib): 32-bit tests skip"
tests/progs/elf32_o2: tests/progs/elf32.c
	@$(ELF32_CC) -O2 -o $@ $< 2>/dev/null || echo "elf32_o2: gcc -m32 cannot link (install gcc-multilib): 32-bit tests skip"
progs: tests/progs/elf32_o2
CLEAN_EXTRA += tests/progs/elf32_o2

# rebuilt and rebuilt_b: one program in two builds (REBUILT_B) whose
# stacks differ, -O2 without frame pointers: a test copies the second
# over the first in place, as a rebuild does, while a profile runs.
tests/progs/rebuilt: tests/progs/rebuilt.c
	$(CC) $(PROG_CFLAGS) -O2 -fomit-frame-pointer -o $@ $<
tests/progs/rebuilt_b: tests/progs/rebuilt.c
	$(CC) $(PROG_CFLAGS) -O2 -fomit-frame-pointer -DREBUILT_B -o $@ $<
progs: tests/progs/rebuilt_b
CLEAN_EXTRA += tests/progs/rebuilt_b

# cxx_shop: C++ names (namespaces, overloads, const methods, templates)
# for demangling, built with g++ as the C programs are with gcc.
tests/progs/cxx_shop: tests/progs/cxx_shop.cc
	$(CXX) $(PROG_CFLAGS) -o $@ $<
progs: tests/progs/cxx_shop
CLEAN_EXTRA += tests/progs/cxx_shop

# rust_names and rust_names_v0: Rust names, rustc's legacy mangling and v0.
# rustc is a test peer (make deps installs it); without it neither is
# built and their cases in tests/runtime/cxx.test skip, saying why.
RUSTC_FLAGS = -g -C opt-level=1 -C force-frame-pointers=yes
tests/progs/rust_names: tests/progs/rust_names.rs
	@rustc $(RUSTC_FLAGS) -o $@ $< 2>/dev/null || echo "rust_names: no rustc (make deps installs it): Rust tests skip"
tests/progs/rust_names_v0: tests/progs/rust_names.rs
	@rustc $(RUSTC_FLAGS) -C symbol-mangling-version=v0 -o $@ $< 2>/dev/null || \
		echo "rust_names_v0: no rustc (make deps installs it): Rust tests skip"
progs: tests/progs/rust_names tests/progs/rust_names_v0
CLEAN_EXTRA += tests/progs/rust_names tests/progs/rust_names_v0

# swapper dlopen()s libswap.so then libswap_b.so (other functions at the
# same offsets) at one address, in turns.
tests/progs/libswap.so: tests/progs/libswap.so.c
	$(CC) $(PROG_CFLAGS) -shared -fPIC -o $@ $<
tests/progs/libswap_b.so: tests/progs/libswap.so.c
	$(CC) $(PROG_CFLAGS) -DSWAP_B -shared -fPIC -o $@ $<
tests/progs/swapper: tests/progs/swapper.c
	$(CC) $(PROG_CFLAGS) -o $@ $< -ldl
progs: tests/progs/libswap_b.so
CLEAN_EXTRA += tests/progs/libswap_b.so
