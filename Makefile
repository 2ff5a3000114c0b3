# kmtrace — kernel memory tracing toolkit
#
#   make deps    install build/test dependencies (idempotent)
#   make         build the kmtrace binary and the libtraceevent plugins
#   make check   deps + layout + unit tests (also under ASan+UBSan) + integration tests
#                + the fuzz harnesses briefly
#   make demo    what the build needs, the build, a short built-in workload recorded
#                and reported (the first command on a bare machine)
#   make examples  docs/examples.md's outputs from real runs again
#   make check-fresh  make demo from a fresh clone in a bare Debian 12 chroot
#   make bench   kmtrace report vs trace-cmd report on a >= 1M-event recording
#   make fuzz    libFuzzer harnesses (clang, ASan+UBSan), each run FUZZ_TIME seconds
#   make install PREFIX=/usr/local DESTDIR=   (PLUGIN_DIR= to put the plugins elsewhere)
#   make install-user   the plugins into ~/.local/lib/traceevent/plugins
#   make static  kmtrace-record, the recorder statically linked (CROSS_COMPILE=aarch64-linux-gnu-,
#                arm-linux-gnueabihf- or s390x-linux-gnu-: kmtrace-record-aarch64, -arm or
#                -s390x, after make deps ARCH=arm64, armhf or s390x)
#   make check-targets  Debian 12's 6.1 kernels (x86-64, arm64) under qemu: record there,
#                report here (downloads from Debian's archive; CI runs it after check)
#   make check-pageowner  a kernel built from Debian's linux-source-6.1 with page_owner,
#                booted page_owner=on: record's snapshot of it checked (CI: after check-targets)

VERSION   := 0.1
PREFIX    ?= /usr/local
DESTDIR   ?=
BINDIR    := $(PREFIX)/bin
MANDIR    := $(PREFIX)/share/man/man1
MAN7DIR   := $(PREFIX)/share/man/man7
COMPLETION_DIR := $(PREFIX)/share/bash-completion/completions
# libtraceevent's plugin directory under PREFIX (its libdir relative to its
# prefix, e.g. lib/x86_64-linux-gnu/traceevent/plugins on Debian).
TEP_LIBDIR = $(shell pkg-config --variable=libdir libtraceevent 2>/dev/null)
TEP_PREFIX = $(shell pkg-config --variable=prefix libtraceevent 2>/dev/null)
PLUGIN_DIR ?= $(PREFIX)/$(patsubst $(TEP_PREFIX)/%,%,$(TEP_LIBDIR))/traceevent/plugins
USER_PLUGIN_DIR := $(HOME)/.local/lib/traceevent/plugins
BUILD     ?= build

export PKG_CONFIG_PATH := /usr/local/lib/pkgconfig:$(PKG_CONFIG_PATH)

CC        ?= gcc
# make static CROSS_COMPILE=aarch64-linux-gnu-: the recorder for another
# architecture (make deps ARCH=arm64 installs its toolchain and libraries).
ifneq ($(CROSS_COMPILE),)
CC        := $(CROSS_COMPILE)gcc
CROSS_TRIPLET := $(patsubst %-,%,$(CROSS_COMPILE))
CROSS_ARCH := $(firstword $(subst -, ,$(CROSS_TRIPLET)))
BUILD     := build-$(CROSS_ARCH)
STATIC_BIN := kmtrace-record-$(CROSS_ARCH)
LIBPERF_LIBDIR := /usr/local/lib/$(CROSS_TRIPLET)
# the target's libraries, unpacked by make deps ARCH=...
CROSS_SYSROOT := $(wildcard /usr/local/lib/kmtrace-sysroot/*/usr/lib/$(CROSS_TRIPLET))
CROSS_FLAGS := $(if $(CROSS_SYSROOT),-L$(CROSS_SYSROOT) -I$(CROSS_SYSROOT:%/lib/$(CROSS_TRIPLET)=%/include))
else
STATIC_BIN := kmtrace-record
LIBPERF_LIBDIR := /usr/local/lib
endif
PKGS      := libtracefs libtraceevent libtracecmd libdw json-c babeltrace2 sqlite3
# libperf: record layouts (perf/event.h) and the fault sampler's perf events;
# its shared library carries the libapi parts the static one leaves out.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) libperf 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) libperf 2>/dev/null) \
	     -Wl,-rpath,$(shell pkg-config --variable=libdir libperf 2>/dev/null)
CHECK_LIBS = $(shell pkg-config --libs check 2>/dev/null)

WARN      := -Wall -Wextra -Werror
# link-time optimisation inlines the replay's hot calls across files: 3 to 7%
# fewer instructions an event (docs/PERFORMANCE.md)
CFLAGS    ?= -O2 -g -flto=auto
ALL_CFLAGS = $(CFLAGS) $(WARN) -std=gnu11 -Iinclude -Isrc -I. -DKMT_VERSION='"$(VERSION)"' \
	     -D_GNU_SOURCE $(PKG_CFLAGS) -MMD -MP
LIBS       = $(PKG_LIBS) -lzstd -lpthread -lm

PLUGIN_SRC := $(wildcard plugins/plugin_kmt_*.c)
# What every plugin .so carries besides its own file.
PLUGIN_COMMON := plugins/kmt_plugin.c src/common/mmnames.c
LIB_SRC   := $(filter-out src/cmd/%,$(wildcard src/*/*.c)) $(PLUGIN_SRC) plugins/kmt_plugin.c
CMD_SRC   := $(filter-out src/cmd/main_record.c,$(wildcard src/cmd/*.c))
# kmtrace-record (make static): the recorder alone, linked statically.
STATIC_SRC := src/cmd/main_record.c src/cmd/record.c src/cmd/units.c \
	      $(wildcard src/capture/*.c src/container/*.c src/common/*.c)
STATIC_LIBS := $(CROSS_FLAGS) -ltracefs -ltraceevent -L$(LIBPERF_LIBDIR) -lperf -lapi -lelf -lz \
	       -lzstd -lpthread -lm
TEST_SRC  := $(wildcard tests/unit/*.c)

# Each build flavour (plain, sanitized) has its own object tree.
objs = $(patsubst %.c,$(1)/%.o,$(2))

# The event formats the text reader ships (formats/linux-*/), compiled in.
FORMATS_C := $(BUILD)/gen/formats.c
LIB_OBJ   := $(call objs,$(BUILD),$(LIB_SRC)) $(BUILD)/gen/formats.o
CMD_OBJ   := $(call objs,$(BUILD),$(CMD_SRC))
TEST_OBJ  := $(call objs,$(BUILD),$(TEST_SRC))
SAN_DIR   := $(BUILD)/san
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
SAN_LIB_OBJ  := $(call objs,$(SAN_DIR),$(LIB_SRC)) $(SAN_DIR)/gen/formats.o
SAN_TEST_OBJ := $(call objs,$(SAN_DIR),$(TEST_SRC))

HEAP_LIB  := libkmtrace-heap.so
PIC_DIR   := $(BUILD)/pic
PLUGINS   := $(patsubst plugins/%.c,$(BUILD)/plugins/%.so,$(PLUGIN_SRC))
# Plugins link against nothing: trace-cmd and perf provide libtraceevent.
PIC_FLAGS := -fPIC -fvisibility=hidden -DKMT_PLUGIN_SO

.PHONY: all plugins deps check layout unit unit-san integration fuzz fuzz-check demo examples check-fresh bench screenshot static check-targets check-pageowner check-fleet install \
	install-user clean

all: kmtrace plugins $(HEAP_LIB)

plugins: $(PLUGINS)

# record --user-sample's allocator hooks, preloaded into the command: with
# frame pointers of its own (the fp walk starts in its hooks), no libkmtrace.
$(HEAP_LIB): preload/kmtrace_heap.c preload/heap_sites.c preload/heap_sites.h \
	     src/common/heaprec.h include/kmtrace/event.h
	$(CC) $(CFLAGS) $(WARN) -std=gnu11 -D_GNU_SOURCE -Iinclude -Isrc -fPIC \
		-fvisibility=hidden -fno-omit-frame-pointer -shared -o $@ \
		preload/kmtrace_heap.c preload/heap_sites.c -lm -ldl -lpthread

$(BUILD)/plugins/%.so: $(PIC_DIR)/plugins/%.o $(call objs,$(PIC_DIR),$(PLUGIN_COMMON))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -shared -o $@ $^

$(PIC_DIR)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(PIC_FLAGS) -c -o $@ $<

deps:
	@KMT_DEPS_ARCH=$(ARCH) sh scripts/deps.sh

kmtrace: $(CMD_OBJ) $(BUILD)/libkmtrace.a
	$(CC) $(CFLAGS) -o $@ $(CMD_OBJ) $(BUILD)/libkmtrace.a $(LIBS)

# A recorder that needs no shared library on the target (report runs off-box).
static: $(STATIC_BIN)
$(STATIC_BIN): $(call objs,$(BUILD),$(STATIC_SRC))
	$(CC) $(CFLAGS) -static -o $@ $^ $(STATIC_LIBS)

$(BUILD)/libkmtrace.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(SAN_DIR)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) -c -o $@ $<

$(FORMATS_C): scripts/embed_formats.py $(wildcard formats/linux-*/*/*/format)
	@mkdir -p $(dir $@)
	python3 scripts/embed_formats.py $@ $(wildcard formats/linux-*)

$(BUILD)/gen/formats.o: $(FORMATS_C)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(SAN_DIR)/gen/formats.o: $(FORMATS_C)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) -c -o $@ $<

$(BUILD)/unit-tests: $(TEST_OBJ) $(BUILD)/libkmtrace.a
	$(CC) $(CFLAGS) -o $@ $(TEST_OBJ) $(BUILD)/libkmtrace.a $(LIBS) $(CHECK_LIBS)

# The binary under ASan+UBSan, for the integration tests' hostile inputs.
SAN_CMD_OBJ := $(call objs,$(SAN_DIR),$(CMD_SRC))
$(BUILD)/kmtrace-san: $(SAN_CMD_OBJ) $(SAN_LIB_OBJ)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -o $@ $^ $(LIBS)

$(BUILD)/unit-tests-san: $(SAN_TEST_OBJ) $(SAN_LIB_OBJ)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -o $@ $^ $(LIBS) $(CHECK_LIBS)

# A trace.dat of the plugin-handled events no recording here holds, for tests/plugins.sh.
SYNTH_DAT := $(BUILD)/synth-dat
$(SYNTH_DAT): $(call objs,$(BUILD),tests/progs/synth_dat.c tests/unit/fixtures.c) $(BUILD)/libkmtrace.a
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS) $(CHECK_LIBS)

# docs/DESIGN.md's layout: each folder's includes, headers that compile
# alone, only kmt_ symbols exported by the library.
layout: $(BUILD)/libkmtrace.a
	python3 scripts/check_layout.py --lib $(BUILD)/libkmtrace.a --cc "$(CC)" \
		--cflags "$(WARN) -std=gnu11 -D_GNU_SOURCE -Iinclude -Isrc -I. $(PKG_CFLAGS)"

unit: $(BUILD)/unit-tests
	KMT_TRACES=traces $(BUILD)/unit-tests

unit-san: $(BUILD)/unit-tests-san
	ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=tests/lsan.supp \
		UBSAN_OPTIONS=print_stacktrace=1 \
		KMT_TRACES=traces $(BUILD)/unit-tests-san

integration: all $(SYNTH_DAT) $(BUILD)/kmtrace-san kmtrace-record
	bash tests/integration.sh ./kmtrace

# libFuzzer harnesses: one per reader, --formats text, the plugins' print handlers.
FUZZ_CC    ?= clang
FUZZ_DIR   := $(BUILD)/fuzz
FUZZ_TIME  ?= 60
FUZZ_CHECK_TIME ?= 10
FUZZ_FLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	      -fno-omit-frame-pointer
FUZZ_CFLAGS = $(FUZZ_FLAGS) $(WARN) -std=gnu11 -Iinclude -Isrc -I. \
	      -DKMT_VERSION='"$(VERSION)"' -D_GNU_SOURCE $(PKG_CFLAGS) -MMD -MP
FUZZ_READERS := tracedat tracecmd perfdata text
FUZZERS    := $(FUZZ_READERS) text_formats plugins diff
FUZZ_BINS  := $(patsubst %,$(FUZZ_DIR)/fuzz-%,$(FUZZERS))
FUZZ_LIB_OBJ := $(call objs,$(FUZZ_DIR),$(LIB_SRC) src/cmd/print.c tests/fuzz/fuzz_common.c) \
		$(FUZZ_DIR)/gen/formats.o

$(FUZZ_DIR)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_DIR)/gen/formats.o: $(FORMATS_C)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_DIR)/reader-%.o: tests/fuzz/fuzz_reader.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -DFUZZ_READER=$(shell echo $* | tr a-z A-Z) \
		-c -o $@ $<

$(patsubst %,$(FUZZ_DIR)/fuzz-%,$(FUZZ_READERS)): $(FUZZ_DIR)/fuzz-%: $(FUZZ_DIR)/reader-%.o $(FUZZ_LIB_OBJ)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $^ $(LIBS)

$(FUZZ_DIR)/fuzz-text_formats $(FUZZ_DIR)/fuzz-plugins $(FUZZ_DIR)/fuzz-diff: $(FUZZ_DIR)/fuzz-%: \
		$(FUZZ_DIR)/tests/fuzz/fuzz_%.o $(FUZZ_LIB_OBJ)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $^ $(LIBS)

# Each harness FUZZ_TIME seconds over its corpus (grown under build/fuzz/corpus);
# what crashes goes to build/fuzz/crashes/NAME/.
fuzz: $(FUZZ_BINS)
	@sh tests/fuzz/run.sh $(FUZZ_DIR) $(FUZZ_TIME) $(FUZZERS)

# make check's share: the regression inputs once, then each harness briefly.
fuzz-check: $(FUZZ_BINS)
	@sh tests/fuzz/run.sh --check $(FUZZ_DIR) $(FUZZ_CHECK_TIME) $(FUZZERS)

check: deps
	$(MAKE) --no-print-directory all
	$(MAKE) --no-print-directory layout
	$(MAKE) --no-print-directory unit
	$(MAKE) --no-print-directory unit-san
	$(MAKE) --no-print-directory integration
	$(MAKE) --no-print-directory fuzz-check
	$(MAKE) --no-print-directory check-fresh

# The first command on a bare machine: what the build needs, then the build.
demo:
	@KMT_DEPS_ARCH= sh scripts/deps.sh build
	@$(MAKE) --no-print-directory kmtrace
	@sh scripts/demo.sh ./kmtrace

# docs/examples.md's outputs again from real runs (live ones need root and tracefs).
examples: kmtrace
	python3 scripts/gen_examples.py ./kmtrace docs/examples.md --live

# README's first command on a bare Debian 12 chroot (debootstrap; root).
check-fresh:
	@sh scripts/check_fresh.sh

bench: kmtrace
	@sh scripts/bench.sh ./kmtrace

# kmtrace on Debian's 6.1 kernels under qemu (downloads them; .ci/run runs it after check).
check-targets: kmtrace
	@sh scripts/check_targets.sh

# A guest whose kernel, built here from Debian's linux-source-6.1 (once, then
# cached), has page_owner: record's snapshot of it; .ci/run runs it after check-targets.
check-pageowner: kmtrace
	@KMT_TARGETS=pageowner sh scripts/check_targets.sh

# Four hosts' recordings in Debian's ClickHouse (a server of its own); .ci/run runs it after check-targets.
check-fleet: kmtrace
	@bash scripts/check_fleet.sh

# The README's picture of the HTML report, made by the test that checks it.
screenshot: kmtrace
	@d=$$(mktemp -d) && python3 tests/check_html.py ./kmtrace traces "$$d" docs/kmtrace-report.png; \
	 rc=$$?; rm -rf "$$d"; exit $$rc

install: kmtrace plugins $(HEAP_LIB)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(MAN7DIR) $(DESTDIR)$(PLUGIN_DIR)
	install -m 0755 kmtrace $(DESTDIR)$(BINDIR)/kmtrace
	install -m 0755 scripts/kmtrace-fleet-load $(DESTDIR)$(BINDIR)/kmtrace-fleet-load
	install -m 0644 docs/*.1 $(DESTDIR)$(MANDIR)/
	install -m 0644 docs/*.7 $(DESTDIR)$(MAN7DIR)/
	install -m 0644 $(PLUGINS) $(DESTDIR)$(PLUGIN_DIR)/
	install -d $(DESTDIR)$(PREFIX)/lib/kmtrace
	install -m 0644 $(HEAP_LIB) $(DESTDIR)$(PREFIX)/lib/kmtrace/$(HEAP_LIB)
	install -d $(DESTDIR)$(COMPLETION_DIR)
	install -m 0644 scripts/kmtrace-completion.bash $(DESTDIR)$(COMPLETION_DIR)/kmtrace

# Where trace-cmd and perf look for a user's plugins.
install-user: plugins
	install -d $(USER_PLUGIN_DIR)
	install -m 0644 $(PLUGINS) $(USER_PLUGIN_DIR)/

clean:
	rm -rf build build-* kmtrace kmtrace-record kmtrace-record-* $(HEAP_LIB)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
