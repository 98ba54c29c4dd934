# conformance.mk - `make conformance`: the values perf-run reads against gdb
# (and perf probe) on real C code, Debian 12 source packages built eight
# ways (tests/dwarf/realcode.sh), real C++ code (leveldb, snappy: g++ and
# clang++-19 at -O0 and -O2, values and user stacks against perf's), and
# on the test programs
# (tests/dwarf/values.sh).  Slow (minutes, fetches sources on first use):
# not part of `make test`.  Summary in docs/conformance.md.

.PHONY: conformance
conformance: deps
	@$(MAKE) --no-print-directory -j2 $(BUILD)/perf-run
	@PERF_RUN=$(abspath $(BUILD)/perf-run) tests/dwarf/realcode.sh; r=$$?; \
		PERF_RUN=$(abspath $(BUILD)/perf-run) REALCODE_LEVELS="0 2" \
			tests/dwarf/realcode.sh leveldb snappy || r=1; \
		PERF_RUN=$(abspath $(BUILD)/perf-run) tests/dwarf/values.sh && exit $$r
