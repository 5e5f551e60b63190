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

static void check(struct ms_finder *fi, const struct opts *o,
		  const struct ms_map *map, struct row *row)
{
	struct ms_err err = { 0 };
	struct ms_resolved res = { 0 };
	int r = ms_module_resolve(fi, map, row->mod, NULL, o->debug_file,
				  layout_flags(o), &res, &err);

	row->text = ms_module_section(row->mod, ".text");
	row->debug = ms_dsource_str(MS_DS_NONE);
	if (r == 0) {
		row->verified = ms_verify_str(res.layout->verify);
		row->file = strdup(ms_modfile_path(res.file));
		if (res.debug && res.debug->file)
			row->debug = ms_dsource_str(res.debug->source);
		ms_resolved_clear(&res);
	} else if (err.code == EBADMSG) {
		row->verified = "mismatch";
		/* Name the refused file: it is what the user must replace. */
		row->file = ms_module_file_path(fi, row->mod);
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
	json_print(out, a);
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

int do_list(struct run *run)
{
	const struct ms_map *map = run->map;
	struct ms_buf b = { 0 };
	struct row *rows = calloc(map->nmodules + 1, sizeof(*rows));
	int r = rows ? 0 : ms_err_errno(&run->err, ENOMEM, "list");

	for (size_t i = 0; !r && i < map->nmodules; i++) {
		rows[i].mod = &map->modules[i];
		check(run->fi, run->o, map, &rows[i]);
	}
	if (!r)
		r = ms_buf_open(&b, &run->err);
	if (!r) {
		if (run->o->json)
			print_json(b.f, rows, map->nmodules);
		else
			print_table(b.f, rows, map->nmodules);
		r = write_buf(run->o, &b, &run->err);
	}
	for (size_t i = 0; rows && i < map->nmodules; i++)
		free(rows[i].file);
	free(rows);
	ms_buf_free(&b);
	return r;
}
