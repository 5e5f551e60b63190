// SPDX-License-Identifier: GPL-2.0-or-later
/* modsect debuginfo: each module's debug info, where it came from, proof. */
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct row {
	const struct ms_module *mod;
	struct ms_resolved res;
	bool found; /* debug info found */
};

static const char *build_id(const struct row *r)
{
	if (r->mod->build_id)
		return r->mod->build_id;
	if (r->res.debug && r->res.debug->file)
		return ms_modfile_build_id(r->res.debug->file);
	return NULL;
}

static void print_table(FILE *out, const struct row *rows, size_t n)
{
	fprintf(out, "%-24s %-40s %-10s %-10s %s\n", "MODULE", "BUILD-ID",
		"SOURCE", "VERIFIED", "FILE");
	for (size_t i = 0; i < n; i++) {
		const struct ms_debuginfo *d = rows[i].res.debug;
		const char *bid = build_id(&rows[i]);

		fprintf(out, "%-24s %-40s %-10s %-10s %s\n", rows[i].mod->name,
			bid ? bid : "-",
			ms_dsource_str(rows[i].found ? d->source : MS_DS_NONE),
			rows[i].found ? ms_verify_str(d->verify) : "-",
			rows[i].found ? ms_modfile_path(d->file) : "-");
	}
}

/* source, verified, file, and the candidates passed over. */
static void add_debug(json_object *j, const struct row *r)
{
	const struct ms_debuginfo *d = r->res.debug;
	json_object_object_add(j, "source",
			       json_object_new_string(ms_dsource_str(
				       r->found ? d->source : MS_DS_NONE)));
	json_object_object_add(
		j, "verified",
		r->found ? json_object_new_string(ms_verify_str(d->verify)) :
			   NULL);
	json_object_object_add(
		j, "file",
		r->found ? json_object_new_string(ms_modfile_path(d->file)) :
			   NULL);
	json_object_object_add(j, "skipped", json_skipped(d));
}

static void print_json(FILE *out, const struct row *rows, size_t n)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++) {
		json_object *j = json_object_new_object();
		const char *bid = build_id(&rows[i]);

		json_object_object_add(
			j, "module", json_object_new_string(rows[i].mod->name));
		json_object_object_add(j, "build_id",
				       bid ? json_object_new_string(bid) :
					     NULL);
		add_debug(j, &rows[i]);
		json_object_array_add(a, j);
	}
	json_print(out, a);
}

/* The modules asked for, in map order; -ENOENT names one not loaded. */
static int pick(const struct opts *o, const struct ms_map *map,
		struct row *rows, size_t *n, struct ms_err *err)
{
	*n = 0;
	if (o->all) {
		for (size_t i = 0; i < map->nmodules; i++)
			rows[(*n)++].mod = &map->modules[i];
		return 0;
	}
	for (int i = 0; i < o->nargs; i++) {
		const struct ms_module *m = ms_map_find(map, o->args[i]);

		if (!m)
			return ms_err_set(err, ENOENT, "module %s is not in %s",
					  o->args[i], map->origin);
		rows[(*n)++].mod = m;
	}
	return 0;
}

int do_debuginfo(struct run *run)
{
	const struct opts *o = run->o;
	const struct ms_map *map = run->map;
	struct ms_err *err = &run->err;
	struct ms_buf b = { 0 };
	struct row *rows = calloc(map->nmodules + o->nargs + 1, sizeof(*rows));
	size_t n = 0, missing = 0;
	int r = rows ? 0 : ms_err_errno(err, ENOMEM, "debuginfo");

	if (!r)
		r = pick(o, map, rows, &n, err);
	for (size_t i = 0; !r && i < n; i++) {
		r = ms_module_resolve(run->fi, map, rows[i].mod, NULL,
				      o->debug_file, layout_flags(o),
				      &rows[i].res, err);
		if (r == -ENOENT) /* neither module file nor debug info */
			r = 0;
		rows[i].found = !r && rows[i].res.debug &&
				rows[i].res.debug->file;
		missing += !rows[i].found;
	}
	if (!r)
		r = ms_buf_open(&b, err);
	if (!r) {
		if (o->json)
			print_json(b.f, rows, n);
		else
			print_table(b.f, rows, n);
		r = write_buf(o, &b, err);
	}
	for (size_t i = 0; rows && i < n; i++)
		ms_resolved_clear(&rows[i].res);
	free(rows);
	ms_buf_free(&b);
	if (r)
		return r;
	run_finder_warn(run);
	if (missing)
		warn("%zu of %zu modules have no debug info", missing, n);
	return missing ? EXIT_NOTFOUND : EXIT_OK;
}
