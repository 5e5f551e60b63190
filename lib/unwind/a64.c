// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * arm64 frame rules made from each function's own code.
 *
 * arm64 kernels have no unwind tables for the debugger (the kernel's own
 * unwinder walks frame records: arch/arm64/kernel/stacktrace.c), and
 * gdb's prologue analysis stops after two or three frames. Every
 * function's code says where its frame is at each instruction: the
 * prologue (paciasp, `stp x29, x30, [sp, #-N]!`, `mov x29, sp`), the
 * callee-saved stores, the epilogue (`ldp x29, x30, [sp], #N`,
 * autiasp, ret). The decoder follows the code's own branches from the
 * entry, so a block after an early return has the frame of the branch
 * that reaches it, and gives each instruction the state before it runs.
 *
 * What it cannot follow it refuses: an instruction reached with two
 * different frames, sp or x29 written in a way it does not know, x30
 * lost with the return address in it. Such instructions get no rule and
 * the debugger stops there, as with an ORC UNDEFINED entry.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "unwind.h"

/*
 * An exception entry before its pt_regs are complete: followed, but no
 * frame yet (kernel_entry in arch/arm64/kernel/entry.S).
 */
#define K_ENTRY 10

/* The state before an instruction. Depths are from the CFA, downwards. */
struct st {
	uint8_t kind; /* MS_A64_* */
	bool reached, sp_known, fp_known, lr_lost, conflict;
	/* reached only past a brk (BUG: it may never return) or a br */
	bool weak;
	int32_t sp_depth; /* sp = CFA - sp_depth; REGS: pt_regs - sp_depth */
	int32_t fp_depth; /* x29 = CFA - fp_depth */
	int32_t fp_at, lr_at; /* saved at CFA + at (negative); 0: not */
	int16_t saved[10]; /* x19..x28 at CFA + saved[i]; 0: not */
};

struct dec {
	const struct ms_a64_fn *fn;
	const struct ms_a64_facts *facts;
	const uint8_t *code;
	size_t n; /* instructions */
	struct st *s;
	size_t *work;
	size_t nwork;
	bool has_br;
	struct st br_state;
};

static uint32_t insn(const struct dec *d, size_t i)
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

/* The frame is lost from here on: no rule, the debugger stops. */
static void lose(struct st *s)
{
	s->kind = MS_A64_UNDEF;
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
			lose(s);
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
	bool uimm = (w >> 24) & 1, wb = !uimm && !((w >> 21) & 1) &&
					 ((w >> 10) & 1);
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
			lose(s);
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
			lose(s);
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
			lose(s);
	}
	if (rd == 30 && (dp_imm || dp_reg || mrs) && !s->lr_at)
		s->lr_lost = true;
	/* add/sub (extended register) to sp: sp = sp - x0 and the like */
	if (rd == 31 && (w & 0x3fe00000) == 0x0b200000)
		s->sp_known = false;
}

enum flow { F_NEXT, F_BRANCH, F_COND, F_END, F_BR, F_CALL };

static enum flow flow_of(uint32_t w, int64_t *target)
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

static void transfer(struct dec *d, size_t i, struct st *s)
{
	uint32_t w = insn(d, i);

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
		bool ftrace = i > 0 && insn(d, i - 1) == 0xaa1e03e9;

		if (!s->lr_at && !ftrace)
			s->lr_lost = true;
	}
	/* the pt_regs must stay at or above sp */
	if (s->kind == MS_A64_REGS && (!s->sp_known || s->sp_depth < 0))
		lose(s);
}

static bool same(const struct st *a, const struct st *b)
{
	if (a->kind != b->kind || a->lr_lost != b->lr_lost ||
	    a->sp_known != b->sp_known || a->fp_known != b->fp_known ||
	    a->fp_at != b->fp_at || a->lr_at != b->lr_at)
		return false;
	return (!a->sp_known || a->sp_depth == b->sp_depth) &&
	       (!a->fp_known || a->fp_depth == b->fp_depth);
}

/*
 * A branch out of a function that still has its frame is no tail call
 * (the callee would return into a frame not its caller's): it is the
 * linker's, which moved the instruction there to a veneer that branches
 * back to the next one (--fix-cortex-a53-843419: the e843419@ symbols).
 */
static bool framed(const struct st *s)
{
	return s->kind == MS_A64_FRAME &&
	       (s->fp_at || s->lr_at || (s->sp_known && s->sp_depth));
}

/*
 * s reaches instruction i: the first state, or a second that must agree.
 * brk #0x800 is both WARN(), which returns to the next instruction, and
 * BUG(), which never returns (arch/arm64/include/asm/bug.h): the way past
 * a brk is weak, and where it disagrees with another way in, the brk was
 * a BUG() and the other way is the one code takes. So is a block only a
 * br reaches (reach_br_targets()): its frame is a guess.
 */
static void reach(struct dec *d, size_t i, const struct st *s, bool weak)
{
	struct st *t = &d->s[i];

	if (t->reached && !t->conflict && !same(t, s) && (weak || t->weak)) {
		if (weak)
			return;
		t->reached = false; /* the weak state gives way */
	}
	if (!t->reached) {
		*t = *s;
		t->reached = true;
		t->weak = weak;
		d->work[d->nwork++] = i;
		return;
	}
	t->weak &= weak;
	if (t->conflict || same(t, s)) {
		bool fewer = false;

		for (int r = 0; r < 10; r++) {
			if (t->saved[r] && t->saved[r] != s->saved[r]) {
				t->saved[r] = 0; /* kept only where all agree */
				fewer = true;
			}
		}
		if (fewer && !t->conflict)
			d->work[d->nwork++] = i; /* at most 10 times */
		return;
	}
	t->conflict = true;
	lose(t);
	d->work[d->nwork++] = i;
}

static void run(struct dec *d)
{
	while (d->nwork) {
		size_t i = d->work[--d->nwork];
		struct st s = d->s[i];
		int64_t t = 0;
		enum flow f = flow_of(insn(d, i), &t);
		int64_t to = (int64_t)i + t / 4;

		transfer(d, i, &s);
		s.reached = false;
		s.conflict = false;
		s.weak = d->s[i].weak;
		if (f == F_BR && !d->has_br && d->s[i].kind != MS_A64_UNDEF) {
			d->has_br = true; /* a jump table's, or a tail call */
			d->br_state = s;
		}
		if ((f == F_BRANCH || f == F_COND) && to >= 0 &&
		    (size_t)to < d->n)
			reach(d, (size_t)to, &s, s.weak);
		else if (f == F_BRANCH && framed(&s) && i + 1 < d->n)
			reach(d, i + 1, &s, s.weak); /* a veneer: see framed() */
		if ((f == F_NEXT || f == F_COND || f == F_CALL) && i + 1 < d->n)
			reach(d, i + 1, &s,
			      s.weak || (insn(d, i) & 0xffe0001f) == 0xd4200000);
	}
}

/*
 * A block no branch reaches follows a ret or a branch: a jump table's
 * target (br xN), with the frame of the br; or dead code, where nothing
 * runs. Blocks reached only through a br get its state.
 */
static void reach_br_targets(struct dec *d)
{
	if (!d->has_br)
		return;
	for (size_t i = 1; i < d->n; i++) {
		int64_t t;

		if (!d->s[i].reached && d->s[i - 1].reached &&
		    flow_of(insn(d, i - 1), &t) != F_NEXT) {
			reach(d, i, &d->br_state, true);
			run(d); /* its block, so that the next one follows it */
		}
	}
}

/* The row of state s at address ip (4 bytes, grown by the caller). */
static void make_row(const struct st *s, uint64_t ip, struct ms_a64_row *r)
{
	memset(r, 0, sizeof(*r));
	r->ip = ip;
	r->end = ip + 4;
	r->kind = s->reached && s->kind != K_ENTRY ? s->kind : MS_A64_UNDEF;
	if (r->kind == MS_A64_REGS) {
		r->cfa_off = s->sp_depth; /* pt_regs at sp + cfa_off */
		return;
	}
	if (r->kind != MS_A64_FRAME)
		return;
	if (s->lr_lost || (!s->fp_known && !s->sp_known)) {
		r->kind = MS_A64_UNDEF;
		return;
	}
	/* x29 once it is ours: sp may move after it (call_on_irq_stack) */
	r->cfa_reg = s->fp_known && s->fp_at ? 29 : 31;
	r->cfa_off = r->cfa_reg == 29 ? s->fp_depth : s->sp_depth;
	if (r->cfa_reg == 31 && !s->sp_known) {
		r->kind = MS_A64_UNDEF;
		return;
	}
	r->fp_at = s->fp_at;
	r->lr_at = s->lr_at;
	memcpy(r->saved, s->saved, sizeof(r->saved));
}

static bool row_eq(const struct ms_a64_row *a, const struct ms_a64_row *b)
{
	return a->kind == b->kind && a->cfa_reg == b->cfa_reg &&
	       a->cfa_off == b->cfa_off && a->fp_at == b->fp_at &&
	       a->lr_at == b->lr_at && !memcmp(a->saved, b->saved,
						sizeof(a->saved));
}

static int add_row(struct ms_a64 *a, size_t *cap, const struct ms_a64_row *r)
{
	struct ms_a64_row *last = a->n ? &a->r[a->n - 1] : NULL;

	if (last && !r->fstart && last->end == r->ip && row_eq(last, r)) {
		last->end = r->end;
		return 0;
	}
	if (ms_reserve(&a->r, cap, a->n + 1, sizeof(*a->r), 4096))
		return -ENOMEM;
	a->r[a->n++] = *r;
	return 0;
}

/* The first state of fn: a call's, or the kind its flags give. */
static void first_state(const struct ms_a64_fn *fn, struct st *s)
{
	memset(s, 0, sizeof(*s));
	s->sp_known = true;
	s->kind = MS_A64_FRAME;
	if (fn->flags & MS_A64_FN_END)
		s->kind = MS_A64_END;
	else if (fn->flags & MS_A64_FN_ENTRY)
		s->kind = K_ENTRY;
	else if (fn->flags & MS_A64_FN_UNDEF)
		s->kind = MS_A64_UNDEF;
}

static int decode_fn(const struct ms_a64_fn *fn,
		     const struct ms_a64_facts *facts, struct ms_a64 *a,
		     size_t *cap)
{
	struct dec d = { fn, facts, fn->code, (size_t)(fn->size / 4) };
	struct st first;
	int r = 0;

	if (!d.n || (!fn->code && !(fn->flags & (MS_A64_FN_END |
						     MS_A64_FN_UNDEF |
						     MS_A64_FN_RECORD))))
		return 0;
	if (fn->flags & (MS_A64_FN_END | MS_A64_FN_UNDEF | MS_A64_FN_RECORD)) {
		struct ms_a64_row row = { fn->addr, fn->addr + 4 * d.n };

		row.kind = fn->flags & MS_A64_FN_END	? MS_A64_END :
			   fn->flags & MS_A64_FN_RECORD ? MS_A64_FRAME :
							  MS_A64_UNDEF;
		if (row.kind == MS_A64_FRAME) {
			row.cfa_reg = 29;
			row.cfa_off = 16;
			row.fp_at = -16;
			row.lr_at = -8;
		}
		row.fstart = true;
		a->nlost += row.kind == MS_A64_UNDEF ? d.n : 0;
		a->ninsns += d.n;
		return add_row(a, cap, &row);
	}
	d.s = calloc(d.n, sizeof(*d.s));
	d.work = calloc(14 * d.n, sizeof(*d.work)); /* reach(): 13 each */
	if (!d.s || !d.work) {
		free(d.s);
		free(d.work);
		return -ENOMEM;
	}
	first_state(fn, &first);
	reach(&d, 0, &first, false);
	run(&d);
	reach_br_targets(&d);
	for (size_t i = 0; !r && i < d.n; i++) {
		struct ms_a64_row row;

		make_row(&d.s[i], fn->addr + 4 * i, &row);
		row.fstart = i == 0;
		if (row.kind == MS_A64_UNDEF)
			a->nlost++;
		r = add_row(a, cap, &row);
	}
	a->ninsns += d.n;
	free(d.s);
	free(d.work);
	return r;
}

int ms_a64_decode(const struct ms_a64_fn *fns, size_t n,
		  const struct ms_a64_facts *facts, struct ms_a64 **ret,
		  struct ms_err *err)
{
	struct ms_a64 *a = calloc(1, sizeof(*a));
	size_t cap = 0;
	int r = 0;

	if (!a)
		return ms_err_errno(err, ENOMEM, "arm64 unwind tables");
	a->facts = *facts;
	for (size_t i = 0; !r && i < n; i++) {
		const struct ms_a64_fn *f = &fns[i];

		if (i && f->addr < fns[i - 1].addr + fns[i - 1].size) {
			ms_a64_free(a);
			return ms_err_kind(err, MS_E_INPUT, EINVAL,
					   "arm64 functions overlap at 0x%llx",
					   (unsigned long long)f->addr);
		}
		if (f->size / 4 > MS_A64_MAX_FN_INSNS || f->addr % 4)
			continue; /* not a function: no rule, no frame */
		a->nfuncs++;
		r = decode_fn(f, facts, a, &cap);
	}
	if (r) {
		ms_a64_free(a);
		return ms_err_errno(err, ENOMEM, "arm64 unwind tables");
	}
	*ret = a;
	return 0;
}

const struct ms_a64_row *ms_a64_find(const struct ms_a64 *a, uint64_t ip)
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

void ms_a64_free(struct ms_a64 *a)
{
	if (!a)
		return;
	free(a->r);
	free(a);
}
