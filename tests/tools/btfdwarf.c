// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btfdwarf: the DWARF modsect makes from BTF, read back with libdw and
 * checked against the BTF it came from (tests/t-types.sh).
 *
 *   btfdwarf [--base BASE] BTF [OUT]
 *   btfdwarf --extract IMAGE OUT   the .BTF of a kernel image, raw
 *
 * BTF is a raw BTF file or an ELF file with .BTF (libbpf reads either);
 * BASE the base of split BTF (a module's). Every type DIE gets a
 * signature (tag, name, size; members' names, byte or bit offsets and
 * bit sizes; enumerators' values; what each refers to) and so does every
 * BTF type that must have one; the two sorted lists must be equal. Split
 * BTF's named structs, unions and enums of the base are declarations.
 * Prints "types: N dies: N funcs: N" then "checked: N mismatches: N",
 * each mismatch on a line; OUT gets an ELF with the DWARF. Exit 0 if all
 * agree, 1 if not, 2 on usage or error.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <gelf.h>

#include "modsect.h"

struct sigs {
	char **s;
	size_t n, cap;
};

static void add(struct sigs *v, char *s)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? v->cap * 2 : 1024;
		v->s = realloc(v->s, v->cap * sizeof(*v->s));
		if (!v->s)
			exit(2);
	}
	v->s[v->n++] = s;
}

/* Appends to a growing string. */
static void cat(char **s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void cat(char **s, const char *fmt, ...)
{
	char *t = NULL, *u = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&t, fmt, ap) < 0 ||
	    asprintf(&u, "%s%s", *s ? *s : "", t) < 0)
		exit(2);
	va_end(ap);
	free(t);
	free(*s);
	*s = u;
}

/* --- BTF side --- */

static const struct btf *B;
static uint32_t start_id;

static const char *bname(uint32_t off)
{
	const char *s = btf__name_by_offset(B, off);

	return s ? s : "";
}

static uint32_t skip(uint32_t id)
{
	for (int i = 0; id && i < 100; i++) {
		const struct btf_type *t = btf__type_by_id(B, id);

		if (!btf_is_type_tag(t))
			return id;
		id = t->type;
	}
	return id;
}

static bool decl_in_split(uint32_t id, const struct btf_type *t)
{
	return id < start_id &&
	       (btf_is_composite(t) || btf_is_any_enum(t) || btf_is_fwd(t)) &&
	       *bname(t->name_off);
}

/* What a reference names: enough to tell the DIE it must point to. */
static void bshallow(char **s, uint32_t id)
{
	const struct btf_type *t;

	id = skip(id);
	t = btf__type_by_id(B, id);
	if (!id) {
		cat(s, "void");
		return;
	}
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_FLOAT:
		cat(s, "base %s", bname(t->name_off));
		break;
	case BTF_KIND_PTR:
		cat(s, "ptr");
		break;
	case BTF_KIND_ARRAY:
		cat(s, "array %u", btf_array(t)->nelems);
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_FWD:
		cat(s, "%s %s",
		    btf_is_union(t) || (btf_is_fwd(t) && btf_kflag(t)) ?
			    "union" :
			    "struct",
		    bname(t->name_off));
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		cat(s, "enum %s", bname(t->name_off));
		break;
	case BTF_KIND_TYPEDEF:
		cat(s, "typedef %s", bname(t->name_off));
		break;
	case BTF_KIND_CONST:
		cat(s, "const");
		break;
	case BTF_KIND_VOLATILE:
		cat(s, "volatile");
		break;
	case BTF_KIND_RESTRICT:
		cat(s, "restrict");
		break;
	case BTF_KIND_FUNC_PROTO:
		cat(s, "proto %u", btf_vlen(t));
		break;
	default:
		cat(s, "?%u", btf_kind(t));
	}
}

static char *bsig(uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(B, id);
	char *s = NULL;

	bshallow(&s, id);
	if (decl_in_split(id, t) || btf_is_fwd(t) ||
	    (btf_is_any_enum(t) && !btf_vlen(t) && *bname(t->name_off))) {
		cat(&s, " decl");
		return s;
	}
	if (btf_is_composite(t)) {
		cat(&s, " size %u", t->size);
		for (uint32_t i = 0; i < btf_vlen(t); i++) {
			const struct btf_member *m = btf_members(t) + i;
			uint32_t bits = btf_member_bitfield_size(t, i);
			uint32_t off = btf_member_bit_offset(t, i);

			cat(&s, " {%s ", bname(m->name_off));
			if (bits || off % 8)
				cat(&s, "bit %u:%u ", off, bits);
			else
				cat(&s, "at %u ", off / 8);
			bshallow(&s, m->type);
			cat(&s, "}");
		}
	} else if (btf_is_any_enum(t)) {
		cat(&s, " size %u", t->size);
		for (uint32_t i = 0; i < btf_vlen(t); i++) {
			uint64_t v =
				btf_is_enum(t) ?
					(uint32_t)btf_enum(t)[i].val :
					btf_enum64_value(btf_enum64(t) + i);

			if (btf_kflag(t) && btf_is_enum(t))
				v = (uint64_t)(int64_t)(int32_t)v;
			cat(&s, " %s=%" PRIu64,
			    bname(btf_is_enum(t) ? btf_enum(t)[i].name_off :
						   btf_enum64(t)[i].name_off),
			    v);
		}
	} else if (btf_is_int(t) || btf_is_float(t)) {
		cat(&s, " size %u", t->size);
	} else if (btf_is_array(t)) {
		cat(&s, " of ");
		bshallow(&s, btf_array(t)->type);
	} else if (btf_is_func_proto(t)) {
		cat(&s, " returns ");
		bshallow(&s, t->type);
		for (uint32_t i = 0; i < btf_vlen(t); i++) {
			cat(&s, ", ");
			bshallow(&s, btf_params(t)[i].type);
		}
	} else {
		cat(&s, " to ");
		bshallow(&s, t->type);
	}
	return s;
}

static bool is_type(const struct btf_type *t)
{
	switch (btf_kind(t)) {
	case BTF_KIND_FUNC:
	case BTF_KIND_VAR:
	case BTF_KIND_DATASEC:
	case BTF_KIND_DECL_TAG:
	case BTF_KIND_TYPE_TAG:
		return false;
	}
	return true;
}

/* --- DWARF side --- */

static uint64_t udata(Dwarf_Die *d, int at)
{
	Dwarf_Attribute a;
	Dwarf_Word w = 0;

	if (dwarf_attr(d, at, &a))
		dwarf_formudata(&a, &w);
	return w;
}

static bool has(Dwarf_Die *d, int at)
{
	return dwarf_hasattr(d, at);
}

static bool child_count(Dwarf_Die *d, int tag, Dwarf_Die *out)
{
	Dwarf_Die c;

	if (dwarf_child(d, &c))
		return false;
	do {
		if (dwarf_tag(&c) == tag) {
			*out = c;
			return true;
		}
	} while (!dwarf_siblingof(&c, &c));
	return false;
}

static void dshallow(char **s, Dwarf_Die *d)
{
	const char *n = dwarf_diename(d) ? dwarf_diename(d) : "";
	Dwarf_Die c, sub;
	unsigned int k = 0;

	switch (dwarf_tag(d)) {
	case DW_TAG_base_type:
		cat(s, "base %s", n);
		break;
	case DW_TAG_pointer_type:
		cat(s, "ptr");
		break;
	case DW_TAG_array_type:
		cat(s, "array %" PRIu64,
		    child_count(d, DW_TAG_subrange_type, &sub) ?
			    udata(&sub, DW_AT_count) :
			    0);
		break;
	case DW_TAG_structure_type:
		cat(s, "struct %s", n);
		break;
	case DW_TAG_union_type:
		cat(s, "union %s", n);
		break;
	case DW_TAG_enumeration_type:
		cat(s, "enum %s", n);
		break;
	case DW_TAG_typedef:
		cat(s, "typedef %s", n);
		break;
	case DW_TAG_const_type:
		cat(s, "const");
		break;
	case DW_TAG_volatile_type:
		cat(s, "volatile");
		break;
	case DW_TAG_restrict_type:
		cat(s, "restrict");
		break;
	case DW_TAG_subroutine_type:
		if (!dwarf_child(d, &c))
			do
				k += dwarf_tag(&c) == DW_TAG_formal_parameter ||
				     dwarf_tag(&c) ==
					     DW_TAG_unspecified_parameters;
			while (!dwarf_siblingof(&c, &c));
		cat(s, "proto %u", k);
		break;
	default:
		cat(s, "?tag%#x", dwarf_tag(d));
	}
}

static void dref(char **s, Dwarf_Die *d)
{
	Dwarf_Attribute a;
	Dwarf_Die t;

	if (!dwarf_attr(d, DW_AT_type, &a))
		cat(s, "void");
	else if (!dwarf_formref_die(&a, &t))
		cat(s, "BADREF");
	else
		dshallow(s, &t);
}

static char *dsig(Dwarf_Die *d)
{
	int tag = dwarf_tag(d);
	char *s = NULL;
	Dwarf_Die c;

	dshallow(&s, d);
	if (has(d, DW_AT_declaration)) {
		cat(&s, " decl");
		return s;
	}
	if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	    tag == DW_TAG_enumeration_type || tag == DW_TAG_base_type)
		cat(&s, " size %" PRIu64, udata(d, DW_AT_byte_size));
	if (tag == DW_TAG_typedef || tag == DW_TAG_pointer_type ||
	    tag == DW_TAG_const_type || tag == DW_TAG_volatile_type ||
	    tag == DW_TAG_restrict_type) {
		cat(&s, " to ");
		dref(&s, d);
	}
	if (tag == DW_TAG_array_type) {
		cat(&s, " of ");
		dref(&s, d);
	}
	if (tag == DW_TAG_subroutine_type) {
		cat(&s, " returns ");
		dref(&s, d);
	}
	if (dwarf_child(d, &c))
		return s;
	do {
		int ct = dwarf_tag(&c);
		const char *n = dwarf_diename(&c) ? dwarf_diename(&c) : "";
		Dwarf_Attribute a;
		Dwarf_Sword sv;

		if (ct == DW_TAG_member) {
			cat(&s, " {%s ", n);
			if (has(&c, DW_AT_bit_size))
				cat(&s, "bit %" PRIu64 ":%" PRIu64 " ",
				    udata(&c, DW_AT_data_bit_offset),
				    udata(&c, DW_AT_bit_size));
			else
				cat(&s, "at %" PRIu64 " ",
				    udata(&c, DW_AT_data_member_location));
			dref(&s, &c);
			cat(&s, "}");
		} else if (ct == DW_TAG_enumerator) {
			dwarf_attr(&c, DW_AT_const_value, &a);
			if (dwarf_whatform(&a) == DW_FORM_sdata &&
			    !dwarf_formsdata(&a, &sv))
				cat(&s, " %s=%" PRIu64, n, (uint64_t)sv);
			else
				cat(&s, " %s=%" PRIu64, n,
				    udata(&c, DW_AT_const_value));
		} else if (ct == DW_TAG_formal_parameter) {
			cat(&s, ", ");
			dref(&s, &c);
		} else if (ct == DW_TAG_unspecified_parameters) {
			cat(&s, ", void");
		}
	} while (!dwarf_siblingof(&c, &c));
	return s;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int compare(struct sigs *bs, struct sigs *ds)
{
	size_t i = 0, j = 0, bad = 0;

	qsort(bs->s, bs->n, sizeof(char *), cmp);
	qsort(ds->s, ds->n, sizeof(char *), cmp);
	while (i < bs->n || j < ds->n) {
		int c = i == bs->n ? 1 :
			j == ds->n ? -1 :
				     strcmp(bs->s[i], ds->s[j]);

		if (!c) {
			i++, j++;
			continue;
		}
		if (++bad <= 20)
			printf("%s: %s\n",
			       c < 0 ? "only in BTF" : "only in DWARF",
			       c < 0 ? bs->s[i] : ds->s[j]);
		c < 0 ? i++ : j++;
	}
	printf("checked: %zu mismatches: %zu\n", bs->n, bad);
	return bad ? 1 : 0;
}

/* Split BTF: the base types the unit's own use, as the converter takes. */
static void closure(struct sigs *bs, uint32_t n)
{
	unsigned char *seen = calloc(n, 1);
	uint32_t *q = malloc(n * sizeof(*q)), nq = 0;

	if (!seen || !q)
		exit(2);
	for (uint32_t id = start_id; id < n; id++)
		if (is_type(btf__type_by_id(B, id)))
			q[nq++] = id;
	while (nq) {
		uint32_t id = q[--nq], refs[4096], nr = 0;
		const struct btf_type *t = btf__type_by_id(B, id);

		if (btf_is_composite(t))
			for (uint32_t i = 0; i < btf_vlen(t) && nr < 4096; i++)
				refs[nr++] = btf_members(t)[i].type;
		else if (btf_is_array(t))
			refs[nr++] = btf_array(t)->type;
		else if (btf_is_func_proto(t))
			for (uint32_t i = 0, k = (refs[nr++] = t->type, 0);
			     i < btf_vlen(t) && nr < 4096; i++, k++)
				refs[nr++] = btf_params(t)[i].type;
		else if (btf_is_ptr(t) || btf_is_typedef(t) || btf_is_mod(t))
			refs[nr++] = t->type;
		for (uint32_t i = 0; i < nr; i++) {
			uint32_t r = skip(refs[i]);

			if (!r || r >= start_id || seen[r])
				continue;
			seen[r] = 1;
			add(bs, bsig(r));
			if (!decl_in_split(r, btf__type_by_id(B, r)))
				q[nq++] = r;
		}
	}
	free(seen);
	free(q);
}

static int die_sigs(const char *buf, size_t len, struct sigs *ds,
		    size_t *nfuncs)
{
	Elf *elf = elf_memory((char *)buf, len);
	Dwarf *dw = elf ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (!dw)
		return -1;
	while (!dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL)) {
		Dwarf_Die cu, c;
		bool first = true;

		if (!dwarf_offdie(dw, off + hsize, &cu) || dwarf_child(&cu, &c))
			return -1;
		do {
			int tag = dwarf_tag(&c);

			if (first) { /* the arrays' index type */
				first = false;
				continue;
			}
			if (tag == DW_TAG_subprogram)
				++*nfuncs;
			else if (tag != DW_TAG_variable)
				add(ds, dsig(&c));
		} while (!dwarf_siblingof(&c, &c));
		off = next;
	}
	dwarf_end(dw);
	elf_end(elf);
	return 0;
}

int main(int argc, char **argv)
{
	struct btf *base = NULL, *btf;
	struct ms_types_in in = { 0 };
	struct ms_dwarf d;
	struct ms_err err = { 0 };
	struct sigs bs = { 0 }, ds = { 0 };
	const char *out = NULL;
	char *elf = NULL;
	size_t len, nf = 0;
	int i = 1;

	if (argc == 4 && !strcmp(argv[1], "--extract")) {
		struct ms_kimage *k;
		const void *b;
		FILE *f;

		if (ms_kimage_open(argv[2], &k, &err) ||
		    !(b = ms_kimage_btf(k, &len)))
			return fprintf(stderr, "btfdwarf: %s: no BTF\n",
				       argv[2]),
			       2;
		f = fopen(argv[3], "w");
		if (!f || fwrite(b, 1, len, f) != len || fclose(f))
			return fprintf(stderr, "btfdwarf: %s: cannot write\n",
				       argv[3]),
			       2;
		ms_kimage_free(k);
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "--base")) {
		base = btf__parse(argv[2], NULL);
		if (!base)
			return fprintf(stderr, "btfdwarf: %s: bad BTF\n",
				       argv[2]),
			       2;
		i = 3;
	}
	if (i >= argc)
		return fprintf(stderr,
			       "usage: btfdwarf [--base BASE] BTF [OUT]\n"),
		       2;
	out = i + 1 < argc ? argv[i + 1] : NULL;
	btf = base ? btf__parse_split(argv[i], base) :
		     btf__parse(argv[i], NULL);
	if (!btf)
		return fprintf(stderr, "btfdwarf: %s: bad BTF\n", argv[i]), 2;
	B = btf;
	start_id = base ? btf__type_cnt(base) : 1;
	in.btf = btf;
	in.base = base;
	in.char_signed = true;
	in.addr_size = btf__pointer_size(btf) ? (int)btf__pointer_size(btf) : 8;
	in.name = argv[i];
	if (ms_btf_to_dwarf(&in, &d, &err))
		return fprintf(stderr, "btfdwarf: %s\n", err.msg), 2;
	{
		struct ms_dbgsec secs[] = {
			{ ".debug_info", d.info, d.info_len },
			{ ".debug_abbrev", d.abbrev, d.abbrev_len },
			{ ".debug_str", d.str, d.str_len },
		};
		struct ms_dbgelf de = { EM_X86_64, ELFCLASS64, ELFDATA2LSB,
					secs, 3 };

		if (ms_debug_elf_bytes(&de, &elf, &len, &err))
			return fprintf(stderr, "btfdwarf: %s\n", err.msg), 2;
	}
	if (out) {
		FILE *f = fopen(out, "w");

		if (!f || fwrite(elf, 1, len, f) != len || fclose(f))
			return fprintf(stderr, "btfdwarf: %s: cannot write\n",
				       out),
			       2;
	}
	for (uint32_t id = start_id; id < btf__type_cnt(btf); id++)
		if (is_type(btf__type_by_id(btf, id)))
			add(&bs, bsig(id));
	if (base)
		closure(&bs, btf__type_cnt(btf));
	elf_version(EV_CURRENT);
	if (die_sigs(elf, len, &ds, &nf))
		return fprintf(stderr,
			       "btfdwarf: libdw cannot read the DWARF\n"),
		       2;
	printf("types: %zu dies: %zu funcs: %zu bytes: %zu\n", d.ntypes, ds.n,
	       nf, d.info_len + d.str_len);
	i = compare(&bs, &ds);
	for (size_t k = 0; k < bs.n; k++)
		free(bs.s[k]);
	for (size_t k = 0; k < ds.n; k++)
		free(ds.s[k]);
	free(bs.s);
	free(ds.s);
	free(elf);
	ms_dwarf_free(&d);
	btf__free(btf);
	btf__free(base);
	return i;
}
