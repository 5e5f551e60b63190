// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One DIE per BTF type, as gcc writes it for the C the type stands for;
 * references as placeholders for btfdw.c to patch. Declaration tags on
 * whole types and functions become DW_TAG_LLVM_annotation children, as
 * clang writes them.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "btfdw-int.h"

static int cmp_tag(const void *a, const void *b, void *btf)
{
	uint32_t x = btf__type_by_id(btf, *(const uint32_t *)a)->type;
	uint32_t y = btf__type_by_id(btf, *(const uint32_t *)b)->type;

	return (x > y) - (x < y);
}

/* The unit's DECL_TAGs on whole types and functions, by target. */
int conv_index(struct conv *c, struct ms_err *err)
{
	if (c->base && !(c->queue = malloc(c->n * sizeof(*c->queue))))
		return ms_err_errno(err, ENOMEM, "%s: DWARF types",
				    c->in->name);
	for (uint32_t pass = 0; pass < 2; pass++) {
		size_t n = 0;

		for (uint32_t id = c->start; id < c->n; id++) {
			const struct btf_type *t = btf__type_by_id(c->btf, id);

			if (!btf_is_decl_tag(t) ||
			    btf_decl_tag(t)->component_idx != -1)
				continue;
			if (pass)
				c->tags[n] = id;
			n++;
		}
		if (!pass && n && !(c->tags = malloc(n * sizeof(*c->tags))))
			return ms_err_errno(err, ENOMEM, "%s: DWARF types",
					    c->in->name);
		c->ntags = n;
	}
	if (c->ntags)
		qsort_r(c->tags, c->ntags, sizeof(*c->tags), cmp_tag,
			(void *)c->btf);
	return 0;
}

void conv_decl_tags(struct conv *c, uint32_t id)
{
	size_t lo = 0, hi = c->ntags;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (btf__type_by_id(c->btf, c->tags[mid])->type < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < c->ntags; lo++) {
		const struct btf_type *t = btf__type_by_id(c->btf, c->tags[lo]);

		if (t->type != id)
			break;
		conv_annotation(c, "btf_decl_tag", t->name_off);
	}
}

void conv_need_base(struct conv *c, uint32_t id)
{
	if (!c->mark[id]) {
		c->mark[id] = 1;
		c->queue[c->nqueue++] = id;
	}
}

void conv_ref(struct conv *c, uint32_t id)
{
	if (c->nfix == c->capfix) {
		size_t cap = c->capfix ? c->capfix * 2 : 1 << 16;
		struct fixup *f = realloc(c->fix, cap * sizeof(*f));

		if (!f) {
			c->info.oom = true;
			return;
		}
		c->fix = f;
		c->capfix = cap;
	}
	c->fix[c->nfix++] = (struct fixup){ c->info.len, id };
	ms_bytes_uint(&c->info, 0, 4);
	if (c->base && id < c->start)
		conv_need_base(c, id);
}

void conv_strp(struct conv *c, const char *s)
{
	uint32_t off;

	/* A failure is kept in c->str.b.oom, which finish() checks. */
	ms_strtab_add(&c->str, s ? s : "", &off);
	ms_bytes_uint(&c->info, off, 4);
}

static void name(struct conv *c, uint32_t name_off)
{
	conv_strp(c, btf__name_by_offset(c->btf, name_off));
}

static bool named(const struct conv *c, uint32_t name_off)
{
	const char *s = btf__name_by_offset(c->btf, name_off);

	return s && *s;
}

uint32_t conv_skip_tags(const struct conv *c, uint32_t id)
{
	for (uint32_t i = 0; id && i < c->n; i++) {
		const struct btf_type *t = btf__type_by_id(c->btf, id);

		if (!t || !btf_is_type_tag(t))
			return id;
		id = t->type;
	}
	return 0;
}

static void base_type(struct conv *c, const struct btf_type *t)
{
	const char *s = btf__name_by_offset(c->btf, t->name_off);
	unsigned int ate = DW_ATE_float;

	if (btf_is_int(t)) {
		uint8_t enc = btf_int_encoding(t);
		bool sgn = enc & BTF_INT_SIGNED;

		/*
		 * Plain char's signedness is the ABI's, which BTF does not
		 * keep (pahole 1.25 on writes no BTF_INT_SIGNED for it).
		 */
		if (t->size == 1 && s && !strcmp(s, "char"))
			sgn = c->in->char_signed;
		if (enc & BTF_INT_BOOL)
			ate = DW_ATE_boolean;
		else if (t->size == 1 && s && strstr(s, "char"))
			ate = sgn ? DW_ATE_signed_char : DW_ATE_unsigned_char;
		else
			ate = sgn ? DW_ATE_signed : DW_ATE_unsigned;
	}
	ms_bytes_uleb(&c->info, A_BASE);
	name(c, t->name_off);
	ms_bytes_uleb(&c->info, t->size);
	ms_bytes_put8(&c->info, ate);
}

/* A DIE of abbrev a with an optional type: a + 1 is the void form. */
static void typed(struct conv *c, enum dw_abbrev a, uint32_t type)
{
	ms_bytes_uleb(&c->info, type ? a : a + 1);
}

static void pointer(struct conv *c, const struct btf_type *t)
{
	uint32_t type = conv_skip_tags(c, t->type);

	typed(c, A_PTR, type);
	ms_bytes_put8(&c->info, (unsigned int)c->in->addr_size);
	if (type)
		conv_ref(c, type);
}

static void qualifier(struct conv *c, const struct btf_type *t,
		      enum dw_abbrev a)
{
	uint32_t type = conv_skip_tags(c, t->type);

	typed(c, a, type);
	if (a == A_TYPEDEF)
		name(c, t->name_off);
	if (type)
		conv_ref(c, type);
}

static void array(struct conv *c, const struct btf_type *t)
{
	const struct btf_array *a = btf_array(t);

	ms_bytes_uleb(&c->info, A_ARRAY);
	conv_ref(c, conv_skip_tags(c, a->type));
	/* A count of 0 is C's flexible array, as BTF cannot tell [0]. */
	ms_bytes_uleb(&c->info, a->nelems ? A_SUBRANGE : A_SUBRANGE_FLEX);
	ms_bytes_uint(&c->info, c->index_type, 4);
	if (a->nelems)
		ms_bytes_uleb(&c->info, a->nelems);
	ms_bytes_put8(&c->info, 0);
}

/* The bit size of a member: BTF says it with kind_flag, or in an int. */
static uint32_t member_bits(const struct conv *c, const struct btf_type *t,
			    uint32_t i)
{
	const struct btf_type *mt;
	uint32_t bits = btf_member_bitfield_size(t, i);

	if (bits || btf_kflag(t))
		return bits;
	mt = btf__type_by_id(c->btf, conv_skip_tags(c, btf_members(t)[i].type));
	if (mt && btf_is_int(mt) && btf_int_bits(mt) != mt->size * 8)
		return btf_int_bits(mt);
	return 0;
}

static void composite(struct conv *c, uint32_t id, const struct btf_type *t)
{
	bool un = btf_is_union(t), nm = named(c, t->name_off);
	const struct btf_member *m = btf_members(t);

	ms_bytes_uleb(&c->info, un ? (nm ? A_UNION : A_UNION_ANON) :
				     (nm ? A_STRUCT : A_STRUCT_ANON));
	if (nm)
		name(c, t->name_off);
	ms_bytes_uleb(&c->info, t->size);
	for (uint32_t i = 0; i < btf_vlen(t); i++, m++) {
		uint32_t bits = member_bits(c, t, i);
		uint32_t off = btf_member_bit_offset(t, i);
		bool mn = named(c, m->name_off), bf = bits || off % 8;

		ms_bytes_uleb(&c->info,
			      bf ? (mn ? A_MEMBER_BITS : A_MEMBER_BITS_ANON) :
				   (mn ? A_MEMBER : A_MEMBER_ANON));
		if (mn)
			name(c, m->name_off);
		conv_ref(c, conv_skip_tags(c, m->type));
		if (bf) {
			ms_bytes_uleb(&c->info, bits);
			ms_bytes_uleb(&c->info, off);
		} else {
			ms_bytes_uleb(&c->info, off / 8);
		}
	}
	conv_decl_tags(c, id);
	ms_bytes_put8(&c->info, 0);
}

static void enumeration(struct conv *c, const struct btf_type *t)
{
	bool nm = named(c, t->name_off), sgn = btf_kflag(t);

	ms_bytes_uleb(&c->info, nm ? A_ENUM : A_ENUM_ANON);
	if (nm)
		name(c, t->name_off);
	ms_bytes_uleb(&c->info, t->size);
	for (uint32_t i = 0; i < btf_vlen(t); i++) {
		uint64_t v;
		uint32_t n;

		if (btf_is_enum(t)) {
			n = btf_enum(t)[i].name_off;
			v = (uint32_t)btf_enum(t)[i].val;
			if (sgn)
				v = (uint64_t)(int64_t)(int32_t)v;
		} else {
			n = btf_enum64(t)[i].name_off;
			v = btf_enum64_value(btf_enum64(t) + i);
		}
		ms_bytes_uleb(&c->info, sgn ? A_ENUMERATOR_S : A_ENUMERATOR_U);
		name(c, n);
		if (sgn)
			ms_bytes_sleb(&c->info, (int64_t)v);
		else
			ms_bytes_uleb(&c->info, v);
	}
	ms_bytes_put8(&c->info, 0);
}

/* A declaration: the debugger finds the definition by name. */
static void declaration(struct conv *c, const struct btf_type *t)
{
	enum dw_abbrev a = A_STRUCT_DECL;

	if (btf_is_union(t) || (btf_is_fwd(t) && btf_kflag(t)))
		a = A_UNION_DECL;
	else if (btf_is_any_enum(t))
		a = A_ENUM_DECL;
	ms_bytes_uleb(&c->info, a);
	name(c, t->name_off);
}

/* Parameters: named (a function's) or not (a pointer's prototype). */
void conv_params(struct conv *c, const struct btf_type *proto, bool names)
{
	const struct btf_param *p = btf_params(proto);

	for (uint32_t i = 0; i < btf_vlen(proto); i++, p++) {
		uint32_t type = conv_skip_tags(c, p->type);

		if (!type) { /* "...": BTF's last parameter of type void */
			ms_bytes_uleb(&c->info, A_UNSPEC_PARAMS);
			continue;
		}
		if (names && named(c, p->name_off)) {
			ms_bytes_uleb(&c->info, A_PARAM_NAMED);
			name(c, p->name_off);
		} else {
			ms_bytes_uleb(&c->info, A_PARAM);
		}
		conv_ref(c, type);
	}
}

static void proto(struct conv *c, const struct btf_type *t)
{
	uint32_t type = conv_skip_tags(c, t->type);

	typed(c, A_SUBR, type);
	if (type)
		conv_ref(c, type);
	conv_params(c, t, false);
	ms_bytes_put8(&c->info, 0);
}

/* One type's DIE, or none for what is not a type (FUNC, VAR, ...). */
void conv_type(struct conv *c, uint32_t id, bool decl)
{
	const struct btf_type *t = btf__type_by_id(c->btf, id);

	if (!t)
		return;
	if (decl || btf_is_fwd(t) ||
	    (btf_is_any_enum(t) && !btf_vlen(t) && named(c, t->name_off))) {
		c->off[id] = (uint32_t)c->info.len;
		declaration(c, t);
		c->out->ntypes++;
		return;
	}
	/* Not types: btfsym.c writes them, or references look through. */
	switch (btf_kind(t)) {
	case BTF_KIND_FUNC:
	case BTF_KIND_VAR:
	case BTF_KIND_DATASEC:
	case BTF_KIND_DECL_TAG:
	case BTF_KIND_TYPE_TAG:
		return;
	}
	c->off[id] = (uint32_t)c->info.len;
	c->out->ntypes++;
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_FLOAT:
		base_type(c, t);
		break;
	case BTF_KIND_PTR:
		pointer(c, t);
		break;
	case BTF_KIND_ARRAY:
		array(c, t);
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		composite(c, id, t);
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		enumeration(c, t);
		break;
	case BTF_KIND_TYPEDEF:
		qualifier(c, t, A_TYPEDEF);
		break;
	case BTF_KIND_VOLATILE:
		qualifier(c, t, A_VOLATILE);
		break;
	case BTF_KIND_CONST:
		qualifier(c, t, A_CONST);
		break;
	case BTF_KIND_RESTRICT:
		qualifier(c, t, A_RESTRICT);
		break;
	default:
		proto(c, t);
	}
}

void conv_annotation(struct conv *c, const char *what, uint32_t value_off)
{
	ms_bytes_uleb(&c->info, A_ANNOTATION);
	conv_strp(c, what);
	name(c, value_off);
}
