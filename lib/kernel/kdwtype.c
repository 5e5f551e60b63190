// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Struct layouts from DWARF (see kdwarf.c for the file they come from):
 * a struct's size and its members' offsets, into anonymous members too,
 * and an enum's values. The structs kernel/module/sysfs.c keeps to
 * itself (module_sect_attr, module_sect_attrs, module_notes_attrs) are in
 * no header, so a module's DWARF lacks them: they are laid out here from
 * their members' DWARF types by C's rules, as that file declares them
 * (6.1 to 6.13, and since d8959b947a8d, 6.14, without module_sect_attr).
 * A vmlinux's own definitions win.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

#include "kmem-int.h"

#define KDW_MAX_DEPTH 8

/* ---- kernel/module/sysfs.c's own structs ---- */

enum { CM_NONE, CM_UINT, CM_ULONG, CM_PTR, CM_STRUCT, CM_FLEX };
struct cmember {
	const char *name;
	int kind;
	const char *type; /* CM_STRUCT, CM_FLEX: the struct */
};
struct comp {
	const char *name;
	int v614; /* 0: before 6.14, 1: since, 2: both */
	struct cmember m[4];
};

static const struct comp comps[] = {
	{ "module_sect_attr",
	  0,
	  { { "battr", CM_STRUCT, "bin_attribute" },
	    { "address", CM_ULONG, NULL } } },
	{ "module_sect_attrs",
	  0,
	  { { "grp", CM_STRUCT, "attribute_group" },
	    { "nsections", CM_UINT, NULL },
	    { "attrs", CM_FLEX, "module_sect_attr" } } },
	{ "module_sect_attrs",
	  1,
	  { { "grp", CM_STRUCT, "attribute_group" },
	    { "attrs", CM_FLEX, "bin_attribute" } } },
	{ "module_notes_attrs",
	  2,
	  { { "dir", CM_PTR, NULL },
	    { "notes", CM_UINT, NULL },
	    { "attrs", CM_FLEX, "bin_attribute" } } },
};

/* ---- types ---- */

/* The first definition of a top-level type tag name: 0, or -ENOENT. */
static int find_type(struct kdwarf *d, int tag, const char *name,
		     Dwarf_Die *ret)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, c;
	uint8_t type;

	while (!dwarf_get_units(d->dw, cu, &cu, NULL, &type, &cudie, NULL)) {
		if (dwarf_child(&cudie, &c))
			continue;
		do {
			const char *n;

			if (dwarf_tag(&c) != tag ||
			    dwarf_hasattr(&c, DW_AT_declaration))
				continue;
			n = dwarf_diename(&c);
			if (n && !strcmp(n, name)) {
				*ret = c;
				return 0;
			}
		} while (!dwarf_siblingof(&c, &c));
	}
	return -ENOENT;
}

static bool type_of(Dwarf_Die *die, Dwarf_Die *ret)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, DW_AT_type, &a) &&
	       dwarf_formref_die(&a, ret) && !dwarf_peel_type(ret, ret);
}

/* Size of a type; 0 for a flexible array (no bound). */
static size_t type_size(Dwarf_Die *t)
{
	Dwarf_Word size;

	return dwarf_aggregate_size(t, &size) ? 0 : (size_t)size;
}

/* C's alignment of a type, from its members where DWARF has none. */
static size_t type_align(const struct kdwarf *d, Dwarf_Die *t, int depth)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	Dwarf_Die c, mt;
	size_t al = 1, s;

	if (dwarf_peel_type(t, t))
		return (size_t)d->ptr_size;
	if (dwarf_attr(t, DW_AT_alignment, &a) && !dwarf_formudata(&a, &w))
		return (size_t)w;
	switch (dwarf_tag(t)) {
	case DW_TAG_pointer_type:
		return (size_t)d->ptr_size;
	case DW_TAG_array_type:
		return type_of(t, &mt) && depth < KDW_MAX_DEPTH ?
			       type_align(d, &mt, depth + 1) :
			       1;
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
		if (depth >= KDW_MAX_DEPTH || dwarf_child(t, &c))
			return 1;
		do {
			if (dwarf_tag(&c) == DW_TAG_member &&
			    type_of(&c, &mt) &&
			    (s = type_align(d, &mt, depth + 1)) > al)
				al = s;
		} while (!dwarf_siblingof(&c, &c));
		return al;
	default:
		s = type_size(t);
		return !s			? 1 :
		       s > (size_t)d->max_align ? (size_t)d->max_align :
						  s;
	}
}

/* DW_AT_data_member_location: a constant, or DW_OP_plus_uconst. */
static bool member_offset(Dwarf_Die *m, size_t *off)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	Dwarf_Op *ops;
	size_t n;

	if (!dwarf_attr(m, DW_AT_data_member_location, &a)) {
		*off = 0; /* a union's members */
		return true;
	}
	if (!dwarf_formudata(&a, &w)) {
		*off = (size_t)w;
		return true;
	}
	if (!dwarf_getlocation(&a, &ops, &n) && n == 1 &&
	    ops[0].atom == DW_OP_plus_uconst) {
		*off = (size_t)ops[0].number;
		return true;
	}
	return false;
}

/* Member name of struct or union t, into anonymous members too. */
static bool find_member(Dwarf_Die *t, const char *name, size_t *off,
			Dwarf_Die *mt, int depth)
{
	Dwarf_Die c, sub;

	if (depth > KDW_MAX_DEPTH || dwarf_child(t, &c))
		return false;
	do {
		const char *n = dwarf_diename(&c);
		size_t o, inner = 0;

		/* No field modsect reads is a bitfield. */
		if (dwarf_tag(&c) != DW_TAG_member ||
		    dwarf_hasattr(&c, DW_AT_bit_size) ||
		    !member_offset(&c, &o) || !type_of(&c, &sub))
			continue;
		if (n && !strcmp(n, name)) {
			*off += o;
			*mt = sub;
			return true;
		}
		if (!n && find_member(&sub, name, &inner, mt, depth + 1)) {
			*off += o + inner;
			return true;
		}
	} while (!dwarf_siblingof(&c, &c));
	return false;
}

static int comp_find(const struct kdwarf *d, const char *name)
{
	for (size_t i = 0; i < sizeof(comps) / sizeof(comps[0]); i++)
		if (!strcmp(comps[i].name, name) &&
		    (comps[i].v614 == 2 || comps[i].v614 == d->v614))
			return (int)i;
	return -1;
}

/*
 * Offsets of comps[ci]'s members (off[]), its size and alignment; each
 * struct member's from kdwarf_struct (DWARF, or another of comps[]).
 */
static int comp_layout(struct kdwarf *d, int ci, const char *rel, size_t off[4],
		       size_t *size, size_t *align, struct ms_err *err)
{
	const struct comp *c = &comps[ci];
	size_t at = 0, al = 1;

	for (int i = 0; i < 4 && c->m[i].name; i++) {
		size_t ms = (size_t)d->ptr_size, ma = ms;
		struct kstruct sub;
		Dwarf_Die t;
		int r;

		if (c->m[i].kind == CM_UINT)
			ms = ma = 4;
		if (c->m[i].type) {
			r = kdwarf_struct(d, c->m[i].type, rel, false, &sub,
					  err);
			if (r)
				return r;
			ms = sub.size;
			if (sub.comp >= 0)
				r = comp_layout(d, sub.comp, rel,
						(size_t[4]){ 0 }, &ms, &ma,
						err);
			else if (dwarf_offdie(d->dw, sub.die, &t))
				ma = type_align(d, &t, 0);
			if (r)
				return r;
		}
		at = (at + ma - 1) / ma * ma;
		off[i] = at;
		if (c->m[i].kind != CM_FLEX)
			at += ms;
		if (ma > al)
			al = ma;
	}
	*size = (at + al - 1) / al * al;
	*align = al;
	return 0;
}

int kdwarf_struct(struct kdwarf *d, const char *name, const char *release,
		  bool optional, struct kstruct *s, struct ms_err *err)
{
	Dwarf_Die die;
	size_t off[4], align;

	*s = (struct kstruct){ NULL, d, name, release, -1, 0, 0, -1 };
	if (!find_type(d, DW_TAG_structure_type, name, &die)) {
		s->size = type_size(&die);
		s->die = dwarf_dieoffset(&die);
	} else if ((s->comp = comp_find(d, name)) >= 0) {
		int r = comp_layout(d, s->comp, release, off, &s->size, &align,
				    err);

		if (r)
			return r;
	} else if (optional) {
		return 0;
	} else if (!strcmp(name, "module")) {
		return ms_err_set(
			err, ENOENT,
			"%s has no DWARF of struct module (kernel %s): give a module built with debug info for this kernel (--search DIR; CONFIG_DEBUG_INFO, or Kbuild's -g), or its debug vmlinux (--kernel-image)",
			d->path, release);
	} else {
		return ms_err_set(
			err, ENOENT,
			"the DWARF of %s has no struct %s (kernel %s)", d->path,
			name, release);
	}
	if (!s->size || s->size > (1u << 20))
		return ms_err_set(
			err, EINVAL,
			"struct %s in the DWARF of %s has a bad size (kernel %s)",
			name, d->path, release);
	s->id = 0;
	return 0;
}

/* A member of a struct of comps[] (path's first part), then DWARF. */
static int comp_field(const struct kstruct *s, const char *path, bool optional,
		      struct kfield *f, struct ms_err *err)
{
	const struct comp *c = &comps[s->comp];
	size_t len = strcspn(path, "."), off[4], size, align;
	int r = comp_layout(s->dw, s->comp, s->release, off, &size, &align,
			    err);

	for (int i = 0; !r && i < 4 && c->m[i].name; i++) {
		struct kstruct sub;

		if (strlen(c->m[i].name) != len ||
		    memcmp(c->m[i].name, path, len))
			continue;
		if (!path[len]) {
			size = c->m[i].kind == CM_UINT ? 4 :
			       c->m[i].kind == CM_FLEX ? 0 :
			       c->m[i].type	       ? 0 :
							 (size_t)s->dw->ptr_size;
			if (c->m[i].kind == CM_STRUCT) {
				r = kdwarf_struct(s->dw, c->m[i].type,
						  s->release, false, &sub, err);
				size = sub.size;
			}
			*f = (struct kfield){ off[i], size, true };
			return r;
		}
		if (c->m[i].kind != CM_STRUCT)
			break;
		r = kdwarf_struct(s->dw, c->m[i].type, s->release, false, &sub,
				  err);
		if (!r)
			r = kdwarf_field(&sub, path + len + 1, optional, f,
					 err);
		if (!r && f->found)
			f->off += off[i];
		return r;
	}
	if (r || optional)
		return r;
	return ms_err_set(
		err, ENOENT,
		"struct %s has no field %s (kernel/module/sysfs.c, kernel %s)",
		s->name, path, s->release);
}

int kdwarf_field(const struct kstruct *s, const char *path, bool optional,
		 struct kfield *f, struct ms_err *err)
{
	char buf[128], *part, *save = NULL;
	Dwarf_Die t;
	size_t off = 0, size;

	*f = (struct kfield){ 0 };
	if (s->id < 0)
		goto missing;
	if (s->comp >= 0)
		return comp_field(s, path, optional, f, err);
	if (!dwarf_offdie(s->dw->dw, s->die, &t))
		goto missing;
	snprintf(buf, sizeof(buf), "%s", path);
	for (part = strtok_r(buf, ".", &save); part;
	     part = strtok_r(NULL, ".", &save))
		if (!find_member(&t, part, &off, &t, 0))
			goto missing;
	size = type_size(&t);
	if (off + size > s->size)
		return ms_err_set(
			err, EINVAL,
			"struct %s field %s in the DWARF of %s is outside the struct (kernel %s)",
			s->name, path, s->dw->path, s->release);
	*f = (struct kfield){ off, size, true };
	return 0;
missing:
	if (optional)
		return 0;
	return ms_err_set(
		err, ENOENT,
		"struct %s has no field %s in the DWARF of %s (kernel %s)",
		s->name, path, s->dw->path, s->release);
}

int kdwarf_enum(struct kdwarf *d, const char *type, const char *name,
		const char *release, int64_t *ret, struct ms_err *err)
{
	Dwarf_Die e, c;

	if (find_type(d, DW_TAG_enumeration_type, type, &e))
		return ms_err_set(err, ENOENT,
				  "the DWARF of %s has no enum %s (kernel %s)",
				  d->path, type, release);
	if (!dwarf_child(&e, &c))
		do {
			const char *n = dwarf_diename(&c);
			Dwarf_Attribute a;
			Dwarf_Sword v;

			if (n && !strcmp(n, name) &&
			    dwarf_attr(&c, DW_AT_const_value, &a) &&
			    !dwarf_formsdata(&a, &v)) {
				*ret = v;
				return 0;
			}
		} while (!dwarf_siblingof(&c, &c));
	return ms_err_set(err, ENOENT,
			  "enum %s has no %s in the DWARF of %s (kernel %s)",
			  type, name, d->path, release);
}
