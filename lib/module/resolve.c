// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One module of the map with everything the commands need of it: its
 * file, found and checked, its layout and its debug info.
 */
#include <errno.h>
#include <string.h>

#include "module.h"

void ms_resolved_clear(struct ms_resolved *r)
{
	ms_debuginfo_free(r->debug);
	ms_layout_free(r->layout);
	ms_modfile_free(r->file);
	memset(r, 0, sizeof(*r));
}

char *ms_module_file_path(struct ms_finder *fi, const struct ms_module *mod)
{
	struct ms_modfile *f;
	struct ms_err err = { 0 };
	char *path = NULL;

	if (!ms_finder_open(fi, mod->name, mod->build_id, &f, &err)) {
		path = strdup(ms_modfile_path(f));
		ms_modfile_free(f);
	}
	return path;
}

static int open_modfile(struct ms_finder *fi, const struct ms_module *mod,
			const char *path, struct ms_modfile **ret,
			struct ms_err *err)
{
	if (path)
		return ms_finder_open_file(fi, path, ret, err);
	return ms_finder_open(fi, mod->name, mod->build_id, ret, err);
}

/*
 * The module file proves where the sections are; the debug info says what
 * they mean. Without a module file, a debug file found by build-id serves
 * as both (its section headers are the module's).
 */
int ms_module_resolve(struct ms_finder *fi, const struct ms_map *map,
		      const struct ms_module *mod, const char *path,
		      const char *debug_file, unsigned int flags,
		      struct ms_resolved *ret, struct ms_err *err)
{
	struct ms_resolved r = { 0 };
	struct ms_err ferr = { 0 };
	int rc = open_modfile(fi, mod, path, &r.file, &ferr);

	if (rc && rc != -ENOENT) {
		*err = ferr;
		return rc;
	}
	rc = ms_debuginfo_find(fi, mod, r.file, map->release, debug_file,
			       flags & MS_LAYOUT_FORCE ? MS_DEBUG_FORCE : 0,
			       &r.debug, err);
	if (!rc && !r.file && r.debug->file && r.debug->owned) {
		r.file = r.debug->file; /* the layout reads its sections */
		r.debug->owned = false;
	}
	if (!rc && !r.file) {
		*err = ferr;
		rc = -ENOENT;
	}
	if (!rc)
		rc = ms_modfile_check_machine(r.file, map->machine, err);
	if (!rc)
		rc = ms_layout_build(mod, r.file, flags, &r.layout, err);
	if (!rc)
		r.layout->debug = r.debug;
	if (rc) {
		ms_resolved_clear(&r);
		return rc;
	}
	*ret = r;
	return 0;
}
