/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal to the vmcore source: what vmfile.c checks and fixes in a
 * dump file before vmcore.c hands it to libkdumpfile.
 */
#ifndef MODSECT_VMCORE_INT_H
#define MODSECT_VMCORE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/*
 * x86-64 CPUs' registers from a compressed kdump's NT_PRSTATUS notes, as
 * struct user_regs_struct (r15 r14 r13 r12 rbp rbx r11 r10 r9 r8 rax rcx
 * rdx rsi rdi orig_rax rip cs eflags rsp ss fs_base gs_base ds es fs gs):
 * how many were read, at most max; 0 for anything else.
 */
#define VMCORE_NREGS 27
/* A compressed kdump's block size (its diskdump header's), or 0. */
uint32_t vmcore_diskdump_block(int fd);
size_t vmcore_diskdump_prstatus(int fd, uint64_t (*regs)[VMCORE_NREGS],
				size_t max);

#endif
