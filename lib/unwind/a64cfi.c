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
#include <string.h>

#include "cfi-int.h"
#include "unwind.h"

#define NCOLS 33
#define COL_SP 31
#define COL_PC 32

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
static void ra_in_x30(struct cfi_rule *r)
{
	size_t n = 0;

	r->kind = CFI_VAL_EXPR;
	r->expr[n++] = DW_OP_drop; /* the CFA */
	r->expr[n++] = DW_OP_breg30;
	r->expr[n++] = 0;
	r->len = (uint8_t)strip_pac(r->expr, n);
}

/* The return address saved at CFA + at. */
static void ra_at(struct cfi_rule *r, int32_t at)
{
	size_t n = 0;

	r->kind = CFI_VAL_EXPR;
	r->expr[n++] = DW_OP_consts;
	n += ms_sleb(r->expr + n, at);
	r->expr[n++] = DW_OP_plus;
	r->expr[n++] = DW_OP_deref;
	r->len = (uint8_t)strip_pac(r->expr, n);
}

static void init_row(struct cfi_row *t, bool signal)
{
	memset(t, 0, sizeof(*t));
	t->cfa_reg = COL_SP;
	if (signal) {
		t->c[COL_PC].kind = CFI_UNDEF;
		return;
	}
	ra_in_x30(&t->c[30]);
	for (int i = 19; i <= 29; i++)
		t->c[i].kind = CFI_SAME;
}

static void frame_row(const struct ms_a64_row *r, struct cfi_row *t)
{
	t->cfa_reg = r->cfa_reg;
	t->cfa_off = r->cfa_off;
	if (r->fp_at) {
		t->c[29].kind = CFI_OFF;
		t->c[29].off = r->fp_at;
	}
	if (r->lr_at)
		ra_at(&t->c[30], r->lr_at);
	for (int i = 0; i < 10; i++) {
		if (r->saved[i]) {
			t->c[19 + i].kind = CFI_OFF;
			t->c[19 + i].off = r->saved[i];
		}
	}
}

/* An exception's frame: everything from the pt_regs at sp + cfa_off. */
static void regs_row(const struct ms_a64_row *r, const struct ms_a64_facts *f,
		     struct cfi_row *t)
{
	cfi_regs_cfa(t, COL_SP, r->cfa_off, f->regs_sp);
	for (int i = 0; i <= 30; i++)
		cfi_regs_word(&t->c[i], COL_SP, r->cfa_off, 8 * (uint32_t)i);
	cfi_regs_word(&t->c[COL_PC], COL_SP, r->cfa_off, f->regs_pc);
}

static void row_of(const void *tab, size_t k, bool signal, struct cfi_row *t)
{
	const struct ms_a64 *a = tab;
	const struct ms_a64_row *r = &a->r[k];

	init_row(t, signal);
	switch (r->kind) {
	case MS_A64_FRAME:
		frame_row(r, t);
		break;
	case MS_A64_REGS:
		regs_row(r, &a->facts, t);
		break;
	default:
		t->c[signal ? COL_PC : 30].kind = CFI_UNDEF;
		break;
	}
}

static void span(const void *tab, size_t k, struct cfi_span *s)
{
	const struct ms_a64_row *r = &((const struct ms_a64 *)tab)->r[k];

	*s = (struct cfi_span){ r->ip, r->end, r->fstart,
				r->kind == MS_A64_REGS };
}

static const struct cfi_arch a64_cfi = {
	.what = "arm64 unwind tables",
	.ncols = NCOLS,
	.addr_size = 8,
	.code_align = 4, /* one instruction */
	.data_align = 8,
	.ra_col = 30,
	.ra_col_signal = COL_PC,
	.init_row = init_row,
	.span = span,
	.row_of = row_of,
};

int ms_a64_to_debug_frame(const struct ms_a64 *a, unsigned int flags,
			  void **buf_ret, size_t *len_ret, struct ms_err *err)
{
	(void)flags;
	return cfi_rows_write(&a64_cfi, a, a->n, 0, buf_ret, len_ret, err);
}
