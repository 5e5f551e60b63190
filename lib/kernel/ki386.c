// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The core i386 kernel's frame rules (unwind/x86.c) from its code: the
 * image's, or memory's when there is no image. Its functions are its
 * kallsyms text symbols between _stext and _etext, each up to the next
 * symbol.
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

/* More than the kernel's text: 6.1's 686-pae _stext.._etext is 9.3 MB. */
#define MAX_TEXT (256u << 20)

/* foo.cold, foo.cold.12, foo.part.0.cold: a part of foo's body. */
static bool cold(const char *name)
{
	const char *c = strstr(name, ".cold");

	return c && (!c[5] || c[5] == '.');
}

/* The flags of the function at a named name. */
struct names {
	uint64_t ent_lo, ent_hi;
	bool fork_asm; /* 6.12: ret_from_fork_asm, the C ret_from_fork */
};

static unsigned int fn_flags(const char *name, uint64_t a,
			     const struct names *nm)
{
	if (!strcmp(name, "handle_exception_return"))
		return MS_X86_FN_REGS;
	if (!strcmp(name,
		    nm->fork_asm ? "ret_from_fork_asm" : "ret_from_fork") ||
	    !strcmp(name, "startup_32_smp"))
		return MS_X86_FN_END;
	if (a >= nm->ent_lo && a < nm->ent_hi)
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

static bool is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

/* Where the functions are: text with its bytes, init text without. */
struct ranges {
	uint64_t lo, hi; /* _stext.._etext, link addresses */
	const uint8_t *text; /* its bytes */
	uint64_t ilo, ihi; /* _sinittext.._einittext, or 0..0 */
};

/* The end of symbol i: the next symbol's address, within its range. */
static uint64_t sym_end(const struct ms_ksymtab *t, size_t i, uint64_t hi)
{
	for (size_t j = i + 1; j < t->nsyms; j++)
		if (t->syms[j].addr > t->syms[i].addr)
			return t->syms[j].addr < hi ? t->syms[j].addr : hi;
	return hi;
}

/* The functions of the ranges, by the symbols of t, at runtime addresses. */
static int functions(const struct ms_ksymtab *t, const struct ranges *g,
		     int64_t offset, struct ms_x86_fn **ret, size_t *n_ret)
{
	struct names nm = { 0 };
	struct ms_x86_fn *f = NULL;
	uint64_t x;
	size_t n = 0, cap = 0;

	ms_ksymtab_lookup(t, "__entry_text_start", &nm.ent_lo);
	ms_ksymtab_lookup(t, "__entry_text_end", &nm.ent_hi);
	nm.fork_asm = !ms_ksymtab_lookup(t, "ret_from_fork_asm", &x);
	for (size_t i = 0; i < t->nsyms; i++) {
		const struct ms_ksym *s = &t->syms[i];
		bool text = s->addr >= g->lo && s->addr < g->hi;
		bool init = s->addr >= g->ilo && s->addr < g->ihi;
		unsigned int flags;

		if (!is_text(s->type) || (!text && !init) ||
		    (n && f[n - 1].addr == s->addr + (uint64_t)offset))
			continue;
		flags = fn_flags(s->name, s->addr, &nm);
		if (ms_reserve(&f, &cap, n + 1, sizeof(*f), 4096)) {
			free(f);
			return -ENOMEM;
		}
		f[n++] = (struct ms_x86_fn){
			s->addr + (uint64_t)offset,
			sym_end(t, i, text ? g->hi : g->ihi) - s->addr,
			text ? g->text + (s->addr - g->lo) : NULL,
			flags ? flags :
			text  ? 0 :
				MS_X86_FN_RECORD
		};
	}
	*ret = f;
	*n_ret = n;
	return 0;
}

static int decode(const struct ms_ksymtab *t, struct ranges *g, int64_t offset,
		  const struct btf *btf, struct ms_x86 **ret,
		  struct ms_err *err)
{
	struct ms_x86_facts facts;
	struct ms_x86_fn *f = NULL;
	size_t n = 0;
	int r;

	if (ms_ksymtab_lookup(t, "_sinittext", &g->ilo) ||
	    ms_ksymtab_lookup(t, "_einittext", &g->ihi) || g->ihi < g->ilo)
		g->ilo = g->ihi = 0;
	regs_facts(btf, &facts);
	if (functions(t, g, offset, &f, &n))
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

/* _stext.._etext of t, checked: a text of at most MAX_TEXT. */
static int text_range(const struct ms_ksymtab *t, const char *where,
		      uint64_t *lo, uint64_t *hi, struct ms_err *err)
{
	if (ms_ksymtab_lookup(t, "_stext", lo) ||
	    ms_ksymtab_lookup(t, "_etext", hi))
		return ms_err_set(err, ENOENT,
				  "%s: no _stext or _etext in kallsyms", where);
	if (*hi <= *lo || *hi - *lo > MAX_TEXT || *hi > UINT32_MAX)
		return ms_err_kind(err, MS_E_INPUT, EBADMSG,
				   "%s: _stext.._etext is not a kernel's text",
				   where);
	return 0;
}

int ms_kimage_x86(struct ms_kimage *k, const struct btf *btf, int64_t offset,
		  struct ms_x86 **ret, struct ms_err *err)
{
	const struct ms_ksymtab *t;
	const void *text = NULL;
	struct ranges g = { 0 };
	int r;

	if (ms_kimage_elf_machine(k) != EM_386)
		return ms_err_set(err, ENOENT, "%s: not an i386 kernel",
				  ms_kimage_path(k));
	r = ms_kimage_ksymtab(k, &t, err);
	if (!r)
		r = text_range(t, ms_kimage_path(k), &g.lo, &g.hi, err);
	if (!r)
		r = ms_kimage_bytes(k, g.lo, (size_t)(g.hi - g.lo), &text, err);
	g.text = text;
	if (!r)
		r = decode(t, &g, offset, btf, ret, err);
	return r;
}

int kern_read_x86(const struct kern *k, struct ms_x86 **ret, struct ms_err *err)
{
	void *text = NULL;
	struct ranges g = { 0 };
	int r;

	if (k->img)
		return ms_kimage_x86(k->img, k->btf, k->offset, ret, err);
	r = text_range(k->ksyms, k->origin, &g.lo, &g.hi, err);
	if (!r)
		r = kern_read_array(k, kern_moved(k, g.lo),
				    (size_t)(g.hi - g.lo), 1, MAX_TEXT,
				    "the kernel's text", &text, err);
	g.text = text;
	if (!r)
		r = decode(k->ksyms, &g, k->offset, k->btf, ret, err);
	free(text);
	return r;
}
