# modsect: see README.md. `make`, `make check`, `make demo`, `make static`.
CC ?= gcc
PKG_CONFIG ?= pkg-config
PKGS := libelf libdw libkmod json-c zlib liblzma libzstd libmd
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
OBJS := $(patsubst %.c,$(BUILD)/%.o,$(LIB_SRCS) $(TOOL_SRCS))

all: modsect

modsect: $(OBJS)
	$(CC) $(ALL_CFLAGS) -o $@ $(OBJS) $(LIBS) $(LDFLAGS)

$(BUILD)/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

static: modsect-static
modsect-static: $(STATIC_SRCS) $(HDRS)
	$(CC) $(WARN) -Os -D_GNU_SOURCE -DMODSECT_STATIC -static -s -o $@ $(STATIC_SRCS)

clean:
	rm -rf $(BUILD) modsect modsect-static tests/out

.PHONY: all static clean
