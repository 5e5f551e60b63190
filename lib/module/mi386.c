// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An i386 module's frame rules (unwind/x86.c) from its own code, at the
 * addresses its sections have in the map: each function symbol of a
 * loaded executable section (st_size bytes, cut at the next function).
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

struct xsec {
	size_t shndx;
	uint64_t addr; /* in the map */
	Elf_Data *d;
	uint32_t *rel; /* relocated offsets, sorted */
	size_t nrel;
};

static int by_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The offsets the REL sections for section index shndx relocate. */
static int relocs(const struct ms_modfile *f, struct xsec *x)
{
	size_t cap = 0;

	for (size_t i = 0; i < f->nsecs; i++) {
		Elf_Scn *scn;
		Elf_Data *d;
		GElf_Shdr sh;

		if (f->secs[i].type != SHT_REL ||
		    !(scn = elf_getscn(f->elf, f->scn_index[i])) ||
		    !gelf_getshdr(scn, &sh) || sh.sh_info != x->shndx ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t k = 0; k < d->d_size / sizeof(Elf32_Rel); k++) {
			GElf_Rel r;

			if (!gelf_getrel(d, (int)k, &r) ||
			    r.r_offset > x->d->d_size)
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

/* The loaded executable sections of l's file, with bytes and relocations. */
static int exec_sections(const struct ms_layout *l, struct xsec *out,
			 size_t *n_ret)
{
	const struct ms_modfile *f = l->file;
	size_t n = 0;
	int r = 0;

	for (size_t i = 0; !r && i < f->nsecs; i++) {
		Elf_Scn *scn;

		if (!(f->secs[i].flags & SHF_EXECINSTR) ||
		    f->secs[i].type != SHT_PROGBITS)
			continue;
		for (size_t k = 0; k < l->nsecs; k++) {
			if (l->secs[k].place != MS_PLACE_LOADED ||
			    strcmp(l->secs[k].name, f->secs[i].name))
				continue;
			scn = elf_getscn(f->elf, f->scn_index[i]);
			out[n] = (struct xsec){ f->scn_index[i],
						l->secs[k].addr,
						scn ? elf_getdata(scn, NULL) :
						      NULL };
			if (out[n].d && out[n].d->d_buf)
				r = relocs(f, &out[n++]);
			break;
		}
	}
	*n_ret = n;
	return r;
}

static Elf_Data *symtab(const struct ms_modfile *f)
{
	for (size_t i = 0; i < f->nsecs; i++) {
		Elf_Scn *scn;

		if (f->secs[i].type != SHT_SYMTAB)
			continue;
		scn = elf_getscn(f->elf, f->scn_index[i]);
		return scn ? elf_getdata(scn, NULL) : NULL;
	}
	return NULL;
}

static int by_addr(const void *a, const void *b)
{
	const struct ms_x86_fn *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* .cold parts run in their function's frame: see MS_X86_FN_COLD. */
static unsigned int name_flags(Elf *elf, size_t strndx, const GElf_Sym *st)
{
	const char *name = elf_strptr(elf, strndx, st->st_name);
	const char *c = name ? strstr(name, ".cold") : NULL;

	return c && (!c[5] || c[5] == '.') ? MS_X86_FN_COLD : 0;
}

/* The relocated fields of fn (in section s) as offsets in it. */
static void fn_relocs(const struct xsec *s, uint64_t off, struct ms_x86_fn *fn)
{
	size_t lo = 0, hi = s->nrel;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->rel[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	fn->rel = s->rel + lo;
	fn->nrel = 0;
	while (lo + fn->nrel < s->nrel &&
	       s->rel[lo + fn->nrel] < off + fn->size)
		fn->nrel++;
}

/* The function symbols of sections s[0..ns) as functions to decode. */
static int functions(const struct ms_modfile *f, Elf_Data *sym, size_t strndx,
		     const struct xsec *s, size_t ns, struct ms_x86_fn **ret,
		     size_t *n_ret)
{
	size_t nsyms = sym->d_size / sizeof(Elf32_Sym), n = 0, cap = 0, o = 0;
	struct ms_x86_fn *fn = NULL;

	for (size_t i = 0; i < nsyms; i++) {
		GElf_Sym st;
		const struct xsec *p = NULL;

		if (!gelf_getsym(sym, (int)i, &st) ||
		    GELF_ST_TYPE(st.st_info) != STT_FUNC)
			continue;
		for (size_t k = 0; k < ns && !p; k++)
			if (s[k].shndx == st.st_shndx)
				p = &s[k];
		if (!p || st.st_value >= p->d->d_size ||
		    st.st_size > p->d->d_size - st.st_value)
			continue;
		if (ms_reserve(&fn, &cap, n + 1, sizeof(*fn), 256)) {
			free(fn);
			return -ENOMEM;
		}
		fn[n++] = (struct ms_x86_fn){
			p->addr + st.st_value,
			st.st_size ? st.st_size : p->d->d_size - st.st_value,
			(const uint8_t *)p->d->d_buf + st.st_value,
			name_flags(f->elf, strndx, &st),
			p->rel,
			(size_t)(p - s) /* the section, for now */
		};
	}
	if (n)
		qsort(fn, n, sizeof(*fn), by_addr);
	/* aliases: one function; a size past the next one's start: cut */
	for (size_t i = 0; i < n; i++) {
		if (o && fn[o - 1].addr == fn[i].addr)
			continue;
		if (o && fn[o - 1].addr + fn[o - 1].size > fn[i].addr)
			fn[o - 1].size = fn[i].addr - fn[o - 1].addr;
		fn[o++] = fn[i];
	}
	for (size_t i = 0; i < o; i++) {
		const struct xsec *p = &s[fn[i].nrel];

		fn_relocs(p, fn[i].addr - p->addr, &fn[i]);
	}
	*ret = fn;
	*n_ret = o;
	return 0;
}

/* The string table of the symbol table's section. */
static size_t sym_strndx(const struct ms_modfile *f)
{
	for (size_t i = 0; i < f->nsecs; i++) {
		Elf_Scn *scn;
		GElf_Shdr sh;

		if (f->secs[i].type == SHT_SYMTAB &&
		    (scn = elf_getscn(f->elf, f->scn_index[i])) &&
		    gelf_getshdr(scn, &sh))
			return sh.sh_link;
	}
	return 0;
}

int ms_layout_x86(const struct ms_layout *l, struct ms_x86 **ret,
		  struct ms_err *err)
{
	const struct ms_modfile *f = l->file;
	struct ms_x86_facts facts;
	struct ms_x86_fn *fn = NULL;
	struct xsec *s;
	Elf_Data *sym;
	size_t ns = 0, n = 0;
	GElf_Ehdr eh;
	int r;

	if (!gelf_getehdr(f->elf, &eh) || eh.e_machine != EM_386 ||
	    f->elfclass != ELFCLASS32 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
		return ms_err_set(err, ENOENT, "%s: not an i386 module",
				  f->path);
	if (!(sym = symtab(f)))
		return ms_err_set(err, ENOENT, "%s: no symbol table", f->path);
	s = calloc(f->nsecs + 1, sizeof(*s));
	if (!s)
		return ms_err_errno(err, ENOMEM, "i386 unwind tables");
	r = exec_sections(l, s, &ns);
	if (!r)
		r = functions(f, sym, sym_strndx(f), s, ns, &fn, &n);
	ms_x86_default_facts(&facts);
	if (!r)
		r = ms_x86_decode(fn, n, &facts, ret, err);
	else
		r = ms_err_errno(err, ENOMEM, "i386 unwind tables");
	free(fn);
	for (size_t i = 0; i < ns; i++)
		free(s[i].rel);
	free(s);
	return r;
}
