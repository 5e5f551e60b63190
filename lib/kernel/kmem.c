// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The module list in kernel memory, walked with the layouts from BTF into
 * the same struct ms_module a sysfs read gives: what sysfs shows is built
 * from these fields (kernel/module/sysfs.c: add_sect_attrs() and
 * add_notes_attrs(); /proc/kallsyms from module_get_kallsym()).
 *
 * Everything read here is untrusted: pointers may point anywhere, counts
 * may be huge, strings may not end, lists may loop.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kmem-int.h"

/* Section and note names: printable, no spaces, as sysfs file names. */
static int read_name(const struct kern *k, uint64_t addr, const char *what,
		     char **ret, struct ms_err *err)
{
	int r = ms_mem_read_string(k->mem, addr, KMEM_NAME_MAX, what, ret, err);

	if (!r && !**ret) {
		free(*ret);
		return ms_err_set(err, EBADMSG,
				  "%s at 0x%" PRIx64 " in %s is empty", what,
				  addr, k->origin);
	}
	return r;
}

/*
 * 6.14+: no nsections; grp.bin_attrs is the NULL-terminated array of
 * pointers to attrs[] that sysfs_create_group() uses.
 */
static int count_bin_attrs(const struct kern *k, const struct klayout *l,
			   const unsigned char *hdr, size_t *n,
			   struct ms_err *err)
{
	uint64_t p = kget_field(k, hdr, &l->sas_grp_bin_attrs);
	unsigned char buf[8];

	for (*n = 0; p; (*n)++, p += (unsigned int)k->ptr_size) {
		int r;

		if (*n > KMEM_MAX_SECTIONS)
			return ms_err_set(
				err, EBADMSG,
				"section attributes at 0x%" PRIx64
				" in %s: more than %d (corrupted memory?)",
				p, k->origin, KMEM_MAX_SECTIONS);
		r = ms_mem_read(k->mem, p, buf, (size_t)k->ptr_size,
				"section attribute list", err);
		if (r)
			return r;
		if (!kget(k, buf, 0, (size_t)k->ptr_size))
			break;
	}
	return 0;
}

static int read_sections(const struct kern *k, const struct klayout *l,
			 const unsigned char *mod, struct ms_module *m,
			 struct ms_err *err)
{
	uint64_t sas = kget_field(k, mod, &l->mod_sect_attrs);
	unsigned char *hdr = NULL, *attrs = NULL;
	size_t n = 0;
	int r;

	/* No sect_attrs: sysfs has no sections/ either (sysfs failed). */
	if (!sas)
		return 0;
	r = kern_read_array(k, sas, 1, l->sas_size, 1, "module_sect_attrs",
			    (void **)&hdr, err);
	if (!r && l->sas_nsections.found)
		n = kget_field(k, hdr, &l->sas_nsections);
	else if (!r)
		r = count_bin_attrs(k, l, hdr, &n, err);
	if (!r)
		r = kern_read_array(k, sas + l->sas_attrs.off, n, l->sa_size,
				    KMEM_MAX_SECTIONS,
				    "module section attributes",
				    (void **)&attrs, err);
	for (size_t i = 0; !r && i < n; i++) {
		const unsigned char *a = attrs + i * l->sa_size;
		uint64_t np = kget(k, a, l->sa_battr.off + l->ba_name.off,
				   l->ba_name.size);
		char *name;

		r = read_name(k, np, "section name", &name, err);
		if (r)
			break;
		r = ms_module_add_section(m, name,
					  kget_field(k, a, &l->sa_address), err);
		free(name);
	}
	free(hdr);
	free(attrs);
	return r;
}

static int read_build_id(const struct kern *k, const struct klayout *l,
			 const unsigned char *mod, struct ms_module *m,
			 struct ms_err *err)
{
	uint64_t nas = kget_field(k, mod, &l->mod_notes_attrs);
	unsigned char *hdr = NULL, *attrs = NULL;
	size_t n = 0;
	int r;

	if (!nas || !l->nas_size)
		return 0;
	r = kern_read_array(k, nas, 1, l->nas_size, 1, "module_notes_attrs",
			    (void **)&hdr, err);
	if (!r)
		n = kget_field(k, hdr, &l->nas_notes);
	if (!r)
		r = kern_read_array(k, nas + l->nas_attrs.off, n, l->ba_size,
				    KMEM_MAX_NOTES, "module note attributes",
				    (void **)&attrs, err);
	for (size_t i = 0; !r && i < n && !m->build_id; i++) {
		const unsigned char *a = attrs + i * l->ba_size;
		uint64_t len = kget_field(k, a, &l->ba_len);
		char *name;
		void *note;

		r = read_name(k, kget_field(k, a, &l->ba_name), "note name",
			      &name, err);
		if (r)
			break;
		/* sysfs: notes/.note.gnu.build-id, read in modsect's capture */
		if (!strcmp(name, ".note.gnu.build-id")) {
			r = kern_read_array(k, kget_field(k, a, &l->ba_private),
					    (size_t)len, 1, 4096,
					    "build-id note", &note, err);
			/* in the target's byte order, not this machine's */
			if (!r) {
				if (ms_notes_build_id(note, (size_t)len,
						      k->big_endian,
						      &m->build_id))
					r = ms_err_errno(err, ENOMEM,
							 "build-id of %s",
							 m->name);
				free(note);
			}
		}
		free(name);
	}
	free(hdr);
	free(attrs);
	return r;
}

static int check_modname(const struct kern *k, uint64_t at, const char *name,
			 struct ms_err *err)
{
	if (!*name)
		return ms_err_set(err, EBADMSG,
				  "module at 0x%" PRIx64 " in %s has no name",
				  at, k->origin);
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
			return ms_err_set(
				err, EBADMSG,
				"module at 0x%" PRIx64
				" in %s has a name that is no file name (%s)",
				at, k->origin, MS_ESC(name));
	return 0;
}

static int read_module(const struct kern *k, const struct klayout *l,
		       uint64_t at, const unsigned char *mod,
		       struct ms_module *m, struct ms_err *err)
{
	int64_t state = (int64_t)kget_field(k, mod, &l->mod_state);
	const char *st = state == l->st_live   ? "live" :
			 state == l->st_coming ? "coming" :
			 state == l->st_going  ? "going" :
						 NULL;
	uint64_t sv = kget_field(k, mod, &l->mod_srcversion);
	int r;

	m->name =
		strndup((const char *)mod + l->mod_name.off, l->mod_name.size);
	if (!m->name || (st && !(m->initstate = strdup(st))))
		return ms_err_errno(err, ENOMEM, "module");
	if (strlen(m->name) == l->mod_name.size)
		return ms_err_set(err, EBADMSG,
				  "module at 0x%" PRIx64
				  " in %s: name not NUL-terminated",
				  at, k->origin);
	r = check_modname(k, at, m->name, err);
	if (!r && sv)
		r = ms_mem_read_string(k->mem, sv, 128, "module srcversion",
				       &m->srcversion, err);
	if (!r && m->srcversion && !*m->srcversion) {
		free(m->srcversion); /* an empty one says nothing */
		m->srcversion = NULL;
	}
	for (const char *p = m->srcversion; !r && p && *p; p++)
		if (!isalnum((unsigned char)*p))
			r = ms_err_set(err, EBADMSG,
				       "srcversion at 0x%" PRIx64
				       " in %s is not alphanumeric (%s)",
				       sv, k->origin, MS_ESC(m->srcversion));
	if (!r)
		r = read_build_id(k, l, mod, m, err);
	if (!r)
		r = read_sections(k, l, mod, m, err);
	if (!r)
		r = kmem_read_ksyms(k, l, mod, m, err);
	if (r)
		ms_err_prefix(err, "module %s", m->name);
	return r;
}

static int add_module(struct ms_map *map, struct ms_module *m)
{
	if (ms_grow(&map->modules, map->nmodules, sizeof(*map->modules), 16))
		return -ENOMEM;
	map->modules[map->nmodules++] = *m;
	return 0;
}

/* Open addressing over node addresses: a loop in the list is an error. */
#define SEEN_SLOTS \
	((size_t)32768) /* a power of two over 2 * KMEM_MAX_MODULES */
struct seen {
	uint64_t *slot;
	size_t size;
};

static bool seen_add(struct seen *s, uint64_t a)
{
	size_t i = (size_t)((a >> 4) * 0x9e3779b97f4a7c15ull) & (s->size - 1);

	while (s->slot[i]) {
		if (s->slot[i] == a)
			return false;
		i = (i + 1) & (s->size - 1);
	}
	s->slot[i] = a;
	return true;
}

int kmem_read_modules(const struct kern *k, const struct klayout *l,
		      const char *only_module, struct ms_map *map,
		      struct ms_err *err)
{
	struct seen seen = { calloc(SEEN_SLOTS, sizeof(uint64_t)), SEEN_SLOTS };
	unsigned char *mod = malloc(l->mod_size);
	uint64_t head, node, prev = 0;
	size_t n = 0;
	int r;

	if (!seen.slot || !mod) {
		free(seen.slot);
		free(mod);
		return ms_err_errno(err, ENOMEM, "module list");
	}
	r = kern_sym(k, "modules", &head, err);
	if (r == -ENOENT)
		r = kdata_modules(k, l, &head, err);
	if (!r)
		r = ms_mem_read(k->mem, head + l->list_next.off, mod,
				(size_t)k->ptr_size, "the module list head",
				err);
	node = r ? 0 : kget(k, mod, 0, (size_t)k->ptr_size);
	while (!r && node != head) {
		struct ms_module m = { 0 };
		uint64_t at = node - l->mod_list.off;

		if (++n > KMEM_MAX_MODULES)
			r = ms_err_set(
				err, EBADMSG,
				"the module list in %s has more than %d entries (corrupted memory?)",
				k->origin, KMEM_MAX_MODULES);
		else if (!node)
			r = ms_err_set(
				err, EBADMSG,
				"the module list in %s ends in a NULL pointer after 0x%" PRIx64
				" (corrupted memory, or it changed while read)",
				k->origin, prev);
		else if (!seen_add(&seen, node))
			r = ms_err_set(
				err, EBADMSG,
				"the module list in %s loops at 0x%" PRIx64
				" (corrupted memory, or it changed while read)",
				k->origin, at);
		if (!r)
			r = ms_mem_read(k->mem, at, mod, l->mod_size,
					"struct module", err);
		if (r)
			break;
		prev = at;
		node = kget(k, mod, l->mod_list.off + l->list_next.off,
			    (size_t)k->ptr_size);
		/* Not in sysfs or kallsyms yet: like the kernel, skip it. */
		if ((int64_t)kget_field(k, mod, &l->mod_state) ==
		    l->st_unformed)
			continue;
		if (k->only_at && at != k->only_at)
			continue;
		if (only_module) {
			char name[256];

			snprintf(name, sizeof(name), "%.*s",
				 (int)l->mod_name.size,
				 (const char *)mod + l->mod_name.off);
			if (!ms_modname_eq(name, only_module))
				continue;
		}
		r = read_module(k, l, at, mod, &m, err);
		if (!r && add_module(map, &m))
			r = ms_err_errno(err, ENOMEM, "modules");
		if (r)
			ms_module_clear(&m);
	}
	if (!r && k->only_at && !map->nmodules)
		r = ms_err_set(
			err, ENOENT,
			"no module at 0x%" PRIx64
			" on the module list of %s (not loaded, or not formed yet)",
			k->only_at, k->origin);
	free(seen.slot);
	free(mod);
	return r;
}
