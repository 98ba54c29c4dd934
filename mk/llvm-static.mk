# llvm-static.mk - build/perf-run links LLVM statically, only the BPF back
# end and what it needs, into a position-dependent executable.
#
# Why: with the shared libLLVM-19 (and its libz3, libxml2, ICU, libedit...)
# the dynamic loader alone takes 15-20 ms of every run, relocating some
# 350,000 addresses and resolving 14,000 symbols, before main() — more
# than the whole rest of a one-liner's way to "Attached".  Linked from
# the static archives (llvm-19-dev ships them) only the BPF target is
# there, and a non-PIE executable has almost nothing left to relocate.
# The unit tests and the ASan build keep the shared library: their link
# stays fast and their start-up is not measured.  LLVM_STATIC=0 goes back
# to the shared library for build/perf-run as well.
#
# libstdc++, libgcc, libbpf, libdw, libelf and the compression libraries
# they use are linked statically too: loading and binding them took about
# 2 ms of every run (libstdc++.so alone had 1,700 symbol bindings); only
# libc and libm are left to the loader.
#
# STATIC_SYSLIBS=0 keeps LLVM static but links those system C libraries
# as shared ones again: the Debian package does (debian/rules), since Debian
# wants its libraries linked, not copied (Policy 4.13; lintian's
# embedded-library), and their security updates to reach perf-run.
#
# libclang is not affected: compiler/ctypes.c dlopen()s it RTLD_LOCAL, and
# the LLVM it brings (the shared one) stays separate from ours, since this
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
$(BUILD)/perf-run: LDFLAGS += -no-pie -static-libgcc
endif
