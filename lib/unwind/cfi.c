// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ORC entries as DWARF call frame information (.debug_frame, DWARF 2's
 * version 1 CIEs, 64-bit addresses, x86-64's DWARF register numbers).
 *
 * Each entry is a row; rows are grouped into FDEs of at most ROWS_PER_FDE
 * (a debugger runs an FDE's program from its start for every lookup, so
 * one FDE per kernel would cost a scan of 385,000 rows per frame), and,
 * where the caller says where functions start, an FDE per function: lldb
 * takes an FDE's range for its function's and analyses its code from
 * the FDE's start, which must then be the function's entry. An
 * FDE holds rows of one kind only: those whose caller's ip is exact
 * (signal) go under a CIE with the "S" augmentation, the rest under a
 * plain one.
 *
 * What each entry says is what unwind_next_frame() in
 * arch/x86/kernel/unwind_orc.c does with it: the base (sp_reg +
 * sp_offset, or the word there for the INDIRECT kinds, 87ccc826bf1c
 * "x86/unwind/orc: Change REG_SP_INDIRECT") is the caller's SP for CALL,
 * a struct pt_regs for REGS and its iret frame for REGS_PARTIAL.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cfi-int.h"
#include "unwind.h"

#define ROWS_PER_FDE 32
#define NREGS 17 /* rax..r15 and the return address column */
#define RA 16
#define EXPR_MAX 32

/* struct pt_regs on x86-64 (arch/x86/include/asm/ptrace.h). */
#define PTREGS_IP 128
#define PTREGS_CS 136
#define PTREGS_SP 152
#define IRET_SP 24 /* in the iret frame: ip, cs, flags, sp, ss */
static const int8_t ptregs_off[NREGS] = {
	[0] = 80, [1] = 96, [2] = 88, [3] = 40, [4] = 104, [5] = 112,
	[6] = 32, [7] = -1, [8] = 72, [9] = 64, [10] = 56, [11] = 48,
	[12] = 24, [13] = 16, [14] = 8, [15] = 0, [RA] = (int8_t)-1,
};

enum rule_kind { R_INIT, R_UNDEF, R_CFA_OFF, R_EXPR, R_VAL_EXPR };

struct rule {
	uint8_t kind, len;
	int32_t off;
	uint8_t expr[EXPR_MAX];
};

struct row {
	bool cfa_is_expr;
	uint8_t cfa_reg, cfa_len;
	int32_t cfa_off;
	uint8_t cfa_expr[EXPR_MAX];
	struct rule reg[NREGS];
};

/* DWARF numbers of ORC's base registers (rax 0, rdx 1, rdi 5, rbp 6, ...). */
static int dwarf_reg(uint8_t orc_reg)
{
	static const int8_t num[] = {
		[MS_ORC_REG_AX] = 0,	     [MS_ORC_REG_DX] = 1,
		[MS_ORC_REG_DI] = 5,	     [MS_ORC_REG_BP] = 6,
		[MS_ORC_REG_BP_INDIRECT] = 6, [MS_ORC_REG_SP] = 7,
		[MS_ORC_REG_SP_INDIRECT] = 7, [MS_ORC_REG_R10] = 10,
		[MS_ORC_REG_R13] = 13,
	};

	if (orc_reg >= sizeof(num) || orc_reg == MS_ORC_REG_UNDEFINED ||
	    orc_reg == MS_ORC_REG_PREV_SP)
		return -1;
	return num[orc_reg];
}

/* An expression under construction. */
struct expr {
	uint8_t b[EXPR_MAX];
	uint8_t len;
};

static void ex_op(struct expr *x, uint8_t op)
{
	x->b[x->len++] = op;
}

static void ex_sleb(struct expr *x, int64_t v)
{
	x->len += (uint8_t)ms_sleb(x->b + x->len, v);
}

static void ex_uleb(struct expr *x, uint64_t v)
{
	x->len += (uint8_t)ms_uleb(x->b + x->len, v);
}

/*
 * The base address of e plus add: the caller's SP (CALL), the pt_regs
 * or iret frame (REGS, REGS_PARTIAL). Folded into one DW_OP_bregN when
 * the base is a register plus an offset.
 */
static void base_expr(const struct ms_orc_entry *e, int64_t add,
		      struct expr *x)
{
	int reg = dwarf_reg(e->sp_reg);

	x->len = 0;
	if (e->sp_reg == MS_ORC_REG_SP_INDIRECT) {
		/* sp = *(rsp) + sp_offset */
		ex_op(x, DW_OP_breg7);
		ex_sleb(x, 0);
		ex_op(x, DW_OP_deref);
		ex_op(x, DW_OP_consts);
		ex_sleb(x, e->sp_offset + add);
		ex_op(x, DW_OP_plus);
	} else if (e->sp_reg == MS_ORC_REG_BP_INDIRECT) {
		/* sp = *(rbp + sp_offset) */
		ex_op(x, DW_OP_breg6);
		ex_sleb(x, e->sp_offset);
		ex_op(x, DW_OP_deref);
		if (add) {
			ex_op(x, DW_OP_plus_uconst);
			ex_uleb(x, (uint64_t)add);
		}
	} else {
		ex_op(x, (uint8_t)(DW_OP_breg0 + reg));
		ex_sleb(x, e->sp_offset + add);
	}
}

static void set_expr(struct rule *r, const struct expr *x)
{
	r->kind = R_EXPR;
	r->len = x->len;
	memcpy(r->expr, x->b, x->len);
}

static void set_cfa_deref(struct row *t, const struct ms_orc_entry *e,
			  int64_t at)
{
	struct expr x;

	base_expr(e, at, &x);
	ex_op(&x, DW_OP_deref);
	t->cfa_is_expr = true;
	t->cfa_len = x.len;
	memcpy(t->cfa_expr, x.b, x.len);
}

static void init_row(struct row *t)
{
	memset(t, 0, sizeof(*t));
	t->cfa_reg = 7;
	t->cfa_off = 8;
	t->reg[RA].kind = R_CFA_OFF;
	t->reg[RA].off = -8;
}

/*
 * For lldb, rbp of the frame a pt_regs holds: 0 when the frame is user
 * mode's (cs & 3). lldb unwinds an address in no module (user space) by
 * rbp, as a frame pointer, and would go on into user memory with it,
 * showing garbage; a zero rbp ends its walk there, as the kernel's ends
 * at user mode.
 */
static void user_bp_zero(const struct ms_orc_entry *e, struct row *t)
{
	/* regs on the stack: (regs->cs & 3) ? 0 : regs->bp */
	static const uint8_t tail[] = {
		DW_OP_dup, DW_OP_plus_uconst, (PTREGS_CS & 0x7f) | 0x80, PTREGS_CS >> 7,
		DW_OP_deref, DW_OP_lit3, DW_OP_and, DW_OP_bra, 6, 0,
		DW_OP_plus_uconst, 32, DW_OP_deref, DW_OP_skip, 2, 0,
		DW_OP_drop, DW_OP_lit0,
	};
	struct expr x;

	base_expr(e, 0, &x);
	memcpy(x.b + x.len, tail, sizeof(tail));
	x.len += sizeof(tail);
	set_expr(&t->reg[6], &x);
	t->reg[6].kind = R_VAL_EXPR;
}

/* The row an entry's frame unwinds by. */
static void entry_row(const struct ms_orc_entry *e, unsigned int flags,
		      struct row *t)
{
	struct expr x;

	init_row(t);
	if (e->type < MS_ORC_CALL) {
		t->reg[RA].kind = R_UNDEF;
		return;
	}
	if (e->type == MS_ORC_CALL) {
		int reg = dwarf_reg(e->sp_reg);
		bool indirect = e->sp_reg == MS_ORC_REG_SP_INDIRECT ||
				e->sp_reg == MS_ORC_REG_BP_INDIRECT;

		if (!indirect && e->sp_offset >= 0) {
			t->cfa_reg = (uint8_t)reg;
			t->cfa_off = e->sp_offset;
		} else {
			base_expr(e, 0, &x);
			t->cfa_is_expr = true;
			t->cfa_len = x.len;
			memcpy(t->cfa_expr, x.b, x.len);
		}
	} else if (e->type == MS_ORC_REGS) {
		set_cfa_deref(t, e, PTREGS_SP);
		for (int r = 0; r < NREGS; r++) {
			int64_t off = r == RA ? PTREGS_IP : ptregs_off[r];

			if (r == 7)
				continue;
			base_expr(e, off, &x);
			set_expr(&t->reg[r], &x);
		}
	} else {
		set_cfa_deref(t, e, IRET_SP);
		base_expr(e, 0, &x);
		set_expr(&t->reg[RA], &x);
	}
	/*
	 * BP: unwind_next_frame()'s "Find BP", where PREV_SP means the base
	 * computed above: the CFA for CALL, the pt_regs for the others.
	 */
	if (e->bp_reg == MS_ORC_REG_PREV_SP && e->type == MS_ORC_CALL) {
		t->reg[6].kind = R_CFA_OFF;
		t->reg[6].off = e->bp_offset;
	} else if (e->bp_reg == MS_ORC_REG_PREV_SP) {
		base_expr(e, e->bp_offset, &x);
		set_expr(&t->reg[6], &x);
	} else if (e->bp_reg == MS_ORC_REG_BP) {
		x.len = 0;
		ex_op(&x, DW_OP_breg6);
		ex_sleb(&x, e->bp_offset);
		set_expr(&t->reg[6], &x);
	} else if (e->type == MS_ORC_REGS && (flags & MS_CFI_LLDB)) {
		user_bp_zero(e, t);
	}
}

static bool rule_eq(const struct rule *a, const struct rule *b)
{
	if (a->kind != b->kind)
		return false;
	if (a->kind == R_CFA_OFF)
		return a->off == b->off;
	if (a->kind == R_EXPR || a->kind == R_VAL_EXPR)
		return a->len == b->len && !memcmp(a->expr, b->expr, a->len);
	return true;
}

static void emit_cfa(struct ms_bytes *o, const struct row *cur, const struct row *t)
{
	if (t->cfa_is_expr) {
		if (cur->cfa_is_expr && cur->cfa_len == t->cfa_len &&
		    !memcmp(cur->cfa_expr, t->cfa_expr, t->cfa_len))
			return;
		cfi_put_cfa_expr(o, t->cfa_expr, t->cfa_len);
	} else if (!cur->cfa_is_expr && cur->cfa_reg == t->cfa_reg) {
		if (cur->cfa_off == t->cfa_off)
			return;
		put8(o, DW_CFA_def_cfa_offset);
		put_uleb(o, (uint64_t)t->cfa_off);
	} else {
		put8(o, DW_CFA_def_cfa);
		put_uleb(o, t->cfa_reg);
		put_uleb(o, (uint64_t)t->cfa_off);
	}
}

static void emit_rule(struct ms_bytes *o, int reg, const struct rule *r)
{
	switch (r->kind) {
	case R_INIT:
		put8(o, (uint8_t)(DW_CFA_restore | reg));
		break;
	case R_UNDEF:
		put8(o, DW_CFA_undefined);
		put_uleb(o, (uint64_t)reg);
		break;
	case R_CFA_OFF:
		if (r->off % 8 == 0 && r->off <= 0) {
			put8(o, (uint8_t)(DW_CFA_offset | reg));
			put_uleb(o, (uint64_t)(r->off / -8));
		} else if (r->off % 8 == 0) {
			put8(o, DW_CFA_offset_extended_sf);
			put_uleb(o, (uint64_t)reg);
			put_sleb(o, r->off / -8);
		} else {
			/* The CFA is on the stack first: CFA + off. */
			uint8_t x[12];
			size_t n;

			x[0] = DW_OP_consts;
			n = 1 + ms_sleb(x + 1, r->off);
			x[n++] = DW_OP_plus;
			cfi_put_expr(o, DW_CFA_expression, (uint64_t)reg, x, n);
		}
		break;
	case R_EXPR:
	case R_VAL_EXPR:
		cfi_put_expr(o,
			     r->kind == R_EXPR ? DW_CFA_expression :
						 DW_CFA_val_expression,
			     (uint64_t)reg, r->expr, r->len);
		break;
	}
}

/* The instructions that take cur to t; cur becomes t. */
static void emit_row(struct ms_bytes *o, struct row *cur, const struct row *t)
{
	emit_cfa(o, cur, t);
	for (int r = 0; r < NREGS; r++)
		if (!rule_eq(&cur->reg[r], &t->reg[r]))
			emit_rule(o, r, &t->reg[r]);
	*cur = *t;
}

static const uint8_t callee_saved[] = { 3, 6, 12, 13, 14, 15 };

static void put_cie(struct ms_bytes *o, bool signal)
{
	size_t start = o->len;

	put_le(o, 0, 4);
	put_le(o, 0xffffffff, 4); /* a CIE */
	put8(o, 1);
	put(o, signal ? "zS" : "", signal ? 3 : 1);
	put_uleb(o, 1); /* code alignment */
	put_sleb(o, -8); /* data alignment */
	put8(o, RA);
	if (signal)
		put_uleb(o, 0); /* no augmentation data */
	/* At a call: CFA = rsp + 8, return address at CFA - 8. */
	put8(o, DW_CFA_def_cfa);
	put_uleb(o, 7);
	put_uleb(o, 8);
	put8(o, DW_CFA_offset | RA);
	put_uleb(o, 1);
	/*
	 * A CALL frame leaves every register but rsp and rip as it was (the
	 * kernel's unwinder keeps them): said for the callee-saved ones, so
	 * a reader that takes no rule for "undefined" (libdw) keeps rbp.
	 */
	for (size_t i = 0; i < sizeof(callee_saved); i++) {
		put8(o, DW_CFA_same_value);
		put_uleb(o, callee_saved[i]);
	}
	cfi_end_entry(o, start);
}

/*
 * A row's extent: an entry, or the part of one in one function when the
 * caller said where functions start.
 */
struct piece {
	const struct ms_orc_entry *e;
	uint64_t lo, hi;
	bool fstart; /* lo is a function's start */
};

/*
 * For lldb: b, the last row of a function, is the padding after a
 * noreturn call, whose return address is there. lldb 14 looks a caller's
 * row up at the return address itself, not the byte before as gdb and
 * the kernel do (unless it is a function's start), and would stop at the
 * padding's undefined row: a's row runs on over it instead. Nothing runs
 * in padding, so no frame is ever there itself.
 */
static bool call_pad(const struct piece *a, const struct piece *b)
{
	return !b->fstart && b->e->type == MS_ORC_UNDEFINED &&
	       a->e->type == MS_ORC_CALL;
}

/* A function's first state: the return address at rsp, nothing saved. */
static bool entry_state(const struct ms_orc_entry *e)
{
	return e->type == MS_ORC_CALL && e->sp_reg == MS_ORC_REG_SP &&
	       e->sp_offset == 8 && e->bp_reg == MS_ORC_REG_UNDEFINED;
}

/*
 * For lldb, as call_pad(), where the noreturn call is followed by a trap
 * (ud2, 6.12's x86_64_start_kernel) that objtool gives the function's
 * first state: lldb would read the caller's return address at rsp + 8
 * from the trap's row and find none. The state can only go back to the
 * first in one instruction there after a noreturn call or at the end of
 * an epilogue (a ret); a row shorter than a call holds no return address
 * but at its start, and 6.1's and 6.12's epilogues end in a 5-byte jmp to
 * the return thunk, left alone. Where a 1-byte ret is last (no return
 * thunk), lldb's frame 0 there is still right: it analyses a function's
 * code for frame 0 where its last row is not its first state.
 */
static bool call_trap(const struct piece *a, const struct piece *b)
{
	return !b->fstart && entry_state(b->e) && !entry_state(a->e) &&
	       a->e->type == MS_ORC_CALL && b->e->end - b->lo < 5;
}

/* How many of the pieces [i, j) of one function lldb gets rows for. */
static size_t lldb_rows(const struct piece *p, size_t i, size_t j)
{
	if (j - i > 1 && call_pad(&p[j - 2], &p[j - 1]))
		j--;
	if (j - i > 1 && call_trap(&p[j - 2], &p[j - 1]))
		j--;
	return j;
}

/* One FDE of the pieces [i, j), all one kind and back to back. */
static void put_fde(struct ms_bytes *o, const struct piece *p, size_t i, size_t j,
		    size_t cie_off, bool z, unsigned int flags)
{
	size_t start = o->len, rows = j;
	struct row cur, t;

	put_le(o, 0, 4);
	put_le(o, cie_off, 4);
	put_le(o, p[i].lo, 8);
	put_le(o, p[j - 1].hi - p[i].lo, 8);
	if (z)
		put_uleb(o, 0);
	init_row(&cur);
	if (flags & MS_CFI_LLDB)
		rows = lldb_rows(p, i, j);
	for (size_t k = i; k < rows; k++) {
		if (k > i)
			cfi_advance(o, p[k].lo - p[k - 1].lo);
		entry_row(p[k].e, flags, &t);
		emit_row(o, &cur, &t);
	}
	cfi_end_entry(o, start);
}

/* The entries cut at every function start inside one (fs sorted). */
static int make_pieces(const struct ms_orc *orc, const uint64_t *fs,
		       size_t nfs, struct piece **ret, size_t *n_ret)
{
	struct piece *p = NULL;
	size_t n = 0, cap = 0, s = 0;

	for (size_t i = 0; i < orc->n; i++) {
		const struct ms_orc_entry *e = &orc->e[i];
		uint64_t lo = e->ip;
		bool fstart = false;

		while (s < nfs && fs[s] <= lo)
			fstart = fs[s++] == lo;
		for (;;) {
			uint64_t hi = s < nfs && fs[s] < e->end ? fs[s] : e->end;

			if (ms_reserve(&p, &cap, n + 1, sizeof(*p), 1024)) {
				free(p);
				return -ENOMEM;
			}
			p[n++] = (struct piece){ e, lo, hi, fstart };
			if (hi == e->end)
				break;
			lo = hi;
			fstart = true;
			s++;
		}
	}
	*ret = p;
	*n_ret = n;
	return 0;
}

/*
 * Where the FDE that starts at piece i ends. For lldb, which reads one
 * FDE per function, the one at its start, a function's FDE holds all its
 * rows, under the "S" CIE if any is a signal frame's (*sig): lldb 14 takes
 * an FDE's augmentation for its whole function's (a trap handler).
 */
static size_t fde_end(const struct piece *p, size_t np, size_t i,
		      unsigned int flags, bool *sig)
{
	bool whole = (flags & MS_CFI_LLDB) && p[i].fstart;
	size_t j = i + 1;

	/*
	 * An advance is at most 32 bits (DW_CFA_advance_loc4): a row further
	 * from the one before starts an FDE of its own. No kernel has such
	 * a function; hostile tables do (fuzz_orc).
	 */
	while (j < np && !p[j].fstart && p[j].lo == p[j - 1].hi &&
	       p[j].lo - p[j - 1].lo <= UINT32_MAX &&
	       (whole || (j - i < ROWS_PER_FDE && p[j].e->signal == *sig))) {
		*sig |= p[j].e->signal;
		j++;
	}
	return j;
}

/* Below every kernel address: the user half on 4- and 5-level paging. */
#define USER_END (UINT64_C(1) << 56)

static void put_user_fde(struct ms_bytes *o, size_t cie_off)
{
	size_t start = o->len;

	put_le(o, 0, 4);
	put_le(o, cie_off, 4);
	put_le(o, 0, 8);
	put_le(o, USER_END, 8);
	put8(o, DW_CFA_undefined);
	put_uleb(o, RA);
	cfi_end_entry(o, start);
}

int ms_orc_to_debug_frame(const struct ms_orc *orc, unsigned int flags,
			  const uint64_t *fstarts, size_t nfstarts,
			  void **buf_ret, size_t *len_ret, size_t *nrows_ret,
			  struct ms_err *err)
{
	struct ms_bytes o = { 0 };
	size_t cie_plain, cie_signal, np = 0;
	struct piece *p = NULL;

	if (make_pieces(orc, fstarts, nfstarts, &p, &np))
		return ms_err_errno(err, ENOMEM, "unwind tables");
	cie_plain = o.len;
	put_cie(&o, false);
	cie_signal = o.len;
	put_cie(&o, true);
	if ((flags & MS_CFI_USER_END) && (!orc->n || orc->e[0].ip >= USER_END))
		put_user_fde(&o, cie_plain);
	for (size_t i = 0; i < np;) {
		bool sig = p[i].e->signal;
		size_t j = fde_end(p, np, i, flags, &sig);

		put_fde(&o, p, i, j, sig ? cie_signal : cie_plain, sig, flags);
		i = j;
	}
	free(p);
	if (o.oom) {
		free(o.buf);
		return ms_err_errno(err, ENOMEM, "unwind tables");
	}
	*buf_ret = o.buf;
	*len_ret = o.len;
	if (nrows_ret)
		*nrows_ret = np;
	return 0;
}
