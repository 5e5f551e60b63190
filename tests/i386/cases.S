// SPDX-License-Identifier: GPL-2.0-or-later
// Functions as gcc 12 (-mregparm=3 -fno-omit-frame-pointer, -mfentry)
// and arch/x86/entry/entry_32.S write them, for the i386 frame rules
// (tests/t-i386.sh, rule 27): each one's rows are in cases.expect.
	.text
	.macro fn name
	.type \name, @function
	.globl \name
\name:
	.endm
	.macro endfn name
	.size \name, . - \name
	.endm

// A leaf: the return address at esp, nothing saved.
fn leaf
	call	__fentry__
	mov	%eax, %edx
	ret
endfn leaf

// The usual frame after ftrace's call, callee-saved pushes, locals, an
// early return, and a block after the ret that only a branch reaches.
fn framed
	call	__fentry__
	push	%ebp
	mov	%esp, %ebp
	push	%ebx
	push	%esi
	sub	$8, %esp
	test	%eax, %eax
	je	1f
	call	leaf
	add	$8, %esp
	pop	%esi
	pop	%ebx
	pop	%ebp
	ret
1:	call	leaf
	lea	-8(%ebp), %esp
	pop	%esi
	pop	%ebx
	pop	%ebp
	ret
endfn framed

// leave, and a WARN's ud2 the code goes on after.
fn warn
	call	__fentry__
	push	%ebp
	mov	%esp, %ebp
	sub	$16, %esp
	call	leaf
	ud2
	mov	-4(%ebp), %eax
	leave
	ret
endfn warn

// BUG()'s ud2 after an argument was pushed: the way past it gives way
// to the branch into the block after it.
fn bug
	push	%ebp
	mov	%esp, %ebp
	test	%eax, %eax
	jne	2f
	push	$1
	call	leaf
	ud2
2:	pop	%ebp
	ret
endfn bug

// gcc's stack realignment (DRAP): a frame record above the padding,
// with a copy of the return address.
fn realign
	call	__fentry__
	push	%edi
	lea	8(%esp), %edi
	and	$-8, %esp
	push	-4(%edi)
	push	%ebp
	mov	%esp, %ebp
	push	%edi
	sub	$20, %esp
	call	leaf
	lea	-4(%ebp), %esp
	pop	%edi
	pop	%ebp
	lea	-8(%edi), %esp
	pop	%edi
	ret
endfn realign

// call_on_stack (arch/x86/kernel/irq_32.c): esp to another stack.
fn switch_stack
	push	%ebp
	mov	%esp, %ebp
	push	%edi
	mov	%eax, %edi
	push	%ebx
	mov	%edx, %ebx
	xchg	%ebx, %esp
	call	*%edi
	mov	%ebx, %esp
	pop	%ebx
	pop	%edi
	pop	%ebp
	ret
endfn switch_stack

// handle_exception's shape: SAVE_ALL, ENCODE_FRAME_POINTER, the pt_regs
// to C in eax.
fn entry_exception
	cld
	push	%fs
	push	%es
	push	%ds
	push	%eax
	push	%ebp
	push	%edi
	push	%esi
	push	%edx
	push	%ecx
	push	%ebx
	mov	%esp, %ebp
	and	$0x7fffffff, %ebp
	mov	%esp, %eax
	call	leaf
	push	%eax
	call	leaf
	pop	%eax
	jmp	regs_return
endfn entry_exception

// The label after the handler's call: its pt_regs at esp; popped, none.
fn regs_return
	mov	0x34(%esp), %eax
	pop	%ebx
	iret
endfn regs_return

// ret_from_fork: the end of every stack through it.
fn end_fork
	call	leaf
	jmp	end_fork
endfn end_fork

// A jump table: its blocks have the frame of the jmp.
fn jumptable
	push	%ebp
	mov	%esp, %ebp
	jmp	*4(,%eax,4)
	.p2align 2
	mov	$1, %eax
	pop	%ebp
	ret
	mov	$2, %eax
	pop	%ebp
	ret
endfn jumptable

// A static branch (jump label): a nop in the image, the body after the
// ret reached by none but the patched jump, from the entry's frame.
fn jumplabel
	call	__fentry__
	.byte	0x3e, 0x8d, 0x74, 0x26, 0x00
	ret
	push	%ebp
	mov	%esp, %ebp
	call	leaf
	pop	%ebp
	ret
endfn jumplabel

// A part of framed's body in .text.unlikely: in framed's frame.
fn framed.cold
	movl	$-1, -8(%ebp)
	call	leaf
	leave
	ret
endfn framed.cold

// A tail call after the epilogue.
fn tailcall
	push	%ebp
	mov	%esp, %ebp
	pop	%ebp
	jmp	leaf
endfn tailcall

// Two ways into one instruction with esp at two depths: refused.
fn conflict
	test	%eax, %eax
	je	1f
	push	%ebx
1:	ret
endfn conflict

fn __fentry__
	ret
endfn __fentry__
