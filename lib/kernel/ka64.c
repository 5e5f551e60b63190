// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The core arm64 kernel's frame rules (unwind/a64.c) from its code: the
 * image's, or memory's when there is no image. Its functions are its
 * kallsyms text symbols between _stext and _etext, each up to the next
 * symbol.
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

/* More than the kernel's text: 6.1's arm64 _stext.._etext is 13 MB. */
#define MAX_TEXT (256u << 20)

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

static unsigned int fn_flags(const char *name, uint64_t a, uint64_t ent_lo,
			     uint64_t ent_hi)
{
	if (entry_handler(name, "el1t_64_") || entry_handler(name, "el1h_64_"))
		return MS_A64_FN_ENTRY;
	if (entry_handler(name, "el0t_64_") ||
	    entry_handler(name, "el0t_32_") || !strcmp(name, "ret_from_fork") ||
	    !strcmp(name, "__primary_switched") ||
	    !strcmp(name, "__secondary_switched"))
		return MS_A64_FN_END;
	if (a >= ent_lo && a < ent_hi)
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

/*
 * The functions of the ranges, by the symbols of t (link addresses, by
 * address), at runtime addresses (+ offset). Init text is freed (and on
 * arm64 unmapped: free_initmem()) once the kernel has booted, but the
 * boot CPU's idle task still runs on start_kernel's frame: there the
 * kernel's own rule, the frame record.
 */
static int functions(const struct ms_ksymtab *t, const struct ranges *g,
		     int64_t offset, struct ms_a64_fn **ret, size_t *n_ret)
{
	uint64_t ent_lo = 0, ent_hi = 0;
	struct ms_a64_fn *f = NULL;
	size_t n = 0, cap = 0;

	ms_ksymtab_lookup(t, "__entry_text_start", &ent_lo);
	ms_ksymtab_lookup(t, "__entry_text_end", &ent_hi);
	for (size_t i = 0; i < t->nsyms; i++) {
		const struct ms_ksym *s = &t->syms[i];
		bool text = s->addr >= g->lo && s->addr < g->hi;
		bool init = s->addr >= g->ilo && s->addr < g->ihi;
		unsigned int flags;

		if (!is_text(s->type) || (!text && !init) ||
		    (n && f[n - 1].addr == s->addr + (uint64_t)offset))
			continue;
		flags = fn_flags(s->name, s->addr, ent_lo, ent_hi);
		if (ms_reserve(&f, &cap, n + 1, sizeof(*f), 4096)) {
			free(f);
			return -ENOMEM;
		}
		f[n++] = (struct ms_a64_fn){
			s->addr + (uint64_t)offset,
			sym_end(t, i, text ? g->hi : g->ihi) - s->addr,
			text ? g->text + (s->addr - g->lo) : NULL,
			flags ? flags :
			text  ? 0 :
				MS_A64_FN_RECORD
		};
	}
	*ret = f;
	*n_ret = n;
	return 0;
}

static int decode(const struct ms_ksymtab *t, struct ranges *g, int64_t offset,
		  const struct btf *btf, struct ms_a64 **ret,
		  struct ms_err *err)
{
	struct ms_a64_facts facts;
	struct ms_a64_fn *f = NULL;
	size_t n = 0;
	int r;

	if (ms_ksymtab_lookup(t, "_sinittext", &g->ilo) ||
	    ms_ksymtab_lookup(t, "_einittext", &g->ihi) || g->ihi < g->ilo)
		g->ilo = g->ihi = 0;
	regs_facts(btf, &facts);
	if (functions(t, g, offset, &f, &n))
		return ms_err_errno(err, ENOMEM, "arm64 unwind tables");
	r = ms_a64_decode(f, n, &facts, ret, err);
	free(f);
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
	if (*hi <= *lo || *hi - *lo > MAX_TEXT || (*hi - *lo) % 4)
		return ms_err_kind(err, MS_E_INPUT, EBADMSG,
				   "%s: _stext.._etext is not a kernel's text",
				   where);
	return 0;
}

int ms_kimage_a64(struct ms_kimage *k, const struct btf *btf, int64_t offset,
		  struct ms_a64 **ret, struct ms_err *err)
{
	const struct ms_ksymtab *t;
	const void *text = NULL;
	struct ranges g = { 0 };
	int r;

	if (ms_kimage_elf_machine(k) != EM_AARCH64)
		return ms_err_set(err, ENOENT, "%s: not an arm64 kernel",
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

int kern_read_a64(const struct kern *k, struct ms_a64 **ret, struct ms_err *err)
{
	void *text = NULL;
	struct ranges g = { 0 };
	int r;

	if (k->img)
		return ms_kimage_a64(k->img, k->btf, k->offset, ret, err);
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
