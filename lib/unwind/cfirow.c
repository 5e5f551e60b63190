// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Rows of frame rules made from code (a64.c's, x86.c's) as a .debug_frame
 * of version 1 CIEs: each row written as what changed from the one before
 * it, one FDE per function. The architecture gives its columns, its
 * sizes and how each of its rows reads as rules (struct cfi_arch).
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cfi-int.h"

void cfi_regs_word(struct cfi_rule *r, uint8_t sp_col, int32_t base,
		   uint32_t off)
{
	size_t n = 0;

	r->kind = CFI_EXPR;
	r->expr[n++] = (uint8_t)(DW_OP_breg0 + sp_col);
	n += ms_sleb(r->expr + n, (int64_t)base + off);
	r->len = (uint8_t)n;
}

void cfi_regs_cfa(struct cfi_row *t, uint8_t sp_col, int32_t base, uint32_t off)
{
	struct cfi_rule sp;

	cfi_regs_word(&sp, sp_col, base, off);
	t->cfa_expr = true;
	memcpy(t->cfa_x, sp.expr, sp.len);
	t->cfa_x[sp.len] = DW_OP_deref;
	t->cfa_len = (uint8_t)(sp.len + 1);
}

static bool rule_eq(const struct cfi_rule *a, const struct cfi_rule *b)
{
	return a->kind == b->kind && a->off == b->off && a->len == b->len &&
	       !memcmp(a->expr, b->expr, a->len);
}

static void emit_cfa(struct ms_bytes *o, const struct cfi_row *cur,
		     const struct cfi_row *t)
{
	if (t->cfa_expr) {
		if (cur->cfa_expr && cur->cfa_len == t->cfa_len &&
		    !memcmp(cur->cfa_x, t->cfa_x, t->cfa_len))
			return;
		cfi_put_cfa_expr(o, t->cfa_x, t->cfa_len);
	} else if (!cur->cfa_expr && cur->cfa_reg == t->cfa_reg) {
		if (cur->cfa_off != t->cfa_off) {
			put8(o, DW_CFA_def_cfa_offset);
			put_uleb(o, (uint64_t)t->cfa_off);
		}
	} else {
		put8(o, DW_CFA_def_cfa);
		put_uleb(o, t->cfa_reg);
		put_uleb(o, (uint64_t)t->cfa_off);
	}
}

static void emit_rule(struct ms_bytes *o, const struct cfi_arch *arch, int col,
		      const struct cfi_rule *r)
{
	switch (r->kind) {
	case CFI_INIT:
		put8(o, DW_CFA_restore_extended);
		put_uleb(o, (uint64_t)col);
		break;
	case CFI_UNDEF:
	case CFI_SAME:
		put8(o, r->kind == CFI_UNDEF ? DW_CFA_undefined :
					       DW_CFA_same_value);
		put_uleb(o, (uint64_t)col);
		break;
	case CFI_OFF:
		put8(o, DW_CFA_offset_extended_sf);
		put_uleb(o, (uint64_t)col);
		put_sleb(o, r->off / -(int32_t)arch->data_align);
		break;
	default:
		cfi_put_expr(o,
			     r->kind == CFI_EXPR ? DW_CFA_expression :
						   DW_CFA_val_expression,
			     (uint64_t)col, r->expr, r->len);
		break;
	}
}

/* What t changes from cur; cur becomes t (its columns of arch). */
static void emit_row(struct ms_bytes *o, const struct cfi_arch *arch,
		     struct cfi_row *cur, const struct cfi_row *t)
{
	emit_cfa(o, cur, t);
	for (int c = 0; c < arch->ncols; c++)
		if (!rule_eq(&cur->c[c], &t->c[c]))
			emit_rule(o, arch, c, &t->c[c]);
	cur->cfa_expr = t->cfa_expr;
	cur->cfa_reg = t->cfa_reg;
	cur->cfa_len = t->cfa_len;
	cur->cfa_off = t->cfa_off;
	memcpy(cur->cfa_x, t->cfa_x, sizeof(t->cfa_x));
	memcpy(cur->c, t->c, arch->ncols * sizeof(t->c[0]));
}

static void put_cie(struct ms_bytes *o, const struct cfi_arch *arch,
		    bool signal)
{
	size_t start = o->len;
	struct cfi_row t, none;

	put_le(o, 0, 4);
	put_le(o, 0xffffffff, 4);
	put8(o, 1);
	put(o, signal ? "zS" : "", signal ? 3 : 1);
	put_uleb(o, arch->code_align);
	put_sleb(o, -(int64_t)arch->data_align);
	put8(o, signal ? arch->ra_col_signal : arch->ra_col);
	if (signal)
		put_uleb(o, 0);
	memset(&none, 0, sizeof(none));
	none.cfa_reg = 0xff;
	arch->init_row(&t, signal);
	emit_row(o, arch, &none, &t);
	cfi_end_entry(o, start);
}

static void fde_head(struct ms_bytes *o, const struct cfi_arch *arch,
		     size_t cie_off, uint64_t ip, uint64_t end, bool signal)
{
	put_le(o, 0, 4);
	put_le(o, cie_off, 4);
	put_le(o, ip, arch->addr_size);
	put_le(o, end - ip, arch->addr_size);
	if (signal)
		put_uleb(o, 0);
}

/* The rows [i, j) of one function, [ip, end), under the CIE at cie_off. */
static void put_fde(struct ms_bytes *o, const struct cfi_arch *arch,
		    const void *tab, size_t i, size_t j, uint64_t end,
		    size_t cie_off, bool signal)
{
	size_t start = o->len;
	struct cfi_row cur, t;
	struct cfi_span s;
	uint64_t last = 0;

	arch->span(tab, i, &s);
	fde_head(o, arch, cie_off, s.ip, end, signal);
	arch->init_row(&cur, signal);
	for (size_t k = i; k < j; k++) {
		arch->span(tab, k, &s);
		if (k > i)
			cfi_advance(o, (s.ip - last) / arch->code_align);
		last = s.ip;
		arch->row_of(tab, k, signal, &t);
		emit_row(o, arch, &cur, &t);
	}
	cfi_end_entry(o, start);
}

/* User space: its pc ends the walk, as a user-mode pt_regs ends the kernel's. */
static void put_user(struct ms_bytes *o, const struct cfi_arch *arch,
		     uint64_t end, size_t cie_off)
{
	size_t start = o->len;
	struct cfi_row cur, t;

	fde_head(o, arch, cie_off, 0, end, false);
	arch->init_row(&cur, false);
	arch->init_row(&t, false);
	t.c[arch->ra_col].kind = CFI_UNDEF;
	emit_row(o, arch, &cur, &t);
	cfi_end_entry(o, start);
}

int cfi_rows_write(const struct cfi_arch *arch, const void *tab, size_t n,
		   uint64_t user_end, void **buf_ret, size_t *len_ret,
		   struct ms_err *err)
{
	struct ms_bytes o = { 0 };
	size_t cie_plain, cie_signal;

	cie_plain = o.len;
	put_cie(&o, arch, false);
	cie_signal = o.len;
	put_cie(&o, arch, true);
	if (user_end)
		put_user(&o, arch, user_end, cie_plain);
	for (size_t i = 0, j; i < n; i = j) {
		struct cfi_span s;
		bool sig;

		arch->span(tab, i, &s);
		sig = s.signal;
		for (j = i + 1; j < n; j++) {
			uint64_t end = s.end;

			arch->span(tab, j, &s);
			if (s.fstart || s.ip != end) {
				s.end = end;
				break;
			}
			sig |= s.signal;
		}
		put_fde(&o, arch, tab, i, j, s.end,
			sig ? cie_signal : cie_plain, sig);
	}
	if (o.oom) {
		free(o.buf);
		return ms_err_errno(err, ENOMEM, "%s", arch->what);
	}
	*buf_ret = o.buf;
	*len_ret = o.len;
	return 0;
}
