// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An i386 module's frame rules (unwind/x86.c) from its own code, at the
 * addresses its sections have in the map: each function symbol of a
 * loaded executable section (st_size bytes, cut at the next function:
 * mfuncs.c).
 *
 * The file's bytes are unrelocated, and i386 modules have REL
 * relocations: a call's or jump's displacement holds its addend (-4),
 * not where it goes. Calls do not move the frame; a jump whose
 * displacement a relocation fills goes to another section (foo.cold in
 * .text.unlikely, a thunk): out of the function. The relocated fields
 * are handed to the decoder for that.
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "modfile-int.h"

/* The offsets relocated in a section, sorted. */
struct relocs {
	uint32_t *rel;
	size_t nrel;
};

static int by_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The offsets the REL sections for section s relocate. */
static int relocs(const struct ms_modfile *f, const struct mod_xsec *s,
		  struct relocs *x)
{
	size_t cap = 0;

	for (size_t i = 0; i < f->nsecs; i++) {
		Elf_Scn *scn;
		Elf_Data *d;
		GElf_Shdr sh;

		if (f->secs[i].type != SHT_REL ||
		    !(scn = elf_getscn(f->elf, f->scn_index[i])) ||
		    !gelf_getshdr(scn, &sh) || sh.sh_info != s->shndx ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t k = 0; k < d->d_size / sizeof(Elf32_Rel); k++) {
			GElf_Rel r;

			if (!gelf_getrel(d, (int)k, &r) ||
			    r.r_offset > s->d->d_size)
				continue;
			if (ms_reserve(&x->rel, &cap, x->nrel + 1,
				       sizeof(*x->rel), 256))
				return -ENOMEM;
			x->rel[x->nrel++] = (uint32_t)r.r_offset;
		}
	}
	if (x->nrel)
		qsort(x->rel, x->nrel, sizeof(*x->rel), by_u32);
	return 0;
}

/* .cold parts run in their function's frame: see MS_X86_FN_COLD. */
static unsigned int name_flags(const char *name)
{
	const char *c = name ? strstr(name, ".cold") : NULL;

	return c && (!c[5] || c[5] == '.') ? MS_X86_FN_COLD : 0;
}

/* The relocated fields of fn (in section s) as offsets in it. */
static void fn_relocs(const struct relocs *s, uint64_t off,
		      struct ms_x86_fn *fn)
{
	size_t lo = ms_lower_bound_u32(s->rel, s->nrel, off);

	fn->rel = s->rel + lo;
	fn->nrel = ms_lower_bound_u32(s->rel, s->nrel, off + fn->size) - lo;
}

/* c's functions to decode, with the fields relocated in each. */
static int functions(const struct ms_modfile *f, const struct mod_code *c,
		     struct relocs *x, struct ms_x86_fn *fn)
{
	for (size_t i = 0; i < c->nsecs; i++)
		if (relocs(f, &c->secs[i], &x[i]))
			return -ENOMEM;
	for (size_t i = 0; i < c->n; i++) {
		const struct mod_fn *m = &c->fns[i];

		fn[i] = (struct ms_x86_fn){ m->addr, m->size, m->code,
					    name_flags(m->name) };
		fn_relocs(&x[m->sec], m->addr - c->secs[m->sec].addr, &fn[i]);
	}
	return 0;
}

int ms_layout_x86(const struct ms_layout *l, struct ms_x86 **ret,
		  struct ms_err *err)
{
	struct ms_x86_facts facts;
	struct ms_x86_fn *fn;
	struct relocs *x;
	struct mod_code c;
	int r = mod_code_read(l, EM_386, ELFCLASS32, "i386", &c, err);

	if (r)
		return r;
	fn = calloc(c.n + 1, sizeof(*fn));
	x = calloc(c.nsecs + 1, sizeof(*x));
	r = fn && x ? functions(l->file, &c, x, fn) : -ENOMEM;
	ms_x86_default_facts(&facts);
	if (!r)
		r = ms_x86_decode(fn, c.n, &facts, ret, err);
	else
		r = ms_err_errno(err, ENOMEM, "i386 unwind tables");
	for (size_t i = 0; x && i < c.nsecs; i++)
		free(x[i].rel);
	free(x);
	free(fn);
	mod_code_free(&c);
	return r;
}
