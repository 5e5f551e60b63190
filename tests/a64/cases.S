// SPDX-License-Identifier: GPL-2.0-or-later
// Functions as gcc 12 and arch/arm64/kernel/entry.S write them, for the
// arm64 frame rules (tests/t-a64.sh, rule 25): each one's rows are in
// cases.expect.
	.text
	.macro fn name
	.type \name, %function
	.globl \name
\name:
	.endm
	.macro endfn name
	.size \name, . - \name
	.endm

// A leaf: the return address stays in x30 (signed by paciasp).
fn leaf
	paciasp
	dsb	sy
	wfi
	autiasp
	ret
endfn leaf

// The usual frame, an early return, a block after the ret that only a
// branch reaches, with the frame.
fn framed
	nop
	nop
	paciasp
	stp	x29, x30, [sp, #-32]!
	mov	x29, sp
	cbz	x0, 1f
	bl	leaf
	ldp	x29, x30, [sp], #32
	autiasp
	ret
1:	stp	x19, x20, [sp, #16]
	bl	leaf
	ldp	x19, x20, [sp, #16]
	ldp	x29, x30, [sp], #32
	autiasp
	ret
endfn framed

// A frame below its locals: sub sp, then the record above them.
fn locals
	paciasp
	sub	sp, sp, #0x40
	stp	x29, x30, [sp, #32]
	add	x29, sp, #0x20
	bl	leaf
	ldp	x29, x30, [sp, #32]
	add	sp, sp, #0x40
	autiasp
	ret
endfn locals

// call_on_irq_stack: sp moves to another stack under the frame.
fn switch_stack
	paciasp
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	mov	sp, x1
	blr	x2
	mov	sp, x29
	ldp	x29, x30, [sp], #16
	autiasp
	ret
endfn switch_stack

// A jump table: the blocks only the br reaches have its frame.
fn jumptable
	paciasp
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	adr	x1, 1f
	add	x1, x1, x0, lsl #3
	br	x1
1:	bl	leaf
	b	2f
	bl	leaf
	b	2f
2:	ldp	x29, x30, [sp], #16
	autiasp
	ret
endfn jumptable

// A jump label: a nop in the image until the kernel patches it into a
// branch to the block after the ret, which only it reaches; that block
// goes back into reached code and has its frame.
fn statickey
	paciasp
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	nop
2:	ldp	x29, x30, [sp], #16
	autiasp
	ret
1:	bl	leaf
	b	2b
endfn statickey

// BUG() past a frame's end: brk #0x800 that never returns. The way past
// it is weak: the branch in has the frame the code has.
fn bug
	paciasp
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	cbnz	x0, 1f
	ldp	x29, x30, [sp], #16
	autiasp
	brk	#0x800
1:	bl	leaf
	ldp	x29, x30, [sp], #16
	autiasp
	ret
endfn bug

// A branch out with the frame still set up: the linker's erratum
// 843419 veneer, which comes back to the next instruction.
fn veneer
	paciasp
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	b	leaf
	ldp	x29, x30, [sp], #16
	autiasp
	ret
endfn veneer

// A tail call: the frame gone before the branch.
fn tailcall
	paciasp
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	bl	leaf
	ldp	x29, x30, [sp], #16
	autiasp
	b	leaf
endfn tailcall

// ftrace's patched entry: mov x9, x30; bl ftrace_caller keeps the lr.
fn ftraced
	mov	x9, x30
	bl	leaf
	paciasp
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	ldp	x29, x30, [sp], #16
	autiasp
	ret
endfn ftraced

// What cannot be followed: x30 lost in a leaf, sp from a register.
fn lost
	bl	leaf
	ret
endfn lost

fn spreg
	sub	sp, sp, x0
	ret
endfn spreg

// kernel_entry: the pt_regs complete once x29 points at its record.
fn entry_irq
	stp	x0, x1, [sp]
	stp	x28, x29, [sp, #224]
	stp	x29, x22, [sp, #304]
	add	x29, sp, #304
	mov	x0, sp
	bl	leaf
	b	leaf
endfn entry_irq

fn end_task
	bl	leaf
	b	leaf
endfn end_task

fn undef_vectors
	b	leaf
endfn undef_vectors

// Two ways into one instruction with different frames: refused.
fn conflict
	stp	x29, x30, [sp, #-16]!
	cbz	x0, 1f
	mov	x29, sp
	ldp	x29, x30, [sp], #16
1:	ret
endfn conflict
