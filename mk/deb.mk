# deb.mk - `make deb`: the Debian source package (3.0 (quilt), from the
# tarball of `make dist`) and binary packages, built by dpkg-buildpackage
# from debian/ and checked by lintian --pedantic -I (mk/deb.sh); copied to
# $(BUILD)/: perf-run_VERSION_ARCH.deb, its -dbgsym, the .dsc and tarballs.

.PHONY: deb
deb:
	@BUILD=$(BUILD) MAKE="$(MAKE)" mk/deb.sh
