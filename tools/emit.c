// SPDX-License-Identifier: GPL-2.0-or-later
/* What gdb, lldb and sections share: opening and checking a module file. */
#include <errno.h>
#include <string.h>

#include "modsect.h"

unsigned int layout_flags(const struct opts *o)
{
	return (o->force ? MS_LAYOUT_FORCE : 0) |
	       (o->init ? MS_LAYOUT_INIT : 0);
}

int open_modfile(const struct ms_ctx *ctx, struct ms_finder *fi,
		 const struct ms_module *mod, const char *path,
		 struct ms_modfile **ret, struct ms_err *err)
{
	if (path)
		return ms_modfile_open(ctx, path, ret, err);
	return ms_finder_open(fi, mod->name, mod->build_id, ret, err);
}

/* One module's commands into out; -ENOENT if its file is not found. */
static int
emit_one(const struct ms_ctx *ctx, struct ms_finder *fi, const struct opts *o,
	 const struct ms_module *mod, const char *path,
	 int (*emit)(FILE *, const struct ms_layout *, struct ms_err *),
	 FILE *out, struct ms_err *err)
{
	struct ms_modfile *f = NULL;
	struct ms_layout *l = NULL;
	int r = open_modfile(ctx, fi, mod, path, &f, err);

	if (!r)
		r = ms_layout_build(mod, f, layout_flags(o), &l, err);
	if (!r)
		r = emit(out, l, err);
	ms_layout_free(l);
	ms_modfile_free(f);
	return r;
}

int emit_modules(struct opts *o,
		 int (*emit)(FILE *, const struct ms_layout *, struct ms_err *),
		 const char *intro)
{
	const char *only = o->all ? NULL : o->args[0];
	struct ms_err err = { 0 };
	struct ms_ctx *ctx = NULL;
	struct ms_finder *fi = NULL;
	struct ms_map *map = NULL;
	struct ms_buf b = { 0 };
	size_t done = 0, missing = 0;
	int r;

	r = setup_ctx(o, &ctx, &err);
	if (!r)
		r = load_map(ctx, o, only, &map, &err);
	if (!r)
		r = ms_finder_new(ctx, map->release, &fi, &err);
	if (!r)
		r = ms_buf_open(&b, &err);
	if (r)
		goto out;
	fprintf(b.f, "# %s, by modsect %s from %s (kernel %s)\n", intro,
		MODSECT_VERSION, map->origin,
		map->release ? map->release : "release unknown");
	for (size_t i = 0; i < map->nmodules && !r; i++) {
		const struct ms_module *mod = &map->modules[i];

		if (only && !ms_modname_eq(mod->name, only))
			continue;
		r = emit_one(ctx, fi, o, mod, o->nargs > 1 ? o->args[1] : NULL,
			     emit, b.f, &err);
		if (r == -ENOENT && o->all) {
			/* --all covers what it can; the rest is said, not hidden. */
			fprintf(b.f, "# %s: skipped, %s\n", mod->name, err.msg);
			warn("%s", err.msg);
			missing++;
			r = 0;
		} else if (!r) {
			done++;
		}
	}
	if (!r && o->all && done == 0)
		r = ms_err_set(
			&err, ENOENT,
			"no module file found for any of the %zu modules in %s",
			map->nmodules, map->origin);
	if (!r)
		r = write_buf(o, &b, &err);
	if (!r && missing)
		warn("%zu of %zu modules skipped: no file found", missing,
		     map->nmodules);
out:
	ms_buf_free(&b);
	ms_finder_free(fi);
	ms_map_free(map);
	ms_ctx_free(ctx);
	return r ? report(&err, r) : EXIT_OK;
}
