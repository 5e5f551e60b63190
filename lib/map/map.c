// SPDX-License-Identifier: GPL-2.0-or-later
/* The section map: which module's sections sit at which address. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map.h"

void ms_module_clear(struct ms_module *m)
{
	free(m->name);
	free(m->initstate);
	free(m->srcversion);
	free(m->build_id);
	for (size_t i = 0; i < m->nsections; i++)
		free(m->sections[i].name);
	free(m->sections);
	for (size_t i = 0; i < m->nksyms; i++)
		free(m->ksyms[i].name);
	free(m->ksyms);
}

/* strdup of a string that may be NULL; false if out of memory. */
static bool dup_opt(char **to, const char *from)
{
	*to = from ? strdup(from) : NULL;
	return !from || *to;
}

static int dup_module(struct ms_module *to, const struct ms_module *m)
{
	*to = (struct ms_module){ .load_id = m->load_id };
	if (!dup_opt(&to->name, m->name) ||
	    !dup_opt(&to->initstate, m->initstate) ||
	    !dup_opt(&to->srcversion, m->srcversion) ||
	    !dup_opt(&to->build_id, m->build_id) ||
	    !(to->sections = calloc(m->nsections + 1, sizeof(*to->sections))) ||
	    !(to->ksyms = calloc(m->nksyms + 1, sizeof(*to->ksyms))))
		return -ENOMEM;
	for (; to->nsections < m->nsections; to->nsections++) {
		to->sections[to->nsections] = m->sections[to->nsections];
		if (!dup_opt(&to->sections[to->nsections].name,
			     m->sections[to->nsections].name))
			return -ENOMEM;
	}
	for (; to->nksyms < m->nksyms; to->nksyms++) {
		to->ksyms[to->nksyms] = m->ksyms[to->nksyms];
		if (!dup_opt(&to->ksyms[to->nksyms].name,
			     m->ksyms[to->nksyms].name))
			return -ENOMEM;
	}
	return 0;
}

int ms_map_dup_modules(const struct ms_map *map, struct ms_map **ret,
		       struct ms_err *err)
{
	struct ms_map *n = calloc(1, sizeof(*n));
	int r = 0;

	if (!n || !dup_opt(&n->origin, map->origin) ||
	    !dup_opt(&n->release, map->release) ||
	    !dup_opt(&n->machine, map->machine) ||
	    !dup_opt(&n->kernel_build_id, map->kernel_build_id) ||
	    !(n->modules = calloc(map->nmodules + 1, sizeof(*n->modules))))
		r = -ENOMEM;
	/* A module half made counts, so that it is freed too. */
	for (size_t i = 0; !r && i < map->nmodules; i++, n->nmodules++)
		r = dup_module(&n->modules[i], &map->modules[i]);
	if (r) {
		ms_map_free(n);
		return ms_err_errno(err, ENOMEM, "map");
	}
	*ret = n;
	return 0;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

bool ms_map_same(const struct ms_map *a, const struct ms_map *b)
{
	if (a->nmodules != b->nmodules || !same_str(a->machine, b->machine) ||
	    !same_str(a->release, b->release))
		return false;
	for (size_t i = 0; i < a->nmodules; i++) {
		const struct ms_module *x = &a->modules[i], *y = &b->modules[i];

		/* ksyms: the maps come from one source, so their counts. */
		if (strcmp(x->name, y->name) || x->nsections != y->nsections ||
		    x->nksyms != y->nksyms || x->load_id != y->load_id ||
		    !same_str(x->build_id, y->build_id) ||
		    !same_str(x->initstate, y->initstate) ||
		    !same_str(x->srcversion, y->srcversion))
			return false;
		for (size_t j = 0; j < x->nsections; j++)
			if (x->sections[j].addr != y->sections[j].addr ||
			    strcmp(x->sections[j].name, y->sections[j].name))
				return false;
	}
	return true;
}

bool ms_map_core_symbol(const struct ms_map *map, const char *name,
			uint64_t *addr_ret)
{
	for (size_t i = 0; i < map->ncore; i++)
		if (!strcmp(map->core[i].name, name)) {
			*addr_ret = map->core[i].addr;
			return true;
		}
	return false;
}

void ms_map_free(struct ms_map *map)
{
	if (!map)
		return;
	for (size_t i = 0; i < map->nmodules; i++)
		ms_module_clear(&map->modules[i]);
	free(map->modules);
	for (size_t i = 0; i < map->ncore; i++)
		free(map->core[i].name);
	free(map->core);
	free(map->kernel_build_id);
	ms_orc_free(map->core_orc);
	ms_a64_free(map->core_a64);
	ms_x86_free(map->core_x86);
	free(map->why_no_orc);
	free(map->core_btf);
	free(map->why_no_btf);
	for (size_t i = 0; i < map->nvanished; i++)
		free(map->vanished[i]);
	free(map->vanished);
	free(map->origin);
	free(map->release);
	free(map->machine);
	free(map);
}

static char norm(char c)
{
	return c == '-' ? '_' : c;
}

bool ms_modname_eq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (norm(*a) != norm(*b))
			return false;
	return *a == *b;
}

static int modname_cmp(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (norm(*a) != norm(*b))
			break;
	return (unsigned char)norm(*a) - (unsigned char)norm(*b);
}

const struct ms_module *ms_map_find(const struct ms_map *map, const char *name)
{
	size_t lo = 0, hi = map->nmodules;

	/* ms_map_finish sorted the modules. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = modname_cmp(name, map->modules[mid].name);

		if (c == 0)
			return &map->modules[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

const struct ms_section *ms_module_section(const struct ms_module *mod,
					   const char *name)
{
	for (size_t i = 0; i < mod->nsections; i++)
		if (strcmp(mod->sections[i].name, name) == 0)
			return &mod->sections[i];
	return NULL;
}

static int cmp_module(const void *a, const void *b)
{
	return modname_cmp(((const struct ms_module *)a)->name,
			   ((const struct ms_module *)b)->name);
}

static int cmp_section(const void *a, const void *b)
{
	const struct ms_section *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_section_name(const void *a, const void *b)
{
	return strcmp(((const struct ms_section *)a)->name,
		      ((const struct ms_section *)b)->name);
}

int ms_map_add_core(struct ms_map *map, const char *name, uint64_t addr,
		    char type, struct ms_err *err)
{
	if (ms_grow(&map->core, map->ncore, sizeof(*map->core), 1024) ||
	    !(map->core[map->ncore].name = strdup(name)))
		return ms_err_errno(err, ENOMEM, "core kernel symbols");
	map->core[map->ncore].addr = addr;
	map->core[map->ncore].seq = (uint32_t)map->ncore;
	map->core[map->ncore++].type = type;
	return 0;
}

/*
 * Stable: of symbols at one address the kernel names the first in
 * kallsyms order (get_symbol_pos), and every source adds them in that
 * order.
 */
static int cmp_ksym(const void *a, const void *b)
{
	const struct ms_ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int ms_map_finish(struct ms_map *map, struct ms_err *err)
{
	if (map->ncore)
		qsort(map->core, map->ncore, sizeof(*map->core), cmp_ksym);
	if (map->nmodules)
		qsort(map->modules, map->nmodules, sizeof(*map->modules),
		      cmp_module);
	for (size_t i = 0; i < map->nmodules; i++) {
		struct ms_module *m = &map->modules[i];

		if (i > 0 && cmp_module(&map->modules[i - 1], m) == 0)
			return ms_err_set(err, EINVAL,
					  "%s: module %s is listed twice",
					  map->origin, m->name);
		if (m->nsections == 0)
			continue;
		/* Sort by name first to find duplicates, then by address. */
		qsort(m->sections, m->nsections, sizeof(*m->sections),
		      cmp_section_name);
		for (size_t j = 1; j < m->nsections; j++)
			if (strcmp(m->sections[j - 1].name,
				   m->sections[j].name) == 0)
				return ms_err_set(
					err, EINVAL,
					"%s: module %s lists section %s twice",
					map->origin, m->name,
					MS_ESC(m->sections[j].name));
		qsort(m->sections, m->nsections, sizeof(*m->sections),
		      cmp_section);
	}
	return 0;
}

int ms_map_check_visible(const struct ms_map *map, struct ms_err *err)
{
	for (size_t i = 0; i < map->nmodules; i++) {
		const struct ms_module *m = &map->modules[i];
		bool any = false;

		for (size_t j = 0; j < m->nsections; j++)
			any |= m->sections[j].addr != 0;
		if (m->nsections > 0 && !any)
			return ms_err_set(
				err, EPERM,
				"%s: every section address of module %s is zero: the kernel hides addresses from this user "
				"(kernel.kptr_restrict, or no CAP_SYSLOG); run as root, or set kernel.kptr_restrict=0 or 1",
				map->origin, m->name);
	}
	return 0;
}

int ms_module_add_section(struct ms_module *m, const char *name,
			  uint64_t addr, struct ms_err *err)
{
	struct ms_section *sec;

	if (ms_grow(&m->sections, m->nsections, sizeof(*m->sections), 16))
		return ms_err_errno(err, ENOMEM, "sections of %s", m->name);
	sec = &m->sections[m->nsections];
	if (!(sec->name = strdup(name)))
		return ms_err_errno(err, ENOMEM, "sections of %s", m->name);
	sec->addr = addr;
	m->nsections++;
	return 0;
}

int ms_module_add_ksym(struct ms_module *m, const char *name, uint64_t addr,
		       char type, struct ms_err *err)
{
	struct ms_ksym *k;

	if (ms_grow(&m->ksyms, m->nksyms, sizeof(*m->ksyms), 16))
		return ms_err_errno(err, ENOMEM, "kallsyms lines of %s",
				    m->name);
	k = &m->ksyms[m->nksyms];
	*k = (struct ms_ksym){ .addr = addr, .type = type };
	if (!(k->name = strdup(name)))
		return ms_err_errno(err, ENOMEM, "kallsyms lines of %s",
				    m->name);
	m->nksyms++;
	return 0;
}

bool ms_ksym_is_text(char type)
{
	/* w, W: weak, as __weak kernel functions are */
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

uint64_t ms_map_core_size(const struct ms_map *map, size_t i)
{
	for (size_t j = i + 1; j < map->ncore; j++)
		if (map->core[j].addr > map->core[i].addr &&
		    map->core[j].type != 'a' && map->core[j].type != 'A')
			return map->core[j].addr - map->core[i].addr;
	return 0;
}

int ms_map_set_btf(struct ms_map *map, const void *btf, size_t len,
		   struct ms_err *err)
{
	void *copy = malloc(len ? len : 1);

	if (!copy)
		return ms_err_errno(err, ENOMEM, "BTF");
	memcpy(copy, btf, len);
	free(map->core_btf);
	free(map->why_no_btf);
	map->core_btf = copy;
	map->core_btf_len = len;
	map->why_no_btf = NULL;
	return 0;
}
