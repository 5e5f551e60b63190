# modsect: see README.md. `make`, `make check`, `make demo`, `make static`.
CC ?= gcc
PKG_CONFIG ?= pkg-config
PKGS := libelf libdw libdebuginfod libkmod json-c zlib liblzma libzstd libmd \
	libbpf libkdumpfile liblz4 capstone
# libdebuginfod, libkmod, libkdumpfile and capstone are opened when first
# needed (lib/dlib.c), not linked: their headers only. Linked, they brought
# libcurl, libcrypto and libstdc++ into the start-up of every run, and
# capstone 0.8 ms more (measured: a program linked to it starts in 1.5 ms,
# without in 0.7 ms). glibc 2.34 and later has dlopen in libc, so no -ldl.
DLOPEN_PKGS := libdebuginfod libkmod libkdumpfile capstone
LINK_PKGS := $(filter-out $(DLOPEN_PKGS),$(PKGS))
CFLAGS ?= -O2 -g
WARN := -std=gnu11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-missing-field-initializers
SAN ?=
ALL_CFLAGS = $(WARN) $(CFLAGS) $(SAN) -D_GNU_SOURCE -Ilib $(shell $(PKG_CONFIG) --cflags $(PKGS))
LIBS = $(shell $(PKG_CONFIG) --libs $(LINK_PKGS))

LIB_SRCS := $(wildcard lib/*/*.c)
TOOL_SRCS := $(wildcard tools/*.c)
# The static build carries only what `capture` needs: no libelf, no libkmod.
STATIC_SRCS := lib/unwind/orc.c lib/unwind/a64.c lib/unwind/a64insn.c lib/unwind/x86cfi.c lib/unwind/cfirow.c lib/base/bytes.c lib/base/err.c lib/base/hex.c lib/base/notes.c lib/base/arch.c lib/base/util.c lib/base/ctx.c lib/map/map.c lib/base/output.c lib/map/sysfs.c lib/map/sysmod.c lib/map/livesyms.c lib/map/capture.c lib/source/source.c \
	tools/main.c tools/options.c tools/common.c tools/capture.c
HDRS := $(wildcard lib/*.h lib/*/*.h tools/*.h)

BUILD ?= build
BIN ?= modsect
OBJS := $(patsubst %.c,$(BUILD)/%.o,$(LIB_SRCS) $(TOOL_SRCS))
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_BIN := build/san/modsect

all: deps-quiet $(BIN)

# Test helpers (tests/tools/*.c): small programs on the library, for the
# unit tests of pieces the command line does not reach alone.
TEST_TOOLS := $(patsubst tests/tools/%.c,$(BUILD)/tests/%,$(wildcard tests/tools/*.c))
LIB_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(LIB_SRCS))
$(BUILD)/tests/%: tests/tools/%.c $(LIB_OBJS) $(HDRS) $(wildcard tests/tools/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Ilib -o $@ $< $(LIB_OBJS) $(LIBS) $(LDFLAGS)
test-tools: $(TEST_TOOLS)

deps-quiet:
	@scripts/deps.sh build

$(BIN): $(OBJS)
	$(CC) $(ALL_CFLAGS) -o $@ $(OBJS) $(LIBS) $(LDFLAGS)

$(BUILD)/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

static: modsect-static
modsect-static: $(STATIC_SRCS) $(HDRS)
	$(CC) $(WARN) -Os -D_GNU_SOURCE -Ilib -DMODSECT_STATIC -static -s -o $@ $(STATIC_SRCS)

deps:
	@scripts/deps.sh build

# The tests run the binary built with AddressSanitizer and UBSan.
san:
	$(MAKE) BUILD=build/san BIN=$(SAN_BIN) SAN="$(SAN_FLAGS)" $(SAN_BIN) test-tools

# Unit tests, a short run of every fuzz target, then the real kernel under
# QEMU: test.sh (one boot), gdbcmd.sh (the in-gdb command, one boot),
# memsrc.sh (the map from memory: gdbstub, tty, vmcores; one boot),
# memfail.sh (a target that stops answering or goes away, vmcores cut
# short: exit 3, nothing written; one boot), ingdb.sh (modsect on gdb's own connection, module loads followed) and
# unwind.sh (gdb's and lldb's bt against the kernel's own trace; one boot)
# and types.sh (the kernel's types from BTF against BTF, gcc and the
# kernel's own word; one boot) and serve.sh (every task a thread in gdb
# and lldb on QEMU's dumps, against /proc/PID/stack; one boot) on Debian 12's 6.1; then kernel.sh's proofs (one boot each) on the other
# kernels users run: CHECK_KERNELS (tests/vm/kernels.sh names them).
# s390x: about 2.5 min alone on 2 cores (boot 10-27 s); ppc64el and
# armhf about 2 min each.
CHECK_KERNELS ?= 6.12-amd64 686-pae arm64 armhf s390x ppc64el
check: check-deps
	$(MAKE) san modsect-static modsect fuzz-build
	MODSECT=$(SAN_BIN) tests/run.sh
	fuzz/run.sh $(FUZZ_SMOKE_SECONDS)
	MODSECT=$(SAN_BIN) MODSECT_STATIC=$(CURDIR)/modsect-static tests/vm/test.sh
	MODSECT=$(SAN_BIN) MODSECT_STATIC=$(CURDIR)/modsect-static tests/vm/gdbcmd.sh
	MODSECT=$(SAN_BIN) MODSECT_STATIC=$(CURDIR)/modsect-static tests/vm/memsrc.sh
	MODSECT=$(SAN_BIN) MODSECT_STATIC=$(CURDIR)/modsect-static tests/vm/memfail.sh
	MODSECT=$(SAN_BIN) tests/vm/ingdb.sh
	MODSECT=$(SAN_BIN) tests/vm/unwind.sh
	MODSECT=$(SAN_BIN) tests/vm/types.sh
	MODSECT=$(SAN_BIN) tests/vm/serve.sh
	$(MAKE) check-kernels

# kernel.sh on each of CHECK_KERNELS, and unwind.sh (bt against the
# kernel's own unwinder), types.sh and serve.sh on the other x86-64 one;
# unwind.sh on arm64 (its tables made from code): 6.1 on a CPU without
# pointer authentication, 6.12 on one with it (QEMU's -cpu max: PAC);
# on 686-pae (i386's tables made from code, no BTF), and on armhf, s390x
# and ppc64el (the script walks as their kernels do; about 1.5-2.5 min
# each alone on 2 cores); every one runs, then the status.
UNWIND_KERNELS ?= 6.12-amd64
ARM64_UNWIND ?= arm64:cortex-a57 6.12-arm64:max
CODE_UNWIND ?= 686-pae armhf s390x ppc64el
check-kernels: san
	@rc=0; for k in $(CHECK_KERNELS); do \
		MODSECT=$(SAN_BIN) MODSECT_VM_KERNEL=$$k \
			MODSECT_VM_OUT=$(CURDIR)/tests/vm/out/$$k \
			tests/vm/kernel.sh || rc=1; \
	done; for k in $(UNWIND_KERNELS); do \
		MODSECT=$(SAN_BIN) MODSECT_VM_KERNEL=$$k \
			MODSECT_VM_OUT=$(CURDIR)/tests/vm/out/$$k \
			tests/vm/unwind.sh || rc=1; \
		MODSECT=$(SAN_BIN) MODSECT_VM_KERNEL=$$k \
			MODSECT_VM_OUT=$(CURDIR)/tests/vm/out/$$k \
			tests/vm/types.sh || rc=1; \
		MODSECT=$(SAN_BIN) MODSECT_VM_KERNEL=$$k \
			MODSECT_VM_OUT=$(CURDIR)/tests/vm/out/$$k \
			tests/vm/serve.sh || rc=1; \
	done; for kc in $(ARM64_UNWIND); do \
		MODSECT=$(SAN_BIN) MODSECT_VM_KERNEL=$${kc%%:*} \
			MODSECT_VM_CPU=$${kc#*:} \
			MODSECT_VM_OUT=$(CURDIR)/tests/vm/out/$${kc%%:*} \
			tests/vm/unwind.sh || rc=1; \
	done; for k in $(CODE_UNWIND); do \
		MODSECT=$(SAN_BIN) MODSECT_VM_KERNEL=$$k \
			MODSECT_VM_OUT=$(CURDIR)/tests/vm/out/$$k \
			tests/vm/unwind.sh || rc=1; \
	done; exit $$rc

# The whole VM suite on one kernel: make check-vm KERNEL=arm64 (host,
# 6.12-amd64, 686-pae, arm64, ppc64el; armhf and s390x: kernel.sh alone, as
# no static modsect is cross-built for them). test.sh, gdbcmd.sh and memsrc.sh run
# modsect inside the guest: on another architecture than the host's, a
# static modsect cross-built for it (modsect-static-ARCH).
KERNEL ?= host
check-vm: check-deps
	$(MAKE) san modsect-static
	scripts/vm-suite.sh $(KERNEL)

check-unit: check-deps
	$(MAKE) san
	MODSECT=$(SAN_BIN) tests/run.sh

check-deps:
	@scripts/deps.sh check

demo:
	@scripts/deps.sh demo
	$(MAKE) modsect modsect-static
	MODSECT=$(CURDIR)/modsect MODSECT_STATIC=$(CURDIR)/modsect-static tests/vm/demo.sh

clean:
	rm -rf $(BUILD) modsect modsect-static tests/out

.PHONY: san deps-quiet all static test-tools clean deps check check-unit check-deps demo check-kernels check-vm

# Fuzzing (fuzz/): libFuzzer targets built with clang from lib/*.c.
# `make fuzz FUZZ_SECONDS=60` runs each target that long; `make fuzz-smoke`
# about 10 s each. See docs/robustness.md.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 10
FUZZ_TARGETS := capture modfile kallsyms logparse decompress rsp ksymtab kmem index orc a64 btf serve
FUZZ_BINS := $(patsubst %,build/fuzz/fuzz_%,$(FUZZ_TARGETS))
FUZZ_COMMON := -g -O1 -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_FLAGS := -fsanitize=fuzzer,address,undefined $(FUZZ_COMMON)

# The library is compiled once for every target (fuzzer-no-link: coverage
# without libFuzzer's main); each target links it with its own main.
FUZZ_OBJS := $(patsubst lib/%.c,build/fuzz/lib/%.o,$(LIB_SRCS))
FUZZ_CFLAGS = -std=gnu11 -Wall -Wextra -Wno-missing-field-initializers \
	-D_GNU_SOURCE -Ilib $(shell $(PKG_CONFIG) --cflags $(PKGS))

build/fuzz/lib/%.o: lib/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined \
		$(FUZZ_COMMON) -c -o $@ $<

build/fuzz/fuzz_%: fuzz/fuzz_%.c $(FUZZ_OBJS) $(HDRS) $(wildcard tests/tools/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_FLAGS) -o $@ $< $(FUZZ_OBJS) $(LIBS)

fuzz-build: $(FUZZ_BINS)
.SECONDARY: $(FUZZ_OBJS)

fuzz: fuzz-build $(BIN)
	fuzz/run.sh $(FUZZ_SECONDS)

fuzz-smoke: fuzz-build $(BIN)
	fuzz/run.sh $(FUZZ_SMOKE_SECONDS)

.PHONY: fuzz fuzz-build fuzz-smoke

# Installation: `make install` (PREFIX, default /usr/local; DESTDIR for
# staging, as debian/rules does), `make uninstall`.  INSTALL_BIN is the
# binary to install (default the one `make` builds).
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
PKGDATADIR ?= $(DATADIR)/modsect
INSTALL ?= install
INSTALL_BIN ?= $(BIN)

install: $(INSTALL_BIN)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR) \
		$(DESTDIR)$(PKGDATADIR)/gdb $(DESTDIR)$(PKGDATADIR)/lldb $(DESTDIR)$(PKGDATADIR)/python
	$(INSTALL) -m 755 $(INSTALL_BIN) $(DESTDIR)$(BINDIR)/modsect
	$(INSTALL) -m 644 man/modsect.1 $(DESTDIR)$(MANDIR)/man1/modsect.1
	$(INSTALL) -m 644 share/bash-completion/modsect.bash $(DESTDIR)$(BASHCOMPDIR)/modsect
	sed 's|@BINDIR@|$(BINDIR)|' share/gdb/modsect.py >$(DESTDIR)$(PKGDATADIR)/gdb/modsect.py
	sed 's|@BINDIR@|$(BINDIR)|' share/lldb/modsect.py >$(DESTDIR)$(PKGDATADIR)/lldb/modsect.py
	$(INSTALL) -m 644 share/python/modsect_stub.py $(DESTDIR)$(PKGDATADIR)/python/modsect_stub.py
	chmod 644 $(DESTDIR)$(PKGDATADIR)/gdb/modsect.py $(DESTDIR)$(PKGDATADIR)/lldb/modsect.py

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/modsect $(DESTDIR)$(MANDIR)/man1/modsect.1 \
		$(DESTDIR)$(BASHCOMPDIR)/modsect \
		$(DESTDIR)$(PKGDATADIR)/gdb/modsect.py $(DESTDIR)$(PKGDATADIR)/lldb/modsect.py \
		$(DESTDIR)$(PKGDATADIR)/python/modsect_stub.py
	rm -rf $(DESTDIR)$(PKGDATADIR)/python/__pycache__
	rmdir $(DESTDIR)$(PKGDATADIR)/gdb $(DESTDIR)$(PKGDATADIR)/lldb $(DESTDIR)$(PKGDATADIR)/python \
		$(DESTDIR)$(PKGDATADIR) 2>/dev/null || true

.PHONY: install uninstall
