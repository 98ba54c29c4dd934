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

# build/perf-run links its system libraries statically (mk/llvm-static.mk):
# protobuf-c too, so the package needs no libprotobuf-c at run time.
ifeq ($(LLVM_STATIC)$(STATIC_SYSLIBS),11)
$(BUILD)/perf-run: SYS_LIBS += -Wl,-Bstatic -lprotobuf-c -Wl,-Bdynamic
else ifeq ($(LLVM_STATIC),1)
$(BUILD)/perf-run: SYS_LIBS += -lprotobuf-c
endif

# tests/unit/test_formats.c unpacks what out_pprof.c packed.
$(BUILD)/obj/tests/unit/test_formats.o $(BUILD)/asan/obj/tests/unit/test_formats.o: $(BUILD)/gen/profile.pb-c.h
$(BUILD)/obj/tests/unit/test_formats.o $(BUILD)/asan/obj/tests/unit/test_formats.o: CPPFLAGS += -I$(BUILD)/gen
