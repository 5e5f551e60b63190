// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Struct layouts of the running kernel from its BTF (or, for a kernel
 * without BTF, from DWARF: kdwarf.c), never from hard-coded offsets: one
 * binary reads 6.1, 6.4+ (struct module_memory) and 6.14+
 * (module_sect_attrs without nsections).
 */
#include <errno.h>
#include <string.h>

#include <bpf/btf.h>

#include "kmem-int.h"

int kstruct_find(const struct btf *btf, const char *name,
		       const char *release, bool optional, struct kstruct *s,
		       struct ms_err *err)
{
	int id = btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT);
	long long size;

	*s = (struct kstruct){ btf, NULL, name, release, -1, 0, 0, -1 };
	if (id < 0) {
		if (optional)
			return 0;
		return ms_err_set(err, ENOENT,
				  "the kernel's BTF has no struct %s (kernel %s)",
				  name, release);
	}
	size = btf__resolve_size(btf, (unsigned int)id);
	if (size <= 0 || size > (1 << 20))
		return ms_err_set(err, EINVAL,
				  "struct %s in the kernel's BTF has a bad size (kernel %s)",
				  name, release);
	s->id = id;
	s->size = (size_t)size;
	return 0;
}

int kstruct_find_in(const struct ktypes *t, const char *name, bool optional,
		    struct kstruct *s, struct ms_err *err)
{
	if (!t->btf)
		return kdwarf_struct(t->dw, name, t->release, optional, s, err);
	return kstruct_find(t->btf, name, t->release, optional, s, err);
}

/*
 * Finds member name of the struct or union tid, looking into anonymous
 * members (unions in 6.14's attribute_group), and adds its byte offset.
 */
static bool find_member(const struct btf *btf, unsigned int tid,
			const char *name, size_t *off, unsigned int *type)
{
	const struct btf_type *t = btf__type_by_id(btf, tid);
	const struct btf_member *m;

	if (!t || !btf_is_composite(t))
		return false;
	m = btf_members(t);
	for (unsigned int i = 0; i < btf_vlen(t); i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);
		size_t bit = btf_member_bit_offset(t, i);
		size_t sub = 0;
		int rt;

		/* No field we read is a bitfield. */
		if (btf_member_bitfield_size(t, i) || bit % 8)
			continue;
		if (mn && !strcmp(mn, name)) {
			*off += bit / 8;
			*type = m->type;
			return true;
		}
		if (mn && *mn)
			continue;
		rt = btf__resolve_type(btf, m->type);
		if (rt > 0 && find_member(btf, (unsigned int)rt, name, &sub,
					  type)) {
			*off += bit / 8 + sub;
			return true;
		}
	}
	return false;
}

/* A member by dotted path ("battr.attr.name"). */
int kstruct_field(const struct kstruct *s, const char *path, bool optional,
		 struct kfield *f, struct ms_err *err)
{
	char buf[128], *part, *save = NULL;
	unsigned int tid = (unsigned int)s->id, type = 0;
	size_t off = 0;
	long long size;

	if (s->dw)
		return kdwarf_field(s, path, optional, f, err);
	*f = (struct kfield){ 0 };
	if (s->id < 0)
		goto missing;
	snprintf(buf, sizeof(buf), "%s", path);
	for (part = strtok_r(buf, ".", &save); part;
	     part = strtok_r(NULL, ".", &save)) {
		int rt = btf__resolve_type(s->btf, tid);

		if (rt < 0 || !find_member(s->btf, (unsigned int)rt, part, &off,
					   &type))
			goto missing;
		tid = type;
	}
	size = btf__resolve_size(s->btf, type);
	if (size < 0 || off + (size_t)size > s->size)
		return ms_err_set(err, EINVAL,
				  "struct %s field %s in the kernel's BTF is outside the struct (kernel %s)",
				  s->name, path, s->release);
	*f = (struct kfield){ off, (size_t)size, true };
	return 0;
missing:
	if (optional)
		return 0;
	return ms_err_set(err, ENOENT,
			  "struct %s has no field %s in the kernel's BTF (kernel %s)",
			  s->name, path, s->release);
}

static int enum_value(const struct ktypes *kt, const char *type,
		      const char *name, int64_t *ret, struct ms_err *err)
{
	const struct btf *btf = kt->btf;
	const char *release = kt->release;
	int id = btf ? btf__find_by_name_kind(btf, type, BTF_KIND_ENUM) : -1;
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	const struct btf_enum *e;

	if (!btf)
		return kdwarf_enum(kt->dw, type, name, release, ret, err);
	if (!t)
		return ms_err_set(err, ENOENT,
				  "the kernel's BTF has no enum %s (kernel %s)",
				  type, release);
	e = btf_enum(t);
	for (unsigned int i = 0; i < btf_vlen(t); i++, e++) {
		const char *n = btf__name_by_offset(btf, e->name_off);

		if (n && !strcmp(n, name)) {
			*ret = e->val;
			return 0;
		}
	}
	return ms_err_set(err, ENOENT,
			  "enum %s has no %s in the kernel's BTF (kernel %s)",
			  type, name, release);
}

static int module_fields(const struct ktypes *t, struct klayout *l,
			 struct ms_err *err)
{
	struct kstruct s, lh;
	int r = kstruct_find_in(t, "module", false, &s, err);

	if (!r)
		r = kstruct_find_in(t, "list_head", false, &lh, err);
	if (r)
		return r;
	l->mod_size = s.size;
	if (!(r = kstruct_field(&s, "state", false, &l->mod_state, err)) &&
	    !(r = kstruct_field(&s, "list", false, &l->mod_list, err)) &&
	    !(r = kstruct_field(&s, "name", false, &l->mod_name, err)) &&
	    !(r = kstruct_field(&s, "srcversion", true, &l->mod_srcversion, err)) &&
	    !(r = kstruct_field(&s, "kallsyms", true, &l->mod_kallsyms, err)) &&
	    !(r = kstruct_field(&s, "sect_attrs", false, &l->mod_sect_attrs, err)) &&
	    !(r = kstruct_field(&s, "notes_attrs", true, &l->mod_notes_attrs, err)) &&
	    !(r = kstruct_field(&s, "syms", true, &l->mod_syms, err)) &&
	    !(r = kstruct_field(&s, "num_syms", true, &l->mod_num_syms, err)))
		r = kstruct_field(&lh, "next", false, &l->list_next, err);
	if (r)
		return r;
	if (!(r = enum_value(t, "module_state", "MODULE_STATE_LIVE",
			     &l->st_live, err)) &&
	    !(r = enum_value(t, "module_state", "MODULE_STATE_COMING",
			     &l->st_coming, err)) &&
	    !(r = enum_value(t, "module_state", "MODULE_STATE_GOING",
			     &l->st_going, err)))
		r = enum_value(t, "module_state", "MODULE_STATE_UNFORMED",
			       &l->st_unformed, err);
	return r;
}

static int sect_fields(const struct ktypes *t, struct klayout *l,
		       struct ms_err *err)
{
	const char *rel = t->release;
	struct kstruct sas, sa, ba, nas;
	int r = kstruct_find_in(t, "module_sect_attrs", false, &sas, err);

	if (!r)
		r = kstruct_find_in(t, "bin_attribute", false, &ba, err);
	/*
	 * Before 6.14 each section is a struct module_sect_attr (battr,
	 * address) and module_sect_attrs counts them in nsections; since
	 * d8959b947a8d ("module: sysfs: Drop member
	 * 'module_sect_attr::address'") the array is of bin_attribute,
	 * the address in its private, the count the NULL-terminated
	 * grp.bin_attrs.
	 */
	if (!r)
		r = kstruct_find_in(t, "module_sect_attr", true, &sa, err);
	if (!r)
		r = kstruct_find_in(t, "module_notes_attrs", true, &nas, err);
	if (r)
		return r;
	l->sas_size = sas.size;
	l->ba_size = ba.size;
	if ((r = kstruct_field(&sas, "nsections", true, &l->sas_nsections, err)) ||
	    (r = kstruct_field(&sas, "attrs", false, &l->sas_attrs, err)) ||
	    (r = kstruct_field(&sas, "grp.bin_attrs", true, &l->sas_grp_bin_attrs,
		       err)) ||
	    (r = kstruct_field(&ba, "attr.name", false, &l->ba_name, err)) ||
	    (r = kstruct_field(&ba, "size", false, &l->ba_len, err)) ||
	    (r = kstruct_field(&ba, "private", false, &l->ba_private, err)))
		return r;
	if (sa.id >= 0 && l->sas_nsections.found) {
		l->sa_size = sa.size;
		if ((r = kstruct_field(&sa, "battr", false, &l->sa_battr, err)) ||
		    (r = kstruct_field(&sa, "address", false, &l->sa_address, err)))
			return r;
	} else {
		if (!l->sas_grp_bin_attrs.found)
			return ms_err_set(err, ENOENT,
					  "struct module_sect_attrs has neither nsections nor grp.bin_attrs in the kernel's BTF (kernel %s)",
					  rel);
		l->sa_size = ba.size;
		l->sa_battr = (struct kfield){ 0, ba.size, true };
		l->sa_address = l->ba_private;
	}
	/* Sub-structs are read inside the outer buffers: BTF must agree. */
	if (l->sa_battr.off + l->ba_size > l->sa_size ||
	    l->sas_attrs.off > l->sas_size)
		return ms_err_set(err, EINVAL,
				  "struct module_sect_attr does not hold its bin_attribute in the kernel's BTF (kernel %s)",
				  rel);
	if (nas.id >= 0) {
		l->nas_size = nas.size;
		if ((r = kstruct_field(&nas, "notes", false, &l->nas_notes, err)) ||
		    (r = kstruct_field(&nas, "attrs", false, &l->nas_attrs, err)))
			return r;
	}
	return 0;
}

static int sym_fields(const struct ktypes *t, struct klayout *l,
		      struct ms_err *err)
{
	struct kstruct mk, ks, uts;
	int r = kstruct_find_in(t, "mod_kallsyms", true, &mk, err);

	if (!r)
		r = kstruct_find_in(t, "kernel_symbol", true, &ks, err);
	/* A module's DWARF may lack it: the release is then the banner's. */
	if (!r)
		r = kstruct_find_in(t, "uts_namespace", !t->btf, &uts, err);
	if (r)
		return r;
	if ((r = kstruct_field(&uts, "name.release", !t->btf, &l->uts_release,
			       err)) ||
	    (r = kstruct_field(&uts, "name.machine", !t->btf, &l->uts_machine,
			       err)))
		return r;
	if (mk.id >= 0) {
		l->mk_size = mk.size;
		if ((r = kstruct_field(&mk, "symtab", false, &l->mk_symtab, err)) ||
		    (r = kstruct_field(&mk, "num_symtab", false, &l->mk_num_symtab,
			       err)) ||
		    (r = kstruct_field(&mk, "strtab", false, &l->mk_strtab, err)) ||
		    (r = kstruct_field(&mk, "typetab", false, &l->mk_typetab, err)))
			return r;
	}
	if (ks.id >= 0) {
		l->ks_size = ks.size;
		/*
		 * CONFIG_HAVE_ARCH_PREL32_RELOCATIONS (x86-64, arm64, ...)
		 * stores offsets from the field itself (7290d5809571).
		 */
		if ((r = kstruct_field(&ks, "value_offset", true, &l->ks_value, err)))
			return r;
		l->ks_prel32 = l->ks_value.found;
		if (l->ks_prel32)
			r = kstruct_field(&ks, "name_offset", false, &l->ks_name, err);
		else if (!(r = kstruct_field(&ks, "value", false, &l->ks_value, err)))
			r = kstruct_field(&ks, "name", false, &l->ks_name, err);
	}
	return r;
}

int klayout_read(const struct ktypes *t, struct klayout *l,
		 struct ms_err *err)
{
	struct ktypes kt = *t;
	int r;

	memset(l, 0, sizeof(*l));
	if (!kt.release)
		kt.release = "unknown";
	r = module_fields(&kt, l, err);
	if (!r)
		r = sect_fields(&kt, l, err);
	if (!r)
		r = sym_fields(&kt, l, err);
	return r;
}
