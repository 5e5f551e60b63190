/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The bytes of DWARF call frame information as cfi.c writes them: a
 * growing buffer that remembers running out of memory, little-endian
 * words and LEB128 numbers. Internal to lib/unwind/.
 */
#ifndef MODSECT_CFI_INT_H
#define MODSECT_CFI_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base/base.h"

struct out {
	uint8_t *buf;
	size_t len, cap;
	bool oom;
};

static inline void put(struct out *o, const void *p, size_t n)
{
	if (o->oom)
		return;
	if (ms_reserve(&o->buf, &o->cap, o->len + n, 1, 1 << 16)) {
		o->oom = true;
		return;
	}
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

static inline void put8(struct out *o, uint8_t v)
{
	put(o, &v, 1);
}

static inline void put_le(struct out *o, uint64_t v, int n)
{
	uint8_t b[8];

	for (int i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> 8 * i);
	put(o, b, (size_t)n);
}

static inline size_t uleb(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	do {
		p[n] = v & 0x7f;
		v >>= 7;
		p[n] |= v ? 0x80 : 0;
		n++;
	} while (v);
	return n;
}

static inline size_t sleb(uint8_t *p, int64_t v)
{
	size_t n = 0;
	bool more;

	do {
		uint8_t b = v & 0x7f;

		v >>= 7; /* arithmetic: gcc and clang */
		more = !((v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40)));
		p[n++] = b | (more ? 0x80 : 0);
	} while (more);
	return n;
}

static inline void put_uleb(struct out *o, uint64_t v)
{
	uint8_t b[10];

	put(o, b, uleb(b, v));
}

static inline void put_sleb(struct out *o, int64_t v)
{
	uint8_t b[10];

	put(o, b, sleb(b, v));
}

#endif
