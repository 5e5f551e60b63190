// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What each arm64 instruction does to a function's frame (a64-int.h):
 * the A64 encodings of the Arm ARM (DDI 0487) that move sp or x29, save
 * or restore x29, x30 and x19-x28, or leave the straight line. Anything
 * else that writes sp, x29 or a return address still in x30 ends what
 * the decoder knows.
 */
#include "a64-int.h"

uint32_t a64_insn(const struct dec *d, size_t i)
{
	const uint8_t *p = d->code + 4 * i;

	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static int64_t sext(uint64_t v, int bits)
{
	uint64_t m = UINT64_C(1) << (bits - 1);

	v &= (UINT64_C(1) << bits) - 1;
	return (int64_t)((v ^ m) - m);
}

/* A store of register rt at sp + off: a save, if it is one of ours. */
static void store(struct st *s, unsigned int rt, int64_t off)
{
	int64_t at = off - s->sp_depth;

	if (!s->sp_known || at >= 0 || at < INT16_MIN)
		return;
	if (rt == 29 && !s->fp_at)
		s->fp_at = (int32_t)at;
	else if (rt == 30 && !s->lr_at && !s->lr_lost)
		s->lr_at = (int32_t)at;
	else if (rt >= 19 && rt <= 28 && !s->saved[rt - 19])
		s->saved[rt - 19] = (int16_t)at;
}

/* A load of rt from base + off (base 31: sp): a restore, or a clobber. */
static void load(struct st *s, unsigned int rt, unsigned int base, int64_t off)
{
	int64_t at = base == 31 && s->sp_known ? off - s->sp_depth : 1;

	if (rt == 29) {
		if (at == s->fp_at)
			s->fp_at = 0;
		else if (s->fp_at)
			a64_lose(s);
		s->fp_known = false;
	} else if (rt == 30) {
		if (s->lr_at && at == s->lr_at)
			s->lr_at = 0;
		else if (!s->lr_at)
			s->lr_lost = true;
	} else if (rt >= 19 && rt <= 28 && at == s->saved[rt - 19]) {
		s->saved[rt - 19] = 0;
	}
}

/* sp moves down by by (a store's writeback, sub sp): deeper. */
static void sp_down(struct st *s, int64_t by)
{
	int64_t d = (int64_t)s->sp_depth + by;

	if (!s->sp_known)
		return;
	if (d < INT16_MIN || d > INT32_MAX / 2)
		s->sp_known = false;
	else
		s->sp_depth = (int32_t)d;
}

/* Load/store pair: stp/ldp, with or without writeback. */
static void ldst_pair(struct st *s, uint32_t w)
{
	unsigned int opc = w >> 30, v = (w >> 26) & 1, idx = (w >> 23) & 3;
	unsigned int rt = w & 31, rn = (w >> 5) & 31, rt2 = (w >> 10) & 31;
	int scale = v ? 4 << opc : (opc == 2 ? 8 : 4);
	int64_t imm = sext(w >> 15, 7) * scale, at = idx == 1 ? 0 : imm;
	bool l = (w >> 22) & 1;

	if (rn == 31 && idx == 3)
		sp_down(s, -imm); /* pre-index: sp moves first */
	if (rn == 31 && !v && opc == 2) {
		int64_t off = idx == 3 ? 0 : at;

		if (l) {
			load(s, rt, 31, off);
			load(s, rt2, 31, off + 8);
		} else {
			store(s, rt, off);
			store(s, rt2, off + 8);
		}
	} else if (l && !v) {
		load(s, rt, rn, 1);
		load(s, rt2, rn, 1);
	}
	if (rn == 31 && idx == 1)
		sp_down(s, -imm); /* post-index: after */
}

/* Load/store register: ldr/str, immediate forms. */
static void ldst_reg(struct st *s, uint32_t w)
{
	unsigned int size = w >> 30, v = (w >> 26) & 1, opc = (w >> 22) & 3;
	unsigned int rt = w & 31, rn = (w >> 5) & 31;
	bool uimm = (w >> 24) & 1,
	     wb = !uimm && !((w >> 21) & 1) && ((w >> 10) & 1);
	bool pre = wb && ((w >> 11) & 1);
	int64_t imm = uimm ? (int64_t)((w >> 10) & 0xfff) << size :
			     sext(w >> 12, 9);
	int64_t off = wb ? (pre ? 0 : 0) : imm;

	if (!uimm && ((w >> 21) & 1))
		off = 1; /* register offset: not a slot of ours */
	if (rn == 31 && pre)
		sp_down(s, -imm);
	if (!v && size == 3 && opc == 0 && rn == 31)
		store(s, rt, off);
	else if (!v && opc != 0)
		load(s, rt, rn, rn == 31 ? off : 1);
	if (rn == 31 && wb && !pre)
		sp_down(s, -imm);
}

/* add/sub (immediate), 64-bit: the prologue's and epilogue's sp and x29. */
static void addsub_imm(struct dec *d, struct st *s, uint32_t w)
{
	unsigned int rd = w & 31, rn = (w >> 5) & 31;
	int64_t imm = (int64_t)((w >> 10) & 0xfff) << ((w >> 22) & 1 ? 12 : 0);
	bool sub = (w >> 30) & 1, setflags = (w >> 29) & 1;

	if (setflags || !(w >> 31)) {
		if (rd == 29 && !setflags)
			a64_lose(s);
		return;
	}
	if (sub)
		imm = -imm;
	if (rd == 31 && rn == 31) {
		sp_down(s, -imm);
	} else if (rd == 31 && rn == 29 && s->fp_known) {
		s->sp_known = true;
		s->sp_depth = (int32_t)(s->fp_depth - imm);
	} else if (rd == 31) {
		s->sp_known = false;
	} else if (rd == 29 && rn == 31 && s->kind == K_ENTRY && s->sp_known &&
		   !s->sp_depth && d->facts->have_regs &&
		   imm == d->facts->regs_stackframe) {
		/* kernel_entry: x29 = &regs->stackframe, the regs complete */
		s->kind = MS_A64_REGS;
	} else if (rd == 29 && rn == 31 && s->sp_known) {
		s->fp_known = true;
		s->fp_depth = (int32_t)(s->sp_depth - imm);
	} else if (rd == 29) {
		s->fp_known = false;
		if (s->fp_at)
			a64_lose(s);
	}
}

/* Any other instruction that writes x29 or sp (as Rd) ends what we know. */
static void other_writes(struct st *s, uint32_t w)
{
	unsigned int rd = w & 31;
	bool dp_imm = (w & 0x1c000000) == 0x10000000;
	bool dp_reg = (w & 0x0e000000) == 0x0a000000;
	bool mrs = (w & 0xfff00000) == 0xd5300000;

	if (rd == 29 && (dp_imm || dp_reg || mrs)) {
		s->fp_known = false;
		if (s->fp_at)
			a64_lose(s);
	}
	if (rd == 30 && (dp_imm || dp_reg || mrs) && !s->lr_at)
		s->lr_lost = true;
	/* add/sub (extended register) to sp: sp = sp - x0 and the like */
	if (rd == 31 && (w & 0x3fe00000) == 0x0b200000)
		s->sp_known = false;
}

enum flow a64_flow(uint32_t w, int64_t *target)
{
	if ((w & 0x7c000000) == 0x14000000) { /* b, bl */
		*target = sext(w, 26) * 4;
		return w >> 31 ? F_CALL : F_BRANCH;
	}
	if ((w & 0xff000010) == 0x54000000 || (w & 0x7e000000) == 0x34000000) {
		*target = sext(w >> 5, 19) * 4; /* b.cond, cbz, cbnz */
		return F_COND;
	}
	if ((w & 0x7e000000) == 0x36000000) { /* tbz, tbnz */
		*target = sext(w >> 5, 14) * 4;
		return F_COND;
	}
	if ((w & 0xfe000000) == 0xd6000000) {
		/* branch (register), opc without its PAC bit: br, blr, ret */
		switch ((w >> 21) & 7) {
		case 0:
			return F_BR; /* br, braa... */
		case 1:
			return F_CALL; /* blr, blraa... */
		case 2:
		case 4:
			return F_END; /* ret, retaa..., eret, eretaa... */
		}
	}
	if (w <= 0xffff) /* udf: BUG() without brk, never returns */
		return F_END;
	return F_NEXT;
}

void a64_transfer(struct dec *d, size_t i, struct st *s)
{
	uint32_t w = a64_insn(d, i);

	if (s->kind != MS_A64_FRAME && s->kind != MS_A64_REGS &&
	    s->kind != K_ENTRY)
		return;
	if ((w & 0x3a000000) == 0x28000000) /* bit 25 clear: not orn */
		ldst_pair(s, w);
	else if ((w & 0x3b000000) == 0x39000000 ||
		 (w & 0x3b200000) == 0x38000000)
		ldst_reg(s, w);
	else if ((w & 0x1f800000) == 0x11000000)
		addsub_imm(d, s, w);
	else
		other_writes(s, w);
	/* bl, blr: x30 is the return address into us from here on. */
	if ((w & 0xfc000000) == 0x94000000 ||
	    ((w & 0xfe000000) == 0xd6000000 && ((w >> 21) & 7) == 1)) {
		/* ftrace's patched entry keeps the caller's lr in x9 */
		bool ftrace = i > 0 && a64_insn(d, i - 1) == 0xaa1e03e9;

		if (!s->lr_at && !ftrace)
			s->lr_lost = true;
	}
	/* the pt_regs must stay at or above sp */
	if (s->kind == MS_A64_REGS && (!s->sp_known || s->sp_depth < 0))
		a64_lose(s);
}
