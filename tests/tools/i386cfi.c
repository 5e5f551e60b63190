// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * i386cfi: i386 frame rules (lib/unwind/x86.c) made from an object
 * file's code, for tests/t-i386.sh.
 *
 *   i386cfi OBJ [OUT]
 *
 * Decodes every function symbol (STT_FUNC, with its size) of OBJ's
 * .text (at its address): a function named entry_* is decoded as
 * entry code (pt_regs: i386's fixed layout), regs_* as entry code with
 * its pt_regs at esp, end_* as the end of the stack, undef_* as code not
 * to read, *.cold as a part of another function's body. Prints "NAME
 * +OFF KIND [CFA [signal] REG@AT...]" per row (as i386dump), then
 * "functions N bytes N lost N". With OUT, writes the rules as
 * .debug_frame in an ELF32 file of i386 (for readelf and gdb), with
 * user space below 0x1000 ending the walk. Errors: "i386cfi: MESSAGE",
 * exit 1; usage 2.
 */
#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "modsect.h"

static const char *const kinds[] = { "undef", "end", "frame", "regs" };
static const char *const saved[] = { "ebp", "ebx", "esi", "edi" };

static unsigned int flags_of(const char *name)
{
	if (!strncmp(name, "entry_", 6))
		return MS_X86_FN_ENTRY;
	if (!strncmp(name, "regs_", 5))
		return MS_X86_FN_REGS;
	if (!strncmp(name, "end_", 4))
		return MS_X86_FN_END;
	if (!strncmp(name, "undef_", 6))
		return MS_X86_FN_UNDEF;
	if (strstr(name, ".cold"))
		return MS_X86_FN_COLD;
	return 0;
}

static void row(const struct ms_x86_row *r, const char *name, uint64_t at)
{
	printf("%s +0x%" PRIx64 " %s", name, r->ip - at, kinds[r->kind]);
	if (r->kind == MS_X86_FRAME)
		printf(" %s+%d%s", r->cfa_reg == 5 ? "ebp" : "esp", r->cfa_off,
		       r->signal ? " signal" : "");
	else if (r->kind == MS_X86_REGS)
		printf(" regs@esp+%d", r->cfa_off);
	for (int i = 0; i < 4; i++)
		if (r->saved[i])
			printf(" %s@%d", saved[i], r->saved[i]);
	printf("\n");
}

struct item {
	struct ms_x86_fn fn;
	const char *name;
};

static int by_addr(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	return x->fn.addr < y->fn.addr ? -1 : x->fn.addr > y->fn.addr;
}

int main(int argc, char **argv)
{
	struct ms_x86_facts facts;
	struct ms_x86_fn fn[256];
	struct item it[256];
	struct ms_err err = { 0 };
	struct ms_x86 *a = NULL;
	Elf_Data *text = NULL, *sym = NULL;
	size_t n = 0, tndx = 0, strndx = 0, shstrndx = 0;
	uint64_t base = 0;
	Elf_Scn *scn = NULL;
	Elf *e;
	int fd;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: i386cfi OBJ [OUT]\n");
		return 2;
	}
	elf_version(EV_CURRENT);
	fd = open(argv[1], O_RDONLY);
	e = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *nm;

		gelf_getshdr(scn, &sh);
		elf_getshdrstrndx(e, &shstrndx);
		nm = elf_strptr(e, shstrndx, sh.sh_name);
		if (nm && !strcmp(nm, ".text")) {
			text = elf_getdata(scn, NULL);
			tndx = elf_ndxscn(scn);
			base = sh.sh_addr;
		} else if (sh.sh_type == SHT_SYMTAB)
			sym = elf_getdata(scn, NULL), strndx = sh.sh_link;
	}
	if (!text || !sym) {
		fprintf(stderr, "i386cfi: %s: no .text or symbols\n", argv[1]);
		return 1;
	}
	for (size_t i = 0; i < sym->d_size / sizeof(Elf32_Sym) && n < 256;
	     i++) {
		GElf_Sym s;

		gelf_getsym(sym, (int)i, &s);
		if (GELF_ST_TYPE(s.st_info) != STT_FUNC || s.st_shndx != tndx ||
		    s.st_value < base ||
		    s.st_value - base + s.st_size > text->d_size)
			continue;
		it[n].name = elf_strptr(e, strndx, s.st_name);
		it[n].fn = (struct ms_x86_fn){ s.st_value, s.st_size,
					       (const uint8_t *)text->d_buf +
						       (s.st_value - base),
					       flags_of(it[n].name) };
		n++;
	}
	qsort(it, n, sizeof(*it), by_addr);
	for (size_t i = 0; i < n; i++)
		fn[i] = it[i].fn;
	ms_x86_default_facts(&facts);
	if (ms_x86_decode(fn, n, &facts, &a, &err)) {
		fprintf(stderr, "i386cfi: %s\n", err.msg);
		return 1;
	}
	for (size_t i = 0; i < a->n; i++) {
		size_t f = 0;

		while (f + 1 < n && fn[f + 1].addr <= a->r[i].ip)
			f++;
		row(&a->r[i], it[f].name, fn[f].addr);
	}
	a->user_end = 0x1000;
	printf("functions %zu bytes %zu lost %zu\n", a->nfuncs, a->ninsns,
	       a->nlost);
	if (argc == 3) {
		void *cfi = NULL;
		char *buf = NULL;
		size_t len = 0, blen = 0;
		struct ms_dbgsec s;
		struct ms_dbgelf d = { EM_386, ELFCLASS32, ELFDATA2LSB, &s, 1 };
		int out;

		if (ms_x86_to_debug_frame(a, 0, &cfi, &len, &err))
			goto fail;
		s = (struct ms_dbgsec){ ".debug_frame", cfi, len };
		if (ms_debug_elf_bytes(&d, &buf, &blen, &err))
			goto fail;
		out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (out < 0 || write(out, buf, blen) != (ssize_t)blen)
			return 1;
		close(out);
		free(buf);
		free(cfi);
	}
	ms_x86_free(a);
	elf_end(e);
	close(fd);
	return 0;
fail:
	fprintf(stderr, "i386cfi: %s\n", err.msg);
	return 1;
}
