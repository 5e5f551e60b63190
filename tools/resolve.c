// SPDX-License-Identifier: GPL-2.0-or-later
/* modsect resolve: addresses to module, section, symbol, file:line, inlines. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "modsect.h"
#include "../lib/answer.h"

/* Hex digits at s into *v, at most 16; returns the end (s if none). */
static const char *hex64(const char *s, uint64_t *v, bool *overflow)
{
	uint64_t x = 0;
	const char *p = s;

	/* strtoull was a twentieth of resolving 100,000 addresses. */
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && isxdigit((unsigned char)p[2]))
		p += 2;
	for (; isxdigit((unsigned char)*p); p++) {
		if (x >> 60)
			*overflow = true;
		x = x << 4 | (uint64_t)(*p <= '9' ? *p - '0' : (*p | 0x20) - 'a' + 10);
	}
	*v = x;
	return p;
}

/* Hex, with or without 0x, or as a report prints it: [<ffffffffc0a14000>]. */
static int parse_addr(const char *s, uint64_t *ret)
{
	bool bracket, overflow = false;
	const char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	bracket = s[0] == '[' && s[1] == '<';
	if (bracket)
		s += 2;
	end = hex64(s, ret, &overflow);
	if (bracket && end != s && end[0] == '>' && end[1] == ']')
		end += 2;
	else if (bracket)
		return -EINVAL;
	while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
		end++;
	return overflow || end == s || *end ? -EINVAL : 0;
}

/* An address as given, parsed; -EINVAL (err says which) if it is none. */
static int parse_one(const char *s, uint64_t *ret, struct ms_err *err)
{
	if (parse_addr(s, ret) < 0)
		return ms_err_set(err, EINVAL, "not an address: \"%.40s\"", s);
	return 0;
}

/*
 * The module an address may be in, loaded before any output: an error
 * (a module file refused) then leaves none. An arm64 address with a PAC
 * is looked up without it (ms_arm64_strip_pac), and as given if that is
 * in nothing.
 */
static int preload(struct lazy *z, bool pac, uint64_t given,
		   struct ms_err *err)
{
	uint64_t addr = pac ? ms_arm64_strip_pac(given) : given;
	int rc = lazy_by_addr(z, addr, err);

	return rc || addr == given ? rc : lazy_by_addr(z, given, err);
}

static int lookup(struct lazy *z, bool pac, uint64_t given,
		  struct ms_symres *r)
{
	uint64_t addr = pac ? ms_arm64_strip_pac(given) : given;
	int rc = ms_symbolize(z->sym, addr, 0, r);

	if (rc == -ENOENT && addr != given)
		rc = ms_symbolize(z->sym, given, 0, r);
	return rc;
}

/* All of standard input, NUL-terminated, into *ret. */
static int read_stdin(char **ret, size_t *len_ret, struct ms_err *err)
{
	size_t len = 0, cap = 1u << 16;
	char *buf = malloc(cap);

	for (size_t got; buf; len += got) {
		if (cap - len < 2) {
			char *nb = realloc(buf, 2 * cap);

			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		got = fread(buf + len, 1, cap - len - 1, stdin);
		if (got == 0)
			break;
	}
	if (!buf || ferror(stdin) || !feof(stdin)) {
		int e = buf && ferror(stdin) ? EIO : ENOMEM;

		free(buf);
		return e == EIO ? ms_err_set(err, EIO,
					     "standard input: read error") :
				  ms_err_errno(err, ENOMEM, "resolve");
	}
	buf[len] = '\0';
	*ret = buf;
	*len_ret = len;
	return 0;
}

static int push_addr(uint64_t **v, size_t *n, size_t *cap, const char *s,
		     struct ms_err *err)
{
	if (*n == *cap) {
		uint64_t *nv = realloc(*v, 2 * *cap * sizeof(**v));

		if (!nv)
			return ms_err_errno(err, ENOMEM, "resolve");
		*v = nv;
		*cap *= 2;
	}
	return parse_one(s, &(*v)[(*n)++], err);
}

/*
 * Addresses of the arguments, or of standard input's lines, read whole
 * (a line at a time through stdio was a twentieth of 100,000 addresses).
 */
static int read_addrs(const struct opts *o, uint64_t **ret, size_t *n,
		      struct ms_err *err)
{
	size_t cap = o->nargs ? (size_t)o->nargs : 4096, len = 0;
	uint64_t *v = malloc(cap * sizeof(*v));
	char *buf = NULL;
	int r = v ? 0 : ms_err_errno(err, ENOMEM, "resolve");

	*n = 0;
	for (int i = 0; !r && i < o->nargs; i++)
		r = parse_one(o->args[i], &v[(*n)++], err);
	if (!r && o->nargs == 0)
		r = read_stdin(&buf, &len, err);
	for (char *p = buf, *end = buf + len; !r && p && p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end;

		/* A NUL would end the address early and hide the rest. */
		if (memchr(p, '\0', (size_t)(e - p))) {
			r = ms_err_set(err, EINVAL,
				       "standard input: not an address: a line with a NUL byte");
			break;
		}
		*e = '\0';
		p[strcspn(p, "\r")] = '\0';
		if (p[strspn(p, " \t")])
			r = push_addr(&v, n, &cap, p, err);
		p = e + 1;
	}
	free(buf);
	if (r) {
		free(v);
		return r;
	}
	*ret = v;
	return 0;
}

/* An address and where it was given. */
struct pos {
	uint64_t addr;
	size_t at;
};

/*
 * pos sorted by address, equal ones in the order given: a radix sort of
 * the address bytes, least significant first, each pass stable, passes
 * in which all addresses have the same byte (a module's upper half)
 * skipped. qsort was a tenth of the time of 100,000 addresses.
 */
static void sort_pos(struct pos *pos, struct pos *tmp, size_t n)
{
	for (unsigned int shift = 0; shift < 64; shift += 8) {
		size_t count[256] = { 0 }, at = 0;

		for (size_t i = 0; i < n; i++)
			count[pos[i].addr >> shift & 0xff]++;
		if (n == 0 || count[pos[0].addr >> shift & 0xff] == n)
			continue;
		for (size_t b = 0; b < 256; b++) {
			size_t c = count[b];

			count[b] = at;
			at += c;
		}
		for (size_t i = 0; i < n; i++)
			tmp[count[pos[i].addr >> shift & 0xff]++] = pos[i];
		memcpy(pos, tmp, n * sizeof(*pos));
	}
}

/*
 * Addresses are answered in chunks of this many, each looked up in
 * address order: every lookup then finds the index's pages and the last
 * answer's neighbours in the cache, which halved the time of 100,000
 * uniform addresses in btrfs.ko, and an address given twice is looked
 * up once. A chunk's text (190 bytes an answer there) is made in one
 * buffer, used again for the next, and goes out in the order given.
 */
#define CHUNK 8192u

/* Each answer of a chunk: where its text is in the chunk's buffer. */
struct span {
	size_t off, len;
};

struct answers {
	struct lazy *z;
	bool pac, json;
	struct ms_obuf text; /* the chunk's answers, in address order */
	struct ms_obuf out; /* what goes out, in the order given */
	struct pos pos[CHUNK], tmp[CHUNK];
	struct span sp[CHUNK];
	size_t outside;
};

/* Addresses [from, from + n) of addrs, n <= CHUNK. */
static void answer_chunk(struct answers *a, const uint64_t *addrs,
			 size_t from, size_t n)
{
	bool prev_out = false;

	for (size_t k = 0; k < n; k++)
		a->pos[k] = (struct pos){ addrs[from + k], k };
	sort_pos(a->pos, a->tmp, n);
	a->text.len = 0;
	for (size_t k = 0; k < n; k++) {
		size_t i = a->pos[k].at;
		uint64_t addr = a->pos[k].addr;
		struct ms_symres res;

		/* The same address again: the same answer. */
		if (k && a->pos[k - 1].addr == addr) {
			a->outside += prev_out;
			a->sp[i] = a->sp[a->pos[k - 1].at];
			continue;
		}
		prev_out = lookup(a->z, a->pac, addr, &res) == -ENOENT;
		a->outside += prev_out;
		a->sp[i].off = a->text.len;
		if (a->json)
			ms_answer_json(&a->text, &res, addr);
		else
			ms_answer_text(&a->text, &res, addr);
		a->sp[i].len = a->text.len - a->sp[i].off;
	}
	for (size_t i = 0; !a->text.failed && i < n; i++) {
		/* JSON: the array's elements apart, as json-c put them. */
		if (a->json && from + i)
			ms_ob_str(&a->out, ",\n");
		ms_ob_put(&a->out, a->text.data + a->sp[i].off, a->sp[i].len);
		if (a->out.len >= MS_OB_FLUSH)
			ms_ob_flush(&a->out);
	}
}

/*
 * Every address, answered as text or as one JSON array, in the order
 * given. The output goes out as it is made, since every address parsed
 * and every module it needs loaded before.
 */
static int answer(struct lazy *z, bool pac, const uint64_t *addrs, size_t n,
		  const struct opts *o, size_t *outside, struct ms_err *err)
{
	struct answers *a = calloc(1, sizeof(*a));
	struct ms_out *out = NULL;
	int r;

	if (!a)
		return ms_err_errno(err, ENOMEM, "resolve");
	a->z = z;
	a->pac = pac;
	a->json = o->json;
	r = ms_out_open(o->output, &out, err);
	if (!r)
		a->out.sink = ms_out_file(out);
	if (!r && a->json)
		ms_ob_str(&a->out, "[\n");
	for (size_t from = 0; !r && from < n; from += CHUNK)
		answer_chunk(a, addrs, from, n - from < CHUNK ? n - from : CHUNK);
	if (!r && a->json)
		ms_ob_str(&a->out, n ? "\n]\n" : "]\n");
	ms_ob_flush(&a->out);
	if (!r && (a->text.failed || a->out.failed))
		r = ms_err_errno(err, ENOMEM, "building output");
	if (!r)
		r = ms_out_commit(out, err);
	else
		ms_out_abort(out);
	*outside = a->outside;
	free(a->text.data);
	free(a->out.data);
	free(a);
	return r;
}

int do_resolve(struct opts *o)
{
	struct ms_err err = { 0 };
	struct ms_ctx *ctx = NULL;
	struct ms_finder *fi = NULL;
	struct ms_map *map = NULL;
	struct lazy z = { 0 };
	uint64_t *addrs = NULL;
	size_t n = 0, outside = 0;
	bool pac = false;
	int r = setup_ctx(o, &ctx, &err);

	o->core = true;
	if (!r)
		r = read_addrs(o, &addrs, &n, &err);
	if (!r)
		r = load_map(ctx, o, NULL, &map, &err);
	if (!r)
		r = ms_finder_new(ctx, map->release, &fi, &err);
	if (!r)
		r = lazy_init(&z, ctx, fi, o, map, &err);
	/* Addresses from an arm64 report may carry a PAC. */
	if (!r)
		pac = ms_machine_arm64(map->machine);
	for (size_t i = 0; !r && i < n; i++)
		r = preload(&z, pac, addrs[i], &err);
	if (!r)
		r = answer(&z, pac, addrs, n, o, &outside, &err);
	if (!r)
		lazy_save_index(&z);
	free(addrs);
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
