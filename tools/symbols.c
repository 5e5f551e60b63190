// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Modules loaded into a symbolizer on demand, by name or by address, so
 * resolving one address opens one module file, not every loaded one.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "modsect.h"

enum { UNTRIED, LOADED, MISSING };

struct start {
	uint64_t addr;
	size_t mod;
};

static int cmp_start(const void *a, const void *b)
{
	const struct start *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Every section start of the map, sorted, into z. */
static int index_starts(struct lazy *z, struct ms_err *err)
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
	for (size_t i = 0; i < map->nmodules; i++)
		for (size_t j = 0; j < map->modules[i].nsections; j++)
			z->starts[z->nstarts++] = (struct start){
				map->modules[i].sections[j].addr, i
			};
	if (z->nstarts)
		qsort(z->starts, z->nstarts, sizeof(*z->starts), cmp_start);
	return 0;
}

int lazy_init(struct lazy *z, const struct ms_ctx *ctx, struct ms_finder *fi,
	      const struct opts *o, const struct ms_map *map,
	      struct ms_err *err)
{
	int r;

	memset(z, 0, sizeof(*z));
	z->ctx = ctx;
	z->fi = fi;
	z->o = o;
	z->map = map;
	z->nmods = map->nmodules;
	z->res = calloc(map->nmodules + 1, sizeof(*z->res));
	z->state = calloc(map->nmodules + 1, 1);
	z->names = calloc(map->nmodules + 1, sizeof(*z->names));
	if (!z->res || !z->state || !z->names)
		return ms_err_errno(err, ENOMEM, "symbols");
	for (size_t i = 0; i < map->nmodules; i++)
		z->names[i] = map->modules[i].name;
	r = index_starts(z, err);
	if (!r)
		r = ms_symbolizer_new(&z->sym, err);
	if (!r)
		ms_symbolizer_set_core(z->sym, map);
	return r;
}

/*
 * Modules come into the map as a stream names them (decode), and
 * ms_map_finish sorts them by name: what was loaded moves with its name,
 * and its layout is told where its module now is.
 */
int lazy_sync(struct lazy *z, struct ms_err *err)
{
	const struct ms_map *map = z->map;
	size_t n = map->nmodules;
	struct resolved *res = calloc(n + 1, sizeof(*res));
	char *state = calloc(n + 1, 1);
	const char **names = calloc(n + 1, sizeof(*names));

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

void lazy_clear(struct lazy *z)
{
	ms_symbolizer_free(z->sym);
	for (size_t i = 0; z->res && i < z->nmods; i++)
		resolved_clear(&z->res[i]);
	free(z->res);
	free(z->state);
	free(z->starts);
	free(z->names);
}

static int load(struct lazy *z, size_t i, struct ms_err *err)
{
	const struct ms_module *mod = &z->map->modules[i];
	struct ms_err merr = { 0 };
	int r;

	if (z->state[i] != UNTRIED)
		return 0;
	z->state[i] = MISSING;
	r = resolve(z->ctx, z->fi, z->o, z->map, mod, NULL, &z->res[i], &merr);
	if (r == -ENOENT) {
		/* Its frames and addresses stay as they are; say so once. */
		warn("%s", merr.msg);
		return 0;
	}
	if (r) {
		*err = merr;
		return r;
	}
	r = ms_symbolizer_add(z->sym, z->res[i].layout, err);
	if (!r)
		z->state[i] = LOADED;
	return r;
}

int lazy_by_name(struct lazy *z, const char *name, struct ms_err *err)
{
	const struct ms_module *m = ms_map_find(z->map, name);

	return m ? load(z, (size_t)(m - z->map->modules), err) : 0;
}

/*
 * The module with the nearest section start at or below addr is the only
 * one that can hold it: sections of different modules never overlap.
 */
int lazy_by_addr(struct lazy *z, uint64_t addr, struct ms_err *err)
{
	size_t lo = MS_UPPER_BOUND(z->starts, z->nstarts, addr, addr);

	return lo ? load(z, z->starts[lo - 1].mod, err) : 0;
}
