// SPDX-License-Identifier: GPL-2.0-or-later
/* modsect sections: one module's sections, from the map and the file. */
#include <gelf.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <string.h>

#include "cli.h"

static const char *place_str(enum ms_place p)
{
	static const char *const names[] = {
		[MS_PLACE_LOADED] = "loaded",
		[MS_PLACE_PERCPU] = "percpu",
		[MS_PLACE_PARKED] = "not-loaded",
		[MS_PLACE_INIT_FREED] = "freed",
		[MS_PLACE_NOT_ALLOC] = "not-alloc",
	};

	return names[p];
}

static void flags_str(uint64_t f, char *buf)
{
	char *o = buf;

	if (f & SHF_WRITE)
		*o++ = 'W';
	if (f & SHF_ALLOC)
		*o++ = 'A';
	if (f & SHF_EXECINSTR)
		*o++ = 'X';
	if (f & SHF_MERGE)
		*o++ = 'M';
	if (f & SHF_STRINGS)
		*o++ = 'S';
	*o = '\0';
}

/* Untrusted names are shown with non-printable bytes as \xHH. */
static void put_name(FILE *out, const char *s, int width)
{
	int n = 0;

	for (; *s; s++, n++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c >= 0x7f || c == '\\')
			n += fprintf(out, "\\x%02x", c) - 1;
		else
			fputc(c, out);
	}
	fprintf(out, "%*s", width > n ? width - n : 1, "");
}

/* debug_file, debug_source, debug_verified, debug_skipped. */
static void debug_json(json_object *o, const struct ms_debuginfo *d)
{
	bool has = d && d->file;

	json_object_object_add(
		o, "debug_file",
		has ? json_object_new_string(ms_modfile_path(d->file)) : NULL);
	json_object_object_add(o, "debug_source",
			       json_object_new_string(ms_dsource_str(
				       has ? d->source : MS_DS_NONE)));
	json_object_object_add(
		o, "debug_verified",
		has ? json_object_new_string(ms_verify_str(d->verify)) : NULL);
	json_object_object_add(o, "debug_skipped", json_skipped(d));
}

static void print_json(FILE *out, const struct ms_layout *l)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();
	const struct ms_module *m = l->mod;
	const char *bid = ms_modfile_build_id(l->file);

	json_object_object_add(o, "module", json_object_new_string(m->name));
	json_object_object_add(
		o, "initstate",
		m->initstate ? json_object_new_string(m->initstate) : NULL);
	json_object_object_add(
		o, "file", json_object_new_string(ms_modfile_path(l->file)));
	json_object_object_add(
		o, "debugger_file",
		json_object_new_string(ms_layout_debugger_path(l)));
	json_object_object_add(
		o, "build_id",
		m->build_id ? json_object_new_string(m->build_id) : NULL);
	json_object_object_add(o, "file_build_id",
			       bid ? json_object_new_string(bid) : NULL);
	json_object_object_add(
		o, "verified",
		json_object_new_string(ms_verify_str(l->verify)));
	debug_json(o, l->debug);
	for (size_t i = 0; i < l->nsecs; i++) {
		const struct ms_lsec *s = &l->secs[i];
		json_object *j = json_object_new_object();
		char fl[8];

		flags_str(s->flags, fl);
		json_object_object_add(j, "name",
				       json_object_new_string(s->name));
		json_object_object_add(j, "address",
				       s->in_map ? json_hex(s->map_addr) :
				       s->place == MS_PLACE_PERCPU ?
						   json_hex(s->addr) :
						   NULL);
		json_object_object_add(j, "debugger_address", json_hex(s->addr));
		json_object_object_add(j, "size",
				       json_object_new_uint64(s->size));
		json_object_object_add(j, "flags", json_object_new_string(fl));
		json_object_object_add(j, "init",
				       json_object_new_boolean(s->init));
		json_object_object_add(
			j, "state",
			json_object_new_string(place_str(s->place)));
		json_object_array_add(a, j);
	}
	json_object_object_add(o, "sections", a);
	json_print(out, o);
}

static void print_debug(FILE *out, const struct ms_debuginfo *d)
{
	if (!d || !d->file)
		fprintf(out, "debug:    none found\n");
	else
		fprintf(out, "debug:    %s (%s, %s)\n",
			ms_modfile_path(d->file), ms_dsource_str(d->source),
			ms_verify_str(d->verify));
	for (size_t i = 0; d && i < d->nskipped; i++)
		fprintf(out, "skipped:  %s: %s\n", d->skipped[i].path,
			d->skipped[i].reason);
}

static void print_table(FILE *out, const struct ms_layout *l)
{
	fprintf(out, "module:   %s (%s)\n", l->mod->name,
		l->mod->initstate ? l->mod->initstate : "initstate unknown");
	fprintf(out, "file:     %s\n", ms_modfile_path(l->file));
	fprintf(out, "verified: %s%s%s\n", ms_verify_str(l->verify),
		l->note ? ": " : "", l->note ? l->note : "");
	print_debug(out, l->debug);
	fprintf(out, "%-28s %-18s %10s %-5s %-4s %s\n", "SECTION", "ADDRESS",
		"SIZE", "FLAGS", "INIT", "STATE");
	for (size_t i = 0; i < l->nsecs; i++) {
		const struct ms_lsec *s = &l->secs[i];
		char fl[8];

		flags_str(s->flags, fl);
		put_name(out, s->name, 29);
		if (s->in_map || s->place == MS_PLACE_PERCPU)
			fprintf(out, "0x%016" PRIx64 " ",
				s->in_map ? s->map_addr : s->addr);
		else
			fprintf(out, "%-18s ", "-");
		fprintf(out, "%10" PRIu64 " %-5s %-4s %s\n", s->size, fl,
			s->init ? "yes" : "no", place_str(s->place));
	}
}

int do_sections(struct run *run)
{
	const struct opts *o = run->o;
	struct ms_resolved res = { 0 };
	struct ms_buf b = { 0 };
	int r = ms_module_resolve(run->fi, run->map,
				  ms_map_find(run->map, o->args[0]),
				  o->nargs > 1 ? o->args[1] : NULL,
				  o->debug_file, layout_flags(o), &res,
				  &run->err);

	if (!r)
		r = ms_buf_open(&b, &run->err);
	if (!r) {
		if (o->json)
			print_json(b.f, res.layout);
		else
			print_table(b.f, res.layout);
		r = write_buf(o, &b, &run->err);
	}
	ms_buf_free(&b);
	ms_resolved_clear(&res);
	return r;
}
