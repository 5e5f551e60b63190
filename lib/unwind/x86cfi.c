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
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cfi-int.h"
#include "unwind.h"

#define NCOLS 9
#define COL_ESP 4
#define COL_EBP 5
#define COL_EIP 8
#define EXPR_MAX 12

enum { K_INIT, K_UNDEF, K_SAME, K_OFF, K_EXPR };

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

/* The word of the pt_regs at esp + base + off: its address. */
static void regs_word(struct rule *r, int32_t base, uint32_t off)
{
	size_t n = 0;

	r->kind = K_EXPR;
	r->expr[n++] = DW_OP_breg4;
	n += ms_sleb(r->expr + n, (int64_t)base + off);
	r->len = (uint8_t)n;
}

static void init_row(struct row *t)
{
	memset(t, 0, sizeof(*t));
	t->cfa_reg = COL_ESP;
	t->cfa_off = 4;
	t->c[COL_EIP].kind = K_OFF;
	t->c[COL_EIP].off = -4;
	t->c[COL_EBP].kind = K_SAME;
	t->c[3].kind = K_SAME;
	t->c[6].kind = K_SAME;
	t->c[7].kind = K_SAME;
}

static void frame_row(const struct ms_x86_row *r, struct row *t)
{
	static const int cols[4] = { COL_EBP, 3, 6, 7 };

	t->cfa_reg = r->cfa_reg;
	t->cfa_off = r->cfa_off;
	for (int i = 0; i < 4; i++) {
		if (r->saved[i]) {
			t->c[cols[i]].kind = K_OFF;
			t->c[cols[i]].off = r->saved[i];
		}
	}
}

/* An entry's frame: everything from the pt_regs at esp + cfa_off. */
static void regs_row(const struct ms_x86_row *r, const struct ms_x86_facts *f,
		     struct row *t)
{
	struct rule sp;

	regs_word(&sp, r->cfa_off, f->regs[COL_ESP]);
	t->cfa_expr = true;
	memcpy(t->cfa_x, sp.expr, sp.len);
	t->cfa_x[sp.len] = DW_OP_deref;
	t->cfa_len = (uint8_t)(sp.len + 1);
	for (int i = 0; i < NCOLS; i++)
		if (i != COL_ESP)
			regs_word(&t->c[i], r->cfa_off, f->regs[i]);
}

static void row_of(const struct ms_x86_row *r, const struct ms_x86_facts *f,
		   struct row *t)
{
	init_row(t);
	switch (r->kind) {
	case MS_X86_FRAME:
		frame_row(r, t);
		break;
	case MS_X86_REGS:
		regs_row(r, f, t);
		break;
	default:
		t->c[COL_EIP].kind = K_UNDEF;
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
		put_sleb(o, r->off / -4);
		break;
	default:
		cfi_put_expr(o, DW_CFA_expression, (uint64_t)col, r->expr,
			     r->len);
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
	put_uleb(o, 1); /* code alignment: a byte */
	put_sleb(o, -4);
	put8(o, COL_EIP);
	if (signal)
		put_uleb(o, 0);
	memset(&none, 0, sizeof(none));
	none.cfa_reg = 0xff;
	init_row(&t);
	emit_row(o, &none, &t);
	cfi_end_entry(o, start);
}

/* The rows [i, j) of one function, under the CIE at cie_off. */
static void put_fde(struct ms_bytes *o, const struct ms_x86 *a, size_t i,
		    size_t j, size_t cie_off, bool signal)
{
	size_t start = o->len;
	struct row cur, t;

	put_le(o, 0, 4);
	put_le(o, cie_off, 4);
	put_le(o, a->r[i].ip, 4);
	put_le(o, a->r[j - 1].end - a->r[i].ip, 4);
	if (signal)
		put_uleb(o, 0);
	init_row(&cur);
	for (size_t k = i; k < j; k++) {
		if (k > i)
			cfi_advance(o, a->r[k].ip - a->r[k - 1].ip);
		row_of(&a->r[k], &a->facts, &t);
		emit_row(o, &cur, &t);
	}
	cfi_end_entry(o, start);
}

/* User space: its pc ends the walk, as a user-mode pt_regs ends the kernel's. */
static void put_user(struct ms_bytes *o, uint64_t end, size_t cie_off)
{
	size_t start = o->len;
	struct row cur, t;

	put_le(o, 0, 4);
	put_le(o, cie_off, 4);
	put_le(o, 0, 4);
	put_le(o, end, 4);
	init_row(&cur);
	init_row(&t);
	t.c[COL_EIP].kind = K_UNDEF;
	emit_row(o, &cur, &t);
	cfi_end_entry(o, start);
}

int ms_x86_to_debug_frame(const struct ms_x86 *a, unsigned int flags,
			  void **buf_ret, size_t *len_ret, struct ms_err *err)
{
	struct ms_bytes o = { 0 };
	size_t cie_plain, cie_signal;

	(void)flags;
	cie_plain = o.len;
	put_cie(&o, false);
	cie_signal = o.len;
	put_cie(&o, true);
	if (a->user_end)
		put_user(&o, a->user_end, cie_plain);
	for (size_t i = 0; i < a->n;) {
		size_t j = i + 1;
		bool sig = a->r[i].kind == MS_X86_REGS || a->r[i].signal;

		while (j < a->n && !a->r[j].fstart &&
		       a->r[j].ip == a->r[j - 1].end) {
			sig |= a->r[j].kind == MS_X86_REGS || a->r[j].signal;
			j++;
		}
		put_fde(&o, a, i, j, sig ? cie_signal : cie_plain, sig);
		i = j;
	}
	if (o.oom) {
		free(o.buf);
		return ms_err_errno(err, ENOMEM, "i386 unwind tables");
	}
	*buf_ret = o.buf;
	*len_ret = o.len;
	return 0;
}

const struct ms_x86_row *ms_x86_find(const struct ms_x86 *a, uint64_t ip)
{
	size_t lo = 0, hi = a->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a->r[mid].end <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < a->n && a->r[lo].ip <= ip ? &a->r[lo] : NULL;
}

void ms_x86_free(struct ms_x86 *a)
{
	if (!a)
		return;
	free(a->r);
	free(a);
}
