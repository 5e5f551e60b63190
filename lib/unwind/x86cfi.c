// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * i386 frame rules (x86.c) as DWARF call frame information: a
 * .debug_frame of version 1 CIEs for an ELF32 file (4-byte addresses),
 * i386's DWARF register numbers (eax 0, ecx 1, edx 2, ebx 3, esp 4, ebp
 * 5, esi 6, edi 7, eip 8: the System V i386 psABI's), the return address
 * the column of eip, one FDE per function.
 *
 * An entry's frame is its struct pt_regs: every register is read from
 * it, the CFA is the interrupted esp (regs->sp: 6.1's entry code makes a
 * whole pt_regs of a kernel-mode one too, FIXUP_FRAME in
 * arch/x86/entry/entry_32.S), under a CIE with the "S" augmentation, so
 * that the debugger looks the interrupted function up at its exact eip
 * and lets the stack change there. So is a function whose esp moved to
 * another stack under its frame (call_on_stack, the softirq stack of
 * arch/x86/kernel/irq_32.c): gdb refuses a caller's frame that lies below
 * its callee's on the stack unless one of them is a signal frame.
 */
#include <dwarf.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cfi-int.h"
#include "rows-int.h"
#include "unwind.h"

_Static_assert(offsetof(struct ms_x86_row, ip) == 0 &&
		       offsetof(struct ms_x86_row, end) == 8,
	       "rows-int.h: a row begins with ip, end");

#define NCOLS 9
#define COL_ESP 4
#define COL_EBP 5
#define COL_EIP 8

/*
 * struct pt_regs of arch/x86/include/asm/ptrace.h, CONFIG_X86_32 (6.1
 * and 6.12 alike): bx, cx, dx, si, di, bp, ax, ds, es, fs, gs (each a
 * short and its padding), orig_ax, ip, cs, flags, sp, ss.
 */
void ms_x86_default_facts(struct ms_x86_facts *f)
{
	static const uint32_t off[9] = { 24, 4, 8, 0, 60, 20, 12, 16, 48 };

	memcpy(f->regs, off, sizeof(off));
}

static void init_row(struct cfi_row *t, bool signal)
{
	(void)signal;
	memset(t, 0, sizeof(*t));
	t->cfa_reg = COL_ESP;
	t->cfa_off = 4;
	t->c[COL_EIP].kind = CFI_OFF;
	t->c[COL_EIP].off = -4;
	t->c[COL_EBP].kind = CFI_SAME;
	t->c[3].kind = CFI_SAME;
	t->c[6].kind = CFI_SAME;
	t->c[7].kind = CFI_SAME;
}

static void frame_row(const struct ms_x86_row *r, struct cfi_row *t)
{
	static const int cols[4] = { COL_EBP, 3, 6, 7 };

	t->cfa_reg = r->cfa_reg;
	t->cfa_off = r->cfa_off;
	for (int i = 0; i < 4; i++) {
		if (r->saved[i]) {
			t->c[cols[i]].kind = CFI_OFF;
			t->c[cols[i]].off = r->saved[i];
		}
	}
}

/* An entry's frame: everything from the pt_regs at esp + cfa_off. */
static void regs_row(const struct ms_x86_row *r, const struct ms_x86_facts *f,
		     struct cfi_row *t)
{
	cfi_regs_cfa(t, COL_ESP, r->cfa_off, f->regs[COL_ESP]);
	for (int i = 0; i < NCOLS; i++)
		if (i != COL_ESP)
			cfi_regs_word(&t->c[i], COL_ESP, r->cfa_off,
				      f->regs[i]);
}

static void row_of(const void *tab, size_t k, bool signal, struct cfi_row *t)
{
	const struct ms_x86 *a = tab;
	const struct ms_x86_row *r = &a->r[k];

	init_row(t, signal);
	switch (r->kind) {
	case MS_X86_FRAME:
		frame_row(r, t);
		break;
	case MS_X86_REGS:
		regs_row(r, &a->facts, t);
		break;
	default:
		t->c[COL_EIP].kind = CFI_UNDEF;
		break;
	}
}

static void span(const void *tab, size_t k, struct cfi_span *s)
{
	const struct ms_x86_row *r = &((const struct ms_x86 *)tab)->r[k];

	*s = (struct cfi_span){ r->ip, r->end, r->fstart,
				r->kind == MS_X86_REGS || r->signal };
}

static const struct cfi_arch x86_cfi = {
	.what = "i386 unwind tables",
	.ncols = NCOLS,
	.addr_size = 4,
	.code_align = 1, /* a byte */
	.data_align = 4,
	.ra_col = COL_EIP,
	.ra_col_signal = COL_EIP,
	.init_row = init_row,
	.span = span,
	.row_of = row_of,
};

int ms_x86_to_debug_frame(const struct ms_x86 *a, unsigned int flags,
			  void **buf_ret, size_t *len_ret, struct ms_err *err)
{
	(void)flags;
	return cfi_rows_write(&x86_cfi, a, a->n, a->user_end, buf_ret, len_ret,
			      err);
}

const struct ms_x86_row *ms_x86_find(const struct ms_x86 *a, uint64_t ip)
{
	return rows_find(a->r, a->n, sizeof(*a->r), ip);
}

void ms_x86_free(struct ms_x86 *a)
{
	if (!a)
		return;
	free(a->r);
	free(a);
}
