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

uint64_t kget(const struct kern *k, const void *buf, size_t off, size_t size)
{
	const unsigned char *p = (const unsigned char *)buf + off;
	uint64_t v = 0;

	if (size > 8)
		size = 8;
	for (size_t i = 0; i < size; i++)
		v |= (uint64_t)p[k->big_endian ? size - 1 - i : i] << (8 * i);
	return v;
}

/* Reads n elements of size each at addr, refusing absurd counts. */
static int read_array(const struct kern *k, uint64_t addr, size_t n,
		      size_t size, size_t max, const char *what, void **ret,
		      struct ms_err *err)
{
	void *buf;
	int r;

	if (n > max)
		return ms_err_set(err, EBADMSG,
				  "%s at 0x%" PRIx64 " in %s: %zu entries, more than %zu (corrupted memory?)",
				  what, addr, k->origin, n, max);
	buf = malloc(n * size + 1);
	if (!buf)
		return ms_err_errno(err, ENOMEM, "reading %s", what);
	r = ms_mem_read(k->mem, addr, buf, n * size, what, err);
	if (r) {
		free(buf);
		return r;
	}
	*ret = buf;
	return 0;
}

/* Section and note names: printable, no spaces, as sysfs file names. */
static int read_name(const struct kern *k, uint64_t addr, const char *what,
		     char **ret, struct ms_err *err)
{
	int r = ms_mem_read_string(k->mem, addr, KMEM_NAME_MAX, what, ret,
				   err);

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
			return ms_err_set(err, EBADMSG,
					  "section attributes at 0x%" PRIx64 " in %s: more than %d (corrupted memory?)",
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
	r = read_array(k, sas, 1, l->sas_size, 1, "module_sect_attrs",
		       (void **)&hdr, err);
	if (!r && l->sas_nsections.found)
		n = kget_field(k, hdr, &l->sas_nsections);
	else if (!r)
		r = count_bin_attrs(k, l, hdr, &n, err);
	if (!r)
		r = read_array(k, sas + l->sas_attrs.off, n, l->sa_size,
			       KMEM_MAX_SECTIONS, "module section attributes",
			       (void **)&attrs, err);
	for (size_t i = 0; !r && i < n; i++) {
		const unsigned char *a = attrs + i * l->sa_size;
		uint64_t np = kget(k, a, l->sa_battr.off + l->ba_name.off,
				   l->ba_name.size);
		char *name;

		r = read_name(k, np, "section name", &name, err);
		if (r)
			break;
		if (ms_module_add_section(m, name,
					  kget_field(k, a, &l->sa_address)))
			r = ms_err_errno(err, ENOMEM, "sections");
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
	r = read_array(k, nas, 1, l->nas_size, 1, "module_notes_attrs",
		       (void **)&hdr, err);
	if (!r)
		n = kget_field(k, hdr, &l->nas_notes);
	if (!r)
		r = read_array(k, nas + l->nas_attrs.off, n, l->ba_size,
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
			r = read_array(k, kget_field(k, a, &l->ba_private),
				       (size_t)len, 1, 4096, "build-id note",
				       &note, err);
			if (!r) {
				m->build_id = ms_notes_build_id(note, (size_t)len);
				free(note);
			}
		}
		free(name);
	}
	free(hdr);
	free(attrs);
	return r;
}

/* An exported symbol: the address its __ksymtab entry gives, and name. */
struct kexp {
	uint64_t value, name_addr;
	char *name;
};

static int cmp_kexp(const void *a, const void *b)
{
	const struct kexp *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void kexp_free(struct kexp *e, size_t n)
{
	for (size_t i = 0; e && i < n; i++)
		free(e[i].name);
	free(e);
}

/*
 * mod->syms: what is_exported() searches (kernel/module/kallsyms.c), so
 * /proc/kallsyms shows a symbol upper-case when its name and value are
 * in it. GPL-only exports (gpl_syms) are not searched there either.
 */
static int read_exports(const struct kern *k, const struct klayout *l,
			const unsigned char *mod, struct kexp **ret,
			size_t *nret, struct ms_err *err)
{
	uint64_t syms = kget_field(k, mod, &l->mod_syms);
	size_t n = kget_field(k, mod, &l->mod_num_syms);
	unsigned char *buf;
	struct kexp *e;
	int r;

	*ret = NULL;
	*nret = 0;
	if (!syms || !n || !l->ks_size)
		return 0;
	r = read_array(k, syms, n, l->ks_size, KMEM_MAX_SYMTAB,
		       "exported symbols", (void **)&buf, err);
	if (r)
		return r;
	e = calloc(n, sizeof(*e));
	if (!e) {
		free(buf);
		return ms_err_errno(err, ENOMEM, "exported symbols");
	}
	for (size_t i = 0; i < n; i++) {
		const unsigned char *s = buf + i * l->ks_size;
		uint64_t at = syms + i * l->ks_size;

		if (l->ks_prel32) {
			/* offset_to_ptr(): the field's address plus its value */
			int32_t v = (int32_t)kget_field(k, s, &l->ks_value);
			int32_t nm = (int32_t)kget_field(k, s, &l->ks_name);

			e[i].value = at + l->ks_value.off + (uint64_t)(int64_t)v;
			e[i].name_addr = at + l->ks_name.off + (uint64_t)(int64_t)nm;
		} else {
			e[i].value = kget_field(k, s, &l->ks_value);
			e[i].name_addr = kget_field(k, s, &l->ks_name);
		}
	}
	free(buf);
	/* Each name read once: n symbols at one value cost n reads, not n^2. */
	for (size_t i = 0; !r && i < n; i++)
		r = ms_mem_read_string(k->mem, e[i].name_addr,
				       KMEM_KSYM_NAME_LEN, "export name",
				       &e[i].name, err);
	if (r) {
		kexp_free(e, n);
		return r;
	}
	qsort(e, n, sizeof(*e), cmp_kexp);
	*ret = e;
	*nret = n;
	return 0;
}

static bool is_exported(const struct kexp *e, size_t n, const char *name,
			uint64_t value)
{
	struct kexp key = { .value = value, .name = (char *)name };

	return n && bsearch(&key, e, n, sizeof(*e), cmp_kexp);
}

/* Elf32_Sym and Elf64_Sym as the ELF ABI lays them out. */
static void elf_sym(const struct kern *k, const unsigned char *s,
		    uint32_t *name, uint64_t *value)
{
	*name = (uint32_t)kget(k, s, 0, 4);
	*value = k->ptr_size == 8 ? kget(k, s, 8, 8) : kget(k, s, 4, 4);
}

/* The strtab bytes every st_name points into, NUL-terminated each. */
static int read_strtab(const struct kern *k, uint64_t addr,
		       uint32_t max_name, char **ret, size_t *len,
		       struct ms_err *err)
{
	size_t n = (size_t)max_name + KMEM_KSYM_NAME_LEN;
	char *s;
	int r;

	if (n > KMEM_MAX_STRTAB)
		return ms_err_set(err, EBADMSG,
				  "module string table at 0x%" PRIx64 " in %s: over %u bytes (corrupted memory?)",
				  addr, k->origin, KMEM_MAX_STRTAB);
	/*
	 * The last name may end before the page that ends n: read what is
	 * there first, then the rest of the longest possible name.
	 */
	s = malloc(n + 1);
	if (!s)
		return ms_err_errno(err, ENOMEM, "module string table");
	r = ms_mem_read(k->mem, addr, s, (size_t)max_name + 1,
			"module string table", err);
	for (size_t have = (size_t)max_name + 1; !r && have < n;) {
		size_t chunk = 4096 - ((addr + have) & 4095);

		if (memchr(s + max_name, '\0', have - max_name))
			break;
		if (chunk > n - have)
			chunk = n - have;
		r = ms_mem_read(k->mem, addr + have, s + have, chunk,
				"module string table", err);
		have += chunk;
		s[have] = '\0';
	}
	if (r) {
		free(s);
		return r;
	}
	s[n] = '\0';
	*ret = s;
	*len = n;
	return 0;
}

struct symtab {
	unsigned char *syms;
	char *types, *str;
	size_t n, strlen;
};

static void symtab_clear(struct symtab *t)
{
	free(t->syms);
	free(t->types);
	free(t->str);
}

static int read_symtab(const struct kern *k, const struct klayout *l,
		       uint64_t mk, struct symtab *t, struct ms_err *err)
{
	size_t esz = k->ptr_size == 8 ? 24 : 16;
	unsigned char *hdr;
	uint32_t max_name = 0;
	int r = read_array(k, mk, 1, l->mk_size, 1, "mod_kallsyms",
			   (void **)&hdr, err);

	if (r)
		return r;
	t->n = kget_field(k, hdr, &l->mk_num_symtab);
	r = read_array(k, kget_field(k, hdr, &l->mk_symtab), t->n, esz,
		       KMEM_MAX_SYMTAB, "module symbol table",
		       (void **)&t->syms, err);
	if (!r)
		r = read_array(k, kget_field(k, hdr, &l->mk_typetab), t->n, 1,
			       KMEM_MAX_SYMTAB, "module symbol types",
			       (void **)&t->types, err);
	for (size_t i = 0; !r && i < t->n; i++) {
		uint32_t nm;
		uint64_t v;

		elf_sym(k, t->syms + i * esz, &nm, &v);
		if (nm > max_name)
			max_name = nm;
	}
	if (!r)
		r = read_strtab(k, kget_field(k, hdr, &l->mk_strtab), max_name,
				&t->str, &t->strlen, err);
	free(hdr);
	return r;
}

static char set_case(char c, bool upper)
{
	if (upper && c >= 'a' && c <= 'z')
		return (char)(c - 'a' + 'A');
	if (!upper && c >= 'A' && c <= 'Z')
		return (char)(c - 'A' + 'a');
	return c;
}

/*
 * What /proc/kallsyms lists for the module: every entry of mod->kallsyms
 * (the full table while it is coming, the core one after init) that has
 * a name (s_show() skips the others), the type upper-case if exported.
 */
static int read_ksyms(const struct kern *k, const struct klayout *l,
		      const unsigned char *mod, struct ms_module *m,
		      struct ms_err *err)
{
	uint64_t mk = kget_field(k, mod, &l->mod_kallsyms);
	size_t esz = k->ptr_size == 8 ? 24 : 16, nexp = 0;
	struct symtab t = { 0 };
	struct kexp *exp = NULL;
	int r;

	if (!mk || !l->mk_size)
		return 0;
	r = read_symtab(k, l, mk, &t, err);
	if (!r)
		r = read_exports(k, l, mod, &exp, &nexp, err);
	for (size_t i = 0; !r && i < t.n; i++) {
		uint32_t nm;
		uint64_t v;
		bool up;
		char *name;

		elf_sym(k, t.syms + i * esz, &nm, &v);
		if (nm >= t.strlen || !t.str[nm])
			continue;
		/* strscpy() into a KSYM_NAME_LEN buffer */
		name = strndup(t.str + nm, KMEM_KSYM_NAME_LEN - 1);
		if (!name) {
			r = ms_err_errno(err, ENOMEM, "module symbols");
			break;
		}
		up = is_exported(exp, nexp, name, v);
		/* the type goes into a capture line as one character */
		if ((unsigned char)t.types[i] <= ' ' ||
		    (unsigned char)t.types[i] >= 0x7f)
			r = ms_err_set(err, EBADMSG,
				       "symbol %s in %s has type 0x%02x, which is no symbol type (corrupted memory?)",
				       MS_ESC(name), k->origin,
				       (unsigned char)t.types[i]);
		else if (ms_module_add_ksym(m, name, v,
					    set_case(t.types[i], up)))
			r = ms_err_errno(err, ENOMEM, "module symbols");
		free(name);
	}
	kexp_free(exp, nexp);
	symtab_clear(&t);
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
			return ms_err_set(err, EBADMSG,
					  "module at 0x%" PRIx64 " in %s has a name that is no file name (%s)",
					  at, k->origin, MS_ESC(name));
	return 0;
}

static int read_module(const struct kern *k, const struct klayout *l,
		       uint64_t at, const unsigned char *mod,
		       struct ms_module *m, struct ms_err *err)
{
	int64_t state = (int64_t)kget_field(k, mod, &l->mod_state);
	const char *st = state == l->st_live	 ? "live" :
			 state == l->st_coming ? "coming" :
			 state == l->st_going  ? "going" :
						 NULL;
	uint64_t sv = kget_field(k, mod, &l->mod_srcversion);
	int r;

	m->name = strndup((const char *)mod + l->mod_name.off,
			  l->mod_name.size);
	if (!m->name || (st && !(m->initstate = strdup(st))))
		return ms_err_errno(err, ENOMEM, "module");
	if (strlen(m->name) == l->mod_name.size)
		return ms_err_set(err, EBADMSG,
				  "module at 0x%" PRIx64 " in %s: name not NUL-terminated",
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
				       "srcversion at 0x%" PRIx64 " in %s is not alphanumeric (%s)",
				       sv, k->origin, MS_ESC(m->srcversion));
	if (!r)
		r = read_build_id(k, l, mod, m, err);
	if (!r)
		r = read_sections(k, l, mod, m, err);
	if (!r)
		r = read_ksyms(k, l, mod, m, err);
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
#define SEEN_SLOTS ((size_t)32768) /* a power of two over 2 * KMEM_MAX_MODULES */
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
			r = ms_err_set(err, EBADMSG,
				       "the module list in %s has more than %d entries (corrupted memory?)",
				       k->origin, KMEM_MAX_MODULES);
		else if (!node)
			r = ms_err_set(err, EBADMSG,
				       "the module list in %s ends in a NULL pointer after 0x%" PRIx64 " (corrupted memory, or it changed while read)",
				       k->origin, prev);
		else if (!seen_add(&seen, node))
			r = ms_err_set(err, EBADMSG,
				       "the module list in %s loops at 0x%" PRIx64 " (corrupted memory, or it changed while read)",
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
		if ((int64_t)kget_field(k, mod, &l->mod_state) == l->st_unformed)
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
		r = ms_err_set(err, ENOENT,
			       "no module at 0x%" PRIx64 " on the module list of %s (not loaded, or not formed yet)",
			       k->only_at, k->origin);
	free(seen.slot);
	free(mod);
	return r;
}
