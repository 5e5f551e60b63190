/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fncode.h: what the test programs of the rules made from code share
 * (a64cfi.c and i386cfi.c, a64dump.c and i386dump.c): an object file's
 * functions, its rules' .debug_frame written as an ELF file, the rows of
 * the kallsyms symbols a command line names.
 *
 * Everything is static inline: each program uses a different part.
 */
#ifndef MODSECT_FNCODE_H
#define MODSECT_FNCODE_H

#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "modsect.h"

#define FC_MAX_FNS 256

/* A function symbol (STT_FUNC, with its size) of an object's .text. */
struct fc_fn {
	uint64_t addr, size;
	const uint8_t *code;
	const char *name;
};

struct fc_obj {
	int fd;
	Elf *e;
	struct fc_fn fn[FC_MAX_FNS]; /* by address */
	size_t n;
};

static inline int fc_by_addr(const void *a, const void *b)
{
	const struct fc_fn *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* .text (its data, index and address) and the symbol table of o. */
static inline void fc_sections(struct fc_obj *o, Elf_Data **text, size_t *tndx,
			       uint64_t *base, Elf_Data **sym, size_t *strndx)
{
	size_t shstrndx = 0;
	Elf_Scn *scn = NULL;

	while (o->e && (scn = elf_nextscn(o->e, scn))) {
		GElf_Shdr sh;
		const char *nm;

		gelf_getshdr(scn, &sh);
		elf_getshdrstrndx(o->e, &shstrndx);
		nm = elf_strptr(o->e, shstrndx, sh.sh_name);
		if (nm && !strcmp(nm, ".text")) {
			*text = elf_getdata(scn, NULL);
			*tndx = elf_ndxscn(scn);
			*base = sh.sh_addr;
		} else if (sh.sh_type == SHT_SYMTAB) {
			*sym = elf_getdata(scn, NULL);
			*strndx = sh.sh_link;
		}
	}
}

/*
 * The functions of path's .text (at its address), at most FC_MAX_FNS;
 * 1 with "TOOL: PATH: no .text or symbols" said if it has none.
 */
static inline int fc_read(const char *tool, const char *path, struct fc_obj *o)
{
	Elf_Data *text = NULL, *sym = NULL;
	size_t tndx = 0, strndx = 0, nsyms;
	uint64_t base = 0;

	elf_version(EV_CURRENT);
	o->n = 0;
	o->fd = open(path, O_RDONLY);
	o->e = o->fd < 0 ? NULL : elf_begin(o->fd, ELF_C_READ, NULL);
	fc_sections(o, &text, &tndx, &base, &sym, &strndx);
	if (!text || !sym) {
		fprintf(stderr, "%s: %s: no .text or symbols\n", tool, path);
		return 1;
	}
	nsyms = sym->d_size / gelf_fsize(o->e, ELF_T_SYM, 1, EV_CURRENT);
	for (size_t i = 0; i < nsyms && o->n < FC_MAX_FNS; i++) {
		GElf_Sym s;

		gelf_getsym(sym, (int)i, &s);
		if (GELF_ST_TYPE(s.st_info) != STT_FUNC || s.st_shndx != tndx ||
		    s.st_value < base ||
		    s.st_value - base + s.st_size > text->d_size)
			continue;
		o->fn[o->n++] =
			(struct fc_fn){ s.st_value, s.st_size,
					(const uint8_t *)text->d_buf +
						(s.st_value - base),
					elf_strptr(o->e, strndx, s.st_name) };
	}
	qsort(o->fn, o->n, sizeof(*o->fn), fc_by_addr);
	return 0;
}

static inline void fc_close(struct fc_obj *o)
{
	elf_end(o->e);
	close(o->fd);
}

/* The function of o that ip is in, searched on from *f. */
static inline const struct fc_fn *fc_fn_at(const struct fc_obj *o, size_t *f,
					   uint64_t ip)
{
	while (*f + 1 < o->n && o->fn[*f + 1].addr <= ip)
		(*f)++;
	return &o->fn[*f];
}

/*
 * cfi (the caller's) as the .debug_frame of an ELF file of machine and
 * class at path: 0; -1 said in err; 1 if path cannot be written.
 */
static inline int fc_write_cfi(int machine, int elfclass, const void *cfi,
			       size_t len, const char *path, struct ms_err *err)
{
	struct ms_dbgsec s = { ".debug_frame", cfi, len };
	struct ms_dbgelf d = { machine, elfclass, ELFDATA2LSB, &s, 1 };
	char *buf = NULL;
	size_t blen = 0;
	int out;

	if (ms_debug_elf_bytes(&d, &buf, &blen, err))
		return -1;
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0 || write(out, buf, blen) != (ssize_t)blen)
		return 1;
	close(out);
	free(buf);
	return 0;
}

/*
 * For each kallsyms symbol names[0..n) of t, "NAME:" and show(a, ADDR,
 * SIZE) up to the next symbol; "NAME: none" where t lacks it.
 */
static inline void
fc_show_names(const struct ms_ksymtab *t, char **names, int n,
	      void (*show)(const void *a, uint64_t addr, uint64_t size),
	      const void *a)
{
	for (int i = 0; i < n; i++) {
		uint64_t addr, end = UINT64_MAX;

		if (ms_ksymtab_lookup(t, names[i], &addr)) {
			printf("%s: none\n", names[i]);
			continue;
		}
		for (size_t j = 0; j < t->nsyms; j++)
			if (t->syms[j].addr > addr && t->syms[j].addr < end)
				end = t->syms[j].addr;
		printf("%s:\n", names[i]);
		show(a, addr, end - addr);
	}
}

#endif
