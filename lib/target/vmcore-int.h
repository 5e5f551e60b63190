/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal to the vmcore source: what vmfile.c checks and fixes in a
 * dump file before vmcore.c hands it to libkdumpfile.
 */
#ifndef MODSECT_VMCORE_INT_H
#define MODSECT_VMCORE_INT_H

#include <stdbool.h>

#include "target.h"

/* Is the file at fd a flattened kdump (makedumpfile -F)? */
bool vmcore_is_flat(int fd);
/* Replaces *fd, a flattened dump, by the dump it stands for. */
int vmcore_unflatten(int *fd, const char *path, struct ms_err *err);

/*
 * An ELF vmcore whose file is shorter than its program headers say
 * (an interrupted copy, a disk that filled up under kdump): an I/O error
 * (MS_E_IO) saying by how much and what is missing. 0 for a whole ELF
 * core and for anything that is no ELF (libkdumpfile says what it is).
 */
int vmcore_check_elf_size(int fd, const char *path, struct ms_err *err);
/*
 * An ELF vmcore whose section-header string table is not inside the file:
 * malformed input (MS_E_INPUT). 0 for anything else.
 */
int vmcore_check_elf_shstrtab(int fd, const char *path, struct ms_err *err);

#endif
