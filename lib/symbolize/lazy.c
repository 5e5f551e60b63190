// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Modules loaded into a symbolizer on demand, by name or by address, so
 * resolving one address opens one module file, not every loaded one.
 * The top of symbolize/: it uses module/'s ms_module_resolve for each.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize.h"

/*
 * UNSAID: could not be loaded for an address that may not be its, so
 * nothing was said; tried again, and said, when it is asked for by name
 * or by an address that is surely its.
 */
enum { UNTRIED, LOADED, MISSING, UNSAID };

struct start {
	uint64_t addr;
	size_t mod;
};

struct ms_lazy {
	struct ms_finder *fi;
	struct ms_lazy_opts o;
	const struct ms_map *map;
	struct ms_symbolizer *sym;
	struct ms_resolved *res; /* per map module */
	char *state; /* per map module: UNTRIED, LOADED, ... */
	struct start *starts; /* every section start, sorted */
	size_t nstarts;
	const char **names; /* per map module, as res and state are */
	size_t nmods;
};

static int cmp_start(const void *a, const void *b)
{
	const struct start *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * Whether a section of the map can hold an address: one the map's kernel
 * frees after init cannot (its memory is reused), and module/layout.c
 * loads such sections only for a module still initializing, or with
 * --init.
 */
static bool holds(const struct ms_lazy *z, const struct ms_module *m,
		  const struct ms_section *s)
{
	int em = 0, cls, data;

	if (z->map->machine)
		ms_machine_elf(z->map->machine, &em, &cls, &data);
	return !ms_section_is_init(em, s->name) ||
	       (z->o.layout_flags & MS_LAYOUT_INIT) ||
	       (m->initstate && strcmp(m->initstate, "coming") == 0);
}

/* Every section start of the map that can hold an address, sorted, into z. */
static int index_starts(struct ms_lazy *z, struct ms_err *err)
{
	const struct ms_map *map = z->map;
	size_t n = 0;

	for (size_t i = 0; i < map->nmodules; i++)
		n += map->modules[i].nsections;
	free(z->starts);
	z->nstarts = 0;
	z->starts = calloc(n + 1, sizeof(*z->starts));
	if (!z->starts)
		return ms_err_errno(err, ENOMEM, "symbols");
	for (size_t i = 0; i < map->nmodules; i++) {
		const struct ms_module *m = &map->modules[i];

		for (size_t j = 0; j < m->nsections; j++)
			if (holds(z, m, &m->sections[j]))
				z->starts[z->nstarts++] = (struct start){
					.addr = m->sections[j].addr, .mod = i
				};
	}
	if (z->nstarts)
		qsort(z->starts, z->nstarts, sizeof(*z->starts), cmp_start);
	return 0;
}

static void use_index(struct ms_lazy *z);

int ms_lazy_new(struct ms_finder *fi, const struct ms_map *map,
		const struct ms_lazy_opts *o, struct ms_lazy **ret,
		struct ms_err *err)
{
	struct ms_lazy *z = calloc(1, sizeof(*z));
	int r;

	if (!z)
		return ms_err_errno(err, ENOMEM, "symbols");
	z->fi = fi;
	z->o = *o;
	z->map = map;
	z->nmods = map->nmodules;
	z->res = calloc(map->nmodules + 1, sizeof(*z->res));
	z->state = calloc(map->nmodules + 1, 1);
	z->names = calloc(map->nmodules + 1, sizeof(*z->names));
	r = z->res && z->state && z->names ?
		    0 :
		    ms_err_errno(err, ENOMEM, "symbols");
	for (size_t i = 0; !r && i < map->nmodules; i++)
		z->names[i] = map->modules[i].name;
	if (!r)
		r = index_starts(z, err);
	if (!r)
		r = ms_symbolizer_new(&z->sym, err);
	if (!r)
		ms_symbolizer_set_core(z->sym, map);
	if (!r && !o->no_index)
		use_index(z);
	if (r) {
		ms_lazy_free(z);
		return r;
	}
	*ret = z;
	return 0;
}

struct ms_symbolizer *ms_lazy_symbolizer(const struct ms_lazy *z)
{
	return z->sym;
}

const struct ms_modfile *ms_lazy_file(const struct ms_lazy *z,
				      const char *name)
{
	const struct ms_module *m = ms_map_find(z->map, name);

	return m ? z->res[m - z->map->modules].file : NULL;
}

/*
 * Indexes live in the cache (--cache-dir). A cache that cannot be made
 * costs speed, not answers: say so once, when an index could not be
 * written, and go on from the DWARF.
 */
static void use_index(struct ms_lazy *z)
{
	struct ms_err err = { 0 };
	char *dir = NULL;

	if (ms_cache_subdir(ms_finder_ctx(z->fi), "index", &dir, &err) == 0)
		ms_symbolizer_set_index_dir(z->sym, dir, &err);
	ms_symbolizer_set_index_pool(z->sym, z->o.ix_pool);
	free(dir);
}

int ms_lazy_index_error(struct ms_lazy *z, struct ms_err *err)
{
	return z->sym ? ms_symbolizer_index_error(z->sym, err) : 0;
}

/*
 * Modules come into the map as a stream names them (decode), and
 * ms_map_finish sorts them by name: what was loaded moves with its name,
 * and its layout is told where its module now is.
 */
int ms_lazy_sync(struct ms_lazy *z, struct ms_err *err)
{
	const struct ms_map *map = z->map;
	size_t n = map->nmodules;
	struct ms_resolved *res;
	char *state;
	const char **names;

	if (n == z->nmods)
		return 0;
	res = calloc(n + 1, sizeof(*res));
	state = calloc(n + 1, 1);
	names = calloc(n + 1, sizeof(*names));
	if (!res || !state || !names) {
		free(res);
		free(state);
		free(names);
		return ms_err_errno(err, ENOMEM, "symbols");
	}
	for (size_t j = 0; j < n; j++)
		names[j] = map->modules[j].name;
	for (size_t i = 0; i < z->nmods; i++) {
		const struct ms_module *m = ms_map_find(map, z->names[i]);
		size_t j = (size_t)(m - map->modules);

		/* Modules are only ever added, so each is still there. */
		res[j] = z->res[i];
		state[j] = z->state[i];
		if (res[j].layout)
			res[j].layout->mod = m;
	}
	free(z->res);
	free(z->state);
	free(z->names);
	z->res = res;
	z->state = state;
	z->names = names;
	z->nmods = n;
	return index_starts(z, err);
}

void ms_lazy_free(struct ms_lazy *z)
{
	if (!z)
		return;
	ms_symbolizer_free(z->sym);
	for (size_t i = 0; z->res && i < z->nmods; i++)
		ms_resolved_clear(&z->res[i]);
	free(z->res);
	free(z->state);
	free(z->starts);
	free(z->names);
	free(z);
}

/* A module refused, for refused_noted: said, and its addresses no one's. */
static int refused(struct ms_lazy *z, int r, const struct ms_err *why)
{
	struct ms_err note;

	ms_err_set(&note, -r, "%s; its frames are left unannotated", why->msg);
	if (z->o.note)
		z->o.note(z->o.note_arg, note.msg);
	return 0;
}

/*
 * quiet: for an address that only the module's file can tell is its or
 * not; a module that cannot be loaded then says nothing, and its address
 * is no module's.
 */
static int load(struct ms_lazy *z, size_t i, bool quiet, struct ms_err *err)
{
	const struct ms_module *mod = &z->map->modules[i];
	struct ms_err merr = { 0 };
	int r;

	if (z->state[i] == LOADED || z->state[i] == MISSING ||
	    (z->state[i] == UNSAID && quiet))
		return 0;
	z->state[i] = quiet ? UNSAID : MISSING;
	r = ms_module_resolve(z->fi, z->map, mod, NULL, NULL,
			      z->o.layout_flags, &z->res[i], &merr);
	if (r && r != -ENOMEM && quiet)
		return 0;
	if (r == -ENOENT) {
		/* Its frames and addresses stay as they are; say so once. */
		if (z->o.note)
			z->o.note(z->o.note_arg, merr.msg);
		return 0;
	}
	if (r && r != -ENOMEM && z->o.refused_noted)
		return refused(z, r, &merr);
	if (r) {
		*err = merr;
		return r;
	}
	r = ms_symbolizer_add(z->sym, z->res[i].layout, &merr);
	if (!r)
		z->state[i] = LOADED;
	else if (r != -ENOMEM && z->o.refused_noted)
		return refused(z, r, &merr);
	else
		*err = merr;
	return r;
}

int ms_lazy_by_name(struct ms_lazy *z, const char *name, struct ms_err *err)
{
	const struct ms_module *m = ms_map_find(z->map, name);

	return m ? load(z, (size_t)(m - z->map->modules), false, err) : 0;
}

/*
 * The module with the nearest section start at or below addr is the only
 * one that can hold it: sections of different modules never overlap.
 * Below another start of that module, addr is among its sections; past
 * its last start, it may as well be past its end (above every module,
 * between two), which only the sections' sizes, from its file, tell.
 */
int ms_lazy_by_addr(struct ms_lazy *z, uint64_t addr, struct ms_err *err)
{
	size_t lo = MS_UPPER_BOUND(z->starts, z->nstarts, addr, addr), mod;

	if (lo == 0)
		return 0;
	mod = z->starts[lo - 1].mod;
	return load(z, mod, lo == z->nstarts || z->starts[lo].mod != mod, err);
}
