// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A module's index, found for it or written for it.
 *
 * The index is of the file libdwfl would read (the debug file, else the
 * module), named by its build-id and size. It is built from a layout of
 * our own in which every section is loaded, apart from the others, so
 * that an offset names one place in one section: any layout of the
 * module, with .init freed or not, reads it.
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "symbolize-int.h"

/* Where the layout of our own starts, and the room between sections. */
#define IX_BASE_64 UINT64_C(0x00007e0000000000)
#define IX_BASE_32 UINT64_C(0x10000000)
#define IX_GAP UINT64_C(0x100000)

static const struct ms_modfile *symbolized_file(const struct ms_layout *l)
{
	return l->debug && l->debug->file ? l->debug->file : l->file;
}

/*
 * The index's path for l's file, and the file's size; NULL if the file
 * has no build-id.
 */
static char *ix_path(const struct ms_layout *l, const char *dir,
		     uint64_t *size_ret)
{
	const struct ms_modfile *f = symbolized_file(l);
	const char *bid = ms_modfile_build_id(f);
	struct stat st;
	char *path;

	if (!bid || stat(ms_modfile_debugger_path(f), &st) < 0)
		return NULL;
	*size_ret = (uint64_t)st.st_size;
	if (asprintf(&path, "%s/%s-%" PRIu64 ".ix", dir, bid, *size_ret) < 0)
		return NULL;
	return path;
}

/* Gives sm the index ix, which it then owns: 0, or -ENOMEM. */
static int attach(struct smod *sm, struct ix *ix)
{
	const struct ms_layout *l = sm->l;

	sm->ix_base = malloc((ix->n[IX_SECS] + 1) * sizeof(*sm->ix_base));
	sm->ix_secs.v = calloc(ix->n[IX_SECS] + 1, sizeof(*sm->ix_secs.v));
	if (!sm->ix_base || !sm->ix_secs.v ||
	    ixlookup_init(ix, &sm->ix_lines) < 0) {
		ix_close(ix);
		ix_detach(sm);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ix->n[IX_SECS]; i++) {
		const char *name = ix_str(ix, ix->secs[i].name);

		sm->ix_base[i] = IX_UNPLACED;
		for (size_t j = 0; j < l->nsecs; j++) {
			const struct ms_lsec *s = &l->secs[j];

			if (strcmp(s->name, name) ||
			    s->place != MS_PLACE_LOADED)
				continue;
			sm->ix_base[i] = s->addr;
			sm->ix_secs.v[sm->ix_secs.n++] = (struct ixsec){
				s->addr, ix->secs[i].size, (uint16_t)i
			};
			break;
		}
	}
	ixsecs_sort(&sm->ix_secs);
	sm->ix = ix;
	return 0;
}

int ix_attach(struct smod *sm, const char *dir)
{
	const char *bid = ms_modfile_build_id(symbolized_file(sm->l));
	struct ms_err err = { 0 };
	uint64_t size;
	char *path = ix_path(sm->l, dir, &size);
	struct ix *ix = NULL;
	int r;

	if (!path)
		return 0;
	/* Missing or damaged: made anew on first use. */
	r = ix_open(path, bid, size, &ix, &err);
	free(path);
	sm->ix_want = r != 0;
	if (r)
		return 0;
	r = attach(sm, ix);
	return r < 0 ? r : 1;
}

size_t *ix_by_address(const struct smod *sm, const void *tab, size_t n,
		      size_t size, size_t sec_off, size_t *n_ret)
{
	const unsigned char *t = tab;
	size_t nsecs = sm->ix->n[IX_SECS], at = 0;
	size_t *start = calloc(nsecs + 1, sizeof(*start));
	size_t *order = malloc((n + 1) * sizeof(*order));
	uint16_t sec;

	if (!start || !order) {
		free(start);
		free(order);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		memcpy(&sec, t + i * size + sec_off, sizeof(sec));
		start[sec]++;
	}
	/* Each loaded section's entries, the sections by runtime address. */
	for (size_t k = 0; k < sm->ix_secs.n; k++) {
		size_t id = sm->ix_secs.v[k].id, c = start[id];

		start[id] = at;
		at += c;
	}
	for (size_t i = 0; i < n; i++) {
		memcpy(&sec, t + i * size + sec_off, sizeof(sec));
		if (sm->ix_base[sec] != IX_UNPLACED)
			order[start[sec]++] = i;
	}
	free(start);
	*n_ret = at;
	return order;
}

void ix_detach(struct smod *sm)
{
	ix_close(sm->ix);
	free(sm->ix_base);
	ixsecs_free(&sm->ix_secs);
	ixlookup_free(&sm->ix_lines);
	sm->ix = NULL;
	sm->ix_base = NULL;
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
	const char *bid = ms_modfile_build_id(symbolized_file(l));
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
		r = ixsecs_of_layout(own, w, &xs);
		if (!r)
			r = symtab_index(om, &xs, w);
		if (!r)
			r = functab_index(om, &xs, w);
		if (!r)
			r = ixlines_write(om->dm, &xs, w);
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

int ix_make(struct smod *sm, const char *dir, struct ms_err *err)
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
	if (!r && attach(sm, ix) < 0)
		r = ms_err_errno(err, ENOMEM, "index of %s", sm->l->mod->name);
	if (!r && wr) {
		*err = werr;
		r = wr;
	}
	return r;
}
