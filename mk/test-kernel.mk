# test-kernel.mk - `make test-kernel`: the kprobe/kretprobe/fentry cases of
# tests/kernel/ in qemu guests running Debian's kernels (the host kernel
# has no kprobes): the newest (6.12, kprobe_multi links) and 6.1 (one
# kprobe per function), one guest each.  The packages below are needed
# only here, so `make deps` does not install them; tests/kernel/run.sh
# does, when missing.  linux-image-6.12-amd64-dbg is the 6.12 kernel's
# DWARF (about 1 GB to download, 6.7 GB installed, once per machine) for
# tests/kernel/kdwarf.test (kprobe:FUNC:LINE, -V); linux-source-6.12 its
# sources, which run.sh unpacks once into build/kernel/src for -L
# (tests/kernel/klines.test).

KERNEL_TEST_PKGS    := qemu-system-x86 linux-image-amd64 linux-image-6.12-amd64 linux-image-6.12-amd64-dbg linux-source-6.12 busybox-static
KERNEL_TEST_TIMEOUT ?= 900

.PHONY: test-kernel
test-kernel: deps
	@$(MAKE) --no-print-directory -j2 $(BUILD)/perf-run progs
	@KERNEL_TEST_PKGS="$(KERNEL_TEST_PKGS)" KERNEL_TEST_TIMEOUT=$(KERNEL_TEST_TIMEOUT) \
		BUILD=$(BUILD) tests/kernel/run.sh
