// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A module's functions for the frame rules made from its code (ma64.c,
 * mi386.c): each function symbol of a loaded executable section, at the
 * address its section has in the map (st_size bytes, or up to the
 * section's end where the assembler gave none; cut at the next function).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "modfile-int.h"

/* The loaded executable sections of l's file, with their bytes. */
static size_t exec_sections(const struct ms_layout *l, struct mod_xsec *out)
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
			out[n] = (struct mod_xsec){
				f->scn_index[i], l->secs[k].addr,
				scn ? elf_getdata(scn, NULL) : NULL
			};
			if (out[n].d && out[n].d->d_buf)
				n++;
			break;
		}
	}
	return n;
}

/* The symbol table's data and its string table's index, or NULL. */
static Elf_Data *symtab(const struct ms_modfile *f, size_t *strndx)
{
	for (size_t i = 0; i < f->nsecs; i++) {
		Elf_Scn *scn;
		GElf_Shdr sh;

		if (f->secs[i].type != SHT_SYMTAB)
			continue;
		scn = elf_getscn(f->elf, f->scn_index[i]);
		*strndx = scn && gelf_getshdr(scn, &sh) ? sh.sh_link : 0;
		return scn ? elf_getdata(scn, NULL) : NULL;
	}
	return NULL;
}

static int by_addr(const void *a, const void *b)
{
	const struct mod_fn *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The function symbols of c's sections into c->fns, by address. */
static int functions(const struct ms_modfile *f, Elf_Data *sym, size_t strndx,
		     struct mod_code *c)
{
	size_t nsyms = sym->d_size / (f->elfclass == ELFCLASS32 ?
					      sizeof(Elf32_Sym) :
					      sizeof(Elf64_Sym));
	size_t n = 0, cap = 0, o = 0;
	struct mod_fn *fn = NULL;

	for (size_t i = 0; i < nsyms; i++) {
		GElf_Sym st;
		const struct mod_xsec *p = NULL;

		if (!gelf_getsym(sym, (int)i, &st) ||
		    GELF_ST_TYPE(st.st_info) != STT_FUNC)
			continue;
		for (size_t k = 0; k < c->nsecs && !p; k++)
			if (c->secs[k].shndx == st.st_shndx)
				p = &c->secs[k];
		if (!p || st.st_value >= p->d->d_size ||
		    st.st_size > p->d->d_size - st.st_value)
			continue;
		if (ms_reserve(&fn, &cap, n + 1, sizeof(*fn), 256)) {
			free(fn);
			return -ENOMEM;
		}
		fn[n++] = (struct mod_fn){
			p->addr + st.st_value,
			st.st_size ? st.st_size : p->d->d_size - st.st_value,
			(const uint8_t *)p->d->d_buf + st.st_value,
			elf_strptr(f->elf, strndx, st.st_name),
			(size_t)(p - c->secs)
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
	c->fns = fn;
	c->n = o;
	return 0;
}

int mod_code_read(const struct ms_layout *l, uint16_t machine, int elfclass,
		  const char *arch, struct mod_code *c, struct ms_err *err)
{
	const struct ms_modfile *f = l->file;
	size_t strndx = 0;
	Elf_Data *sym;
	GElf_Ehdr eh;

	memset(c, 0, sizeof(*c));
	if (!gelf_getehdr(f->elf, &eh) || eh.e_machine != machine ||
	    f->elfclass != elfclass || eh.e_ident[EI_DATA] != ELFDATA2LSB)
		return ms_err_set(err, ENOENT, "%s: not an %s module", f->path,
				  arch);
	if (!(sym = symtab(f, &strndx)))
		return ms_err_set(err, ENOENT, "%s: no symbol table", f->path);
	c->secs = calloc(f->nsecs + 1, sizeof(*c->secs));
	if (!c->secs)
		return ms_err_errno(err, ENOMEM, "%s unwind tables", arch);
	c->nsecs = exec_sections(l, c->secs);
	if (functions(f, sym, strndx, c)) {
		mod_code_free(c);
		return ms_err_errno(err, ENOMEM, "%s unwind tables", arch);
	}
	return 0;
}

void mod_code_free(struct mod_code *c)
{
	free(c->secs);
	free(c->fns);
	memset(c, 0, sizeof(*c));
}
