/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The i386 decoder's instructions: what each does to the frame and the
 * flow (x86insn.c, on capstone), for the walk over a function's code
 * (x86.c). Internal to lib/unwind/.
 */
#ifndef MODSECT_X86_INT_H
#define MODSECT_X86_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "unwind.h"

/* DWARF numbers of the registers tracked. */
enum { R_EAX, R_ECX, R_EDX, R_EBX, R_ESP, R_EBP, R_ESI, R_EDI, R_NONE = 0xff };

/* What an instruction does to the frame. */
enum op {
	O_NONE,
	O_PUSH, /* esp -= imm; reg saved if it is one of ours */
	O_POP, /* reg = [esp]; esp += imm */
	O_SP_ADD, /* esp += imm */
	O_SP_FP, /* esp = ebp + imm */
	O_FP_SP, /* ebp = esp + imm */
	O_SP_LOST, /* esp from something else: and $-N, lss */
	O_SP_SWITCH, /* esp from a register: another stack */
	O_FP_LOST, /* ebp from something else */
	O_LEAVE,
	O_ENC_FP, /* and $0x7fffffff,%ebp: ENCODE_FRAME_POINTER's pt_regs */
	O_REGS_ARG, /* mov %esp,%eax: the pt_regs passed to C */
};

enum flow { F_NEXT, F_JMP, F_JCC, F_CALL, F_END, F_JMPIND, F_UD2 };

struct x86_ins {
	uint32_t off;
	uint8_t len, op, flow, reg;
	int32_t imm;
	int64_t target; /* F_JMP, F_JCC: offset in the function, or -1 */
};

/*
 * A decoder of 32-bit x86 code (capstone's, with its operands): 0, or a
 * negative errno said in err (no libcapstone: the package to install).
 */
struct x86_dis;
int x86_dis_open(struct x86_dis **ret, struct ms_err *err);
void x86_dis_close(struct x86_dis *x);
/*
 * fn's instructions, one after the other from its entry, in *in_ret (the
 * caller frees it); at[off] (fn->size entries) the index of the
 * instruction at each byte offset, or -1. A byte the decoder cannot
 * read is an instruction of one byte that ends the walk (F_END).
 */
int x86_predecode(struct x86_dis *x, const struct ms_x86_fn *fn,
		  struct x86_ins **in_ret, size_t *n_ret, int32_t *at);

#endif
