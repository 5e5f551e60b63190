// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An arm64 module's frame rules (unwind/a64.c) from its own code, at the
 * addresses its sections have in the map: each function symbol of a
 * loaded executable section (st_size bytes, or up to the next symbol
 * where the assembler gave none). The file's bytes are unrelocated; the
 * relocations of code (R_AARCH64_CALL26, JUMP26, ADR_PREL_*) are in
 * calls, branches to other functions and address loads, none of which
 * moves sp or x29, so the frame at every instruction is the same.
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "modfile-int.h"

struct fsec {
	size_t shndx;
	uint64_t addr; /* in the map */
	Elf_Data *d;
};

/* The loaded executable sections of l's file, with their bytes. */
static size_t exec_sections(const struct ms_layout *l, struct fsec *out)
{
	const struct ms_modfile *f = l->file;
	size_t n = 0;

	for (size_t i = 0; i < f->nsecs; i++) {
		Elf_Scn *scn;

		if (!(f->secs[i].flags & SHF_EXECINSTR) ||
		    f->secs[i].type != SHT_PROGBITS)
			continue;
		for (size_t k = 0; k < l->nsecs; k++) {
			if (l->secs[k].place != MS_PLACE_LOADED ||
			    strcmp(l->secs[k].name, f->secs[i].name))
				continue;
			scn = elf_getscn(f->elf, f->scn_index[i]);
			out[n] = (struct fsec){ f->scn_index[i],
						l->secs[k].addr,
						scn ? elf_getdata(scn, NULL) :
						      NULL };
			if (out[n].d && out[n].d->d_buf)
				n++;
			break;
		}
	}
	return n;
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
	const struct ms_a64_fn *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The function symbols of sections s[0..ns) as functions to decode. */
static int functions(const struct ms_modfile *f, Elf_Data *sym,
		     const struct fsec *s, size_t ns, struct ms_a64_fn **ret,
		     size_t *n_ret)
{
	size_t nsyms = sym->d_size / sizeof(Elf64_Sym), n = 0, cap = 0, o = 0;
	struct ms_a64_fn *fn = NULL;

	for (size_t i = 0; i < nsyms; i++) {
		GElf_Sym st;
		const struct fsec *p = NULL;

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
		fn[n++] = (struct ms_a64_fn){
			p->addr + st.st_value,
			st.st_size ? st.st_size : p->d->d_size - st.st_value,
			(const uint8_t *)p->d->d_buf + st.st_value, 0
		};
	}
	(void)f;
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
	*ret = fn;
	*n_ret = o;
	return 0;
}

int ms_layout_a64(const struct ms_layout *l, struct ms_a64 **ret,
		  struct ms_err *err)
{
	const struct ms_modfile *f = l->file;
	struct ms_a64_facts facts = { 0 };
	struct ms_a64_fn *fn = NULL;
	struct fsec *s;
	Elf_Data *sym;
	size_t ns, n = 0;
	GElf_Ehdr eh;
	int r;

	if (!gelf_getehdr(f->elf, &eh) || eh.e_machine != EM_AARCH64 ||
	    f->elfclass != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
		return ms_err_set(err, ENOENT, "%s: not an arm64 module",
				  f->path);
	if (!(sym = symtab(f)))
		return ms_err_set(err, ENOENT, "%s: no symbol table", f->path);
	s = calloc(f->nsecs + 1, sizeof(*s));
	if (!s)
		return ms_err_errno(err, ENOMEM, "arm64 unwind tables");
	ns = exec_sections(l, s);
	r = functions(f, sym, s, ns, &fn, &n);
	free(s);
	if (r)
		return ms_err_errno(err, ENOMEM, "arm64 unwind tables");
	r = ms_a64_decode(fn, n, &facts, ret, err);
	free(fn);
	return r;
}
