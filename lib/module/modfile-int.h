/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal to the module file: modfile.c reads it, modcopy.c copies it,
 * mfuncs.c gives its functions to ma64.c and mi386.c.
 */
#ifndef MODSECT_MODFILE_INT_H
#define MODSECT_MODFILE_INT_H

#include <gelf.h>

#include "module.h"

struct ms_modfile {
	unsigned int refs; /* its owners (ms_modfile_ref), read only */
	char *path;
	char *debugger_path; /* path, or a copy in the cache (modcopy.c) */
	char *lldb_path; /* debugger_path, or a copy without DWARF names */
	bool dwarf_hidden; /* from lldb, see modcopy.c */
	const char *compression;
	void *image; /* the (decompressed) bytes libelf reads */
	size_t size;
	bool mapped; /* image is an mmap of the file, not malloc'd */
	Elf *elf;
	int elfclass;
	struct ms_filesec *secs;
	size_t nsecs;
	size_t *scn_index; /* ELF section index of secs[i] */
	char *build_id;
	char *srcversion;
	char *modname;
};

/*
 * Sets f->debugger_path and f->lldb_path, writing copies to the cache
 * where a debugger needs one (modcopy.c).
 */
int modcopy_setup(const struct ms_ctx *ctx, struct ms_modfile *f,
		  const GElf_Ehdr *eh, struct ms_err *err);
/*
 * buf (a copy of f's image) with the section names .debug_* and
 * .rel(a).debug_* as .Debug_*; cfi_only: .debug_frame and .eh_frame alone.
 */
void modcopy_hide_dwarf(const struct ms_modfile *f, unsigned char *buf,
			bool cfi_only);

/* A loaded executable section of a module's file, with its bytes. */
struct mod_xsec {
	size_t shndx;
	uint64_t addr; /* in the map */
	Elf_Data *d;
};

/* A function symbol in one of them: its bytes, unrelocated. */
struct mod_fn {
	uint64_t addr, size; /* in the map */
	const uint8_t *code;
	const char *name; /* or NULL */
	size_t sec; /* in struct mod_code's secs */
};

struct mod_code {
	struct mod_xsec *secs;
	size_t nsecs;
	struct mod_fn *fns; /* by address, one of aliases, cut at the next */
	size_t n;
};

/*
 * The functions of l's file (mfuncs.c), which must be of ELF machine
 * machine, class elfclass, little-endian: -ENOENT if not ("not an ARCH
 * module") or without symbols; -ENOMEM. mod_code_free frees them.
 */
int mod_code_read(const struct ms_layout *l, uint16_t machine, int elfclass,
		  const char *arch, struct mod_code *c, struct ms_err *err);
void mod_code_free(struct mod_code *c);

#endif
