// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The core arm64 kernel's frame rules (unwind/a64.c) from its code: the
 * image's, or memory's when there is no image. Its functions are its
 * kallsyms text symbols between _stext and _etext, each up to the next
 * symbol (kfuncs.c).
 *
 * The exception entry code is not C and does not start with a call's
 * frame; what the kernel's unwinder makes of it is named here, from
 * arch/arm64/kernel/entry.S (6.1 and 6.12 alike):
 * - el1t_64_* and el1h_64_* (entry_handler) are entered from the
 *   vectors with sp at a struct pt_regs, which kernel_entry fills and
 *   then points x29 at: `add x29, sp, #S_STACKFRAME`. From there the
 *   interrupted function's frame is all in the pt_regs;
 * - el0t_64_* and el0t_32_* come from user mode; ret_from_fork starts a
 *   task; __primary_switched and __secondary_switched start a CPU: the
 *   kernel's own traces end there (their frame record is the final one,
 *   zeroed, since 5.16's 7d7b720a4b80 "arm64: stacktrace: Make
 *   unwind_next_frame() ..." made it so);
 * - the rest of .entry.text (the vectors, ret_to_kernel, ret_to_user,
 *   __bad_stack) runs with no frame a debugger could use.
 */
#include <bpf/btf.h>
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kmem-int.h"

/* The exception vectors' handlers: el1h_64_irq and the like. */
static bool entry_handler(const char *name, const char *el)
{
	static const char *const kinds[] = { "sync", "irq", "fiq", "error" };
	size_t n = strlen(el);

	if (strncmp(name, el, n))
		return false;
	for (size_t i = 0; i < 4; i++)
		if (!strcmp(name + n, kinds[i]))
			return true;
	return false;
}

static unsigned int fn_flags(const char *name, bool entry, const void *names)
{
	(void)names;
	if (entry_handler(name, "el1t_64_") || entry_handler(name, "el1h_64_"))
		return MS_A64_FN_ENTRY;
	if (entry_handler(name, "el0t_64_") ||
	    entry_handler(name, "el0t_32_") || !strcmp(name, "ret_from_fork") ||
	    !strcmp(name, "__primary_switched") ||
	    !strcmp(name, "__secondary_switched"))
		return MS_A64_FN_END;
	if (entry)
		return MS_A64_FN_UNDEF;
	return 0;
}

/* Member name of BTF struct id, looking into anonymous members. */
bool kern_btf_member_off(const struct btf *btf, int id, const char *name,
			 uint32_t base, uint32_t *off)
{
	const struct btf_type *t = btf__type_by_id(btf, (uint32_t)id);
	const struct btf_member *m;

	if (!t || (!btf_is_struct(t) && !btf_is_union(t)))
		return false;
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(btf, m->name_off);
		uint32_t o = base + btf_member_bit_offset(t, (uint32_t)i) / 8;
		int mt = btf__resolve_type(btf, m->type);

		if (n && !strcmp(n, name)) {
			*off = o;
			return true;
		}
		if ((!n || !*n) && mt >= 0 &&
		    kern_btf_member_off(btf, mt, name, o, off))
			return true;
	}
	return false;
}

/* struct pt_regs from the kernel's BTF: where an exception left what. */
static void regs_facts(const struct btf *btf, struct ms_a64_facts *f)
{
	int id = btf ? btf__find_by_name_kind(btf, "pt_regs", BTF_KIND_STRUCT) :
		       -1;

	memset(f, 0, sizeof(*f));
	f->have_regs =
		id > 0 && kern_btf_member_off(btf, id, "sp", 0, &f->regs_sp) &&
		kern_btf_member_off(btf, id, "pc", 0, &f->regs_pc) &&
		kern_btf_member_off(btf, id, "stackframe", 0,
				    &f->regs_stackframe);
}

static void set_fn(void *fn, uint64_t addr, uint64_t size, const uint8_t *code,
		   unsigned int flags)
{
	*(struct ms_a64_fn *)fn = (struct ms_a64_fn){ addr, size, code, flags };
}

/*
 * Init text is freed (and on arm64 unmapped: free_initmem()) once the
 * kernel has booted, but the boot CPU's idle task still runs on
 * start_kernel's frame: there the kernel's own rule, the frame record.
 */
static const struct kfn_arch a64_fns = {
	.machine = EM_AARCH64,
	.name = "arm64",
	.align = 4,
	.top = UINT64_MAX,
	.size = sizeof(struct ms_a64_fn),
	.record = MS_A64_FN_RECORD,
	.flags = fn_flags,
	.set = set_fn,
};

static int decode(const struct ms_ksymtab *t, struct ktext *g, int64_t offset,
		  const struct btf *btf, struct ms_a64 **ret,
		  struct ms_err *err)
{
	struct ms_a64_facts facts;
	void *f = NULL;
	size_t n = 0;
	int r;

	regs_facts(btf, &facts);
	if (kern_functions(t, g, offset, &a64_fns, NULL, &f, &n))
		return ms_err_errno(err, ENOMEM, "arm64 unwind tables");
	r = ms_a64_decode(f, n, &facts, ret, err);
	free(f);
	return r;
}

int ms_kimage_a64(struct ms_kimage *k, const struct btf *btf, int64_t offset,
		  struct ms_a64 **ret, struct ms_err *err)
{
	const struct ms_ksymtab *t;
	struct ktext g;
	int r = ktext_image(k, &a64_fns, &t, &g, err);

	return r ? r : decode(t, &g, offset, btf, ret, err);
}

int kern_read_a64(const struct kern *k, struct ms_a64 **ret, struct ms_err *err)
{
	struct ktext g;
	int r;

	if (k->img)
		return ms_kimage_a64(k->img, k->btf, k->offset, ret, err);
	r = ktext_memory(k, &a64_fns, &g, err);
	if (!r)
		r = decode(k->ksyms, &g, k->offset, k->btf, ret, err);
	free(g.owned);
	return r;
}
