// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The fixed abbreviation table every compile unit btfdw.c writes uses;
 * the bytes, LEB128 and the string table are base/'s (bytes.c).
 */
#include <dwarf.h>

#include "types-int.h"

/* LLVM's tag for BTF's type and declaration tags (llvm/BinaryFormat/Dwarf.def). */
#ifndef DW_TAG_LLVM_annotation
#define DW_TAG_LLVM_annotation 0x6000
#endif

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

void dw_abbrevs(struct ms_bytes *b)
{
	for (unsigned int code = 1; code < A_COUNT; code++) {
		ms_bytes_uleb(b, code);
		ms_bytes_uleb(b, abbrevs[code].tag);
		ms_bytes_put8(b, abbrevs[code].children);
		for (size_t i = 0; i < 12 && abbrevs[code].at[i]; i += 2) {
			ms_bytes_uleb(b, abbrevs[code].at[i]);
			ms_bytes_uleb(b, abbrevs[code].at[i + 1]);
		}
		ms_bytes_put8(b, 0);
		ms_bytes_put8(b, 0);
	}
	ms_bytes_put8(b, 0);
}
