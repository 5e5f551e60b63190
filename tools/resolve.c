// SPDX-License-Identifier: GPL-2.0-or-later
/* modsect resolve: addresses to module, section, symbol, file:line, inlines. */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "modsect.h"

/* Hex, with or without 0x, or as a report prints it: [<ffffffffc0a14000>]. */
static int parse_addr(const char *s, uint64_t *ret)
{
	bool bracket;
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	bracket = s[0] == '[' && s[1] == '<';
	if (bracket)
		s += 2;
	errno = 0;
	*ret = strtoull(s, &end, 16);
	if (bracket && end != s && end[0] == '>' && end[1] == ']')
		end += 2;
	else if (bracket)
		return -EINVAL;
	while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
		end++;
	return errno || end == s || *end ? -EINVAL : 0;
}

/*
 * The hot path of a large batch: stdio's printf machinery was a fifth of
 * the run time, and a memory stream copies itself as it grows (a third of
 * the time for 100,000 addresses), so the text is formatted here into a
 * buffer that realloc can move without copying.
 */
struct obuf {
	char *data;
	size_t len, cap;
	bool failed; /* out of memory: the output is incomplete */
};

static char *ob_room(struct obuf *b, size_t n)
{
	if (b->failed)
		return NULL;
	if (b->cap - b->len < n) {
		size_t ncap = b->cap ? b->cap : 1u << 16;
		char *d;

		while (ncap - b->len < n)
			ncap *= 2;
		d = realloc(b->data, ncap);
		if (!d) {
			b->failed = true;
			return NULL;
		}
		b->data = d;
		b->cap = ncap;
	}
	return b->data + b->len;
}

static void ob_put(struct obuf *b, const char *s, size_t n)
{
	char *p = ob_room(b, n);

	if (p) {
		memcpy(p, s, n);
		b->len += n;
	}
}

static void ob_str(struct obuf *b, const char *s)
{
	ob_put(b, s, strlen(s));
}

static void ob_char(struct obuf *b, char c)
{
	ob_put(b, &c, 1);
}

static void put_hex(struct obuf *b, uint64_t v, int width)
{
	char buf[20], *p = buf + sizeof(buf);

	do {
		*--p = "0123456789abcdef"[v & 0xf];
		v >>= 4;
	} while (v || buf + sizeof(buf) - p < width);
	*--p = 'x';
	*--p = '0';
	ob_put(b, p, (size_t)(buf + sizeof(buf) - p));
}

static void put_dec(struct obuf *b, int v)
{
	char buf[16], *p = buf + sizeof(buf);
	unsigned int u = v < 0 ? 0u - (unsigned int)v : (unsigned int)v;

	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	ob_put(b, p, (size_t)(buf + sizeof(buf) - p));
}

static void put_sym(struct obuf *b, const char *name, uint64_t off,
		    uint64_t size)
{
	ob_char(b, ' ');
	ob_str(b, name);
	ob_char(b, '+');
	put_hex(b, off, 1);
	ob_char(b, '/');
	put_hex(b, size, 1);
}

/*
 * The address, and the one it was given as when that carried a PAC:
 * "0xffff80000a1b002c (PAC cleared from 0xffd080000a1b002c):".
 */
static void print_text(struct obuf *b, const struct ms_symres *r,
		       uint64_t given)
{
	put_hex(b, r->addr, 16);
	if (given != r->addr) {
		ob_str(b, " (PAC cleared from ");
		put_hex(b, given, 16);
		ob_char(b, ')');
	}
	ob_char(b, ':');
	if (r->core) {
		put_sym(b, r->symbol, r->symbol_offset, r->symbol_size);
		ob_str(b, " [kernel]\n");
		return;
	}
	if (!r->module) {
		ob_str(b, " in no module and no kernel symbol\n");
		return;
	}
	if (r->symbol)
		put_sym(b, r->symbol, r->symbol_offset, r->symbol_size);
	ob_str(b, " [");
	ob_str(b, r->module);
	ob_char(b, ']');
	if (r->section) {
		ob_char(b, ' ');
		ob_str(b, r->section);
		ob_char(b, '+');
		put_hex(b, r->section_offset, 1);
	}
	ob_char(b, '\n');
	for (size_t i = 0; i < r->nframes; i++) {
		const struct ms_frame *f = &r->frames[i];

		ob_str(b, i ? "    (inlined by) " : "    ");
		ob_str(b, f->func);
		ob_str(b, " at ");
		ob_str(b, f->file ? f->file : "??");
		ob_char(b, ':');
		put_dec(b, f->line);
		if (f->col) {
			ob_char(b, ':');
			put_dec(b, f->col);
		}
		ob_char(b, '\n');
	}
}

static json_object *to_json(const struct ms_symres *r, uint64_t given)
{
	json_object *o = json_object_new_object(), *a;
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%016" PRIx64, r->addr);
	json_object_object_add(o, "address", json_object_new_string(buf));
	if (given != r->addr) {
		snprintf(buf, sizeof(buf), "0x%016" PRIx64, given);
		json_object_object_add(o, "address_with_pac",
				       json_object_new_string(buf));
	}
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

/*
 * One address: into the text output or the JSON array. An arm64 address
 * with a PAC is looked up without it (ms_arm64_strip_pac); if that is in
 * no module or kernel symbol either, the address is reported as given.
 */
static int one(struct lazy *z, bool pac, const char *s, struct obuf *out,
	       json_object *arr, size_t *outside, struct ms_err *err)
{
	struct ms_symres r;
	uint64_t given, addr;
	int rc;

	if (parse_addr(s, &given) < 0)
		return ms_err_set(err, EINVAL, "not an address: \"%.40s\"", s);
	addr = pac ? ms_arm64_strip_pac(given) : given;
	rc = lazy_by_addr(z, addr, err);
	if (rc)
		return rc;
	rc = ms_symbolize(z->sym, addr, 0, &r);
	if (rc == -ENOENT && addr != given) {
		addr = given;
		rc = lazy_by_addr(z, addr, err);
		if (rc)
			return rc;
		rc = ms_symbolize(z->sym, addr, 0, &r);
	}
	if (rc == -ENOENT)
		(*outside)++;
	if (arr)
		json_object_array_add(arr, to_json(&r, given));
	else
		print_text(out, &r, given);
	return 0;
}

int do_resolve(struct opts *o)
{
	struct ms_err err = { 0 };
	struct ms_ctx *ctx = NULL;
	struct ms_finder *fi = NULL;
	struct ms_map *map = NULL;
	struct lazy z = { 0 };
	struct obuf b = { 0 };
	json_object *arr = NULL;
	bool pac = false;
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
	/* Addresses from an arm64 report may carry a PAC. */
	if (!r)
		pac = ms_machine_arm64(map->machine);
	if (!r && o->json)
		arr = json_object_new_array();
	for (int i = 0; !r && i < o->nargs; i++)
		r = one(&z, pac, o->args[i], &b, arr, &outside, &err);
	for (ssize_t len; !r && o->nargs == 0 &&
			  (len = getline(&line, &cap, stdin)) > 0;) {
		/* A NUL would end the address early and hide the rest. */
		if (memchr(line, '\0', (size_t)len))
			r = ms_err_set(&err, EINVAL,
				       "standard input: not an address: a line with a NUL byte");
		else if (line[strspn(line, " \t\r\n")]) {
			line[strcspn(line, "\r\n")] = '\0';
			r = one(&z, pac, line, &b, arr, &outside, &err);
		}
	}
	if (!r && arr) {
		ob_str(&b,
		       json_object_to_json_string_ext(
			       arr, JSON_C_TO_STRING_PRETTY |
					    JSON_C_TO_STRING_NOSLASHESCAPE));
		ob_char(&b, '\n');
	}
	if (!r && b.failed)
		r = ms_err_errno(&err, ENOMEM, "building output");
	if (!r)
		r = ms_write_out(o->output, b.data, b.len, &err);
	json_object_put(arr);
	free(line);
	free(b.data);
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
