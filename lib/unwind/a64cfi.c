// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * arm64 frame rules (a64.c) as DWARF call frame information: a
 * .debug_frame of version 1 CIEs, 64-bit addresses, AArch64's DWARF
 * register numbers (x0-x30 0-30, sp 31, pc 32), one FDE per function.
 *
 * The return address is given as a value, with its pointer
 * authentication code cleared: Debian's kernels sign every saved x30
 * (paciasp) where the CPU has PAC, and QEMU 7.2's gdbstub gives gdb no
 * pauth registers, so gdb strips nothing (DW_CFA_AARCH64_negate_ra_state
 * alone would not do). The kernel's unwinder does the same:
 * ptrauth_strip_kernel_insn_pac() sets bits 63..vabits_actual
 * (arch/arm64/include/asm/pointer_auth.h). Kernel text, the image and
 * modules, lies where bits 63..48 are all set whatever VA_BITS (its
 * KIMAGE_VADDR is in the 48-bit range), so the same mask serves 48- and
 * 52-bit kernels.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cfi-int.h"
#include "unwind.h"

#define NCOLS 33
#define COL_SP 31
#define COL_PC 32
#define EXPR_MAX 24

enum { K_INIT, K_UNDEF, K_SAME, K_OFF, K_EXPR, K_VAL_EXPR };

struct rule {
	uint8_t kind, len;
	int32_t off;
	uint8_t expr[EXPR_MAX];
};

struct row {
	bool cfa_expr;
	uint8_t cfa_reg, cfa_len;
	int32_t cfa_off;
	uint8_t cfa_x[EXPR_MAX];
	struct rule c[NCOLS];
};

/* ..., x: x | 0xffff000000000000 (the PAC bits of a kernel address set) */
static size_t strip_pac(uint8_t *x, size_t n)
{
	x[n++] = DW_OP_const2u;
	x[n++] = 0xff;
	x[n++] = 0xff;
	x[n++] = DW_OP_const1u;
	x[n++] = 48;
	x[n++] = DW_OP_shl;
	x[n++] = DW_OP_or;
	return n;
}

/* The return address in x30 (a leaf, or before the prologue). */
static void ra_in_x30(struct rule *r)
{
	size_t n = 0;

	r->kind = K_VAL_EXPR;
	r->expr[n++] = DW_OP_drop; /* the CFA */
	r->expr[n++] = DW_OP_breg30;
	r->expr[n++] = 0;
	r->len = (uint8_t)strip_pac(r->expr, n);
}

/* The return address saved at CFA + at. */
static void ra_at(struct rule *r, int32_t at)
{
	size_t n = 0;

	r->kind = K_VAL_EXPR;
	r->expr[n++] = DW_OP_consts;
	n += ms_sleb(r->expr + n, at);
	r->expr[n++] = DW_OP_plus;
	r->expr[n++] = DW_OP_deref;
	r->len = (uint8_t)strip_pac(r->expr, n);
}

/* A word of the pt_regs at sp + base + off: its address (K_EXPR). */
static void regs_word(struct rule *r, int32_t base, uint32_t off)
{
	size_t n = 0;

	r->kind = K_EXPR;
	r->expr[n++] = DW_OP_breg31;
	n += ms_sleb(r->expr + n, (int64_t)base + off);
	r->len = (uint8_t)n;
}

static void init_row(struct row *t, bool signal)
{
	memset(t, 0, sizeof(*t));
	t->cfa_reg = COL_SP;
	if (signal) {
		t->c[COL_PC].kind = K_UNDEF;
		return;
	}
	ra_in_x30(&t->c[30]);
	for (int i = 19; i <= 29; i++)
		t->c[i].kind = K_SAME;
}

static void frame_row(const struct ms_a64_row *r, struct row *t)
{
	t->cfa_reg = r->cfa_reg;
	t->cfa_off = r->cfa_off;
	if (r->fp_at) {
		t->c[29].kind = K_OFF;
		t->c[29].off = r->fp_at;
	}
	if (r->lr_at)
		ra_at(&t->c[30], r->lr_at);
	for (int i = 0; i < 10; i++) {
		if (r->saved[i]) {
			t->c[19 + i].kind = K_OFF;
			t->c[19 + i].off = r->saved[i];
		}
	}
}

/* An exception's frame: everything from the pt_regs at sp + cfa_off. */
static void regs_row(const struct ms_a64_row *r, const struct ms_a64_facts *f,
		     struct row *t)
{
	struct rule sp;

	regs_word(&sp, r->cfa_off, f->regs_sp);
	t->cfa_expr = true;
	memcpy(t->cfa_x, sp.expr, sp.len);
	t->cfa_x[sp.len] = DW_OP_deref;
	t->cfa_len = (uint8_t)(sp.len + 1);
	for (int i = 0; i <= 30; i++)
		regs_word(&t->c[i], r->cfa_off, 8 * (uint32_t)i);
	regs_word(&t->c[COL_PC], r->cfa_off, f->regs_pc);
}

static void row_of(const struct ms_a64_row *r, const struct ms_a64_facts *f,
		   bool signal, struct row *t)
{
	init_row(t, signal);
	switch (r->kind) {
	case MS_A64_FRAME:
		frame_row(r, t);
		break;
	case MS_A64_REGS:
		regs_row(r, f, t);
		break;
	default:
		t->c[signal ? COL_PC : 30].kind = K_UNDEF;
		break;
	}
}

static bool rule_eq(const struct rule *a, const struct rule *b)
{
	return a->kind == b->kind && a->off == b->off && a->len == b->len &&
	       !memcmp(a->expr, b->expr, a->len);
}

static void emit_cfa(struct ms_bytes *o, const struct row *cur,
		     const struct row *t)
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

static void emit_rule(struct ms_bytes *o, int col, const struct rule *r)
{
	switch (r->kind) {
	case K_INIT:
		put8(o, DW_CFA_restore_extended);
		put_uleb(o, (uint64_t)col);
		break;
	case K_UNDEF:
	case K_SAME:
		put8(o,
		     r->kind == K_UNDEF ? DW_CFA_undefined : DW_CFA_same_value);
		put_uleb(o, (uint64_t)col);
		break;
	case K_OFF:
		put8(o, DW_CFA_offset_extended_sf);
		put_uleb(o, (uint64_t)col);
		put_sleb(o, r->off / -8);
		break;
	default:
		cfi_put_expr(o,
			     r->kind == K_EXPR ? DW_CFA_expression :
						 DW_CFA_val_expression,
			     (uint64_t)col, r->expr, r->len);
		break;
	}
}

static void emit_row(struct ms_bytes *o, struct row *cur, const struct row *t)
{
	emit_cfa(o, cur, t);
	for (int c = 0; c < NCOLS; c++)
		if (!rule_eq(&cur->c[c], &t->c[c]))
			emit_rule(o, c, &t->c[c]);
	*cur = *t;
}

static void put_cie(struct ms_bytes *o, bool signal)
{
	size_t start = o->len;
	struct row t, none;

	put_le(o, 0, 4);
	put_le(o, 0xffffffff, 4);
	put8(o, 1);
	put(o, signal ? "zS" : "", signal ? 3 : 1);
	put_uleb(o, 4); /* code alignment: one instruction */
	put_sleb(o, -8);
	put8(o, signal ? COL_PC : 30);
	if (signal)
		put_uleb(o, 0);
	memset(&none, 0, sizeof(none));
	none.cfa_reg = 0xff;
	init_row(&t, signal);
	emit_row(o, &none, &t);
	cfi_end_entry(o, start);
}

/* The rows [i, j) of one function, under the CIE at cie_off. */
static void put_fde(struct ms_bytes *o, const struct ms_a64 *a, size_t i,
		    size_t j, size_t cie_off, bool signal)
{
	size_t start = o->len;
	struct row cur, t;

	put_le(o, 0, 4);
	put_le(o, cie_off, 4);
	put_le(o, a->r[i].ip, 8);
	put_le(o, a->r[j - 1].end - a->r[i].ip, 8);
	if (signal)
		put_uleb(o, 0);
	init_row(&cur, signal);
	for (size_t k = i; k < j; k++) {
		if (k > i)
			cfi_advance(o, (a->r[k].ip - a->r[k - 1].ip) / 4);
		row_of(&a->r[k], &a->facts, signal, &t);
		emit_row(o, &cur, &t);
	}
	cfi_end_entry(o, start);
}

int ms_a64_to_debug_frame(const struct ms_a64 *a, unsigned int flags,
			  void **buf_ret, size_t *len_ret, struct ms_err *err)
{
	struct ms_bytes o = { 0 };
	size_t cie_plain, cie_signal;

	(void)flags;
	cie_plain = o.len;
	put_cie(&o, false);
	cie_signal = o.len;
	put_cie(&o, true);
	for (size_t i = 0; i < a->n;) {
		size_t j = i + 1;
		bool sig = a->r[i].kind == MS_A64_REGS;

		while (j < a->n && !a->r[j].fstart &&
		       a->r[j].ip == a->r[j - 1].end) {
			sig |= a->r[j].kind == MS_A64_REGS;
			j++;
		}
		put_fde(&o, a, i, j, sig ? cie_signal : cie_plain, sig);
		i = j;
	}
	if (o.oom) {
		free(o.buf);
		return ms_err_errno(err, ENOMEM, "arm64 unwind tables");
	}
	*buf_ret = o.buf;
	*len_ret = o.len;
	return 0;
}
