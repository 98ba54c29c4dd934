# llvm-static.mk - how build/perf-run links LLVM.  Two ways, both PIE:
#
# LLVM_STATIC=1 (the default of a source build): only the BPF back end and
# what it needs, from the static archives llvm-19-dev ships, with libstdc++,
# libbpf, libdw, libelf and their compression libraries static too; only
# libc and libm are left to the loader.  Why: with the shared libLLVM-19
# (and the libz3, libxml2, ICU, libedit it pulls in) the loader relocates
# some 345,000 addresses, binds 14,000 symbols and runs LLVM's static
# constructors before main(): `perf-run -e 'BEGIN{exit()}'` took 24 ms
# against 5.5 ms (20 runs each, 2-core machine, Dec 2026), most of a
# one-liner's way to "Attached".  The executable is a PIE all the same
# (about 1 ms of that 5.5 against a non-PIE): perf-run parses, as root,
# files other users control (their ELF, DWARF, .eh_frame, debug files:
# docs/SECURITY.md), and those parsers must not sit at fixed addresses.
#
# LLVM_STATIC=0: the shared libLLVM-19 and the system's shared libraries,
# as Debian links every program: no convenience copy of LLVM (Policy 4.13),
# so LLVM's security updates reach perf-run.  debian/rules builds so.
#
# STATIC_SYSLIBS=0 with LLVM_STATIC=1 keeps LLVM static but the system C
# libraries shared.
#
# The unit tests and the ASan build always use the shared library: their
# link stays fast and their start-up is not measured.  libclang is not
# affected: compiler/ctypes.c dlopen()s it RTLD_LOCAL, and the LLVM it
# brings (the shared one) stays separate from a static copy, since this
# executable exports no LLVM symbol.

LLVM_STATIC ?= 1
LLVM_STATIC_COMPONENTS := bpfcodegen bpfdesc bpfinfo bpfasmparser bpfdisassembler \
	x86disassembler x86desc x86info core passes target analysis

ifeq ($(LLVM_STATIC),1)
LLVM_STATIC_LIBS = $(shell $(LLVM_CONFIG) --ldflags 2>/dev/null) -Wl,--start-group \
	$(shell $(LLVM_CONFIG) --link-static --libs $(LLVM_STATIC_COMPONENTS) 2>/dev/null) \
	-Wl,--end-group -Wl,-Bstatic -lstdc++ -Wl,-Bdynamic -lrt -ldl -lm

$(BUILD)/perf-run: LLVM_LIBS = $(LLVM_STATIC_LIBS)
# libstdc++ is already in LLVM_STATIC_LIBS, static: not again as a shared one
$(BUILD)/perf-run: CXX_LIBS =
STATIC_SYSLIBS ?= 1
ifeq ($(STATIC_SYSLIBS),1)
$(BUILD)/perf-run: SYS_LIBS = -Wl,-Bstatic -lbpf -ldw -lelf -lz -llzma -lbz2 -lzstd -Wl,-Bdynamic
else
# LLVM's static libLLVMSupport needs zstd
$(BUILD)/perf-run: SYS_LIBS = -lbpf -ldw -lelf -lz -lzstd
endif
$(BUILD)/perf-run: LDFLAGS += -pie -static-libgcc
endif
