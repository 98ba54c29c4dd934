# deb.mk - `make deb`: a Debian binary package of perf-run (mk/deb.sh),
# staged with `make install DESTDIR=... PREFIX=/usr`, written to
# $(BUILD)/perf-run_VERSION_ARCH.deb.

.PHONY: deb
deb: deps
	@$(MAKE) --no-print-directory -j2 $(BUILD)/perf-run
	@BUILD=$(BUILD) MAKE="$(MAKE)" mk/deb.sh
