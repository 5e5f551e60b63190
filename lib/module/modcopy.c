// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the debuggers are given to read: the module file itself, or a copy
 * in the cache (named by its content) where they would misread it:
 *  - decompressed, since gdb and lldb read only plain ELF;
 *  - with every section at address 0. In a relocatable file every section
 *    starts at 0 and gdb relies on it; Linux 6.10's scripts/module.lds.S
 *    gives ld -r an output section .data (for alloc_tags, "lib: code
 *    tagging module support") which, like __patchable_function_entries,
 *    lacks the " 0" address of the others, so Debian's 6.12 modules have
 *    .data at sh_addr 0x7e0 and more. The module loader ignores sh_addr,
 *    but gdb 13 then puts every symbol its DWARF describes in another
 *    section at an offset from .text, whatever add-symbol-file -s says;
 *  - for lldb, an i386 or 32-bit ARM module with its DWARF hidden
 *    (symbols only): lldb 14 does not apply REL relocations (R_386_32,
 *    R_ARM_ABS32) to the DWARF of a relocatable file, so every function
 *    would be named by another's range (seen with Debian's 686-pae and
 *    armmp kernels: armmp's poke_get at .text+0 named timer_get, whose
 *    unrelocated DW_AT_low_pc is .text's file address in lldb). Renaming .debug_* to
 *    .Debug_* keeps every other byte; gdb gets the DWARF as it is;
 *  - for gdb, once its layout is checked (ms_modfile_gdb_own_cfi), an
 *    arm64 module with its own CFI (.debug_frame of a module built with
 *    -g) with that CFI hidden: gcc's says where a signed
 *    return address is (DW_CFA_AARCH64_negate_ra_state), and gdb 13 on
 *    QEMU's gdbstub, which gives it no pauth registers, takes the signed
 *    value for the caller's pc (unwind/a64cfi.c). The rules modsect makes
 *    from the module's code (ma64.c) are read instead: gdb takes the
 *    first FDE it finds, in the first file loaded.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "modfile-int.h"

static bool any_addr(const struct ms_modfile *f)
{
	for (size_t i = 0; i < f->nsecs; i++) {
		Elf_Scn *scn = elf_getscn(f->elf, f->scn_index[i]);
		GElf_Shdr sh;

		if (scn && gelf_getshdr(scn, &sh) && sh.sh_addr)
			return true;
	}
	return false;
}

/* An arm64 module's own CFI, which gdb would read before modsect's. */
static bool gdb_misreads(const struct ms_modfile *f, const GElf_Ehdr *eh)
{
	if (eh->e_machine != EM_AARCH64)
		return false;
	for (size_t i = 0; i < f->nsecs; i++)
		if (!strcmp(f->secs[i].name, ".debug_frame") ||
		    !strcmp(f->secs[i].name, ".eh_frame"))
			return true;
	return false;
}

/* DWARF whose relocations lldb cannot apply. */
static bool lldb_misreads(const struct ms_modfile *f, const GElf_Ehdr *eh)
{
	if (eh->e_machine != EM_386 && eh->e_machine != EM_ARM)
		return false;
	for (size_t i = 0; i < f->nsecs; i++)
		if (f->secs[i].type == SHT_REL &&
		    !strncmp(f->secs[i].name, ".rel.debug_", 11))
			return true;
	return false;
}

/* The image with sh_addr 0 in every section header, in a new buffer. */
static int zeroed(const struct ms_modfile *f, const GElf_Ehdr *eh,
		  unsigned char **ret, struct ms_err *err)
{
	/* sh_addr: the fourth field, after three 32-bit ones in ELF32. */
	size_t at = f->elfclass == ELFCLASS64 ? 16 : 12,
	       len = f->elfclass == ELFCLASS64 ? 8 : 4;
	unsigned char *copy;

	if (eh->e_shentsize < at + len)
		return ms_err_set(err, EINVAL,
				  "%s: section headers of %u bytes are too small",
				  f->path, eh->e_shentsize);
	copy = malloc(f->size ? f->size : 1);
	if (!copy)
		return ms_err_errno(err, ENOMEM, "%s", f->path);
	memcpy(copy, f->image, f->size);
	/* check_bounds() made sure the headers lie inside the file. */
	for (size_t i = 0; i < f->nsecs; i++)
		memset(copy + eh->e_shoff + f->scn_index[i] * eh->e_shentsize +
			       at,
		       0, len);
	*ret = copy;
	return 0;
}

/*
 * buf (a copy of the image) with the section names .debug_* and
 * .rel(a).debug_* as .Debug_*: one byte each, in the section name table;
 * cfi_only: .debug_frame and .eh_frame alone (.Eh_frame).
 */
static void hide_dwarf(const struct ms_modfile *f, unsigned char *buf,
		       bool cfi_only)
{
	size_t shstrndx;
	Elf_Scn *strscn;
	GElf_Shdr str;

	if (elf_getshdrstrndx(f->elf, &shstrndx) < 0 ||
	    !(strscn = elf_getscn(f->elf, shstrndx)) ||
	    !gelf_getshdr(strscn, &str) || str.sh_type != SHT_STRTAB)
		return;
	for (size_t i = 0; i < f->nsecs; i++) {
		const char *n = f->secs[i].name;
		size_t skip = !strncmp(n, ".debug_", 7)	     ? 1 :
			      !strncmp(n, ".rel.debug_", 11) ? 5 :
			      !strncmp(n, ".rela.debug_", 12) ? 6 :
							       0;
		Elf_Scn *scn = elf_getscn(f->elf, f->scn_index[i]);
		GElf_Shdr sh;

		if (cfi_only && !strcmp(n, ".eh_frame"))
			skip = 1;
		else if (cfi_only && !strstr(n, "debug_frame"))
			skip = 0;
		/* read_sections() checked the table lies in the file. */
		if (skip && scn && gelf_getshdr(scn, &sh) &&
		    sh.sh_name + skip < str.sh_size)
			buf[str.sh_offset + sh.sh_name + skip] = 'D';
	}
}

int modcopy_setup(const struct ms_ctx *ctx, struct ms_modfile *f,
		  const GElf_Ehdr *eh, struct ms_err *err)
{
	unsigned char *buf = NULL;
	char *abs;
	int r = 0;

	if (any_addr(f)) {
		r = zeroed(f, eh, &buf, err);
		if (!r)
			r = ms_cache_store(ctx, buf, f->size, ".ko",
					   &f->debugger_path, err);
	} else if (f->compression) {
		r = ms_cache_store(ctx, f->image, f->size, ".ko",
				   &f->debugger_path, err);
	} else {
		/* The debugger may run elsewhere: an absolute path, links kept. */
		abs = f->path[0] == '/' ? NULL : realpath(f->path, NULL);
		f->debugger_path = abs ? abs : strdup(f->path);
		if (!f->debugger_path)
			r = ms_err_errno(err, ENOMEM, "%s", f->path);
	}
	if (!r && lldb_misreads(f, eh)) {
		if (!buf && (buf = malloc(f->size ? f->size : 1)))
			memcpy(buf, f->image, f->size);
		if (!buf)
			r = ms_err_errno(err, ENOMEM, "%s", f->path);
		if (!r) {
			hide_dwarf(f, buf, false);
			f->dwarf_hidden = true;
			r = ms_cache_store(ctx, buf, f->size, ".ko",
					   &f->lldb_path, err);
		}
	} else if (!r && !(f->lldb_path = strdup(f->debugger_path))) {
		r = ms_err_errno(err, ENOMEM, "%s", f->path);
	}
	free(buf);
	return r;
}

int ms_modfile_gdb_own_cfi(const struct ms_ctx *ctx, struct ms_modfile *f,
			   struct ms_err *err)
{
	unsigned char *buf = NULL;
	char *path = NULL;
	GElf_Ehdr eh;
	int r = 0;

	if (!gelf_getehdr(f->elf, &eh) || !gdb_misreads(f, &eh))
		return 0;
	/* what gdb reads today, sh_addr zeroed where it was not 0 */
	if (any_addr(f))
		r = zeroed(f, &eh, &buf, err);
	else if ((buf = malloc(f->size ? f->size : 1)))
		memcpy(buf, f->image, f->size);
	else
		r = ms_err_errno(err, ENOMEM, "%s", f->path);
	if (!r) {
		hide_dwarf(f, buf, true);
		r = ms_cache_store(ctx, buf, f->size, ".ko", &path, err);
	}
	free(buf);
	if (!r) {
		free(f->debugger_path);
		f->debugger_path = path;
	}
	return r;
}

/*
 * lldb's copy with the module's unwind tables. lldb 14 looks an
 * address's unwind tables up only in the object file that holds it, and
 * places a relocatable file's SHF_ALLOC sections itself, at file
 * addresses of its own (ObjectFileELF: one after another from 0); what
 * `target modules load` is given moves them. It applies relocations to
 * .debug_* sections of such a file (ObjectFileELF::RelocateSection), as
 * it does for the DWARF: so each FDE starts at an offset in its section,
 * and an R_X86_64_64 relocation against a symbol of that section makes
 * it lldb's file address, which the load then moves to the map's. The
 * copy does not depend on where the module is loaded: one per file.
 */
static void put_le(unsigned char *p, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = n; i--;)
		v = v << 8 | p[i];
	return v;
}

/* Where a relocation puts a section's offset 0: a symbol, its value. */
struct anchor {
	size_t sym;
	uint64_t value;
};

static size_t find_index(const struct ms_modfile *f, uint32_t type,
			 const char *name)
{
	for (size_t i = 0; i < f->nsecs; i++)
		if (name ? !strcmp(f->secs[i].name, name) :
			   f->secs[i].type == type)
			return f->scn_index[i];
	return 0;
}

static Elf_Data *symtab_of(const struct ms_modfile *f, size_t *ndx_ret)
{
	size_t ndx = find_index(f, SHT_SYMTAB, NULL);
	Elf_Scn *scn = ndx ? elf_getscn(f->elf, ndx) : NULL;

	*ndx_ret = ndx;
	return scn ? elf_getdata(scn, NULL) : NULL;
}

/*
 * For each ELF index of file (the ORC's), the symbol of sym (lldb's file,
 * which may be another with the same sections) to relocate against: the
 * section's own symbol if it has one, else any symbol in it.
 */
static int anchors(const struct ms_modfile *file, const struct ms_modfile *sym,
		   struct anchor **ret, size_t *symtab_ret)
{
	size_t n = MS_ORC_SECTION_MAX, nsyms;
	Elf_Data *d = symtab_of(sym, symtab_ret);
	struct anchor *by_sym = calloc(n, sizeof(*by_sym)),
		      *a = calloc(n, sizeof(*a));

	if (!by_sym || !a) {
		free(by_sym);
		free(a);
		return -ENOMEM;
	}
	nsyms = d ? d->d_size / sizeof(Elf64_Sym) : 0;
	for (size_t k = 1; k < nsyms; k++) {
		GElf_Sym s;

		if (!gelf_getsym(d, (int)k, &s) || !s.st_shndx ||
		    s.st_shndx >= n ||
		    (by_sym[s.st_shndx].sym &&
		     GELF_ST_TYPE(s.st_info) != STT_SECTION))
			continue;
		by_sym[s.st_shndx] = (struct anchor){ k, s.st_value };
	}
	for (size_t i = 0; i < file->nsecs; i++) {
		size_t j = file == sym ? file->scn_index[i] :
					 find_index(sym, 0, file->secs[i].name);

		if (file->scn_index[i] < n && j < n)
			a[file->scn_index[i]] = by_sym[j];
	}
	free(by_sym);
	*ret = a;
	return 0;
}

/*
 * Each FDE's initial location, an MS_ORC_SECTION address, becomes 0 and
 * a relocation (Elf64_Rela, in *rela_ret) of it; one whose section has
 * no symbol covers nothing.
 */
static int relocate_fdes(unsigned char *cfi, size_t len,
			 const struct anchor *a, unsigned char **rela_ret,
			 size_t *rela_len)
{
	unsigned char *rela = NULL;
	size_t n = 0, cap = 0;

	for (size_t off = 0; off + 24 <= len;) {
		size_t rec = get_le(cfi + off, 4);
		uint64_t loc = get_le(cfi + off + 8, 8);
		size_t ndx = loc >> MS_ORC_SECTION_SHIFT;
		uint64_t at = loc & ((UINT64_C(1) << MS_ORC_SECTION_SHIFT) - 1);

		if (get_le(cfi + off + 4, 4) != 0xffffffff) {
			put_le(cfi + off + 8, 0, 8);
			if (ndx >= MS_ORC_SECTION_MAX || !a[ndx].sym) {
				put_le(cfi + off + 16, 0, 8);
			} else if (ms_reserve(&rela, &cap, n + 24, 1, 4096)) {
				free(rela);
				return -ENOMEM;
			} else {
				put_le(rela + n, off + 8, 8);
				put_le(rela + n + 8,
				       (uint64_t)a[ndx].sym << 32 | R_X86_64_64,
				       8);
				put_le(rela + n + 16, at - a[ndx].value, 8);
				n += 24;
			}
		}
		off += 4 + rec;
	}
	*rela_ret = rela;
	*rela_len = n;
	return 0;
}

/* The pieces added after the image: the two sections, their names. */
struct added {
	const unsigned char *cfi, *rela;
	size_t cfi_len, rela_len, symtab;
};

#define ALIGN8(x) (((x) + 7) & ~(size_t)7)
#define SHDR 64 /* sizeof(Elf64_Shdr) */

static void put_shdr(unsigned char *p, size_t name, uint32_t type,
		     uint64_t flags, size_t off, size_t size, size_t link,
		     size_t info, size_t entsize)
{
	memset(p, 0, SHDR);
	put_le(p, name, 4);
	put_le(p + 4, type, 4);
	put_le(p + 8, flags, 8);
	put_le(p + 24, off, 8);
	put_le(p + 32, size, 8);
	put_le(p + 40, link, 4);
	put_le(p + 44, info, 4);
	put_le(p + 48, 8, 8);
	put_le(p + 56, entsize, 8);
}

/*
 * The new section name table: the old one, a .debug_frame already there
 * renamed .Debug_frame (as hide_dwarf() does), and ".rela.debug_frame",
 * whose tail names the new .debug_frame.
 */
static size_t put_names(const struct ms_modfile *f, unsigned char *p,
			const GElf_Shdr *str)
{
	static const char add[] = ".rela.debug_frame";

	memcpy(p, (const unsigned char *)f->image + str->sh_offset,
	       str->sh_size);
	for (size_t i = 0; i < f->nsecs; i++) {
		const char *n = f->secs[i].name;
		Elf_Scn *scn = elf_getscn(f->elf, f->scn_index[i]);
		size_t at = !strcmp(n, ".debug_frame")	    ? 1 :
			    !strcmp(n, ".rela.debug_frame") ? 6 :
							      0;
		GElf_Shdr sh;

		if (at && scn && gelf_getshdr(scn, &sh) &&
		    sh.sh_name + at < str->sh_size)
			p[sh.sh_name + at] = 'D';
	}
	memcpy(p + str->sh_size, add, sizeof(add));
	return str->sh_size + sizeof(add);
}

/* f's image (sh_addr 0 in every header) with the sections of ad added. */
static int with_cfi(const struct ms_modfile *f, const struct added *ad,
		    unsigned char **ret, size_t *len_ret, struct ms_err *err)
{
	size_t shstrndx, nsh, a, r, s, h, names, total;
	unsigned char *buf;
	Elf_Scn *strscn;
	GElf_Shdr str;
	GElf_Ehdr eh;

	if (!gelf_getehdr(f->elf, &eh) || eh.e_shentsize != SHDR ||
	    !eh.e_shnum || eh.e_shnum + 2 >= SHN_LORESERVE ||
	    elf_getshdrstrndx(f->elf, &shstrndx) < 0 ||
	    !(strscn = elf_getscn(f->elf, shstrndx)) ||
	    !gelf_getshdr(strscn, &str))
		return ms_err_set(err, ENOENT,
				  "%s: section headers lldb's copy cannot extend",
				  f->path);
	nsh = eh.e_shnum;
	a = ALIGN8(f->size);
	r = ALIGN8(a + ad->cfi_len);
	s = r + ad->rela_len;
	h = ALIGN8(s + str.sh_size + 32);
	total = h + (nsh + 2) * SHDR;
	buf = calloc(1, total);
	if (!buf)
		return ms_err_errno(err, ENOMEM, "%s", f->path);
	memcpy(buf, f->image, f->size);
	memcpy(buf + a, ad->cfi, ad->cfi_len);
	memcpy(buf + r, ad->rela, ad->rela_len);
	names = put_names(f, buf + s, &str);
	/* check_bounds() made sure the headers lie inside the file. */
	memcpy(buf + h, buf + eh.e_shoff, nsh * SHDR);
	for (size_t i = 0; i < nsh; i++) {
		unsigned char *sh = buf + h + i * SHDR;
		uint64_t flags = get_le(sh + 8, 8);

		put_le(sh + 16, 0, 8);
		if (flags & SHF_EXECINSTR)
			put_le(sh + 8, flags | SHF_WRITE, 8);
	}
	put_le(buf + h + shstrndx * SHDR + 24, s, 8);
	put_le(buf + h + shstrndx * SHDR + 32, names, 8);
	put_shdr(buf + h + nsh * SHDR, str.sh_size + 5, SHT_PROGBITS, 0, a,
		 ad->cfi_len, 0, 0, 0);
	put_shdr(buf + h + (nsh + 1) * SHDR, str.sh_size, SHT_RELA,
		 SHF_INFO_LINK, r, ad->rela_len, ad->symtab, nsh,
		 sizeof(Elf64_Rela));
	put_le(buf + 0x28, h, 8); /* e_shoff */
	put_le(buf + 0x3c, nsh + 2, 2); /* e_shnum */
	*ret = buf;
	*len_ret = total;
	return 0;
}

/* The starts of file's functions, as MS_ORC_SECTION addresses, sorted. */
static int func_starts(const struct ms_modfile *f, uint64_t **ret,
		       size_t *n_ret)
{
	size_t ndx, nsyms, n = 0;
	Elf_Data *d = symtab_of(f, &ndx);
	uint64_t *fs;

	nsyms = d ? d->d_size / sizeof(Elf64_Sym) : 0;
	fs = malloc((nsyms ? nsyms : 1) * sizeof(*fs));
	if (!fs)
		return -ENOMEM;
	for (size_t k = 1; k < nsyms; k++) {
		GElf_Sym s;

		if (gelf_getsym(d, (int)k, &s) &&
		    GELF_ST_TYPE(s.st_info) == STT_FUNC && s.st_shndx &&
		    s.st_shndx < MS_ORC_SECTION_MAX)
			fs[n++] = MS_ORC_SECTION(s.st_shndx, s.st_value);
	}
	ms_sort_u64(fs, n);
	*ret = fs;
	*n_ret = n;
	return 0;
}

/* lldb's copy of sym with the CFI of orc (file's sections) in *ret. */
static int lldb_copy(const struct ms_modfile *sym,
		     const struct ms_modfile *file, const struct ms_orc *orc,
		     unsigned char **ret, size_t *len_ret, struct ms_err *err)
{
	struct added ad = { 0 };
	struct anchor *a = NULL;
	uint64_t *fs = NULL;
	void *cfi = NULL;
	size_t nfs;
	int r;

	if (func_starts(file, &fs, &nfs) || anchors(file, sym, &a, &ad.symtab))
		r = ms_err_errno(err, ENOMEM, "%s", sym->path);
	else
		r = ms_orc_to_debug_frame(orc, MS_CFI_LLDB, fs, nfs, &cfi,
					  &ad.cfi_len, NULL, err);
	if (!r && relocate_fdes(cfi, ad.cfi_len, a, (unsigned char **)&ad.rela,
				&ad.rela_len))
		r = ms_err_errno(err, ENOMEM, "%s", sym->path);
	ad.cfi = cfi;
	if (!r)
		r = with_cfi(sym, &ad, ret, len_ret, err);
	free((void *)ad.rela);
	free(cfi);
	free(a);
	free(fs);
	return r;
}

int ms_modfile_lldb_unwind(const struct ms_ctx *ctx, struct ms_modfile *sym,
			   const struct ms_layout *l, const char *release,
			   size_t *nentries_ret, struct ms_err *err)
{
	struct ms_orc *orc = NULL;
	unsigned char *buf = NULL;
	char *path = NULL;
	size_t len = 0;
	int r;

	if (sym->dwarf_hidden || sym->elfclass != ELFCLASS64)
		return ms_err_set(err, ENOENT, "%s: no ORC for lldb", sym->path);
	r = ms_modfile_orc_sections(l->file, release, &orc, err);
	if (!r)
		r = lldb_copy(sym, l->file, orc, &buf, &len, err);
	if (!r)
		r = ms_cache_store(ctx, buf, len, ".ko", &path, err);
	if (!r) {
		free(sym->lldb_path);
		sym->lldb_path = path;
		if (nentries_ret)
			*nentries_ret = orc->n;
	}
	free(buf);
	ms_orc_free(orc);
	return r;
}
