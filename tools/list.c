// SPDX-License-Identifier: GPL-2.0-or-later
/* modsect list: loaded modules, their files, and whether they match. */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct row {
	const struct ms_module *mod;
	const struct ms_section *text;
	/*
	 * What is printed, kept instead of the opened files: 10,000 rows must
	 * not hold 10,000 mapped modules.
	 */
	char *file; /* the verified file, or the one refused as another build */
	const char *debug; /* where its debug info comes from */
	const char *verified; /* build-id, srcversion, unverified, mismatch, - */
};

static void check(const struct ms_ctx *ctx, struct ms_finder *fi,
		  const struct opts *o, const struct ms_map *map,
		  struct row *row)
{
	struct ms_err err = { 0 };
	struct resolved res = { 0 };
	int r = resolve(ctx, fi, o, map, row->mod, NULL, &res, &err);

	row->text = ms_module_section(row->mod, ".text");
	row->debug = ms_dsource_str(MS_DS_NONE);
	if (r == 0) {
		row->verified = ms_verify_str(res.layout->verify);
		row->file = strdup(ms_modfile_path(res.file));
		if (res.debug && res.debug->file)
			row->debug = ms_dsource_str(res.debug->source);
		resolved_clear(&res);
	} else if (err.code == EBADMSG) {
		struct ms_modfile *f;

		row->verified = "mismatch";
		/* Name the refused file: it is what the user must replace. */
		if (!ms_finder_open(fi, row->mod->name, row->mod->build_id, &f,
				    &err)) {
			row->file = strdup(ms_modfile_path(f));
			ms_modfile_free(f);
		}
	} else if (r == -ENOENT)
		row->verified = "-";
	else
		row->verified = "error";
}

static const char *file_of(const struct row *r)
{
	return r->file;
}

static const char *debug_of(const struct row *r)
{
	return r->debug;
}

static void print_json(FILE *out, const struct row *rows, size_t n)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++) {
		json_object *j = json_object_new_object();
		char buf[24];

		json_object_object_add(
			j, "name", json_object_new_string(rows[i].mod->name));
		json_object_object_add(
			j, "initstate",
			rows[i].mod->initstate ?
				json_object_new_string(rows[i].mod->initstate) :
				NULL);
		snprintf(buf, sizeof(buf), "0x%016" PRIx64,
			 rows[i].text ? rows[i].text->addr : 0);
		json_object_object_add(
			j, "text",
			rows[i].text ? json_object_new_string(buf) : NULL);
		json_object_object_add(
			j, "file",
			file_of(&rows[i]) ?
				json_object_new_string(file_of(&rows[i])) :
				NULL);
		json_object_object_add(
			j, "debug", json_object_new_string(debug_of(&rows[i])));
		json_object_object_add(
			j, "verified",
			json_object_new_string(rows[i].verified));
		json_object_array_add(a, j);
	}
	fprintf(out, "%s\n",
		json_object_to_json_string_ext(
			a, JSON_C_TO_STRING_PRETTY |
				   JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(a);
}

static void print_table(FILE *out, const struct row *rows, size_t n)
{
	fprintf(out, "%-24s %-8s %-18s %-10s %-10s %s\n", "MODULE", "STATE",
		"TEXT", "VERIFIED", "DEBUG", "FILE");
	for (size_t i = 0; i < n; i++) {
		char text[24] = "-";

		if (rows[i].text)
			snprintf(text, sizeof(text), "0x%016" PRIx64,
				 rows[i].text->addr);
		fprintf(out, "%-24s %-8s %-18s %-10s %-10s %s\n",
			rows[i].mod->name,
			rows[i].mod->initstate ? rows[i].mod->initstate : "-",
			text, rows[i].verified, debug_of(&rows[i]),
			file_of(&rows[i]) ? file_of(&rows[i]) : "-");
	}
}

int do_list(struct opts *o)
{
	struct ms_err err = { 0 };
	struct ms_ctx *ctx = NULL;
	struct ms_finder *fi = NULL;
	struct ms_map *map = NULL;
	struct ms_buf b = { 0 };
	struct row *rows = NULL;
	int r = setup_ctx(o, &ctx, &err);

	if (!r)
		r = load_map(ctx, o, NULL, &map, &err);
	if (!r)
		r = ms_finder_new(ctx, map->release, &fi, &err);
	if (!r && !(rows = calloc(map->nmodules + 1, sizeof(*rows))))
		r = ms_err_errno(&err, ENOMEM, "list");
	for (size_t i = 0; !r && i < map->nmodules; i++) {
		rows[i].mod = &map->modules[i];
		check(ctx, fi, o, map, &rows[i]);
	}
	if (!r)
		r = ms_buf_open(&b, &err);
	if (!r) {
		if (o->json)
			print_json(b.f, rows, map->nmodules);
		else
			print_table(b.f, rows, map->nmodules);
		r = write_buf(o, &b, &err);
	}
	for (size_t i = 0; rows && i < map->nmodules; i++)
		free(rows[i].file);
	free(rows);
	ms_buf_free(&b);
	warn_debuginfod(fi);
	ms_finder_free(fi);
	ms_map_free(map);
	ms_ctx_free(ctx);
	return r ? report(&err, r) : EXIT_OK;
}
