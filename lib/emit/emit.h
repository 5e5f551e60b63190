/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a debugger or a user reads: gdb and lldb commands (emit.c), the
 * core kernel's symbols as an ELF file (kelf.c); resolve's answers are
 * in answer.h.
 */
#ifndef MODSECT_EMIT_H
#define MODSECT_EMIT_H

#include "symbolize/symbolize.h"

/* ---- emitters (emit.c) ---- */

int ms_emit_gdb(FILE *out, const struct ms_layout *l, struct ms_err *err);
int ms_emit_lldb(FILE *out, const struct ms_layout *l, struct ms_err *err);
/*
 * The lines that give a fresh debugger the kernel's architecture, first in
 * a script; arch NULL if unknown (a comment only). why says where it was
 * taken from ("machine aarch64 in the map"). Nothing else can fail: a
 * failed write is out's error (ferror), which its owner checks when it
 * closes out, as for any fprintf to it.
 */
void ms_emit_gdb_arch(FILE *out, const struct ms_arch *arch, const char *why);
void ms_emit_lldb_arch(FILE *out, const struct ms_arch *arch, const char *why);
/* Quotes a path for gdb's argv parser / lldb's command parser. */
int ms_quote_gdb(const char *s, char **ret, struct ms_err *err);
int ms_quote_lldb(const char *s, char **ret, struct ms_err *err);

/* ---- the core kernel's symbols as an ELF file (kelf.c) ---- */

/*
 * Writes to fd an ELF file of the map's core kernel symbols at their
 * runtime addresses, for the map's machine, for gdb's add-symbol-file
 * and lldb's target modules add.
 */
int ms_kallsyms_elf(const struct ms_map *map, int fd, struct ms_err *err);
/*
 * Checks a vmlinux against the running kernel (build-id of the map, from
 * /sys/kernel/notes) and gives the KASLR offset to add to its addresses
 * (runtime _stext from kallsyms minus the file's). A mismatch is refused
 * unless force; *note_ret says what was verified.
 */
int ms_vmlinux_offset(const char *path, const struct ms_map *map, bool force,
		      int64_t *offset_ret, char **note_ret, struct ms_err *err);

#endif
