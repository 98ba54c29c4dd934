# dist.mk - `make dist`: the upstream tarball $(BUILD)/perf-run-VERSION.tar.xz
# of the tree as it is (tracked files and new ones not ignored; no build/,
# no debian/, which the Debian source package adds as its own part), with
# fixed owners, order and times so that the same tree gives the same bytes.
# Unpacked, it builds on its own: `make`, `make check` (mk/dist.sh checks
# that the tarball has the files the build reads).

PERF_RUN_VERSION := $(shell sed -n 's/^\#define PERF_RUN_VERSION "\(.*\)"/\1/p' perf-plugin/main.c)

.PHONY: dist
dist:
	@BUILD=$(BUILD) VERSION=$(PERF_RUN_VERSION) mk/dist.sh
