/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The converter's state, shared by btfdw.c (types) and btfsym.c. */
#ifndef MODSECT_BTFDW_INT_H
#define MODSECT_BTFDW_INT_H

#include "types-int.h"

struct fixup {
	size_t pos; /* in info: a ref4 to write */
	uint32_t id; /* the BTF type it refers to */
};

struct range {
	uint64_t lo, hi;
};

struct conv {
	const struct ms_types_in *in;
	const struct btf *btf, *base;
	uint32_t n, start; /* type count; first id of the unit's own types */
	uint32_t *off; /* DIE offset of each id in the unit, 0 if none */
	unsigned char *mark; /* split: base ids already queued */
	uint32_t *queue; /* split: base ids to write */
	size_t nqueue;
	struct ms_bytes info, abbrev, ranges;
	struct ms_strtab str;
	struct fixup *fix;
	size_t nfix, capfix;
	uint32_t index_type; /* offset of the arrays' index type */
	uint32_t *tags; /* DECL_TAG ids by target, for conv_decl_tags */
	size_t ntags;
	struct range *rng;
	size_t nrng;
	struct ms_dwarf *out;
};

/* A DW_FORM_strp attribute: s in .debug_str ("" for NULL). */
void conv_strp(struct conv *c, const char *s);
void conv_ref(struct conv *c, uint32_t id);
uint32_t conv_skip_tags(const struct conv *c, uint32_t id);
void conv_type(struct conv *c, uint32_t id, bool decl);
void conv_params(struct conv *c, const struct btf_type *proto, bool names);
void conv_annotation(struct conv *c, const char *what, uint32_t value_off);

/* btfsym.c */
int conv_index(struct conv *c, struct ms_err *err);
void conv_decl_tags(struct conv *c, uint32_t id);
void conv_need_base(struct conv *c, uint32_t id);
void conv_base(struct conv *c);
void conv_functions(struct conv *c);
void conv_variables(struct conv *c);
void conv_free(struct conv *c);

#endif
