// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Modules a report names that the map lacks (or with no map at all),
 * laid out from their files at addresses of our own: "func+0x1a/0x60
 * [mod]" frames need only offsets within the module.
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "module.h"

/* Where modules without a map are laid out: user space, never a module. */
#define PLACE_BASE UINT64_C(0x00007f0000000000)
#define PLACE_STEP UINT64_C(0x0000000100000000)
/*
 * 32-bit modules (i386, arm) need 32-bit addresses: user space with any
 * VMSPLIT lies below 0x40000000; from 0x10000000, above where
 * module/layout.c parks what is not loaded (0x0bad0000), one after another.
 */
#define PLACE_BASE_32 UINT64_C(0x10000000)
#define PLACE_GAP_32 UINT64_C(0x10000)

int ms_map_add_placed(struct ms_map *map, const char *name,
		      const struct ms_modfile *f, uint64_t base,
		      struct ms_err *err)
{
	size_t nsec = ms_modfile_section_count(f);
	struct ms_module *n, *m;
	uint64_t at = base;

	n = realloc(map->modules, (map->nmodules + 1) * sizeof(*n));
	if (!n)
		return ms_err_errno(err, ENOMEM, "map");
	map->modules = n;
	m = &map->modules[map->nmodules];
	memset(m, 0, sizeof(*m));
	m->name = strdup(name);
	m->initstate = strdup("coming");
	m->sections = calloc(nsec ? nsec : 1, sizeof(*m->sections));
	/* The module is that file: a frame of another build is not its. */
	if (ms_modfile_build_id(f))
		m->build_id = strdup(ms_modfile_build_id(f));
	if (!m->name || !m->initstate || !m->sections ||
	    (ms_modfile_build_id(f) && !m->build_id)) {
		ms_module_clear(m);
		return ms_err_errno(err, ENOMEM, "map");
	}
	map->nmodules++;
	for (size_t i = 0; i < nsec; i++) {
		const struct ms_filesec *fs = ms_modfile_section(f, i);
		uint64_t align =
			fs->align > 1 && fs->align <= 4096 ? fs->align : 1;

		if (!(fs->flags & SHF_ALLOC) || fs->size == 0)
			continue;
		at = (at + align - 1) & ~(align - 1);
		m->sections[m->nsections].name = strdup(fs->name);
		if (!m->sections[m->nsections].name)
			return ms_err_errno(err, ENOMEM, "map");
		m->sections[m->nsections++].addr = at;
		at += fs->size;
	}
	return 0;
}

/* The bytes ms_map_add_placed lays f out in, and a gap. */
static uint64_t placed_span(const struct ms_modfile *f)
{
	uint64_t n = PLACE_GAP_32;

	for (size_t i = 0; i < ms_modfile_section_count(f); i++) {
		const struct ms_filesec *s = ms_modfile_section(f, i);

		if (s->flags & SHF_ALLOC)
			n += s->size + (s->align > 1 ? s->align : 1);
	}
	return (n + PLACE_GAP_32 - 1) & ~(PLACE_GAP_32 - 1);
}

/*
 * The map's module, which the report says is build_id (the kernel prints
 * the loaded module's own: kernel/kallsyms.c __sprint_symbol), takes that
 * build-id when it has none, so its file is looked for and checked by it.
 */
static int take_build_id(struct ms_map *map, const struct ms_module *m,
			 const char *build_id, struct ms_err *err)
{
	struct ms_module *mm = &map->modules[m - map->modules];

	if (!(mm->build_id = strdup(build_id)))
		return ms_err_errno(err, ENOMEM, "decode");
	return 0;
}

/* Takes the module named out of the map again (the last one added). */
static void unplace(struct ms_map *map, const char *name)
{
	const struct ms_module *m = ms_map_find(map, name);
	size_t i;

	if (!m)
		return;
	i = (size_t)(m - map->modules);
	ms_module_clear(&map->modules[i]);
	memmove(&map->modules[i], &map->modules[i + 1],
		(map->nmodules - i - 1) * sizeof(*map->modules));
	map->nmodules--;
}

/*
 * 0, -ENOMEM, or 1 with note saying why a file that cannot be laid out
 * (two sections of one name) was not.
 */
static int add_placed(struct ms_map *map, struct ms_placing *pl,
		      const char *name, const struct ms_modfile *mf,
		      struct ms_err *note, struct ms_err *err)
{
	struct ms_err ferr = { 0 };
	int r;

	if (ms_modfile_elfclass(mf) == ELFCLASS32) {
		r = ms_map_add_placed(map, name, mf, pl->base32, err);
		pl->base32 += placed_span(mf);
	} else {
		r = ms_map_add_placed(map, name, mf, pl->base, err);
		pl->base += PLACE_STEP;
	}
	if (r)
		return r;
	r = ms_map_finish(map, &ferr);
	if (!r)
		return 0;
	unplace(map, name);
	r = ms_map_finish(map, err);
	if (r)
		return r;
	ms_err_set(note, EINVAL, "%s: %s; its frames are left unannotated",
		   ms_modfile_path(mf), ferr.msg);
	return 1;
}

void ms_place_init(struct ms_placing *pl)
{
	pl->base = PLACE_BASE;
	pl->base32 = PLACE_BASE_32;
}

/*
 * A module a frame names, met for the first time (with this build-id):
 * placed from its file if the map lacks it. A frame that prints the
 * module's build-id (CONFIG_STACKTRACE_BUILD_ID) is of that build only:
 * its file is found by build-id (a separate debug file will do, as only
 * offsets from symbols matter), and a module of another build, the map's
 * or the only file there is, is said once (in note) and its frames pass
 * through.
 */
int ms_map_place(struct ms_map *map, struct ms_finder *fi,
		 struct ms_placing *pl, const char *module, const char *bid,
		 struct ms_err *note, struct ms_err *err)
{
	const struct ms_module *m = ms_map_find(map, module);
	struct ms_err ferr = { 0 };
	struct ms_modfile *mf;
	int r;

	if (m && (!bid[0] || m->build_id)) {
		if (bid[0] && strcmp(m->build_id, bid)) {
			ms_err_set(
				note, ESTALE,
				"module %s: the report prints build-id %s, but the map (%s) has %s; its frames are left unannotated",
				module, bid, map->origin, m->build_id);
			return 1;
		}
		return 0;
	}
	if (bid[0])
		r = ms_finder_open_build_id(fi, module, bid, &mf, &ferr);
	else
		r = ms_finder_open(fi, module, NULL, &mf, &ferr);
	if (r == -ENOMEM) {
		*err = ferr;
		return r;
	}
	/* No file, or none of this build, or none that reads: said once. */
	if (r) {
		ms_err_set(note, -r, "%s; its frames are left unannotated",
			   ferr.msg);
		return 1;
	}
	r = m ? take_build_id(map, m, bid, err) :
		add_placed(map, pl, module, mf, note, err);
	ms_modfile_free(mf);
	return r;
}
