// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The core kernel's functions for the frame rules made from code
 * (ka64.c, ki386.c): its kallsyms text symbols between _stext and
 * _etext, each up to the next symbol, with the text's bytes from the
 * image or from memory; init text's without bytes (freed once the kernel
 * has booted). The architecture names which are entry code.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kmem-int.h"

/* More than the kernel's text: 6.1's arm64 _stext.._etext is 13 MB, 686-pae's 9.3. */
#define MAX_TEXT (256u << 20)

/* _stext.._etext of t, checked: a text of at most MAX_TEXT. */
static int text_range(const struct ms_ksymtab *t, const struct kfn_arch *a,
		      const char *where, uint64_t *lo, uint64_t *hi,
		      struct ms_err *err)
{
	if (ms_ksymtab_lookup(t, "_stext", lo) ||
	    ms_ksymtab_lookup(t, "_etext", hi))
		return ms_err_set(err, ENOENT,
				  "%s: no _stext or _etext in kallsyms", where);
	if (*hi <= *lo || *hi - *lo > MAX_TEXT || (*hi - *lo) % a->align ||
	    *hi > a->top)
		return ms_err_kind(err, MS_E_INPUT, EBADMSG,
				   "%s: _stext.._etext is not a kernel's text",
				   where);
	return 0;
}

int ktext_image(struct ms_kimage *k, const struct kfn_arch *a,
		const struct ms_ksymtab **t, struct ktext *g,
		struct ms_err *err)
{
	const void *text = NULL;
	int r;

	memset(g, 0, sizeof(*g));
	if (ms_kimage_elf_machine(k) != a->machine)
		return ms_err_set(err, ENOENT, "%s: not an %s kernel",
				  ms_kimage_path(k), a->name);
	r = ms_kimage_ksymtab(k, t, err);
	if (!r)
		r = text_range(*t, a, ms_kimage_path(k), &g->lo, &g->hi, err);
	if (!r)
		r = ms_kimage_bytes(k, g->lo, (size_t)(g->hi - g->lo), &text,
				    err);
	g->text = text;
	return r;
}

int ktext_memory(const struct kern *k, const struct kfn_arch *a,
		 struct ktext *g, struct ms_err *err)
{
	int r;

	memset(g, 0, sizeof(*g));
	r = text_range(k->ksyms, a, k->origin, &g->lo, &g->hi, err);
	if (!r)
		r = kern_read_array(k, kern_moved(k, g->lo),
				    (size_t)(g->hi - g->lo), 1, MAX_TEXT,
				    "the kernel's text", &g->owned, err);
	g->text = g->owned;
	return r;
}

static bool is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

/* The end of symbol i: the next symbol's address, within its range. */
static uint64_t sym_end(const struct ms_ksymtab *t, size_t i, uint64_t hi)
{
	for (size_t j = i + 1; j < t->nsyms; j++)
		if (t->syms[j].addr > t->syms[i].addr)
			return t->syms[j].addr < hi ? t->syms[j].addr : hi;
	return hi;
}

int kern_functions(const struct ms_ksymtab *t, struct ktext *g, int64_t offset,
		   const struct kfn_arch *a, const void *names, void **ret,
		   size_t *n_ret)
{
	uint64_t ent_lo = 0, ent_hi = 0, last = 0;
	char *f = NULL;
	size_t n = 0, cap = 0;

	if (ms_ksymtab_lookup(t, "_sinittext", &g->ilo) ||
	    ms_ksymtab_lookup(t, "_einittext", &g->ihi) || g->ihi < g->ilo)
		g->ilo = g->ihi = 0;
	ms_ksymtab_lookup(t, "__entry_text_start", &ent_lo);
	ms_ksymtab_lookup(t, "__entry_text_end", &ent_hi);
	for (size_t i = 0; i < t->nsyms; i++) {
		const struct ms_ksym *s = &t->syms[i];
		bool text = s->addr >= g->lo && s->addr < g->hi;
		bool init = s->addr >= g->ilo && s->addr < g->ihi;
		unsigned int flags;

		if (!is_text(s->type) || (!text && !init) ||
		    (n && last == s->addr + (uint64_t)offset))
			continue;
		flags = a->flags(s->name, s->addr >= ent_lo && s->addr < ent_hi,
				 names);
		if (ms_reserve(&f, &cap, n + 1, a->size, 4096)) {
			free(f);
			return -ENOMEM;
		}
		last = s->addr + (uint64_t)offset;
		a->set(f + n++ * a->size, last,
		       sym_end(t, i, text ? g->hi : g->ihi) - s->addr,
		       text ? g->text + (s->addr - g->lo) : NULL,
		       flags ? flags :
		       text  ? 0 :
			       a->record);
	}
	*ret = f;
	*n_ret = n;
	return 0;
}
