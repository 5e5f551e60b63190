# modsect: see README.md. `make`, `make check`, `make demo`, `make static`.
CC ?= gcc
PKG_CONFIG ?= pkg-config
PKGS := libelf libdw libdebuginfod libkmod json-c zlib liblzma libzstd libmd
CFLAGS ?= -O2 -g
WARN := -std=gnu11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-missing-field-initializers
SAN ?=
ALL_CFLAGS = $(WARN) $(CFLAGS) $(SAN) -D_GNU_SOURCE $(shell $(PKG_CONFIG) --cflags $(PKGS))
LIBS = $(shell $(PKG_CONFIG) --libs $(PKGS))

LIB_SRCS := $(wildcard lib/*.c)
TOOL_SRCS := $(wildcard tools/*.c)
# The static build carries only what `capture` needs: no libelf, no libkmod.
STATIC_SRCS := lib/err.c lib/ctx.c lib/map.c lib/output.c lib/sysfs.c lib/capture.c \
	tools/main.c tools/common.c tools/capture.c
HDRS := $(wildcard lib/*.h tools/*.h)

BUILD ?= build
BIN ?= modsect
OBJS := $(patsubst %.c,$(BUILD)/%.o,$(LIB_SRCS) $(TOOL_SRCS))
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_BIN := build/san/modsect

all: deps-quiet $(BIN)

deps-quiet:
	@scripts/deps.sh build

$(BIN): $(OBJS)
	$(CC) $(ALL_CFLAGS) -o $@ $(OBJS) $(LIBS) $(LDFLAGS)

$(BUILD)/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

static: modsect-static
modsect-static: $(STATIC_SRCS) $(HDRS)
	$(CC) $(WARN) -Os -D_GNU_SOURCE -DMODSECT_STATIC -static -s -o $@ $(STATIC_SRCS)

deps:
	@scripts/deps.sh build

# The tests run the binary built with AddressSanitizer and UBSan.
san:
	$(MAKE) BUILD=build/san BIN=$(SAN_BIN) SAN="$(SAN_FLAGS)"

check: check-deps
	$(MAKE) san modsect-static
	MODSECT=$(SAN_BIN) tests/run.sh
	MODSECT=$(SAN_BIN) MODSECT_STATIC=$(CURDIR)/modsect-static tests/vm/test.sh

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

.PHONY: san deps-quiet all static clean deps check check-unit check-deps demo
