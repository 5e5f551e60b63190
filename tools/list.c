// SPDX-License-Identifier: GPL-2.0-or-later
/* modsect list: loaded modules, their files, and whether they match. */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "modsect.h"

struct row {
	const struct ms_module *mod;
	const struct ms_section *text;
	struct ms_modfile *file;
	const char *verified; /* build-id, srcversion, unverified, MISMATCH, - */
};

static void check(const struct ms_ctx *ctx, struct ms_finder *fi,
		  struct row *row)
{
	struct ms_layout *l = NULL;
	struct ms_err err = { 0 };

	row->text = ms_module_section(row->mod, ".text");
	row->verified = "-";
	if (ms_finder_open(fi, row->mod->name, row->mod->build_id, &row->file,
			   &err) < 0) {
		row->file = NULL;
		return;
	}
	(void)ctx;
	if (ms_layout_build(row->mod, row->file, 0, &l, &err) < 0)
		row->verified = err.code == EBADMSG ? "mismatch" : "error";
	else
		row->verified = ms_verify_str(l->verify);
	ms_layout_free(l);
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
			rows[i].file ? json_object_new_string(
					       ms_modfile_path(rows[i].file)) :
				       NULL);
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
	fprintf(out, "%-24s %-8s %-18s %-10s %s\n", "MODULE", "STATE", "TEXT",
		"VERIFIED", "FILE");
	for (size_t i = 0; i < n; i++) {
		char text[24] = "-";

		if (rows[i].text)
			snprintf(text, sizeof(text), "0x%016" PRIx64,
				 rows[i].text->addr);
		fprintf(out, "%-24s %-8s %-18s %-10s %s\n", rows[i].mod->name,
			rows[i].mod->initstate ? rows[i].mod->initstate : "-",
			text, rows[i].verified,
			rows[i].file ? ms_modfile_path(rows[i].file) : "-");
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
		check(ctx, fi, &rows[i]);
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
		ms_modfile_free(rows[i].file);
	free(rows);
	ms_buf_free(&b);
	ms_finder_free(fi);
	ms_map_free(map);
	ms_ctx_free(ctx);
	return r ? report(&err, r) : EXIT_OK;
}
