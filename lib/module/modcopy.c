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
 *    .Debug_* keeps every other byte; gdb gets the DWARF as it is
 *    (lldbcopy.c adds modsect's unwind tables to it);
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
void modcopy_hide_dwarf(const struct ms_modfile *f, unsigned char *buf,
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
			modcopy_hide_dwarf(f, buf, false);
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
		modcopy_hide_dwarf(f, buf, true);
		r = ms_cache_store(ctx, buf, f->size, ".ko", &path, err);
	}
	free(buf);
	if (!r) {
		free(f->debugger_path);
		f->debugger_path = path;
	}
	return r;
}
