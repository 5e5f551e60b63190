/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The DWARF encoder under btfdw.c: its abbreviations (dwenc.c). */
#ifndef MODSECT_TYPES_INT_H
#define MODSECT_TYPES_INT_H

#include "types.h"

/* Abbreviation codes: dwenc.c's table lists each one's tag and form. */
enum dw_abbrev {
	A_NONE,
	A_CU_RANGES,
	A_CU,
	A_BASE,
	A_PTR,
	A_PTR_VOID,
	A_CONST,
	A_CONST_VOID,
	A_VOLATILE,
	A_VOLATILE_VOID,
	A_RESTRICT,
	A_RESTRICT_VOID,
	A_TYPEDEF,
	A_TYPEDEF_VOID,
	A_STRUCT,
	A_STRUCT_ANON,
	A_STRUCT_DECL,
	A_UNION,
	A_UNION_ANON,
	A_UNION_DECL,
	A_MEMBER,
	A_MEMBER_ANON,
	A_MEMBER_BITS,
	A_MEMBER_BITS_ANON,
	A_ENUM,
	A_ENUM_ANON,
	A_ENUM_DECL,
	A_ENUMERATOR_S,
	A_ENUMERATOR_U,
	A_ARRAY,
	A_SUBRANGE,
	A_SUBRANGE_FLEX,
	A_SUBR,
	A_SUBR_VOID,
	A_PARAM,
	A_PARAM_NAMED,
	A_UNSPEC_PARAMS,
	A_SUBPROG,
	A_SUBPROG_VOID,
	A_VAR,
	A_ANNOTATION,
	A_COUNT
};

/* Writes the abbreviation table for addresses of addr_size bytes. */
void dw_abbrevs(struct ms_bytes *b);

#endif
