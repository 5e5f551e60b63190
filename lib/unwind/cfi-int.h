/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The bytes of DWARF call frame information as cfi.c and a64cfi.c write
 * them, in base/'s buffer (struct ms_bytes, little-endian): advances,
 * expressions and entries' ends.
 * Internal to lib/unwind/.
 */
#ifndef MODSECT_CFI_INT_H
#define MODSECT_CFI_INT_H

#include <dwarf.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base/base.h"

/* base/'s buffer, little-endian: the names the writers use. */
static inline void put(struct ms_bytes *o, const void *p, size_t n)
{
	ms_bytes_put(o, p, n);
}

static inline void put8(struct ms_bytes *o, uint8_t v)
{
	ms_bytes_put8(o, v);
}

static inline void put_le(struct ms_bytes *o, uint64_t v, int n)
{
	ms_bytes_uint(o, v, n);
}

static inline void put_uleb(struct ms_bytes *o, uint64_t v)
{
	ms_bytes_uleb(o, v);
}

static inline void put_sleb(struct ms_bytes *o, int64_t v)
{
	ms_bytes_sleb(o, v);
}

/* DW_CFA_expression or DW_CFA_val_expression (op) of column col. */
static inline void cfi_put_expr(struct ms_bytes *o, uint8_t op, uint64_t col,
				const uint8_t *x, size_t len)
{
	put8(o, op);
	put_uleb(o, col);
	put_uleb(o, len);
	put(o, x, len);
}

/* DW_CFA_def_cfa_expression. */
static inline void cfi_put_cfa_expr(struct ms_bytes *o, const uint8_t *x, size_t len)
{
	put8(o, DW_CFA_def_cfa_expression);
	put_uleb(o, len);
	put(o, x, len);
}

/* DW_CFA_advance_loc*: d code alignment units on. */
static inline void cfi_advance(struct ms_bytes *o, uint64_t d)
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
static inline void cfi_end_entry(struct ms_bytes *o, size_t start)
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
