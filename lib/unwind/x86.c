// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * i386 frame rules made from each function's own code.
 *
 * 32-bit x86 kernels have no ORC (objtool writes it for x86-64 alone) and
 * no unwind tables the debugger could read; the kernel's own unwinder
 * follows the frame pointers (arch/x86/kernel/unwind_frame.c, the only
 * one CONFIG_X86_32 offers), and gdb's prologue analysis loses its way in
 * code built with -mregparm=3 and no CFI. Every function's code says where
 * its frame is at each instruction: `push %ebp; mov %esp,%ebp` after the
 * 5-byte __fentry__ call (or its nop), pushes of ebx, esi, edi, `sub
 * $n,%esp`, the epilogue (`leave`, `pop %ebp`, `ret`). As on arm64
 * (a64.c), the decoder follows the code's own branches from the entry,
 * gives each instruction the state before it runs, and gives no rule
 * where it cannot follow: an instruction reached with two different
 * frames, esp or ebp written in a way it does not know.
 *
 * Instructions are decoded with capstone (x86insn.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rows-int.h"
#include "x86-int.h"

/* Entry code before its pt_regs are complete: followed, no frame yet. */
#define K_ENTRY 10

/* The state before an instruction. Depths are from the CFA, downwards. */
struct st {
	uint8_t kind; /* MS_X86_* or K_ENTRY */
	bool reached, weak, conflict, sp_known, fp_known, switched;
	bool fp_pushed; /* the last instruction pushed ebp, esp unknown */
	/* esp = CFA - sp_depth; REGS: the pt_regs at esp + sp_depth */
	int32_t sp_depth;
	int32_t fp_depth; /* ebp = CFA - fp_depth */
	int16_t saved[4]; /* ebp, ebx, esi, edi at CFA + saved[i]; 0: not */
};

struct dec {
	const struct ms_x86_fn *fn;
	struct x86_ins *in;
	size_t n;
	int32_t *at; /* instruction index at each byte offset, or -1 */
	struct st *s;
	size_t *work;
	size_t nwork;
	bool has_br, framed;
	struct st br_state;
};

/* Index of saved[] for DWARF register r, or -1. */
static int slot(unsigned int r)
{
	return r == R_EBP ? 0 :
	       r == R_EBX ? 1 :
	       r == R_ESI ? 2 :
	       r == R_EDI ? 3 :
			    -1;
}

/* The frame is lost from here on: no rule, the debugger stops. */
static void lose(struct st *s)
{
	s->kind = MS_X86_UNDEF;
}

/* esp moves down by by (push, sub): deeper; REGS: the pt_regs further. */
static void sp_down(struct st *s, int64_t by)
{
	int64_t d = (int64_t)s->sp_depth + by;

	if (!s->sp_known)
		return;
	if (d < INT16_MIN || d > INT16_MAX)
		s->sp_known = false;
	else
		s->sp_depth = (int32_t)d;
}

static void push(struct st *s, const struct x86_ins *in)
{
	int k = slot(in->reg);

	sp_down(s, in->imm);
	if (s->kind == MS_X86_FRAME && k >= 0 && s->sp_known && !s->saved[k] &&
	    in->imm == 4)
		s->saved[k] = (int16_t)-s->sp_depth;
}

/* A load of reg from the word at esp: a restore, or a clobber. */
static void pop(struct st *s, const struct x86_ins *in)
{
	int k = slot(in->reg);

	if (k >= 0 && s->kind == MS_X86_FRAME) {
		if (s->sp_known && s->saved[k] == -s->sp_depth)
			s->saved[k] = 0;
		if (in->reg == R_EBP)
			s->fp_known = false;
	}
	sp_down(s, -in->imm);
}

static void leave(struct st *s)
{
	if (!s->fp_known) {
		s->sp_known = false;
		s->fp_known = false;
		return;
	}
	s->sp_known = true;
	s->sp_depth = s->fp_depth;
	pop(s, &(struct x86_ins){ .reg = R_EBP, .imm = 4 });
}

/* ebp's frame, as the kernel's unwinder takes it everywhere. */
static void fp_state(struct st *s)
{
	memset(s, 0, sizeof(*s));
	s->kind = MS_X86_FRAME;
	s->fp_known = true;
	s->fp_depth = 8;
	s->saved[0] = -8;
}

/*
 * A function that realigns its stack (gcc's DRAP: `lea 8(%esp),%edi; and
 * $-16,%esp; push -4(%edi); push %ebp; mov %esp,%ebp`) copies the return
 * address above a new frame record, which the kernel's unwinder follows
 * as any other: from there the frame is ebp's, CFA = ebp + 8 with the
 * copy at CFA - 4. Its CFA is not the caller's esp (the padding between
 * is not known); the caller's frame is ebp's too, so the walk goes on
 * right.
 */
static void realigned(struct st *s)
{
	fp_state(s);
	s->sp_known = true;
	s->sp_depth = 8;
}

/* In a function's own frame. */
static void transfer_frame(struct st *s, const struct x86_ins *in)
{
	bool pushed = s->fp_pushed;

	s->fp_pushed = false;
	switch (in->op) {
	case O_PUSH:
		s->fp_pushed = in->reg == R_EBP && !s->sp_known;
		push(s, in);
		break;
	case O_POP:
		pop(s, in);
		break;
	case O_SP_ADD:
		sp_down(s, -(int64_t)in->imm);
		break;
	case O_SP_FP:
		s->sp_known = s->fp_known;
		s->sp_depth = s->fp_depth - in->imm;
		break;
	case O_FP_SP:
		if (!s->sp_known && pushed && !in->imm) {
			realigned(s);
			break;
		}
		s->fp_known = s->sp_known;
		s->fp_depth = s->sp_depth - in->imm;
		break;
	case O_SP_SWITCH:
		s->switched = true;
		/* fall through */
	case O_SP_LOST:
		s->sp_known = false;
		break;
	case O_FP_LOST:
	case O_ENC_FP:
		s->fp_known = false;
		if (in->imm) /* popal */
			sp_down(s, -(int64_t)in->imm);
		break;
	case O_LEAVE:
		leave(s);
		break;
	}
}

/* Entry code: no frame until its pt_regs are complete, then those. */
static void transfer_entry(struct st *s, const struct x86_ins *in)
{
	if (s->kind == K_ENTRY) {
		if (in->op == O_REGS_ARG || in->op == O_ENC_FP) {
			s->kind = MS_X86_REGS;
			s->sp_known = true;
			s->sp_depth = 0;
		}
		return;
	}
	switch (in->op) {
	case O_PUSH:
	case O_POP:
		sp_down(s, in->op == O_PUSH ? in->imm : -in->imm);
		break;
	case O_SP_ADD:
		sp_down(s, -(int64_t)in->imm);
		break;
	case O_SP_FP:
	case O_SP_LOST:
	case O_SP_SWITCH:
	case O_LEAVE:
		s->sp_known = false;
		break;
	}
	/* the pt_regs must stay at or above esp */
	if (!s->sp_known || s->sp_depth < 0)
		lose(s);
}

static void transfer(struct st *s, const struct x86_ins *in)
{
	if (s->kind == MS_X86_FRAME)
		transfer_frame(s, in);
	else if (s->kind == MS_X86_REGS || s->kind == K_ENTRY)
		transfer_entry(s, in);
}

static bool same(const struct st *a, const struct st *b)
{
	if (a->kind != b->kind || a->sp_known != b->sp_known ||
	    a->fp_known != b->fp_known || a->saved[0] != b->saved[0] ||
	    a->switched != b->switched)
		return false;
	return (!a->sp_known || a->sp_depth == b->sp_depth) &&
	       (!a->fp_known || a->fp_depth == b->fp_depth);
}

/*
 * s reaches instruction i: the first state, or a second that must agree.
 * ud2 is both WARN(), which goes on to the next instruction, and BUG(),
 * which never returns (arch/x86/include/asm/bug.h): the way past it is
 * weak, and where it disagrees with another way in, the ud2 was a BUG()
 * and the other way is the one code takes. So is a block that only an
 * indirect jump or nothing reaches (reach_orphans()): its frame a guess.
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

		for (int r = 1; r < 4; r++) {
			if (t->saved[r] && t->saved[r] != s->saved[r]) {
				t->saved[r] = 0; /* kept only where all agree */
				fewer = true;
			}
		}
		if (fewer && !t->conflict)
			d->work[d->nwork++] = i; /* at most 3 times */
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
		const struct x86_ins *in = &d->in[i];
		struct st s = d->s[i];
		int64_t to = in->target >= 0 ? d->at[in->target] : -1;

		transfer(&s, in);
		s.reached = false;
		s.conflict = false;
		s.weak = d->s[i].weak;
		if (s.kind == MS_X86_FRAME && s.fp_known && s.saved[0])
			d->framed = true;
		if (in->flow == F_JMPIND && !d->has_br &&
		    d->s[i].kind != MS_X86_UNDEF) {
			d->has_br = true; /* a jump table's */
			d->br_state = s;
		}
		if ((in->flow == F_JMP || in->flow == F_JCC) && to >= 0)
			reach(d, (size_t)to, &s, s.weak);
		if ((in->flow == F_NEXT || in->flow == F_JCC ||
		     in->flow == F_CALL || in->flow == F_UD2) &&
		    i + 1 < d->n)
			reach(d, i + 1, &s, s.weak || in->flow == F_UD2);
	}
}

/* The first state of fn: a call's, or the kind its flags give. */
static void first_state(const struct ms_x86_fn *fn, struct st *s)
{
	memset(s, 0, sizeof(*s));
	s->sp_known = true;
	s->sp_depth = 4; /* the return address */
	s->kind = MS_X86_FRAME;
	if (fn->flags & MS_X86_FN_COLD) {
		fp_state(s);
	} else if (fn->flags & MS_X86_FN_REGS) {
		s->kind = MS_X86_REGS;
		s->sp_depth = 0;
	} else if (fn->flags & MS_X86_FN_ENTRY) {
		s->kind = K_ENTRY;
	}
}

/*
 * A block no branch reaches follows a ret or a jump: a jump table's
 * target (jmp *...), with the frame of the jump; the target of a static
 * branch (a jump label, static_cpu_has()), which the image has as a nop
 * or a jump elsewhere: in ebp's frame where the function has one, else
 * in the entry's, where such branches are (`call __fentry__; nop5; ret`,
 * then the body); or padding, where nothing runs. Weak, as a guess.
 */
static void reach_orphans(struct dec *d)
{
	struct st fp, entry;

	fp_state(&fp);
	first_state(d->fn, &entry);
	for (size_t i = 1; i < d->n; i++) {
		uint8_t f = d->in[i - 1].flow;

		if (d->s[i].reached || !d->s[i - 1].reached ||
		    (f != F_JMP && f != F_END && f != F_JMPIND))
			continue;
		reach(d, i,
		      d->has_br ? &d->br_state :
		      d->framed ? &fp :
				  &entry,
		      true);
		run(d); /* its block, so that the next one follows it */
	}
}

/* The row of state s at in (grown by the caller). */
static void make_row(const struct st *s, uint64_t ip, const struct x86_ins *in,
		     struct ms_x86_row *r)
{
	memset(r, 0, sizeof(*r));
	r->ip = ip;
	r->end = ip + in->len;
	r->kind = s->reached && s->kind != K_ENTRY ? s->kind : MS_X86_UNDEF;
	if (r->kind == MS_X86_REGS) {
		r->cfa_off = s->sp_depth; /* pt_regs at esp + cfa_off */
		return;
	}
	if (r->kind != MS_X86_FRAME)
		return;
	/* ebp once it is ours: esp may move under it (call_on_stack) */
	if (s->fp_known && s->saved[0]) {
		r->cfa_reg = R_EBP;
		r->cfa_off = s->fp_depth;
	} else if (s->sp_known) {
		r->cfa_reg = R_ESP;
		r->cfa_off = s->sp_depth;
	} else {
		r->kind = MS_X86_UNDEF;
		return;
	}
	r->signal = s->switched;
	memcpy(r->saved, s->saved, sizeof(r->saved));
}

static bool row_eq(const void *x, const void *y)
{
	const struct ms_x86_row *a = x, *b = y;

	return a->kind == b->kind && a->cfa_reg == b->cfa_reg &&
	       a->cfa_off == b->cfa_off && a->signal == b->signal &&
	       !memcmp(a->saved, b->saved, sizeof(a->saved));
}

static int add_row(struct ms_x86 *a, size_t *cap, const struct ms_x86_row *r)
{
	return rows_add(&a->r, &a->n, cap, sizeof(*r), r, r->fstart, row_eq);
}

/* A function not decoded: one row for all of it. */
static int whole_fn(const struct ms_x86_fn *fn, struct ms_x86 *a, size_t *cap)
{
	struct ms_x86_row row = { fn->addr, fn->addr + fn->size };

	row.kind = fn->flags & MS_X86_FN_END	? MS_X86_END :
		   fn->flags & MS_X86_FN_RECORD ? MS_X86_FRAME :
						  MS_X86_UNDEF;
	if (row.kind == MS_X86_FRAME) {
		row.cfa_reg = R_EBP;
		row.cfa_off = 8;
		row.saved[0] = -8;
	}
	row.fstart = true;
	a->nlost += row.kind == MS_X86_UNDEF ? fn->size : 0;
	a->ninsns += fn->size;
	return add_row(a, cap, &row);
}

static int decode_fn(struct x86_dis *x, const struct ms_x86_fn *fn,
		     struct ms_x86 *a, size_t *cap)
{
	struct dec d = { fn };
	struct st first;
	int r;

	if (!fn->size)
		return 0;
	if (fn->flags & (MS_X86_FN_END | MS_X86_FN_UNDEF | MS_X86_FN_RECORD) ||
	    !fn->code)
		return whole_fn(fn, a, cap);
	d.at = malloc(fn->size * sizeof(*d.at));
	r = d.at ? x86_predecode(x, fn, &d.in, &d.n, d.at) : -ENOMEM;
	if (!r) {
		d.s = calloc(d.n, sizeof(*d.s));
		d.work = calloc(7 * d.n, sizeof(*d.work)); /* reach(): 6 each */
		if (!d.s || !d.work)
			r = -ENOMEM;
	}
	if (!r) {
		first_state(fn, &first);
		reach(&d, 0, &first, false);
		run(&d);
		reach_orphans(&d);
	}
	for (size_t i = 0; !r && i < d.n; i++) {
		struct ms_x86_row row;

		make_row(&d.s[i], fn->addr + d.in[i].off, &d.in[i], &row);
		row.fstart = i == 0;
		if (row.kind == MS_X86_UNDEF)
			a->nlost++;
		r = add_row(a, cap, &row);
	}
	a->ninsns += d.n;
	free(d.in);
	free(d.at);
	free(d.s);
	free(d.work);
	return r;
}

static int decode_all(struct x86_dis *x, const struct ms_x86_fn *fns, size_t n,
		      struct ms_x86 *a, struct ms_err *err)
{
	size_t cap = 0;
	int r = 0;

	for (size_t i = 0; !r && i < n; i++) {
		const struct ms_x86_fn *f = &fns[i];

		if (i && f->addr < fns[i - 1].addr + fns[i - 1].size)
			return ms_err_kind(err, MS_E_INPUT, EINVAL,
					   "i386 functions overlap at 0x%llx",
					   (unsigned long long)f->addr);
		if (f->size > MS_X86_MAX_FN_BYTES)
			continue; /* not a function: no rule, no frame */
		a->nfuncs++;
		r = decode_fn(x, f, a, &cap);
	}
	return r ? ms_err_errno(err, ENOMEM, "i386 unwind tables") : 0;
}

int ms_x86_decode(const struct ms_x86_fn *fns, size_t n,
		  const struct ms_x86_facts *facts, struct ms_x86 **ret,
		  struct ms_err *err)
{
	struct ms_x86 *a = calloc(1, sizeof(*a));
	struct x86_dis *x = NULL;
	int r;

	if (!a)
		return ms_err_errno(err, ENOMEM, "i386 unwind tables");
	a->facts = *facts;
	r = x86_dis_open(&x, err);
	if (r) {
		free(a);
		return r;
	}
	r = decode_all(x, fns, n, a, err);
	x86_dis_close(x);
	if (r) {
		ms_x86_free(a);
		return r;
	}
	*ret = a;
	return 0;
}
