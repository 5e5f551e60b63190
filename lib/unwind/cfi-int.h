/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The bytes of DWARF call frame information as cfi.c, a64cfi.c and
 * x86cfi.c write them, in base/'s buffer (struct ms_bytes, little-endian):
 * advances, expressions and entries' ends; and the rows of rules that
 * a64cfi.c and x86cfi.c hand to cfirow.c, which writes them.
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

/* A column's rule (cfirow.c): what the row says of one register. */
enum {
	CFI_INIT, /* the CIE's */
	CFI_UNDEF,
	CFI_SAME,
	CFI_OFF, /* saved at CFA + off */
	CFI_EXPR, /* saved at the address expr gives */
	CFI_VAL_EXPR, /* the value expr gives */
};

#define CFI_EXPR_MAX 24
#define CFI_MAX_COLS 33 /* arm64's x0-x30, sp, pc */

struct cfi_rule {
	uint8_t kind, len;
	int32_t off;
	uint8_t expr[CFI_EXPR_MAX];
};

/* A row of rules: the CFA (a register and offset, or an expression). */
struct cfi_row {
	bool cfa_expr;
	uint8_t cfa_reg, cfa_len;
	int32_t cfa_off;
	uint8_t cfa_x[CFI_EXPR_MAX];
	struct cfi_rule c[CFI_MAX_COLS];
};

/* Where a row of the table is, and whether it needs the "S" CIE. */
struct cfi_span {
	uint64_t ip, end;
	bool fstart, signal;
};

/* One architecture's rows as DWARF: its columns and its table's rows. */
struct cfi_arch {
	const char *what; /* "arm64 unwind tables": what ENOMEM names */
	uint8_t ncols; /* at most CFI_MAX_COLS */
	uint8_t addr_size, code_align, data_align; /* data_align: its size */
	uint8_t ra_col, ra_col_signal; /* the return address: plain CIE, S */
	/* The rules at a function's entry, and the CIE's. */
	void (*init_row)(struct cfi_row *t, bool signal);
	/* Row k of tab: where it is. */
	void (*span)(const void *tab, size_t k, struct cfi_span *s);
	/* Row k of tab as rules, in a function under the S CIE or not. */
	void (*row_of)(const void *tab, size_t k, bool signal,
		       struct cfi_row *t);
};

/*
 * The n rows of tab as .debug_frame: a plain CIE and an "S" one, then,
 * with user_end set, an FDE over [0, user_end) with the return address
 * undefined, then one FDE per function (rows back to back from a fstart
 * one), under the S CIE where a row of it says signal. 0, or -ENOMEM
 * said in err.
 */
int cfi_rows_write(const struct cfi_arch *arch, const void *tab, size_t n,
		   uint64_t user_end, void **buf_ret, size_t *len_ret,
		   struct ms_err *err);
/* r: saved at sp + base + off (a word of a pt_regs), sp DWARF's sp_col. */
void cfi_regs_word(struct cfi_rule *r, uint8_t sp_col, int32_t base,
		   uint32_t off);
/* t's CFA: the word of the pt_regs at sp + base + off. */
void cfi_regs_cfa(struct cfi_row *t, uint8_t sp_col, int32_t base,
		  uint32_t off);

#endif
