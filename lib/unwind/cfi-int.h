/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The bytes of DWARF call frame information as cfi.c and a64cfi.c write
 * them: a growing buffer that remembers running out of memory,
 * little-endian words, LEB128 numbers, advances and entries' ends.
 * Internal to lib/unwind/.
 */
#ifndef MODSECT_CFI_INT_H
#define MODSECT_CFI_INT_H

#include <dwarf.h>
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

/* DW_CFA_expression or DW_CFA_val_expression (op) of column col. */
static inline void cfi_put_expr(struct out *o, uint8_t op, uint64_t col,
				const uint8_t *x, size_t len)
{
	put8(o, op);
	put_uleb(o, col);
	put_uleb(o, len);
	put(o, x, len);
}

/* DW_CFA_def_cfa_expression. */
static inline void cfi_put_cfa_expr(struct out *o, const uint8_t *x, size_t len)
{
	put8(o, DW_CFA_def_cfa_expression);
	put_uleb(o, len);
	put(o, x, len);
}

/* DW_CFA_advance_loc*: d code alignment units on. */
static inline void cfi_advance(struct out *o, uint64_t d)
{
	if (d < 0x40) {
		put8(o, (uint8_t)(DW_CFA_advance_loc | d));
	} else if (d <= 0xff) {
		put8(o, DW_CFA_advance_loc1);
		put_le(o, d, 1);
	} else if (d <= 0xffff) {
		put8(o, DW_CFA_advance_loc2);
		put_le(o, d, 2);
	} else {
		put8(o, DW_CFA_advance_loc4);
		put_le(o, d, 4);
	}
}

/* Pads the CIE or FDE at start to 8 bytes and fills in its length. */
static inline void cfi_end_entry(struct out *o, size_t start)
{
	size_t n;

	while ((o->len - start) % 8)
		put8(o, DW_CFA_nop);
	if (o->oom)
		return;
	n = o->len - start - 4;
	for (int i = 0; i < 4; i++)
		o->buf[start + (size_t)i] = (uint8_t)(n >> 8 * i);
}

#endif
