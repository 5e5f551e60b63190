/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Internal to the module file: modfile.c reads it, modcopy.c copies it. */
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

#endif
