/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The DWARF encoder under btfdw.c: growing buffers, strings, abbrevs. */
#ifndef MODSECT_TYPES_INT_H
#define MODSECT_TYPES_INT_H

#include "types.h"

struct dw_buf {
	unsigned char *p;
	size_t len, cap;
	bool oom; /* a write failed: the buffer is to be thrown away */
	bool be; /* multi-byte values big-endian */
};

void dwb_bytes(struct dw_buf *b, const void *p, size_t n);
void dwb_u8(struct dw_buf *b, unsigned int v);
void dwb_uint(struct dw_buf *b, uint64_t v, int size);
void dwb_uleb(struct dw_buf *b, uint64_t v);
void dwb_sleb(struct dw_buf *b, int64_t v);
/* Writes v over size bytes at pos, which must have been written. */
void dwb_patch(struct dw_buf *b, size_t pos, uint64_t v, int size);

/* .debug_str with each string once. */
struct dw_strtab {
	struct dw_buf b;
	uint32_t *slot; /* offset + 1, 0 for empty */
	size_t nslot, nused;
};

/* The offset of s in the table; 0 with b.oom set on failure. */
uint32_t dws_add(struct dw_strtab *t, const char *s);
void dws_free(struct dw_strtab *t);

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
void dw_abbrevs(struct dw_buf *b);

#endif
