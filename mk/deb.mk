# deb.mk - `make deb`: the Debian package, built from debian/ with
# dpkg-buildpackage and checked with lintian (mk/deb.sh), copied to
# $(BUILD)/perf-run_VERSION_ARCH.deb.

.PHONY: deb
deb:
	@BUILD=$(BUILD) mk/deb.sh
