// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The core i386 kernel's frame rules (unwind/x86.c) from its code: the
 * image's, or memory's when there is no image. Its functions are its
 * kallsyms text symbols between _stext and _etext, each up to the next
 * symbol (kfuncs.c).
 *
 * The entry code is not C and does not start with a call's frame; what
 * the kernel's unwinder makes of it is named here, from
 * arch/x86/entry/entry_32.S (6.1):
 * - .entry.text (the idtentry stubs asm_*, handle_exception,
 *   entry_SYSENTER_32, entry_INT80_32, asm_exc_nmi) builds a struct
 *   pt_regs on the stack (SAVE_ALL) and passes it to C in eax (`movl
 *   %esp, %eax`), or points ebp at it (ENCODE_FRAME_POINTER); from there
 *   the interrupted context is all in the pt_regs;
 * - handle_exception_return, the label after handle_exception's call
 *   (and its own kallsyms symbol), starts with the pt_regs at esp;
 * - ret_from_fork starts a task, startup_32_smp a CPU: the kernel's own
 *   traces end there (its unwinder stops at the task's first pt_regs or
 *   a zero frame pointer).
 * Init text is freed once the kernel has booted (poisoned, still mapped
 * on i386: free_kernel_image_pages()), but the boot CPU's idle task runs
 * on start_kernel's frame: there the kernel's own rule, ebp's frame.
 */
#include <bpf/btf.h>
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kmem-int.h"

/* foo.cold, foo.cold.12, foo.part.0.cold: a part of foo's body. */
static bool cold(const char *name)
{
	const char *c = strstr(name, ".cold");

	return c && (!c[5] || c[5] == '.');
}

/* 6.12: ret_from_fork_asm, the C ret_from_fork (names: a bool). */
static unsigned int fn_flags(const char *name, bool entry, const void *names)
{
	const bool *fork_asm = names;

	if (!strcmp(name, "handle_exception_return"))
		return MS_X86_FN_REGS;
	if (!strcmp(name, *fork_asm ? "ret_from_fork_asm" : "ret_from_fork") ||
	    !strcmp(name, "startup_32_smp"))
		return MS_X86_FN_END;
	if (entry)
		return MS_X86_FN_ENTRY;
	if (cold(name))
		return MS_X86_FN_COLD;
	return 0;
}

/* struct pt_regs from the kernel's BTF, or i386's fixed layout. */
static void regs_facts(const struct btf *btf, struct ms_x86_facts *f)
{
	static const char *const names[9] = { "ax", "cx", "dx", "bx", "sp",
					      "bp", "si", "di", "ip" };
	int id = btf ? btf__find_by_name_kind(btf, "pt_regs", BTF_KIND_STRUCT) :
		       -1;
	struct ms_x86_facts b;
	bool all = id > 0;

	ms_x86_default_facts(f);
	for (int i = 0; all && i < 9; i++)
		all = kern_btf_member_off(btf, id, names[i], 0, &b.regs[i]);
	if (all)
		*f = b;
}

static void set_fn(void *fn, uint64_t addr, uint64_t size, const uint8_t *code,
		   unsigned int flags)
{
	*(struct ms_x86_fn *)fn = (struct ms_x86_fn){ addr, size, code, flags };
}

static const struct kfn_arch x86_fns = {
	.machine = EM_386,
	.name = "i386",
	.align = 1,
	.top = UINT32_MAX,
	.size = sizeof(struct ms_x86_fn),
	.record = MS_X86_FN_RECORD,
	.flags = fn_flags,
	.set = set_fn,
};

static int decode(const struct ms_ksymtab *t, struct ktext *g, int64_t offset,
		  const struct btf *btf, struct ms_x86 **ret,
		  struct ms_err *err)
{
	struct ms_x86_facts facts;
	void *f = NULL;
	size_t n = 0;
	uint64_t x;
	bool fork_asm = !ms_ksymtab_lookup(t, "ret_from_fork_asm", &x);
	int r;

	regs_facts(btf, &facts);
	if (kern_functions(t, g, offset, &x86_fns, &fork_asm, &f, &n))
		return ms_err_errno(err, ENOMEM, "i386 unwind tables");
	r = ms_x86_decode(f, n, &facts, ret, err);
	free(f);
	/*
	 * User space lies below the kernel's PAGE_OFFSET (3 GB with
	 * VMSPLIT_3G, 2 or 1 with the others), the text 16 MB above it.
	 */
	if (!r)
		(*ret)->user_end = (g->lo + (uint64_t)offset) & 0xc0000000;
	return r;
}

int ms_kimage_x86(struct ms_kimage *k, const struct btf *btf, int64_t offset,
		  struct ms_x86 **ret, struct ms_err *err)
{
	const struct ms_ksymtab *t;
	struct ktext g;
	int r = ktext_image(k, &x86_fns, &t, &g, err);

	return r ? r : decode(t, &g, offset, btf, ret, err);
}

int kern_read_x86(const struct kern *k, struct ms_x86 **ret, struct ms_err *err)
{
	struct ktext g;
	int r;

	if (k->img)
		return ms_kimage_x86(k->img, k->btf, k->offset, ret, err);
	r = ktext_memory(k, &x86_fns, &g, err);
	if (!r)
		r = decode(k->ksyms, &g, k->offset, k->btf, ret, err);
	free(g.owned);
	return r;
}
