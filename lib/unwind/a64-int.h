/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The arm64 decoder's state and what each instruction does to it
 * (a64insn.c), for the walk over a function's code (a64.c). Internal to
 * lib/unwind/.
 */
#ifndef MODSECT_A64_INT_H
#define MODSECT_A64_INT_H

#include <stdbool.h>
#include <stdint.h>

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

/* The frame is lost from here on: no rule, the debugger stops. */
static inline void a64_lose(struct st *s)
{
	s->kind = MS_A64_UNDEF;
}

enum flow { F_NEXT, F_BRANCH, F_COND, F_END, F_BR, F_CALL };

/* Instruction i of the function being decoded. */
uint32_t a64_insn(const struct dec *d, size_t i);
/* How control leaves w; *target: a branch's offset in bytes. */
enum flow a64_flow(uint32_t w, int64_t *target);
/* s, the state before instruction i, becomes the state after it. */
void a64_transfer(struct dec *d, size_t i, struct st *s);

#endif
