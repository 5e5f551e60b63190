// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lldb's copy of a module file with the module's unwind tables in it.
 * lldb 14 looks an address's unwind tables up only in the object file
 * that holds it, and places a relocatable file's SHF_ALLOC sections
 * itself, at file addresses of its own (ObjectFileELF: one after another
 * from 0, each aligned; sections of no size take none); what `target
 * modules load` is given moves them.
 *  - x86-64 (ORC): lldb applies RELA relocations to the .debug_* sections
 *    of such a file (ObjectFileELF::RelocateSection), as it does for the
 *    DWARF: so each FDE starts at an offset in its section, and an
 *    R_X86_64_64 relocation against a symbol of that section makes it
 *    lldb's file address, which the load then moves to the map's.
 *  - i386 (rules from code, mi386.c): lldb 14 applies no REL relocation
 *    (R_386_32) and the copy already has its DWARF hidden (modcopy.c), so
 *    each FDE starts at lldb's file address itself, reckoned as lldb
 *    places the sections.
 * The copy does not depend on where the module is loaded: one per file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "modfile-int.h"

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
static int relocate_fdes(unsigned char *cfi, size_t len, const struct anchor *a,
			 unsigned char **rela_ret, size_t *rela_len)
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

/*
 * f's ELF header, its section name table's index and header, when f's
 * section headers are of shentsize bytes and room is left for more more.
 */
static int headers(const struct ms_modfile *f, size_t shentsize, size_t more,
		   GElf_Ehdr *eh, size_t *shstrndx, GElf_Shdr *str,
		   struct ms_err *err)
{
	Elf_Scn *strscn;

	if (!gelf_getehdr(f->elf, eh) || eh->e_shentsize != shentsize ||
	    !eh->e_shnum || eh->e_shnum + more >= SHN_LORESERVE ||
	    elf_getshdrstrndx(f->elf, shstrndx) < 0 ||
	    !(strscn = elf_getscn(f->elf, *shstrndx)) ||
	    !gelf_getshdr(strscn, str))
		return ms_err_set(
			err, ENOENT,
			"%s: section headers lldb's copy cannot extend",
			f->path);
	return 0;
}

/* f's image (sh_addr 0 in every header) with the sections of ad added. */
static int with_cfi(const struct ms_modfile *f, const struct added *ad,
		    unsigned char **ret, size_t *len_ret, struct ms_err *err)
{
	size_t shstrndx, nsh, a, r, s, h, names, total;
	unsigned char *buf;
	GElf_Shdr str;
	GElf_Ehdr eh;

	if (headers(f, SHDR, 2, &eh, &shstrndx, &str, err))
		return -ENOENT;
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

/*
 * lldb's file address of each section of f by ELF index, UINT64_MAX for
 * one it gives none: SHF_ALLOC sections of some size, one after another
 * from 0, each at its alignment (ObjectFileELF's VMAddressProvider for a
 * relocatable file, lldb 14; seen with `image dump sections`).
 */
static uint64_t *lldb_places(const struct ms_modfile *f, size_t *n_ret)
{
	uint64_t *at, next = 0;
	size_t n;

	if (elf_getshdrnum(f->elf, &n) < 0 || !n)
		return NULL;
	at = malloc(n * sizeof(*at));
	for (size_t i = 0; at && i < n; i++) {
		Elf_Scn *scn = elf_getscn(f->elf, i);
		GElf_Shdr sh;
		uint64_t al;

		at[i] = UINT64_MAX;
		if (!i || !scn || !gelf_getshdr(scn, &sh) ||
		    !(sh.sh_flags & SHF_ALLOC) || !sh.sh_size)
			continue;
		al = sh.sh_addralign > 1 ? sh.sh_addralign : 1;
		next = (next + al - 1) / al * al;
		at[i] = next;
		next += sh.sh_size;
	}
	*n_ret = n;
	return at;
}

/*
 * Each FDE's initial location (32-bit .debug_frame), a runtime address in
 * a section of l, as lldb's file address of it in f; an FDE outside them
 * covers nothing.
 */
static void place_fdes32(unsigned char *cfi, size_t len,
			 const struct ms_layout *l, const struct ms_modfile *f,
			 const uint64_t *at, size_t nat)
{
	for (size_t off = 0, rec; off + 16 <= len; off += 4 + rec) {
		uint64_t loc = get_le(cfi + off + 8, 4), to = UINT64_MAX;

		rec = get_le(cfi + off, 4);
		if (rec > len - off - 4)
			break;
		if (get_le(cfi + off + 4, 4) == 0xffffffff) /* a CIE */
			continue;
		for (size_t k = 0; to == UINT64_MAX && k < l->nsecs; k++) {
			const struct ms_lsec *sec = &l->secs[k];
			size_t ndx;

			if (loc < sec->addr || loc - sec->addr >= sec->size)
				continue;
			ndx = find_index(f, 0, sec->name);
			if (ndx && ndx < nat && at[ndx] != UINT64_MAX)
				to = at[ndx] + (loc - sec->addr);
		}
		put_le(cfi + off + 8, to == UINT64_MAX ? 0 : to, 4);
		if (to == UINT64_MAX)
			put_le(cfi + off + 12, 0, 4);
	}
}

#define SHDR32 40 /* sizeof(Elf32_Shdr) */

/*
 * buf, f's image with its DWARF hidden (f->size bytes), with cfi as a
 * new .debug_frame: the section, its name after the old table's, the
 * section headers again after them, the code sections writable.
 */
static int with_cfi32(const struct ms_modfile *f, const unsigned char *buf,
		      const unsigned char *cfi, size_t cfi_len,
		      unsigned char **ret, size_t *len_ret, struct ms_err *err)
{
	static const char name[] = ".debug_frame";
	size_t shstrndx, nsh, a, s, h, total;
	unsigned char *out, *sh;
	GElf_Shdr str;
	GElf_Ehdr eh;

	if (headers(f, SHDR32, 1, &eh, &shstrndx, &str, err))
		return -ENOENT;
	nsh = eh.e_shnum;
	a = ALIGN8(f->size);
	s = a + cfi_len;
	h = ALIGN8(s + str.sh_size + sizeof(name));
	total = h + (nsh + 1) * SHDR32;
	out = calloc(1, total);
	if (!out)
		return ms_err_errno(err, ENOMEM, "%s", f->path);
	memcpy(out, buf, f->size);
	memcpy(out + a, cfi, cfi_len);
	/* check_bounds() made sure the table and headers lie in the file. */
	memcpy(out + s, buf + str.sh_offset, str.sh_size);
	memcpy(out + s + str.sh_size, name, sizeof(name));
	memcpy(out + h, buf + eh.e_shoff, nsh * SHDR32);
	/* lldb reads the code of writable sections from memory (as for ORC) */
	for (size_t i = 0; i < nsh; i++) {
		uint64_t flags = get_le(out + h + i * SHDR32 + 8, 4);

		if (flags & SHF_EXECINSTR)
			put_le(out + h + i * SHDR32 + 8, flags | SHF_WRITE, 4);
	}
	put_le(out + h + shstrndx * SHDR32 + 16, s, 4);
	put_le(out + h + shstrndx * SHDR32 + 20, str.sh_size + sizeof(name), 4);
	sh = out + h + nsh * SHDR32;
	put_le(sh, str.sh_size, 4);
	put_le(sh + 4, SHT_PROGBITS, 4);
	put_le(sh + 16, a, 4);
	put_le(sh + 20, cfi_len, 4);
	put_le(sh + 32, 4, 4);
	put_le(out + 0x20, h, 4); /* e_shoff */
	put_le(out + 0x30, nsh + 1, 2); /* e_shnum */
	*ret = out;
	*len_ret = total;
	return 0;
}

/* lldb's copy of sym (i386) with its DWARF hidden, l's rules from code. */
static int lldb_copy32(const struct ms_modfile *sym, const struct ms_layout *l,
		       size_t *nfuncs_ret, unsigned char **ret, size_t *len_ret,
		       struct ms_err *err)
{
	struct ms_x86 *x = NULL;
	unsigned char *buf = NULL;
	uint64_t *at = NULL;
	void *cfi = NULL;
	size_t len = 0, nat = 0;
	int r = ms_layout_x86(l, &x, err);

	if (!r)
		r = ms_x86_to_debug_frame(x, MS_CFI_LLDB, &cfi, &len, err);
	if (!r && (!(at = lldb_places(sym, &nat)) ||
		   !(buf = malloc(sym->size ? sym->size : 1))))
		r = ms_err_errno(err, ENOMEM, "%s", sym->path);
	if (!r) {
		memcpy(buf, sym->image, sym->size);
		modcopy_hide_dwarf(sym, buf, false);
		place_fdes32(cfi, len, l, sym, at, nat);
		r = with_cfi32(sym, buf, cfi, len, ret, len_ret, err);
	}
	if (!r)
		*nfuncs_ret = x->nfuncs;
	free(buf);
	free(at);
	free(cfi);
	ms_x86_free(x);
	return r;
}

int ms_modfile_lldb_unwind(const struct ms_ctx *ctx, struct ms_modfile *sym,
			   const struct ms_layout *l, const char *release,
			   size_t *nentries_ret, struct ms_err *err)
{
	struct ms_orc *orc = NULL;
	unsigned char *buf = NULL;
	char *path = NULL;
	size_t len = 0, n = 0;
	int em, cls, data, r;

	ms_modfile_machine(sym, &em, &cls, &data);
	if (em == EM_386 && cls == ELFCLASS32) {
		r = lldb_copy32(sym, l, &n, &buf, &len, err);
	} else if (sym->dwarf_hidden || sym->elfclass != ELFCLASS64) {
		return ms_err_set(err, ENOENT, "%s: no ORC for lldb",
				  sym->path);
	} else {
		r = ms_modfile_orc_sections(l->file, release, &orc, err);
		if (!r)
			r = lldb_copy(sym, l->file, orc, &buf, &len, err);
		n = r ? 0 : orc->n;
	}
	if (!r)
		r = ms_cache_store(ctx, buf, len, ".ko", &path, err);
	if (!r) {
		free(sym->lldb_path);
		sym->lldb_path = path;
		if (nentries_ret)
			*nentries_ret = n;
	}
	free(buf);
	ms_orc_free(orc);
	return r;
}
