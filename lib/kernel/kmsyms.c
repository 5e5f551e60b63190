// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A module's symbols in kernel memory, as /proc/kallsyms shows them
 * (module_get_kallsym(), s_show()): mod->kallsyms' symbol, string and
 * type tables, and mod->syms for which are exported. Untrusted like all
 * of memory (see kmem.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kmem-int.h"

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
	r = kern_read_array(k, syms, n, l->ks_size, KMEM_MAX_SYMTAB,
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

			e[i].value =
				at + l->ks_value.off + (uint64_t)(int64_t)v;
			e[i].name_addr =
				at + l->ks_name.off + (uint64_t)(int64_t)nm;
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
static int read_strtab(const struct kern *k, uint64_t addr, uint32_t max_name,
		       char **ret, size_t *len, struct ms_err *err)
{
	size_t n = (size_t)max_name + KMEM_KSYM_NAME_LEN;
	char *s;
	int r;

	if (n > KMEM_MAX_STRTAB)
		return ms_err_set(err, EBADMSG,
				  "module string table at 0x%" PRIx64
				  " in %s: over %u bytes (corrupted memory?)",
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
	int r = kern_read_array(k, mk, 1, l->mk_size, 1, "mod_kallsyms",
				(void **)&hdr, err);

	if (r)
		return r;
	t->n = kget_field(k, hdr, &l->mk_num_symtab);
	r = kern_read_array(k, kget_field(k, hdr, &l->mk_symtab), t->n, esz,
			    KMEM_MAX_SYMTAB, "module symbol table",
			    (void **)&t->syms, err);
	if (!r)
		r = kern_read_array(k, kget_field(k, hdr, &l->mk_typetab), t->n,
				    1, KMEM_MAX_SYMTAB, "module symbol types",
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
int kmem_read_ksyms(const struct kern *k, const struct klayout *l,
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
			r = ms_err_set(
				err, EBADMSG,
				"symbol %s in %s has type 0x%02x, which is no symbol type (corrupted memory?)",
				MS_ESC(name), k->origin,
				(unsigned char)t.types[i]);
		else
			r = ms_module_add_ksym(m, name, v,
					       set_case(t.types[i], up), err);
		free(name);
	}
	kexp_free(exp, nexp);
	symtab_clear(&t);
	return r;
}
