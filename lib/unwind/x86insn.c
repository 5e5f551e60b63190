// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What each i386 instruction does to the frame and where it goes, for
 * the walk over a function's code (x86.c): decoded with capstone, whose
 * operands say which registers an instruction writes and where a branch
 * goes. libcapstone is opened when first needed (base/dlib.h), not
 * linked: loading it cost every run about 0.8 ms, and only i386 kernels
 * need it. Its major version must be the headers' (instruction ids
 * differ between 4 and 5).
 */
#include <capstone/capstone.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/dlib.h"
#include "x86-int.h"

static uint8_t dwarf_reg(x86_reg r)
{
	switch (r) {
	case X86_REG_EAX:
		return R_EAX;
	case X86_REG_ECX:
		return R_ECX;
	case X86_REG_EDX:
		return R_EDX;
	case X86_REG_EBX:
		return R_EBX;
	case X86_REG_ESP:
		return R_ESP;
	case X86_REG_EBP:
		return R_EBP;
	case X86_REG_ESI:
		return R_ESI;
	case X86_REG_EDI:
		return R_EDI;
	default:
		return R_NONE;
	}
}

static bool relocated(const struct ms_x86_fn *fn, uint32_t off)
{
	size_t lo = ms_lower_bound_u32(fn->rel, fn->nrel, off);

	return lo < fn->nrel && fn->rel[lo] == off;
}

/* Branches: where to, -1 for out of the function or unknown. */
static void branch(const struct ms_x86_fn *fn, const cs_insn *c,
		   struct x86_ins *d)
{
	const cs_x86 *x = &c->detail->x86;
	bool jmp = c->id == X86_INS_JMP;

	d->target = -1;
	if (x->op_count != 1 || x->operands[0].type != X86_OP_IMM) {
		d->flow = jmp ? F_JMPIND : F_JCC;
		return;
	}
	d->flow = jmp ? F_JMP : F_JCC;
	if (relocated(fn, (uint32_t)(c->address + c->size - 4)))
		return;
	if (x->operands[0].imm >= 0 && (uint64_t)x->operands[0].imm < fn->size)
		d->target = x->operands[0].imm;
}

/* mov, lea, add, sub, and, xchg on esp and ebp. */
static void frame_op(const cs_insn *c, struct x86_ins *d)
{
	const cs_x86 *x = &c->detail->x86;
	const cs_x86_op *a = &x->operands[0], *b = &x->operands[1];
	uint8_t dst = x->op_count && a->type == X86_OP_REG ? dwarf_reg(a->reg) :
							     R_NONE;
	uint8_t src = x->op_count > 1 && b->type == X86_OP_REG ?
			      dwarf_reg(b->reg) :
			      R_NONE;
	bool imm = x->op_count > 1 && b->type == X86_OP_IMM;
	bool mem = x->op_count > 1 && b->type == X86_OP_MEM;

	if (c->id == X86_INS_XCHG && (src == R_ESP || src == R_EBP)) {
		uint8_t t = dst;

		dst = src;
		src = t;
	}
	if (dst != R_ESP && dst != R_EBP)
		return;
	if (!(a->access & CS_AC_WRITE) && c->id != X86_INS_XCHG)
		return; /* cmp, test */
	d->op = dst == R_ESP ? O_SP_LOST : O_FP_LOST;
	if (c->id == X86_INS_MOV && dst == R_ESP && src == R_EBP)
		d->op = O_SP_FP;
	else if (c->id == X86_INS_MOV && dst == R_EBP && src == R_ESP)
		d->op = O_FP_SP;
	else if ((c->id == X86_INS_MOV || c->id == X86_INS_XCHG) &&
		 dst == R_ESP && src != R_NONE)
		d->op = O_SP_SWITCH;
	else if (c->id == X86_INS_LEA && mem &&
		 b->mem.index == X86_REG_INVALID &&
		 b->mem.segment == X86_REG_INVALID &&
		 (b->mem.base == X86_REG_ESP || b->mem.base == X86_REG_EBP)) {
		bool from_sp = b->mem.base == X86_REG_ESP;

		d->op = dst == R_ESP ? (from_sp ? O_SP_ADD : O_SP_FP) :
				       (from_sp ? O_FP_SP : O_FP_LOST);
		d->imm = (int32_t)b->mem.disp;
	} else if ((c->id == X86_INS_ADD || c->id == X86_INS_SUB) && imm &&
		   dst == R_ESP) {
		d->op = O_SP_ADD;
		d->imm = (int32_t)(c->id == X86_INS_SUB ? -b->imm : b->imm);
	} else if (c->id == X86_INS_AND && imm && dst == R_EBP &&
		   (uint32_t)b->imm == 0x7fffffff) {
		d->op = O_ENC_FP;
	}
}

static bool in_group(const cs_insn *c, uint8_t g)
{
	for (uint8_t i = 0; i < c->detail->groups_count; i++)
		if (c->detail->groups[i] == g)
			return true;
	return false;
}

/* One decoded instruction to what it does to the frame and the flow. */
static void classify(const struct ms_x86_fn *fn, const cs_insn *c,
		     struct x86_ins *d)
{
	const cs_x86 *x = &c->detail->x86;
	int size = x->prefix[2] ? 2 : 4;

	d->off = (uint32_t)c->address;
	d->len = (uint8_t)c->size;
	switch (c->id) {
	case X86_INS_PUSH:
	case X86_INS_PUSHF:
	case X86_INS_PUSHFD:
		d->op = O_PUSH;
		d->imm = size;
		d->reg = x->op_count && x->operands[0].type == X86_OP_REG ?
				 dwarf_reg(x->operands[0].reg) :
				 R_NONE;
		return;
	case X86_INS_POP:
	case X86_INS_POPF:
	case X86_INS_POPFD:
		d->op = O_POP;
		d->imm = size;
		d->reg = x->op_count && x->operands[0].type == X86_OP_REG ?
				 dwarf_reg(x->operands[0].reg) :
				 R_NONE;
		if (d->reg == R_ESP)
			d->op = O_SP_LOST;
		return;
	case X86_INS_PUSHAL:
		d->op = O_SP_ADD;
		d->imm = -32;
		return;
	case X86_INS_POPAL:
		d->op = O_FP_LOST; /* and esp += 32: see transfer() */
		d->imm = 32;
		return;
	case X86_INS_LEAVE:
		d->op = O_LEAVE;
		return;
	case X86_INS_LSS:
	case X86_INS_ENTER:
		d->op = O_SP_LOST;
		return;
	case X86_INS_CALL:
		d->flow = F_CALL;
		return;
	case X86_INS_RET:
	case X86_INS_RETF:
	case X86_INS_IRET:
	case X86_INS_IRETD:
	case X86_INS_SYSEXIT:
	case X86_INS_SYSRET:
	case X86_INS_INT3:
	case X86_INS_LJMP:
	case X86_INS_UD0:
		d->flow = F_END;
		return;
	case X86_INS_UD2:
		d->flow = F_UD2;
		return;
	case X86_INS_MOV:
		if (x->op_count == 2 && x->operands[0].type == X86_OP_REG &&
		    x->operands[0].reg == X86_REG_EAX &&
		    x->operands[1].type == X86_OP_REG &&
		    x->operands[1].reg == X86_REG_ESP) {
			d->op = O_REGS_ARG;
			return;
		}
		break;
	default:
		break;
	}
	if (in_group(c, X86_GRP_JUMP))
		branch(fn, c, d);
	else
		frame_op(c, d);
}

struct cs_fns {
	__typeof__(&cs_open) cs_open;
	__typeof__(&cs_option) cs_option;
	__typeof__(&cs_malloc) cs_malloc;
	__typeof__(&cs_free) cs_free;
	__typeof__(&cs_close) cs_close;
	__typeof__(&cs_disasm_iter) cs_disasm_iter;
};

struct x86_dis {
	struct cs_fns cs;
	csh h;
	cs_insn *c;
	bool opened;
};

#define STR_(x) #x
#define STR(x) STR_(x)

int x86_dis_open(struct x86_dis **ret, struct ms_err *err)
{
	struct x86_dis *x = calloc(1, sizeof(*x));
	const struct ms_dlsym syms[] = {
		MS_DLSYM(&x->cs, cs_open),   MS_DLSYM(&x->cs, cs_option),
		MS_DLSYM(&x->cs, cs_malloc), MS_DLSYM(&x->cs, cs_free),
		MS_DLSYM(&x->cs, cs_close),  MS_DLSYM(&x->cs, cs_disasm_iter),
	};
	void *lib;
	int r;

	if (!x)
		return ms_err_errno(err, ENOMEM, "i386 unwind tables");
	r = ms_dlib_open("libcapstone.so." STR(CS_API_MAJOR),
			 "libcapstone" STR(CS_API_MAJOR), syms,
			 sizeof(syms) / sizeof(syms[0]), &lib, err);
	if (!r && x->cs.cs_open(CS_ARCH_X86, CS_MODE_32, &x->h) != CS_ERR_OK)
		r = ms_err_set(err, ENOTSUP, "capstone: no x86 decoder");
	x->opened = !r;
	if (!r) {
		x->cs.cs_option(x->h, CS_OPT_DETAIL, CS_OPT_ON);
		x->c = x->cs.cs_malloc(x->h);
		if (!x->c)
			r = ms_err_errno(err, ENOMEM, "i386 unwind tables");
	}
	if (r) {
		x86_dis_close(x);
		return r;
	}
	*ret = x;
	return 0;
}

void x86_dis_close(struct x86_dis *x)
{
	if (!x)
		return;
	if (x->c)
		x->cs.cs_free(x->c, 1);
	if (x->opened)
		x->cs.cs_close(&x->h);
	free(x);
}

int x86_predecode(struct x86_dis *x, const struct ms_x86_fn *fn,
		  struct x86_ins **in_ret, size_t *n_ret, int32_t *at)
{
	const uint8_t *p = fn->code;
	size_t left = (size_t)fn->size, cap = 0, n = 0;
	struct x86_ins *in = NULL;
	uint64_t addr = 0;

	for (size_t i = 0; i < fn->size; i++)
		at[i] = -1;
	while (left) {
		struct x86_ins d = { 0 };

		d.reg = R_NONE;
		d.target = -1;
		if (x->cs.cs_disasm_iter(x->h, &p, &left, &addr, x->c)) {
			classify(fn, x->c, &d);
		} else {
			d.off = (uint32_t)addr;
			d.len = 1;
			d.flow = F_END;
			p++;
			left--;
			addr++;
		}
		if (ms_reserve(&in, &cap, n + 1, sizeof(*in), 256)) {
			free(in);
			return -ENOMEM;
		}
		at[d.off] = (int32_t)n;
		in[n++] = d;
	}
	*in_ret = in;
	*n_ret = n;
	return 0;
}
