// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A module's index made, above the symbolizer: the index is computed by
 * the lookup code itself (symtab.c, functab.c, srcline.c), on a
 * symbolizer of its own holding the module alone in a layout of its own,
 * in which every section is loaded apart from the others, so that an
 * offset names one place in one section: any layout of the module, with
 * .init freed or not, reads it.
 *
 * The symbolizer asks for an index through the maker this file gives it
 * with the index directory (ms_symbolizer_set_index_dir), never calling
 * up into this file, which uses it.
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize-int.h"

/* Where the layout of our own starts, and the room between sections. */
#define IX_BASE_64 UINT64_C(0x00007e0000000000)
#define IX_BASE_32 UINT64_C(0x10000000)
#define IX_GAP UINT64_C(0x100000)

/* The loaded sections of l, written to w as the index's sections. */
static int secs_of_layout(const struct ms_layout *l, struct ixw *w,
			  struct ixsecs *ret)
{
	ret->v = calloc(l->nsecs + 1, sizeof(*ret->v));
	ret->n = 0;
	if (!ret->v)
		return -ENOMEM;
	for (size_t i = 0; i < l->nsecs; i++) {
		const struct ms_lsec *s = &l->secs[i];

		if (s->place != MS_PLACE_LOADED || !s->size)
			continue;
		if (s->size > UINT32_MAX || ret->n >= UINT16_MAX)
			return -EFBIG;
		ret->v[ret->n] = (struct ixsec){ s->addr, s->size,
						 (uint16_t)ret->n };
		if (ixw_sec(w, s->name, s->size) < 0)
			return -ENOMEM;
		ret->n++;
	}
	ixsecs_sort(ret);
	return 0;
}

/* l's module alone in a map of its own, every section apart. */
static int own_layout(const struct ms_layout *l, struct ms_map **map_ret,
		      struct ms_layout **ret, struct ms_err *err)
{
	struct ms_map *map = calloc(1, sizeof(*map));
	bool is32 = ms_modfile_elfclass(l->file) == ELFCLASS32;
	int r;

	if (!map || !(map->origin = strdup("index")))
		r = ms_err_errno(err, ENOMEM, "index");
	else
		r = ms_map_add_placed(map, l->mod->name, l->file,
				      is32 ? IX_BASE_32 : IX_BASE_64, err);
	for (size_t j = 0; !r && j < map->modules[0].nsections; j++)
		map->modules[0].sections[j].addr += j * IX_GAP;
	if (!r)
		r = ms_map_finish(map, err);
	if (!r)
		r = ms_layout_build(&map->modules[0], l->file,
				    MS_LAYOUT_INIT | MS_LAYOUT_FORCE, ret, err);
	if (r) {
		ms_map_free(map);
		return r;
	}
	(*ret)->debug = l->debug;
	*map_ret = map;
	return 0;
}

/* The index of sm's file, built from the DWARF in a layout of our own. */
static int build(struct smod *sm, void **buf, size_t *len, uint64_t *size,
		 struct ms_err *err)
{
	const struct ms_layout *l = sm->l;
	const char *bid = ms_modfile_build_id(ix_source(l));
	struct ms_symbolizer *s = NULL;
	struct ms_layout *own = NULL;
	struct ms_map *map = NULL;
	struct ixsecs xs = { 0 };
	struct ixw *w = NULL;
	struct smod *om;
	int r = bid ? 0 : ms_err_set(err, ENOENT, "%s: no build-id", l->mod->name);

	if (!r)
		r = own_layout(l, &map, &own, err);
	if (!r)
		r = ms_symbolizer_new(&s, err);
	if (!r)
		r = ms_symbolizer_add(s, own, err);
	if (!r && !(w = ixw_new()))
		r = ms_err_errno(err, ENOMEM, "index");
	if (!r) {
		om = symbolizer_mod(s, 0);
		r = secs_of_layout(own, w, &xs);
		if (!r)
			r = symtab_index(om, &xs, w);
		if (!r)
			r = functab_index(om, &xs, w);
		if (!r)
			r = srcline_index(om, &xs, w);
		if (r)
			r = ms_err_errno(err, -r, "index of %s", l->mod->name);
	}
	if (!r)
		r = ixw_image(w, bid, *size, buf, len, err);
	ixw_free(w);
	ixsecs_free(&xs);
	ms_symbolizer_free(s);
	ms_layout_free(own);
	ms_map_free(map);
	return r;
}

/*
 * Builds the index of sm's file, writes it into dir and gives it to sm,
 * whose tables then come from it. An error writing it (returned) still
 * leaves sm its index; any other leaves sm to the DWARF.
 */
static int ix_make(struct smod *sm, const char *dir, struct ms_err *err)
{
	struct ms_err werr = { 0 };
	struct ix *ix = NULL;
	uint64_t size = 0;
	char *path = ix_path(sm->l, dir, &size);
	void *buf = NULL;
	size_t len = 0;
	int r = path ? 0 : ms_err_set(err, ENOENT, "%s: no build-id",
				      sm->l->mod->name);
	int wr = 0;

	if (!r)
		r = build(sm, &buf, &len, &size, err);
	if (!r)
		wr = ix_write(path, buf, len, &werr);
	free(path);
	if (!r)
		r = ix_from_image(buf, len, &ix, err);
	if (!r && ix_adopt(sm, ix) < 0)
		r = ms_err_errno(err, ENOMEM, "index of %s", sm->l->mod->name);
	if (!r && wr) {
		*err = werr;
		r = wr;
	}
	return r;
}

int ms_symbolizer_set_index_dir(struct ms_symbolizer *s, const char *dir,
				struct ms_err *err)
{
	return symbolizer_set_index(s, dir, dir ? ix_make : NULL, err);
}
