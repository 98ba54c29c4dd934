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
