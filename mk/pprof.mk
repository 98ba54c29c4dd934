# pprof.mk - pprof's profile.proto, as Debian's golang-github-google-pprof-dev
# ships it, compiled by protoc-c (protobuf-c-compiler) into build/gen at
# build time: the message code runtime/out_pprof.c packs with protobuf-c.
# Nothing of it is kept in the tree.

PPROF_PROTO ?= /usr/share/gocode/src/github.com/google/pprof/proto/profile.proto

$(BUILD)/gen/profile.pb-c.c $(BUILD)/gen/profile.pb-c.h &: $(PPROF_PROTO)
	@mkdir -p $(BUILD)/gen
	protoc-c --proto_path=$(dir $(PPROF_PROTO)) --c_out=$(BUILD)/gen $(PPROF_PROTO)

# Generated code: built with the project's warnings, without its -MMD rules.
$(BUILD)/obj/gen/profile.pb-c.o: $(BUILD)/gen/profile.pb-c.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(WARN) $(CFLAGS) -I$(BUILD)/gen -c -o $@ $<

$(BUILD)/asan/obj/gen/profile.pb-c.o: $(BUILD)/gen/profile.pb-c.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(WARN) $(CFLAGS) $(ASAN_CFLAGS) -I$(BUILD)/gen -c -o $@ $<

$(BUILD)/obj/runtime/out_pprof.o $(BUILD)/asan/obj/runtime/out_pprof.o: $(BUILD)/gen/profile.pb-c.h
$(BUILD)/obj/runtime/out_pprof.o $(BUILD)/asan/obj/runtime/out_pprof.o: CPPFLAGS += -I$(BUILD)/gen

# build/perf-run sets its own SYS_LIBS (mk/llvm-static.mk): protobuf-c is
# linked statically there, also in the package's build (STATIC_SYSLIBS=0),
# so that the package gains no run-time dependency (libprotobuf-c1 is not
# in a minimal root: tests/suites/pkg_chroot.sh).
ifeq ($(LLVM_STATIC),1)
$(BUILD)/perf-run: SYS_LIBS += -Wl,-Bstatic -lprotobuf-c -Wl,-Bdynamic
endif

# tests/unit/test_formats.c unpacks what out_pprof.c packed.
$(BUILD)/obj/tests/unit/test_formats.o $(BUILD)/asan/obj/tests/unit/test_formats.o: $(BUILD)/gen/profile.pb-c.h
$(BUILD)/obj/tests/unit/test_formats.o $(BUILD)/asan/obj/tests/unit/test_formats.o: CPPFLAGS += -I$(BUILD)/gen
