# btfinline build. `make` builds the CLI and library, `make check` runs all tests.
# Source lists are wildcards so adding a file needs no edit here.

BUILD   ?= build
CC      ?= gcc
CLANG   ?= clang
BPFTOOL ?= bpftool
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
SAN     ?=
ifneq ($(SAN),)
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif
# WERROR=1 (CI): warnings fail the build.
WERROR  ?=
override CFLAGS += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wmissing-prototypes $(if $(WERROR),-Werror) -Iinclude -Isrc/lib -I$(BUILD) -D_GNU_SOURCE
# Static binaries: without the dynamic loader the CLI starts in ~1.8 ms
# instead of ~3.4 ms with six shared libraries (2.8 with only libc shared),
# a large part of a `dump` of one function; they also copy into the test
# VM's initramfs as they are. ASan needs a dynamic libc: only the libraries
# are static there.
# STATIC=0 links them as shared libraries instead (the Debian package:
# Debian's security updates of libbpf and elfutils then reach the CLI;
# README, Install, has the startup cost of each).
LIBS_A  := -lbpf -ldw -lelf -lcapstone -lz -llzma -lbz2
STATIC  ?= 1
ifneq ($(SAN),)
LIBS    := -Wl,-Bstatic $(LIBS_A) -Wl,-Bdynamic
else ifeq ($(STATIC),1)
LDFLAGS += -static
LIBS    := $(LIBS_A)
else
LIBS    := -Wl,--as-needed -lbpf -ldw -lelf -lcapstone -lz -llzma -lbz2
endif

# One version, in the file VERSION: `btfinline --version`.
VERSION := $(shell cat VERSION)

LIB_SRCS := $(wildcard src/lib/*.c src/lib/*/*.c)
CLI_SRCS := $(wildcard src/cli/*.c)
BPF_SRCS := $(wildcard src/bpf/*.bpf.c)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
# What the reader fuzzer (tests/fuzz/run.sh) links: the reader, and the
# writer its seed blobs come from.
READER_SRCS := $(wildcard src/lib/format/*.c) src/lib/atomic_file.c src/lib/elf_file.c src/lib/elf_syms.c src/lib/log.c src/lib/names.c

LIB_OBJS := $(patsubst src/lib/%.c,$(BUILD)/lib/%.o,$(LIB_SRCS))
CLI_OBJS := $(patsubst src/cli/%.c,$(BUILD)/cli/%.o,$(CLI_SRCS))
SKELS    := $(patsubst src/bpf/%.bpf.c,$(BUILD)/%.skel.h,$(BPF_SRCS))
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))

LIB := $(BUILD)/libbtfinline.a
BIN := $(BUILD)/btfinline

# Shared library: the same sources compiled again with -fPIC (the CLI and
# libbtfinline.a keep non-PIC objects), symbols limited to the public API
# by src/lib/libbtfinline.map. SOVERSION is the ABI's major number.
SOVERSION := 0
SONAME    := libbtfinline.so.$(SOVERSION)
SO        := $(BUILD)/libbtfinline.so.$(VERSION)
PIC_OBJS  := $(patsubst src/lib/%.c,$(BUILD)/pic/lib/%.o,$(LIB_SRCS))
PC        := $(BUILD)/btfinline.pc
MANS      := $(patsubst docs/man/%.rst,$(BUILD)/man/%.8,$(wildcard docs/man/*.rst))

# Keep generated BPF objects and skeletons: tests build against them.
.SECONDARY:

.PHONY: all deps run check check-fast asan fuzz fixtures unit interop truth clean print-reader-srcs print-libs \
	man install uninstall deb FORCE
all: $(BIN) $(LIB) $(if $(SAN),,$(SO) $(PC))

deps:
	@scripts/deps.sh

$(BUILD)/%.bpf.o: src/bpf/%.bpf.c include/btfinline.bpf.h $(wildcard src/bpf/*.h) | $(BUILD)
	$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_x86 -I/usr/include/$(shell $(CC) -dumpmachine) -Iinclude -Isrc/bpf -c $< -o $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@

$(BUILD)/lib/%.o: src/lib/%.c $(wildcard src/lib/*.h src/lib/*/*.h include/*.h) $(SKELS) | $(BUILD)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/cli/%.o: src/cli/%.c $(wildcard src/cli/*.h src/lib/*.h src/lib/*/*.h include/*.h) $(SKELS) | $(BUILD)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Isrc/cli -c $< -o $@

$(BUILD)/cli/main.o $(BUILD)/lib/source/cache.o $(BUILD)/pic/lib/source/cache.o: VERSION
$(BUILD)/cli/main.o $(BUILD)/lib/source/cache.o $(BUILD)/pic/lib/source/cache.o: override CFLAGS += -DBTFI_VERSION='"$(VERSION)"'

$(LIB): $(LIB_OBJS)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/pic/lib/%.o: src/lib/%.c $(wildcard src/lib/*.h src/lib/*/*.h include/*.h) | $(BUILD)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -c $< -o $@

# Only the libraries it calls are DT_NEEDED (--as-needed); --no-undefined
# catches a missing one at build time rather than at a user's dlopen.
$(SO): $(PIC_OBJS) src/lib/libbtfinline.map
	$(CC) -shared $(filter-out -static,$(LDFLAGS)) -Wl,-soname,$(SONAME) \
		-Wl,--version-script=src/lib/libbtfinline.map -Wl,--no-undefined \
		-o $@ $(PIC_OBJS) -Wl,--as-needed -lbpf -ldw -lelf -lcapstone -lz -llzma -lbz2
	ln -sf $(notdir $@) $(BUILD)/$(SONAME)
	ln -sf $(SONAME) $(BUILD)/libbtfinline.so

$(BIN): $(CLI_OBJS) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJS) $(LIB) $(LIBS)

$(BUILD)/tests/%: tests/unit/%.c $(LIB) $(wildcard tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/unit -o $@ $< $(LIB) $(LIBS) $(LDFLAGS)

unit: $(UNIT_BINS) $(BUILD)/tests/truth_protos

# The truth harness's DWARF reader (libdw only, independent of the library).
$(BUILD)/tests/truth_protos: tests/truth/protos.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LIBS) $(LDFLAGS)

# Issue 13's truth harness, full run: the fixtures and SQLite (gcc, clang),
# every reached inlined function (tests/truth/run.sh; t_truth.sh is the
# bounded run in `make check`).
truth: deps all $(BUILD)/tests/truth_protos
	BUILD=$(BUILD) tests/truth/run.sh

print-reader-srcs:
	@echo $(READER_SRCS)

# What a program linking libbtfinline.a needs after it (test helpers).
print-libs:
	@echo $(LIBS_A)

$(BUILD):
	@mkdir -p $(BUILD)

# Fixture programs: every tests/fixtures/*.c with gcc and clang, DWARF 5 and 4.
fixtures:
	@tests/fixtures/build.sh $(BUILD)/fixtures

# Sanitizer build of library, CLI and unit tests in a separate tree.
asan:
	$(MAKE) BUILD=build-asan SAN=1 all unit

fuzz: asan fixtures
	tests/fuzz/run.sh $(BUILD) 600
	tests/fuzz/mutate_elf.py $(BUILD)/fixtures/shapes-gcc-dw5 1000 build-asan/btfinline stats
	tests/fuzz/mutate_elf.py $(BUILD)/fixtures/shapes-clang-dw4 1000 build-asan/btfinline stats
	tests/fuzz/mutate_elf.py $(BUILD)/fixtures/shapes-gcc-dw5 500 build-asan/btfinline encode --raw out.blob
	build-asan/btfinline encode $(BUILD)/fixtures/shapes-gcc-dw5 -o $(BUILD)/fixtures/shapes-gcc-dw5.enc
	tests/fuzz/mutate_elf.py $(BUILD)/fixtures/shapes-gcc-dw5.enc 1000 build-asan/btfinline dump {} outer scale widen -p
	tests/fuzz/mutate_elf.py $(BUILD)/fixtures/shapes-gcc-dw5.enc 300 build-asan/btfinline dump {} outer scale --why

# Interop with upstream libbpf (not in `make check`: needs a source tree we
# cannot download): builds LIBBPF_SRC's libbpf statically into
# $(BUILD)/interop, the checker against its headers only, btfinline's own
# site printer (ours) against libbtfinline.a, and runs both on the
# fixtures' and the cached Debian kernel's blobs (tests/interop/run.sh).
INTEROP := $(BUILD)/interop
ifneq ($(filter interop,$(MAKECMDGOALS)),)
ifeq ($(LIBBPF_SRC),)
$(error make interop needs LIBBPF_SRC=DIR, an upstream libbpf source tree with src/ and include/ (a checkout of github.com/libbpf/libbpf: the search tool's fetch of github:libbpf/libbpf mirrors it, then git -C /work/.mirror/libbpf+libbpf/repo archive HEAD | tar -x -C DIR))
endif
ifneq ($(words $(wildcard $(LIBBPF_SRC)/src/btf.c $(LIBBPF_SRC)/include/uapi/linux/btf.h)),2)
$(error LIBBPF_SRC=$(LIBBPF_SRC): no src/btf.c or include/uapi/linux/btf.h there (not a libbpf source tree))
endif
endif

$(INTEROP)/root/lib/libbpf.a: FORCE
	@mkdir -p $(INTEROP)/obj
	$(MAKE) -C $(LIBBPF_SRC)/src BUILD_STATIC_ONLY=1 CC=$(CC) CFLAGS='-g -O2' \
		OBJDIR=$(abspath $(INTEROP))/obj DESTDIR=$(abspath $(INTEROP))/root \
		PREFIX= LIBDIR=/lib INCLUDEDIR=/include UAPIDIR=/include \
		install install_uapi_headers

# Only the upstream tree's installed headers: -I comes before /usr/include,
# and check.c fails to compile on Debian's 1.1 headers.
$(INTEROP)/check: tests/interop/check.c $(INTEROP)/root/lib/libbpf.a
	$(CC) -O2 -g -std=gnu11 -Wall -Wextra -Wno-unused-parameter -D_GNU_SOURCE \
		-I$(INTEROP)/root/include -o $@ $< $(INTEROP)/root/lib/libbpf.a -lelf -lz

# btfinline's side of the field-by-field site comparison: the public
# reader API, linked as any user of libbtfinline.a is.
$(INTEROP)/ours: tests/interop/ours.c $(LIB) include/btfinline.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LIB) $(LIBS) $(LDFLAGS)

interop: all fixtures $(INTEROP)/check $(INTEROP)/ours
	tests/interop/run.sh $(BUILD)

FORCE:

run: deps
	$(MAKE) all
	scripts/run-example.sh $(BUILD)

check: deps
	$(MAKE) all unit
	$(MAKE) asan
	tests/run.sh

# ---- Install ----
# PREFIX and DESTDIR as usual; debian/rules sets PREFIX=/usr and LIBDIR to
# the multiarch directory. Directories are left in place by uninstall.
PREFIX       ?= /usr/local
BINDIR       ?= $(PREFIX)/bin
LIBDIR       ?= $(PREFIX)/lib
INCLUDEDIR   ?= $(PREFIX)/include
MANDIR       ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
BASHCOMPDIR  ?= $(PREFIX)/share/bash-completion/completions
INSTALL      ?= install
RST2MAN      ?= rst2man
HEADERS      := include/btfinline.h include/btfinline.bpf.h

# The .pc names the install directories: regenerated every time (a sed),
# replaced only when it changes (make PREFIX=... after a plain make).
$(PC): src/lib/btfinline.pc.in FORCE | $(BUILD)
	@sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' \
	    -e 's|@LIBDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))|' \
	    -e 's|@INCLUDEDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))|' $< > $@.tmp
	@if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@ && echo "  PC $@ (prefix $(PREFIX))"; fi

# Man pages (section 8, as bpftool's): reStructuredText in docs/man/.
$(BUILD)/man/%.8: docs/man/%.rst VERSION
	@mkdir -p $(dir $@)
	sed 's/@VERSION@/$(VERSION)/' $< | $(RST2MAN) --strict > $@.tmp && mv $@.tmp $@

man: $(MANS)

install: $(BIN) $(LIB) $(SO) $(PC) $(MANS)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) \
		$(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(BASHCOMPDIR)
	$(INSTALL) -m 755 $(BIN) $(DESTDIR)$(BINDIR)/btfinline
	$(INSTALL) -m 644 $(LIB) $(SO) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(SO)) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libbtfinline.so
	$(INSTALL) -m 644 $(HEADERS) $(DESTDIR)$(INCLUDEDIR)/
	$(INSTALL) -m 644 $(PC) $(DESTDIR)$(PKGCONFIGDIR)/
	$(INSTALL) -m 644 $(MANS) $(DESTDIR)$(MANDIR)/man8/
	$(INSTALL) -m 644 bash-completion/btfinline $(DESTDIR)$(BASHCOMPDIR)/btfinline
	[ -n "$(DESTDIR)" ] || ldconfig || true	# the new .so in the loader's cache

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/btfinline \
		$(DESTDIR)$(LIBDIR)/libbtfinline.a $(DESTDIR)$(LIBDIR)/libbtfinline.so \
		$(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/$(notdir $(SO)) \
		$(addprefix $(DESTDIR)$(INCLUDEDIR)/,$(notdir $(HEADERS))) \
		$(DESTDIR)$(PKGCONFIGDIR)/btfinline.pc \
		$(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(MANS))) \
		$(DESTDIR)$(BASHCOMPDIR)/btfinline
	[ -n "$(DESTDIR)" ] || ldconfig || true

# Debian packages (debian/): built in a copy of the tree under DEBDIR, the
# .debs left there. tests/t_install.sh builds, installs and removes them.
DEBDIR ?= $(BUILD)/deb
DEB_EXCLUDE := --exclude='./build*' --exclude=./.git --exclude=./debian/.debhelper \
	--exclude=./debian/tmp --exclude=./debian/files --exclude='./debian/*.substvars' \
	--exclude=./debian/debhelper-build-stamp --exclude=./debian/btfinline \
	--exclude=./debian/libbtfinline0 --exclude=./debian/libbtfinline-dev
deb:
	rm -rf $(DEBDIR) && mkdir -p $(DEBDIR)/btfinline-$(VERSION)
	tar $(DEB_EXCLUDE) -cf - . | tar -xf - -C $(DEBDIR)/btfinline-$(VERSION)
	cd $(DEBDIR)/btfinline-$(VERSION) && env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS dpkg-buildpackage -us -uc -b
	@ls $(DEBDIR)/*.deb

clean:
	rm -rf build build-asan build-fuzz
