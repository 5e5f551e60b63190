/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel types for debuggers: the kernel's BTF, read by libbpf, written
 * as DWARF 4 (.debug_info, .debug_abbrev, .debug_str, .debug_ranges)
 * that gdb and lldb read. btfdw.c walks the BTF; dwenc.c encodes.
 * A pure codec: the callers say where the BTF and the addresses of the
 * functions and variables came from.
 */
#ifndef MODSECT_TYPES_H
#define MODSECT_TYPES_H

#include "base/base.h"

struct btf;

/* A function or variable the DWARF may place: a symbol with its size. */
struct ms_tsym {
	const char *name;
	uint64_t addr, size;
};

struct ms_types_in {
	const struct btf *btf; /* the types, validated by libbpf */
	/*
	 * Split BTF (a module's): the base it extends. Named structs,
	 * unions and enums of the base become declarations, which the
	 * debugger completes from the kernel's own types; the other base
	 * types a module's types use are copied.
	 */
	const struct btf *base;
	/* Text and data symbols, sorted by name (strcmp); may repeat. */
	const struct ms_tsym *funcs, *vars;
	size_t nfuncs, nvars;
	/*
	 * The address of __per_cpu_offset[], 0 if unknown: a per-cpu
	 * variable's location is then CPU 0's copy, &var +
	 * __per_cpu_offset[0]; with 0 per-cpu variables are left out.
	 */
	uint64_t percpu_offsets;
	int addr_size; /* 4 or 8 */
	bool big_endian;
	bool char_signed; /* plain char, as the ABI has it (x86: signed) */
	const char *name; /* of the compile unit */
};

struct ms_dwarf {
	unsigned char *info, *abbrev, *str, *ranges;
	size_t info_len, abbrev_len, str_len, ranges_len;
	/* What came out, for messages and tests. */
	size_t ntypes, nfuncs, nvars;
	/* Left out: names with two BTF prototypes, or two addresses. */
	size_t nambiguous;
};

/* Bounds on what a BTF may make: more than any kernel has. */
#define MS_TYPES_MAX_IDS (4u << 20)
#define MS_TYPES_MAX_DWARF (1u << 30)

int ms_btf_to_dwarf(const struct ms_types_in *in, struct ms_dwarf *out,
		    struct ms_err *err);
void ms_dwarf_free(struct ms_dwarf *d);

#endif
