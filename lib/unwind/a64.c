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
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "a64-int.h"
#include "rows-int.h"

_Static_assert(offsetof(struct ms_a64_row, ip) == 0 &&
		       offsetof(struct ms_a64_row, end) == 8,
	       "rows-int.h: a row begins with ip, end");

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
	a64_lose(t);
	d->work[d->nwork++] = i;
}

static void run(struct dec *d)
{
	while (d->nwork) {
		size_t i = d->work[--d->nwork];
		struct st s = d->s[i];
		int64_t t = 0;
		enum flow f = a64_flow(a64_insn(d, i), &t);
		int64_t to = (int64_t)i + t / 4;

		a64_transfer(d, i, &s);
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
			reach(d, i + 1, &s,
			      s.weak); /* a veneer: see framed() */
		if ((f == F_NEXT || f == F_COND || f == F_CALL) && i + 1 < d->n)
			reach(d, i + 1, &s,
			      s.weak || (a64_insn(d, i) & 0xffe0001f) ==
						0xd4200000);
	}
}

/*
 * The reached instruction the straight-line run of code from i goes on
 * to (a branch's reached target, or the next instruction), or -1.
 */
static long run_exit(struct dec *d, size_t i, size_t *last)
{
	for (size_t k = i; k < d->n; k++) {
		int64_t t = 0;
		enum flow f = a64_flow(a64_insn(d, k), &t);
		int64_t to = (int64_t)k + t / 4;
		bool in = to >= 0 && (size_t)to < d->n;

		*last = k;
		if ((f == F_BRANCH || f == F_COND) && in && d->s[to].reached)
			return (long)to;
		if (f == F_BRANCH || f == F_END || f == F_BR)
			return -1;
		if (k + 1 < d->n && d->s[k + 1].reached)
			return (long)k + 1;
	}
	return -1;
}

/*
 * A block no branch reaches that goes on into reached code, changing no
 * frame, has the frame of where it goes: the image's static branches
 * are nops until the kernel patches them (jump labels), so the code only
 * they reach is reached by none here (Debian's 6.12 el0_svc). Weak, as
 * a guess.
 */
static bool reach_back(struct dec *d)
{
	bool any = false;

	for (size_t i = 0; i < d->n; i++) {
		size_t last = i;
		long x;
		struct st s;

		if (d->s[i].reached || (x = run_exit(d, i, &last)) < 0)
			continue;
		s = d->s[x];
		for (size_t k = i; k <= last; k++)
			a64_transfer(d, k, &s);
		if (!same(&s, &d->s[x]))
			continue;
		reach(d, i, &d->s[x], true);
		run(d);
		any = true;
	}
	return any;
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
		    a64_flow(a64_insn(d, i - 1), &t) != F_NEXT) {
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

static bool row_eq(const void *x, const void *y)
{
	const struct ms_a64_row *a = x, *b = y;

	return a->kind == b->kind && a->cfa_reg == b->cfa_reg &&
	       a->cfa_off == b->cfa_off && a->fp_at == b->fp_at &&
	       a->lr_at == b->lr_at &&
	       !memcmp(a->saved, b->saved, sizeof(a->saved));
}

static int add_row(struct ms_a64 *a, size_t *cap, const struct ms_a64_row *r)
{
	return rows_add(&a->r, &a->n, cap, sizeof(*r), r, r->fstart, row_eq);
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

	if (!d.n ||
	    (!fn->code && !(fn->flags & (MS_A64_FN_END | MS_A64_FN_UNDEF |
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
	while (reach_back(&d))
		;
	reach_br_targets(&d);
	while (reach_back(&d))
		;
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
	return rows_find(a->r, a->n, sizeof(*a->r), ip);
}

void ms_a64_free(struct ms_a64 *a)
{
	if (!a)
		return;
	free(a->r);
	free(a);
}
