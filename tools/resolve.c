// SPDX-License-Identifier: GPL-2.0-or-later
/* modsect resolve: addresses to module, section, symbol, file:line, inlines. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* Hex digits in [s, end) into *v, at most 16; returns their end (s if none). */
static const char *hex64(const char *s, const char *end, uint64_t *v,
			 bool *overflow)
{
	uint64_t x = 0;
	const char *p = s;

	/* strtoull was a twentieth of resolving 100,000 addresses. */
	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
	    isxdigit((unsigned char)p[2]))
		p += 2;
	for (; p < end && isxdigit((unsigned char)*p); p++) {
		if (x >> 60)
			*overflow = true;
		x = x << 4 | (uint64_t)(*p <= '9' ? *p - '0' : (*p | 0x20) - 'a' + 10);
	}
	*v = x;
	return p;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * [s, end): hex, with or without 0x, or as a report prints it:
 * [<ffffffffc0a14000>]. 0, -EINVAL if it is none, 1 if it is blank. A
 * line of standard input ends at a CR; an argument may end in CR or LF.
 * One pass over the bytes: the scans for each line's end, CR, NUL and
 * blankness, then the parse, were a tenth of resolving 100,000 addresses.
 */
static int parse_addr(const char *s, const char *end, bool line,
		      uint64_t *ret)
{
	bool bracket, overflow = false;
	const char *q;

	while (s < end && blank(*s))
		s++;
	if (line && (s == end || *s == '\r'))
		return 1;
	bracket = end - s >= 2 && s[0] == '[' && s[1] == '<';
	if (bracket)
		s += 2;
	q = hex64(s, end, ret, &overflow);
	if (bracket && q != s && end - q >= 2 && q[0] == '>' && q[1] == ']')
		q += 2;
	else if (bracket)
		return -EINVAL;
	while (q < end && (blank(*q) || *q == '\r' || (!line && *q == '\n'))) {
		/* What follows a CR on a line is not read, if it has no NUL. */
		if (line && *q == '\r')
			return overflow || q == s || memchr(q, '\0', (size_t)(end - q)) ?
				       -EINVAL : 0;
		q++;
	}
	return overflow || q == s || q != end ? -EINVAL : 0;
}

/* An argument, parsed; -EINVAL (err says why) if it is no address. */
static int parse_one(const char *s, uint64_t *ret, struct ms_err *err)
{
	if (parse_addr(s, s + strlen(s), false, ret) < 0)
		return ms_err_set(err, EINVAL, "not an address: \"%.40s\"", s);
	return 0;
}

/* A line [p, e) of standard input that is no address: why, into err. */
static int bad_line(char *p, char *e, struct ms_err *err)
{
	char *cr = memchr(p, '\r', (size_t)(e - p));

	/* A NUL would end the address early and hide the rest. */
	if (memchr(p, '\0', (size_t)(e - p)))
		return ms_err_set(err, EINVAL,
				  "standard input: not an address: a line with a NUL byte");
	*(cr ? cr : e) = '\0';
	return ms_err_set(err, EINVAL, "not an address: \"%.40s\"", p);
}

/*
 * The module an address may be in, loaded before any output: an error
 * (a module file refused) then leaves none. An arm64 address with a PAC
 * is looked up without it (ms_arm64_strip_pac), and as given if that is
 * in nothing.
 */
static int preload(struct ms_lazy *z, bool pac, uint64_t given,
		   struct ms_err *err)
{
	uint64_t addr = pac ? ms_arm64_strip_pac(given) : given;
	int rc = ms_lazy_by_addr(z, addr, err);

	return rc || addr == given ? rc : ms_lazy_by_addr(z, given, err);
}

static int lookup(struct ms_lazy *z, bool pac, uint64_t given,
		  struct ms_symres *r)
{
	uint64_t addr = pac ? ms_arm64_strip_pac(given) : given;
	struct ms_symbolizer *s = ms_lazy_symbolizer(z);
	struct ms_err err; /* unread: a failure answers with what r says */
	int rc = ms_symbolize(s, addr, 0, r, &err);

	if (rc == -ENOENT && addr != given)
		rc = ms_symbolize(s, given, 0, r, &err);
	return rc;
}

/* Room for one more address in *v. */
static int room(uint64_t **v, size_t n, size_t *cap, struct ms_err *err)
{
	return ms_reserve(v, cap, n, sizeof(**v), 4096) ?
		       ms_err_errno(err, ENOMEM, "resolve") :
		       0;
}

/*
 * The addresses of standard input's lines, appended to *v: read as a
 * stream, in one buffer used again, where reading all of it first cost
 * a page fault every 4 KiB. A line longer than the buffer is no address.
 */
#define LINE_MAX_BYTES (1u << 16)

static int read_lines(uint64_t **v, size_t *n, size_t *cap,
		      struct ms_err *err)
{
	struct ms_lines *in = NULL;
	struct ms_line line;
	int r = ms_lines_open("-", LINE_MAX_BYTES, &in, err), got = 0;

	while (!r && (got = ms_lines_next(in, &line, err)) > 0) {
		char *p = line.text, *e = p + line.len;
		int pr;

		r = room(v, *n, cap, err);
		pr = r ? 0 : parse_addr(p, e, true, &(*v)[*n]);
		if (!r && (pr < 0 || line.piece))
			r = bad_line(p, e, err);
		*n += !r && pr == 0;
	}
	if (!r && got < 0)
		r = got;
	ms_lines_free(in);
	return r;
}

/*
 * Addresses of the arguments, or of standard input's lines (read in one
 * pass each: through stdio a line at a time, then parsed, they were a
 * fifth of resolving 100,000 addresses).
 */
static int read_addrs(const struct opts *o, uint64_t **ret, size_t *n,
		      struct ms_err *err)
{
	size_t cap = o->nargs ? (size_t)o->nargs : 4096;
	uint64_t *v = malloc(cap * sizeof(*v));
	int r = v ? 0 : ms_err_errno(err, ENOMEM, "resolve");

	*n = 0;
	for (int i = 0; !r && i < o->nargs; i++)
		r = parse_one(o->args[i], &v[(*n)++], err);
	if (!r && o->nargs == 0)
		r = read_lines(&v, n, &cap, err);
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
 * Addresses are answered in chunks of this many, each looked up in
 * address order: every lookup then finds the index's pages and the last
 * answer's neighbours in the cache, which halved the time of 100,000
 * uniform addresses in btrfs.ko, and an address given twice is looked
 * up once. A chunk's text (190 bytes an answer there) is made in one
 * buffer, used again for the next, and goes out in the order given,
 * gathered from where it was made (copying it together was a tenth of
 * the time).
 */
#define CHUNK 8192u

/* Each answer of a chunk: where its text is in the chunk's buffer. */
struct span {
	size_t off, len;
};

struct answers {
	struct ms_lazy *z;
	bool pac, json;
	struct ms_obuf text; /* the chunk's answers, in address order */
	struct ms_obuf out; /* what goes out, in the order given */
	struct pos pos[CHUNK], tmp[CHUNK];
	struct span sp[CHUNK];
	struct iovec iov[2 * CHUNK]; /* JSON: each answer after a comma */
	size_t outside;
};

/* Addresses [from, from + n) of addrs, n <= CHUNK. */
static void answer_chunk(struct answers *a, const uint64_t *addrs,
			 size_t from, size_t n)
{
	bool prev_out = false;
	size_t niov = 0;

	for (size_t k = 0; k < n; k++)
		a->pos[k] = (struct pos){ addrs[from + k], k };
	/* By address, equal ones in the order given. */
	ms_radix_sort(a->pos, a->tmp, n, sizeof(*a->pos));
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
			a->iov[niov++] = (struct iovec){ (char *)",\n", 2 };
		a->iov[niov++] = (struct iovec){ a->text.data + a->sp[i].off,
						 a->sp[i].len };
	}
	if (!a->text.failed)
		ms_ob_gather(&a->out, a->iov, niov);
}

/*
 * Every address, answered as text or as one JSON array, in the order
 * given. The output goes out as it is made, since every address parsed
 * and every module it needs loaded before.
 */
static int answer(struct ms_lazy *z, bool pac, const uint64_t *addrs, size_t n,
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
	/* A chunk's text at once: growing it copied what was made. */
	ms_ob_room(&a->text, (size_t)CHUNK * 256);
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
	if (!r && (a->text.failed || a->out.error == ENOMEM))
		r = ms_err_errno(err, ENOMEM, "building output");
	if (!r && a->out.failed) {
		r = ms_err_errno(err, a->out.error, "cannot write %s",
				 o->output ? o->output : "standard output");
		err->code = EIO;
	}
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

int do_resolve(struct run *run)
{
	const struct opts *o = run->o;
	struct ms_err *err = &run->err;
	struct ms_lazy_opts lo = { .layout_flags = layout_flags(o),
				   .no_index = o->no_index,
				   .note = warn_note };
	struct ms_lazy *z = NULL;
	uint64_t *addrs = NULL;
	size_t n = 0, outside = 0;
	/* Addresses from an arm64 report may carry a PAC. */
	bool pac = ms_machine_arm64(run->map->machine);
	int r = read_addrs(o, &addrs, &n, err);

	if (!r)
		r = ms_lazy_new(run->fi, run->map, &lo, &z, err);
	for (size_t i = 0; !r && i < n; i++)
		r = preload(z, pac, addrs[i], err);
	if (!r)
		r = answer(z, pac, addrs, n, o, &outside, err);
	if (!r)
		warn_index(ms_lazy_index_error(z, err), err);
	free(addrs);
	ms_lazy_free(z);
	if (r)
		return r;
	return outside ? EXIT_NOTFOUND : EXIT_OK;
}
