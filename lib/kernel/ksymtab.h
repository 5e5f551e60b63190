/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal to ksymtab.c and kimage.c: where ms_ksymtab_find found each
 * table and how the table encodes addresses, for callers that must fix
 * the addresses up (a raw arm64 Image, whose relocations the kernel
 * applies to itself at boot, stores 0 in kallsyms_relative_base).
 */
#ifndef MODSECT_KSYMTAB_H
#define MODSECT_KSYMTAB_H

#include "kernel.h"

enum ms_ksym_addressing {
	/* kallsyms_addresses[]: one pointer a symbol (no BASE_RELATIVE) */
	MS_KSYM_ABSOLUTE,
	/* kallsyms_relative_base + (u32)kallsyms_offsets[i] */
	MS_KSYM_RELATIVE,
	/* KALLSYMS_ABSOLUTE_PERCPU: >= 0 absolute, < 0 base - 1 - off */
	MS_KSYM_RELATIVE_PERCPU,
	/* place-relative: &kallsyms_offsets[i] + (s32)kallsyms_offsets[i] */
	MS_KSYM_PCREL,
};

struct ms_ksymtab_info {
	enum ms_ksym_addressing mode;
	unsigned int align; /* of the tables: 4 or 8 */
	/* offsets into the blob */
	size_t num_syms_off, names_off, markers_off, token_table_off,
		token_index_off, addrs_off;
	size_t relbase_off; /* SIZE_MAX without kallsyms_relative_base */
	uint64_t relbase; /* its value, 0 without one */
};

/* ms_ksymtab_find, also saying where the tables are (info may be NULL). */
int ms_ksymtab_find_info(const void *buf, size_t len, uint64_t base,
			 int ptr_size, bool big_endian, struct ms_ksymtab **ret,
			 struct ms_ksymtab_info *info, struct ms_err *err);

/* Adds delta to every symbol's address (see above). */
void ms_ksymtab_relocate(struct ms_ksymtab *t, uint64_t delta);

/* ksymtab-table.c: the table from what the finder found. */
struct ksym_found {
	const uint8_t *names; /* kallsyms_names, walked: lengths in bounds */
	uint32_t n;
	const char *const *tok; /* the 256 tokens, not NUL-terminated */
	const uint16_t *toklen;
	const uint64_t *addrs;
	size_t names_off, token_table_off;
};
/* 0, -ENOMEM, or -EINVAL if a name expands too short or too long. */
int ksymtab_build(const struct ksym_found *k, struct ms_ksymtab **ret);

#endif
