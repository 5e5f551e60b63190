// SPDX-License-Identifier: GPL-2.0-or-later
/* modsect resolve: addresses to module, section, symbol, file:line, inlines. */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "modsect.h"

static int parse_addr(const char *s, uint64_t *ret)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	errno = 0;
	*ret = strtoull(s, &end, 16);
	while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
		end++;
	return errno || end == s || *end ? -EINVAL : 0;
}

/*
 * The hot path of a large batch: stdio's printf machinery was a fifth of
 * the run time, so numbers are formatted here.
 */
static void put_hex(FILE *out, uint64_t v, int width)
{
	char buf[20], *p = buf + sizeof(buf);

	do {
		*--p = "0123456789abcdef"[v & 0xf];
		v >>= 4;
	} while (v || buf + sizeof(buf) - p < width);
	fputs_unlocked("0x", out);
	fwrite_unlocked(p, 1, (size_t)(buf + sizeof(buf) - p), out);
}

static void put_dec(FILE *out, int v)
{
	char buf[16], *p = buf + sizeof(buf);
	unsigned int u = v < 0 ? 0u - (unsigned int)v : (unsigned int)v;

	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	fwrite_unlocked(p, 1, (size_t)(buf + sizeof(buf) - p), out);
}

static void put_sym(FILE *out, const char *name, uint64_t off, uint64_t size)
{
	putc_unlocked(' ', out);
	fputs_unlocked(name, out);
	putc_unlocked('+', out);
	put_hex(out, off, 1);
	putc_unlocked('/', out);
	put_hex(out, size, 1);
}

static void print_text(FILE *out, const struct ms_symres *r)
{
	put_hex(out, r->addr, 16);
	putc_unlocked(':', out);
	if (r->core) {
		put_sym(out, r->symbol, r->symbol_offset, r->symbol_size);
		fputs_unlocked(" [kernel]\n", out);
		return;
	}
	if (!r->module) {
		fputs_unlocked(" in no module and no kernel symbol\n", out);
		return;
	}
	if (r->symbol)
		put_sym(out, r->symbol, r->symbol_offset, r->symbol_size);
	fputs_unlocked(" [", out);
	fputs_unlocked(r->module, out);
	putc_unlocked(']', out);
	if (r->section) {
		putc_unlocked(' ', out);
		fputs_unlocked(r->section, out);
		putc_unlocked('+', out);
		put_hex(out, r->section_offset, 1);
	}
	putc_unlocked('\n', out);
	for (size_t i = 0; i < r->nframes; i++) {
		const struct ms_frame *f = &r->frames[i];

		fputs_unlocked(i ? "    (inlined by) " : "    ", out);
		fputs_unlocked(f->func, out);
		fputs_unlocked(" at ", out);
		fputs_unlocked(f->file ? f->file : "??", out);
		putc_unlocked(':', out);
		put_dec(out, f->line);
		if (f->col) {
			putc_unlocked(':', out);
			put_dec(out, f->col);
		}
		putc_unlocked('\n', out);
	}
}

static json_object *to_json(const struct ms_symres *r)
{
	json_object *o = json_object_new_object(), *a;
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%016" PRIx64, r->addr);
	json_object_object_add(o, "address", json_object_new_string(buf));
	json_object_object_add(o, "module",
			       r->module ? json_object_new_string(r->module) :
			       r->core	 ? json_object_new_string("kernel") :
					   NULL);
	json_object_object_add(o, "section",
			       r->section ? json_object_new_string(r->section) :
					    NULL);
	if (r->section)
		json_object_object_add(
			o, "section_offset",
			json_object_new_uint64(r->section_offset));
	json_object_object_add(o, "symbol",
			       r->symbol ? json_object_new_string(r->symbol) :
					   NULL);
	if (r->symbol) {
		json_object_object_add(
			o, "offset", json_object_new_uint64(r->symbol_offset));
		json_object_object_add(o, "size",
				       json_object_new_uint64(r->symbol_size));
	}
	a = json_object_new_array();
	for (size_t i = 0; i < r->nframes; i++) {
		json_object *f = json_object_new_object();

		json_object_object_add(
			f, "function",
			json_object_new_string(r->frames[i].func));
		json_object_object_add(
			f, "file",
			r->frames[i].file ?
				json_object_new_string(r->frames[i].file) :
				NULL);
		json_object_object_add(f, "line",
				       json_object_new_int(r->frames[i].line));
		json_object_object_add(f, "column",
				       json_object_new_int(r->frames[i].col));
		json_object_array_add(a, f);
	}
	json_object_object_add(o, "frames", a);
	return o;
}

/* One address: into the text output or the JSON array. */
static int one(struct lazy *z, const char *s, FILE *out, json_object *arr,
	       size_t *outside, struct ms_err *err)
{
	struct ms_symres r;
	uint64_t addr;
	int rc;

	if (parse_addr(s, &addr) < 0)
		return ms_err_set(err, EINVAL, "not an address: \"%.40s\"", s);
	rc = lazy_by_addr(z, addr, err);
	if (rc)
		return rc;
	if (ms_symbolize(z->sym, addr, 0, &r) == -ENOENT)
		(*outside)++;
	if (arr)
		json_object_array_add(arr, to_json(&r));
	else
		print_text(out, &r);
	return 0;
}

int do_resolve(struct opts *o)
{
	struct ms_err err = { 0 };
	struct ms_ctx *ctx = NULL;
	struct ms_finder *fi = NULL;
	struct ms_map *map = NULL;
	struct lazy z = { 0 };
	struct ms_buf b = { 0 };
	json_object *arr = NULL;
	size_t outside = 0;
	char *line = NULL;
	size_t cap = 0;
	int r = setup_ctx(o, &ctx, &err);

	o->core = true;
	if (!r)
		r = load_map(ctx, o, NULL, &map, &err);
	if (!r)
		r = ms_finder_new(ctx, map->release, &fi, &err);
	if (!r)
		r = lazy_init(&z, ctx, fi, o, map, &err);
	if (!r)
		r = ms_buf_open(&b, &err);
	if (!r && o->json)
		arr = json_object_new_array();
	for (int i = 0; !r && i < o->nargs; i++)
		r = one(&z, o->args[i], b.f, arr, &outside, &err);
	while (!r && o->nargs == 0 && getline(&line, &cap, stdin) > 0)
		if (line[strspn(line, " \t\r\n")])
			r = one(&z, line, b.f, arr, &outside, &err);
	if (!r && arr)
		fprintf(b.f, "%s\n",
			json_object_to_json_string_ext(
				arr, JSON_C_TO_STRING_PRETTY |
					     JSON_C_TO_STRING_NOSLASHESCAPE));
	if (!r)
		r = write_buf(o, &b, &err);
	json_object_put(arr);
	free(line);
	ms_buf_free(&b);
	if (map)
		lazy_clear(&z);
	warn_debuginfod(fi);
	ms_finder_free(fi);
	ms_map_free(map);
	ms_ctx_free(ctx);
	if (r)
		return report(&err, r);
	return outside ? EXIT_NOTFOUND : EXIT_OK;
}
