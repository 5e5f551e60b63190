// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A small DWARF 4 encoder: buffers that grow, LEB128, a string table
 * that keeps each string once, and the fixed abbreviation table every
 * compile unit btfdw.c writes uses.
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "types-int.h"

/* LLVM's tag for BTF's type and declaration tags (llvm/BinaryFormat/Dwarf.def). */
#ifndef DW_TAG_LLVM_annotation
#define DW_TAG_LLVM_annotation 0x6000
#endif

static bool grow(struct dw_buf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 4096;
	unsigned char *p;

	if (b->oom)
		return false;
	if (b->len + n <= b->cap)
		return true;
	while (cap < b->len + n) {
		if (cap > MS_TYPES_MAX_DWARF) {
			b->oom = true;
			return false;
		}
		cap *= 2;
	}
	p = realloc(b->p, cap);
	if (!p) {
		b->oom = true;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

void dwb_bytes(struct dw_buf *b, const void *p, size_t n)
{
	if (n && grow(b, n)) {
		memcpy(b->p + b->len, p, n);
		b->len += n;
	}
}

void dwb_u8(struct dw_buf *b, unsigned int v)
{
	if (grow(b, 1))
		b->p[b->len++] = (unsigned char)v;
}

void dwb_patch(struct dw_buf *b, size_t pos, uint64_t v, int size)
{
	if (b->oom || pos + (size_t)size > b->len)
		return;
	for (int i = 0; i < size; i++) {
		int shift = 8 * (b->be ? size - 1 - i : i);

		b->p[pos + (size_t)i] = (unsigned char)(v >> shift);
	}
}

void dwb_uint(struct dw_buf *b, uint64_t v, int size)
{
	if (grow(b, (size_t)size)) {
		b->len += (size_t)size;
		dwb_patch(b, b->len - (size_t)size, v, size);
	}
}

void dwb_uleb(struct dw_buf *b, uint64_t v)
{
	unsigned char tmp[10];
	size_t n = 0;

	do {
		tmp[n] = v & 0x7f;
		v >>= 7;
		tmp[n++] |= v ? 0x80 : 0;
	} while (v);
	dwb_bytes(b, tmp, n);
}

void dwb_sleb(struct dw_buf *b, int64_t v)
{
	unsigned char tmp[10];
	size_t n = 0;
	bool more;

	do {
		unsigned char byte = (unsigned char)(v & 0x7f);

		/* Arithmetic shift: v >> 7 rounds toward minus infinity. */
		v = v < 0 ? ~(~v >> 7) : v >> 7;
		more = !((v == 0 && !(byte & 0x40)) ||
			 (v == -1 && (byte & 0x40)));
		tmp[n++] = byte | (more ? 0x80 : 0);
	} while (more);
	dwb_bytes(b, tmp, n);
}

static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static bool rehash(struct dw_strtab *t)
{
	size_t n = t->nslot ? t->nslot * 2 : 1 << 14;
	uint32_t *slot = calloc(n, sizeof(*slot));

	if (!slot)
		return false;
	for (size_t i = 0; i < t->nslot; i++) {
		size_t j;

		if (!t->slot[i])
			continue;
		j = hash((char *)t->b.p + t->slot[i] - 1) & (n - 1);
		while (slot[j])
			j = (j + 1) & (n - 1);
		slot[j] = t->slot[i];
	}
	free(t->slot);
	t->slot = slot;
	t->nslot = n;
	return true;
}

uint32_t dws_add(struct dw_strtab *t, const char *s)
{
	size_t j, len = strlen(s) + 1;

	if (t->b.oom)
		return 0;
	if ((t->nused + 1) * 2 > t->nslot && !rehash(t)) {
		t->b.oom = true;
		return 0;
	}
	j = hash(s) & (t->nslot - 1);
	for (; t->slot[j]; j = (j + 1) & (t->nslot - 1))
		if (!strcmp((char *)t->b.p + t->slot[j] - 1, s))
			return t->slot[j] - 1;
	if (t->b.len + len > UINT32_MAX - 1) {
		t->b.oom = true;
		return 0;
	}
	t->slot[j] = (uint32_t)t->b.len + 1;
	t->nused++;
	dwb_bytes(&t->b, s, len);
	return t->slot[j] - 1;
}

void dws_free(struct dw_strtab *t)
{
	free(t->b.p);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

/* Each abbreviation: tag, children, then attribute and form pairs. */
#define AT(a, f) a, f
static const struct {
	unsigned short tag;
	unsigned char children;
	unsigned short at[12];
} abbrevs[A_COUNT] = {
	[A_CU_RANGES] = { DW_TAG_compile_unit,
			  1,
			  { AT(DW_AT_producer, DW_FORM_strp),
			    AT(DW_AT_language, DW_FORM_data2),
			    AT(DW_AT_name, DW_FORM_strp),
			    AT(DW_AT_low_pc, DW_FORM_addr),
			    AT(DW_AT_ranges, DW_FORM_sec_offset) } },
	[A_CU] = { DW_TAG_compile_unit,
		   1,
		   { AT(DW_AT_producer, DW_FORM_strp),
		     AT(DW_AT_language, DW_FORM_data2),
		     AT(DW_AT_name, DW_FORM_strp) } },
	[A_BASE] = { DW_TAG_base_type,
		     0,
		     { AT(DW_AT_name, DW_FORM_strp),
		       AT(DW_AT_byte_size, DW_FORM_udata),
		       AT(DW_AT_encoding, DW_FORM_data1) } },
	[A_PTR] = { DW_TAG_pointer_type,
		    0,
		    { AT(DW_AT_byte_size, DW_FORM_data1),
		      AT(DW_AT_type, DW_FORM_ref4) } },
	[A_PTR_VOID] = { DW_TAG_pointer_type,
			 0,
			 { AT(DW_AT_byte_size, DW_FORM_data1) } },
	[A_CONST] = { DW_TAG_const_type, 0, { AT(DW_AT_type, DW_FORM_ref4) } },
	[A_CONST_VOID] = { DW_TAG_const_type, 0, { 0 } },
	[A_VOLATILE] = { DW_TAG_volatile_type,
			 0,
			 { AT(DW_AT_type, DW_FORM_ref4) } },
	[A_VOLATILE_VOID] = { DW_TAG_volatile_type, 0, { 0 } },
	[A_RESTRICT] = { DW_TAG_restrict_type,
			 0,
			 { AT(DW_AT_type, DW_FORM_ref4) } },
	[A_RESTRICT_VOID] = { DW_TAG_restrict_type, 0, { 0 } },
	[A_TYPEDEF] = { DW_TAG_typedef,
			0,
			{ AT(DW_AT_name, DW_FORM_strp),
			  AT(DW_AT_type, DW_FORM_ref4) } },
	[A_TYPEDEF_VOID] = { DW_TAG_typedef,
			     0,
			     { AT(DW_AT_name, DW_FORM_strp) } },
	[A_STRUCT] = { DW_TAG_structure_type,
		       1,
		       { AT(DW_AT_name, DW_FORM_strp),
			 AT(DW_AT_byte_size, DW_FORM_udata) } },
	[A_STRUCT_ANON] = { DW_TAG_structure_type,
			    1,
			    { AT(DW_AT_byte_size, DW_FORM_udata) } },
	[A_STRUCT_DECL] = { DW_TAG_structure_type,
			    0,
			    { AT(DW_AT_name, DW_FORM_strp),
			      AT(DW_AT_declaration, DW_FORM_flag_present) } },
	[A_UNION] = { DW_TAG_union_type,
		      1,
		      { AT(DW_AT_name, DW_FORM_strp),
			AT(DW_AT_byte_size, DW_FORM_udata) } },
	[A_UNION_ANON] = { DW_TAG_union_type,
			   1,
			   { AT(DW_AT_byte_size, DW_FORM_udata) } },
	[A_UNION_DECL] = { DW_TAG_union_type,
			   0,
			   { AT(DW_AT_name, DW_FORM_strp),
			     AT(DW_AT_declaration, DW_FORM_flag_present) } },
	[A_MEMBER] = { DW_TAG_member,
		       0,
		       { AT(DW_AT_name, DW_FORM_strp),
			 AT(DW_AT_type, DW_FORM_ref4),
			 AT(DW_AT_data_member_location, DW_FORM_udata) } },
	[A_MEMBER_ANON] = { DW_TAG_member,
			    0,
			    { AT(DW_AT_type, DW_FORM_ref4),
			      AT(DW_AT_data_member_location, DW_FORM_udata) } },
	[A_MEMBER_BITS] = { DW_TAG_member,
			    0,
			    { AT(DW_AT_name, DW_FORM_strp),
			      AT(DW_AT_type, DW_FORM_ref4),
			      AT(DW_AT_bit_size, DW_FORM_udata),
			      AT(DW_AT_data_bit_offset, DW_FORM_udata) } },
	[A_MEMBER_BITS_ANON] = { DW_TAG_member,
				 0,
				 { AT(DW_AT_type, DW_FORM_ref4),
				   AT(DW_AT_bit_size, DW_FORM_udata),
				   AT(DW_AT_data_bit_offset, DW_FORM_udata) } },
	[A_ENUM] = { DW_TAG_enumeration_type,
		     1,
		     { AT(DW_AT_name, DW_FORM_strp),
		       AT(DW_AT_byte_size, DW_FORM_udata) } },
	[A_ENUM_ANON] = { DW_TAG_enumeration_type,
			  1,
			  { AT(DW_AT_byte_size, DW_FORM_udata) } },
	[A_ENUM_DECL] = { DW_TAG_enumeration_type,
			  0,
			  { AT(DW_AT_name, DW_FORM_strp),
			    AT(DW_AT_declaration, DW_FORM_flag_present) } },
	[A_ENUMERATOR_S] = { DW_TAG_enumerator,
			     0,
			     { AT(DW_AT_name, DW_FORM_strp),
			       AT(DW_AT_const_value, DW_FORM_sdata) } },
	[A_ENUMERATOR_U] = { DW_TAG_enumerator,
			     0,
			     { AT(DW_AT_name, DW_FORM_strp),
			       AT(DW_AT_const_value, DW_FORM_udata) } },
	[A_ARRAY] = { DW_TAG_array_type, 1, { AT(DW_AT_type, DW_FORM_ref4) } },
	[A_SUBRANGE] = { DW_TAG_subrange_type,
			 0,
			 { AT(DW_AT_type, DW_FORM_ref4),
			   AT(DW_AT_count, DW_FORM_udata) } },
	[A_SUBRANGE_FLEX] = { DW_TAG_subrange_type,
			      0,
			      { AT(DW_AT_type, DW_FORM_ref4) } },
	[A_SUBR] = { DW_TAG_subroutine_type,
		     1,
		     { AT(DW_AT_prototyped, DW_FORM_flag_present),
		       AT(DW_AT_type, DW_FORM_ref4) } },
	[A_SUBR_VOID] = { DW_TAG_subroutine_type,
			  1,
			  { AT(DW_AT_prototyped, DW_FORM_flag_present) } },
	[A_PARAM] = { DW_TAG_formal_parameter,
		      0,
		      { AT(DW_AT_type, DW_FORM_ref4) } },
	[A_PARAM_NAMED] = { DW_TAG_formal_parameter,
			    0,
			    { AT(DW_AT_name, DW_FORM_strp),
			      AT(DW_AT_type, DW_FORM_ref4) } },
	[A_UNSPEC_PARAMS] = { DW_TAG_unspecified_parameters, 0, { 0 } },
	[A_SUBPROG] = { DW_TAG_subprogram,
			1,
			{ AT(DW_AT_name, DW_FORM_strp),
			  AT(DW_AT_external, DW_FORM_flag_present),
			  AT(DW_AT_prototyped, DW_FORM_flag_present),
			  AT(DW_AT_type, DW_FORM_ref4),
			  AT(DW_AT_low_pc, DW_FORM_addr),
			  AT(DW_AT_high_pc, DW_FORM_udata) } },
	[A_SUBPROG_VOID] = { DW_TAG_subprogram,
			     1,
			     { AT(DW_AT_name, DW_FORM_strp),
			       AT(DW_AT_external, DW_FORM_flag_present),
			       AT(DW_AT_prototyped, DW_FORM_flag_present),
			       AT(DW_AT_low_pc, DW_FORM_addr),
			       AT(DW_AT_high_pc, DW_FORM_udata) } },
	[A_VAR] = { DW_TAG_variable,
		    0,
		    { AT(DW_AT_name, DW_FORM_strp),
		      AT(DW_AT_type, DW_FORM_ref4),
		      AT(DW_AT_external, DW_FORM_flag_present),
		      AT(DW_AT_location, DW_FORM_exprloc) } },
	[A_ANNOTATION] = { DW_TAG_LLVM_annotation,
			   0,
			   { AT(DW_AT_name, DW_FORM_strp),
			     AT(DW_AT_const_value, DW_FORM_strp) } },
};

void dw_abbrevs(struct dw_buf *b)
{
	for (unsigned int code = 1; code < A_COUNT; code++) {
		dwb_uleb(b, code);
		dwb_uleb(b, abbrevs[code].tag);
		dwb_u8(b, abbrevs[code].children);
		for (size_t i = 0; i < 12 && abbrevs[code].at[i]; i += 2) {
			dwb_uleb(b, abbrevs[code].at[i]);
			dwb_uleb(b, abbrevs[code].at[i + 1]);
		}
		dwb_u8(b, 0);
		dwb_u8(b, 0);
	}
	dwb_u8(b, 0);
}
