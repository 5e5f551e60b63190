// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The index file: a header, then seven tables (sections, symbols, function
 * parts, their inline segments, the chains of inlined calls those name,
 * line rows' offsets and their answers, strings), each 8-byte aligned. The
 * header names the build-id and size of the file it came from and a
 * checksum of all of it; a reader checks all of it, and every count,
 * offset and reference in the tables, before it trusts one byte, since a
 * cache can be damaged, truncated or written by another version.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symindex.h"

#define IX_MAGIC "MSINDEX\n"
#define IX_VERSION 3
#define IX_ORDER 0x01020304u /* the writer's byte order: only ours is read */

struct ix_header {
	char magic[8];
	uint32_t version, order;
	uint64_t sum; /* file_sum of the whole file, with sum 0 */
	uint64_t file_size;
	uint64_t total;
	char build_id[72]; /* hex, NUL-padded */
	struct {
		uint64_t off, count;
	} t[IX_NTABLES];
};

static const size_t entry_size[IX_NTABLES] = {
	[IX_SECS] = sizeof(struct ix_sec),   [IX_SYMS] = sizeof(struct ix_sym),
	[IX_FNS] = sizeof(struct ix_fn),     [IX_SEGS] = sizeof(struct ix_seg),
	[IX_FRAMES] = sizeof(struct ix_frame), [IX_LINE_OFFS] = sizeof(uint32_t),
	[IX_LINES] = sizeof(struct ix_line),
	[IX_STRS] = 1,
};

/*
 * A checksum of the file as written (its sum field 0), to refuse an
 * index damaged on disk. zlib's crc32 was a tenth of a run that
 * resolves 20,000 addresses; this multiply-xor over 8-byte words costs a
 * tenth of that and catches any flipped bit, lost or added word.
 */
static uint64_t mix(uint64_t sum, uint64_t w)
{
	sum = (sum ^ w) * 0x100000001b3u;
	return sum ^ (sum >> 29);
}

static uint64_t file_sum(const void *buf, size_t len, const struct ix_header *h)
{
	const unsigned char *p = buf;
	struct ix_header z = *h;
	/* Four lanes: one multiply chain waits on the last. */
	uint64_t l[4] = { 0x9e3779b97f4a7c15u ^ len, 1, 2, 3 }, w;
	size_t i = sizeof(z);

	z.sum = 0;
	for (size_t k = 0; k + 8 <= sizeof(z); k += 8) {
		memcpy(&w, (const unsigned char *)&z + k, 8);
		l[0] = mix(l[0], w);
	}
	for (; i + 32 <= len; i += 32)
		for (size_t k = 0; k < 4; k++) {
			memcpy(&w, p + i + 8 * k, 8);
			l[k] = mix(l[k], w);
		}
	for (; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, 8);
		l[0] = mix(l[0], w);
	}
	return mix(mix(mix(l[0], l[1]), l[2]), l[3]);
}

/* ---- writing ---- */

struct vec {
	void *p;
	size_t n, cap;
};

struct ixw {
	struct vec t[IX_NTABLES];
	uint32_t *hash; /* open addressing: string offset + 1, 0 empty */
	size_t hcap, hn;
	uint64_t *chains; /* likewise: first << 16 | n, + 1 */
	size_t ccap, cn;
	struct ix_row last; /* the last line row, for the order */
	bool failed;
};

static int vec_push(struct vec *v, const void *e, size_t size)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 64;
		void *p = realloc(v->p, cap * size);

		if (!p)
			return -ENOMEM;
		ms_prefault((char *)p + v->cap * size, (cap - v->cap) * size);
		v->p = p;
		v->cap = cap;
	}
	memcpy((char *)v->p + v->n * size, e, size);
	v->n++;
	return 0;
}

struct ixw *ixw_new(void)
{
	return calloc(1, sizeof(struct ixw));
}

void ixw_free(struct ixw *w)
{
	if (!w)
		return;
	for (int i = 0; i < IX_NTABLES; i++)
		free(w->t[i].p);
	free(w->hash);
	free(w->chains);
	free(w);
}

static uint32_t str_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static int grow_hash(struct ixw *w)
{
	size_t cap = w->hcap ? 2 * w->hcap : 4096;
	uint32_t *h = calloc(cap, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (size_t i = 0; i < w->hcap; i++) {
		size_t j;

		if (!w->hash[i])
			continue;
		j = str_hash((char *)w->t[IX_STRS].p + w->hash[i] - 1) &
		    (cap - 1);
		while (h[j])
			j = (j + 1) & (cap - 1);
		h[j] = w->hash[i];
	}
	free(w->hash);
	w->hash = h;
	w->hcap = cap;
	return 0;
}

uint32_t ixw_str(struct ixw *w, const char *s)
{
	struct vec *v = &w->t[IX_STRS];
	size_t len = strlen(s) + 1, j;

	if (w->failed)
		return 0;
	if ((w->hn + 1) * 2 > w->hcap && grow_hash(w) < 0)
		goto fail;
	for (j = str_hash(s) & (w->hcap - 1); w->hash[j];
	     j = (j + 1) & (w->hcap - 1))
		if (!strcmp((char *)v->p + w->hash[j] - 1, s))
			return w->hash[j] - 1;
	if (v->n + len >= IX_NONE - 1)
		goto fail;
	while (v->n + len > v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 65536;
		void *p = realloc(v->p, cap);

		if (!p)
			goto fail;
		ms_prefault((char *)p + v->cap, cap - v->cap);
		v->p = p;
		v->cap = cap;
	}
	memcpy((char *)v->p + v->n, s, len);
	w->hash[j] = (uint32_t)v->n + 1;
	w->hn++;
	v->n += len;
	return (uint32_t)(v->n - len);
fail:
	w->failed = true;
	return 0;
}

static int push(struct ixw *w, enum ix_table t, const void *e)
{
	if (!w->failed && vec_push(&w->t[t], e, entry_size[t]) < 0)
		w->failed = true;
	return w->failed ? -ENOMEM : 0;
}

int ixw_sec(struct ixw *w, const char *name, uint64_t size)
{
	struct ix_sec s = { .name = ixw_str(w, name), .size = size };

	return push(w, IX_SECS, &s);
}

int ixw_sym(struct ixw *w, const struct ix_sym *y)
{
	return push(w, IX_SYMS, y);
}

int ixw_fn(struct ixw *w, const struct ix_fn *f)
{
	return push(w, IX_FNS, f);
}

int ixw_line(struct ixw *w, const struct ix_row *l)
{
	struct ix_sec *secs = w->t[IX_SECS].p;
	struct ix_line x = { .file = l->file, .line = l->line, .col = l->col };
	size_t n = w->t[IX_LINES].n;

	if (n && (l->sec < w->last.sec ||
		  (l->sec == w->last.sec && l->off <= w->last.off)))
		return -EINVAL;
	if (l->sec >= w->t[IX_SECS].n || (l->found && l->line == IX_NO_LINE))
		return -ERANGE;
	if (!l->found)
		x = (struct ix_line){ .file = IX_NONE, .line = IX_NO_LINE };
	/* The sections after the last row's, up to this one, start here. */
	for (size_t s = n ? w->last.sec + 1u : 0; s <= l->sec; s++)
		secs[s].first_line = (uint32_t)n;
	w->last = *l;
	if (push(w, IX_LINE_OFFS, &l->off) < 0)
		return -ENOMEM;
	return push(w, IX_LINES, &x);
}

int ixw_seg(struct ixw *w, const struct ix_seg *g)
{
	return push(w, IX_SEGS, g);
}

size_t ixw_nseg(const struct ixw *w)
{
	return w->t[IX_SEGS].n;
}

static uint32_t chain_hash(const struct ix_frame *v, size_t n)
{
	const unsigned char *p = (const unsigned char *)v;
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n * sizeof(*v); i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

static int grow_chains(struct ixw *w)
{
	size_t cap = w->ccap ? 2 * w->ccap : 4096;
	uint64_t *c = calloc(cap, sizeof(*c));
	const struct ix_frame *fr = w->t[IX_FRAMES].p;

	if (!c)
		return -ENOMEM;
	for (size_t i = 0; i < w->ccap; i++) {
		uint64_t e = w->chains[i];
		size_t j;

		if (!e)
			continue;
		j = chain_hash(fr + ((e - 1) >> 16), (e - 1) & 0xffff) &
		    (cap - 1);
		while (c[j])
			j = (j + 1) & (cap - 1);
		c[j] = e;
	}
	free(w->chains);
	w->chains = c;
	w->ccap = cap;
	return 0;
}

int ixw_frames(struct ixw *w, const struct ix_frame *v, size_t n,
	       uint32_t *first)
{
	struct vec *f = &w->t[IX_FRAMES];
	size_t j;

	*first = 0;
	if (n == 0 || w->failed)
		return w->failed ? -ENOMEM : 0;
	if (n > 0xffff || f->n + n >= UINT32_MAX ||
	    ((w->cn + 1) * 2 > w->ccap && grow_chains(w) < 0)) {
		w->failed = true;
		return -ENOMEM;
	}
	for (j = chain_hash(v, n) & (w->ccap - 1); w->chains[j];
	     j = (j + 1) & (w->ccap - 1)) {
		uint64_t e = w->chains[j] - 1;

		if ((e & 0xffff) == n &&
		    !memcmp((const struct ix_frame *)f->p + (e >> 16), v,
			    n * sizeof(*v))) {
			*first = (uint32_t)(e >> 16);
			return 0;
		}
	}
	*first = (uint32_t)f->n;
	for (size_t k = 0; k < n; k++)
		if (push(w, IX_FRAMES, &v[k]) < 0)
			return -ENOMEM;
	w->chains[j] = ((uint64_t)*first << 16 | n) + 1;
	w->cn++;
	return 0;
}

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static int write_all(int fd, const void *p, size_t len)
{
	const char *c = p;

	while (len > 0) {
		ssize_t n = write(fd, c, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		c += n;
		len -= (size_t)n;
	}
	return 0;
}

int ixw_image(struct ixw *w, const char *build_id, uint64_t file_size,
	      void **buf_ret, size_t *len_ret, struct ms_err *err)
{
	struct ix_header h = { .version = IX_VERSION, .order = IX_ORDER };
	size_t at = sizeof(h);
	char *buf;

	if (w->failed)
		return ms_err_errno(err, ENOMEM, "index");
	if (strlen(build_id) >= sizeof(h.build_id))
		return ms_err_set(err, EINVAL, "index: build-id too long");
	/* The sections after the last row's have none. */
	for (size_t s = w->t[IX_LINES].n ? w->last.sec + 1u : 0;
	     s < w->t[IX_SECS].n; s++)
		((struct ix_sec *)w->t[IX_SECS].p)[s].first_line =
			(uint32_t)w->t[IX_LINES].n;
	memcpy(h.magic, IX_MAGIC, sizeof(h.magic));
	memcpy(h.build_id, build_id, strlen(build_id) + 1);
	h.file_size = file_size;
	for (int i = 0; i < IX_NTABLES; i++) {
		h.t[i].off = at;
		h.t[i].count = w->t[i].n;
		at = align8(at + w->t[i].n * entry_size[i]);
	}
	h.total = at;
	buf = malloc(at);
	if (!buf)
		return ms_err_errno(err, ENOMEM, "index");
	ms_prefault(buf, at);
	memset(buf, 0, at);
	for (int i = 0; i < IX_NTABLES; i++)
		if (w->t[i].n)
			memcpy(buf + h.t[i].off, w->t[i].p,
			       w->t[i].n * entry_size[i]);
	h.sum = file_sum(buf, at, &h);
	memcpy(buf, &h, sizeof(h));
	*buf_ret = buf;
	*len_ret = at;
	return 0;
}

int ix_write(const char *path, const void *buf, size_t len,
	     struct ms_err *err)
{
	char *tmp = NULL;
	int fd, r = 0;

	/* Another run may write the same index: each renames its own. */
	if (asprintf(&tmp, "%s.tmp.XXXXXX", path) < 0)
		return ms_err_errno(err, ENOMEM, "index %s", path);
	fd = mkstemp(tmp);
	if (fd < 0)
		r = -errno;
	if (!r)
		r = write_all(fd, buf, len);
	if (!r && fchmod(fd, 0644) < 0)
		r = -errno;
	if (fd >= 0 && close(fd) < 0 && !r)
		r = -errno;
	if (!r && rename(tmp, path) < 0)
		r = -errno;
	if (r && fd >= 0)
		unlink(tmp);
	free(tmp);
	return r ? ms_err_errno(err, -r, "cannot write index %s", path) : 0;
}

/* ---- reading ---- */

static int bad(struct ms_err *err, const char *why)
{
	return ms_err_set(err, EINVAL, "damaged index: %s", why);
}

static bool str_ok(const struct ix *ix, uint32_t off, bool none_ok)
{
	return off < ix->n[IX_STRS] || (none_ok && off == IX_NONE);
}

static bool sec_ok(const struct ix *ix, uint32_t sec)
{
	return sec < ix->n[IX_SECS];
}

/*
 * A function part, its segments (in order, the first at its start, none
 * past its end) and the chains they name (each within the table, and no
 * deeper than a lookup's frames).
 */
static bool fn_ok(const struct ix *ix, const struct ix_fn *f)
{
	if (!str_ok(ix, f->name, false) || !sec_ok(ix, f->sec) ||
	    f->lo > f->hi || f->seg_first > ix->n[IX_SEGS] ||
	    f->nseg > ix->n[IX_SEGS] - f->seg_first)
		return false;
	for (uint32_t k = 0; k < f->nseg; k++) {
		const struct ix_seg *g = &ix->segs[f->seg_first + k];

		if (k == 0 ? g->off != 0 : g->off <= g[-1].off)
			return false;
		if (g->off >= f->hi - f->lo && g->off)
			return false;
		if (g->n >= MS_MAX_FRAMES || g->first > ix->n[IX_FRAMES] ||
		    g->n > ix->n[IX_FRAMES] - g->first)
			return false;
	}
	return true;
}

/*
 * The line rows: as many offsets as answers, each section's run after the
 * one before and its offsets ascending (the lookup is a binary search),
 * each file a string.
 */
static bool lines_ok(const struct ix *ix)
{
	size_t n = ix->n[IX_LINES];

	if (ix->n[IX_LINE_OFFS] != n)
		return false;
	for (size_t s = 0; s < ix->n[IX_SECS]; s++) {
		size_t a = ix->secs[s].first_line;
		size_t b = s + 1 < ix->n[IX_SECS] ? ix->secs[s + 1].first_line : n;

		if (a > b || b > n || (s == 0 && a != 0))
			return false;
		for (size_t i = a + 1; i < b; i++)
			if (ix->line_offs[i] <= ix->line_offs[i - 1])
				return false;
	}
	if (!ix->n[IX_SECS] && n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!str_ok(ix, ix->lines[i].file, true))
			return false;
	return true;
}

/* Every reference inside the tables points inside them. */
static int check_refs(const struct ix *ix, struct ms_err *err)
{
	for (size_t i = 0; i < ix->n[IX_SECS]; i++)
		if (!str_ok(ix, ix->secs[i].name, false))
			return bad(err, "section name");
	for (size_t i = 0; i < ix->n[IX_SYMS]; i++)
		if (!str_ok(ix, ix->syms[i].name, false) ||
		    !sec_ok(ix, ix->syms[i].sec))
			return bad(err, "symbol");
	for (size_t i = 0; i < ix->n[IX_FRAMES]; i++)
		if (!str_ok(ix, ix->frames[i].name, false) ||
		    !str_ok(ix, ix->frames[i].call_file, true))
			return bad(err, "inlined call");
	for (size_t i = 0; i < ix->n[IX_FNS]; i++)
		if (!fn_ok(ix, &ix->fns[i]))
			return bad(err, "function");
	return lines_ok(ix) ? 0 : bad(err, "line rows");
}

int ix_check(const void *buf, size_t len, const char *build_id,
	     uint64_t file_size, struct ix *ix, struct ms_err *err)
{
	struct ix_header h;
	const char *base = buf;
	const void *tab[IX_NTABLES];

	if (len < sizeof(h))
		return bad(err, "shorter than its header");
	memcpy(&h, buf, sizeof(h));
	if (memcmp(h.magic, IX_MAGIC, sizeof(h.magic)) ||
	    h.version != IX_VERSION || h.order != IX_ORDER)
		return bad(err, "not an index of this version");
	if (h.total != len)
		return bad(err, "truncated or extended");
	if (len % 8)
		return bad(err, "truncated or extended");
	if (build_id &&
	    (memchr(h.build_id, '\0', sizeof(h.build_id)) == NULL ||
	     strcmp(h.build_id, build_id) || h.file_size != file_size))
		return ms_err_set(err, EINVAL,
				  "index of another file (build-id %.72s)",
				  h.build_id);
	if (build_id && file_sum(buf, len, &h) != h.sum)
		return bad(err, "checksum");
	for (int i = 0; i < IX_NTABLES; i++) {
		uint64_t off = h.t[i].off, n = h.t[i].count;

		if (off % 8 || off < sizeof(h) || off > len ||
		    n > (len - off) / entry_size[i])
			return bad(err, "table out of bounds");
		tab[i] = base + off;
		ix->n[i] = (size_t)n;
	}
	ix->secs = tab[IX_SECS];
	ix->syms = tab[IX_SYMS];
	ix->fns = tab[IX_FNS];
	ix->segs = tab[IX_SEGS];
	ix->frames = tab[IX_FRAMES];
	ix->line_offs = tab[IX_LINE_OFFS];
	ix->lines = tab[IX_LINES];
	ix->strs = tab[IX_STRS];
	if (ix->n[IX_STRS] && ix->strs[ix->n[IX_STRS] - 1] != '\0')
		return bad(err, "strings");
	if (ix->n[IX_STRS] >= IX_NONE)
		return bad(err, "strings");
	return check_refs(ix, err);
}

int ix_open(const char *path, const char *build_id, uint64_t file_size,
	    struct ix **ret, struct ms_err *err)
{
	struct ix *ix = calloc(1, sizeof(*ix));
	struct stat st;
	int fd, r;

	if (!ix)
		return ms_err_errno(err, ENOMEM, "index %s", path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		free(ix);
		return ms_err_errno(err, -r, "index %s", path);
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
		close(fd);
		free(ix);
		return ms_err_set(err, EINVAL, "index %s: not a regular file",
				  path);
	}
	ix->map_len = (size_t)st.st_size;
	/* Read whole by the checksum: one call maps it all, not a fault a page. */
	ix->map = mmap(NULL, ix->map_len, PROT_READ, MAP_PRIVATE | MAP_POPULATE,
		       fd, 0);
	close(fd);
	if (ix->map == MAP_FAILED) {
		r = -errno;
		free(ix);
		return ms_err_errno(err, -r, "index %s", path);
	}
	r = ix_check(ix->map, ix->map_len, build_id, file_size, ix, err);
	if (r) {
		ix_close(ix);
		return r;
	}
	*ret = ix;
	return 0;
}

void ix_close(struct ix *ix)
{
	if (!ix)
		return;
	if (ix->owned)
		free(ix->map);
	else if (ix->map && ix->map != MAP_FAILED)
		munmap(ix->map, ix->map_len);
	free(ix);
}

int ix_from_image(void *buf, size_t len, struct ix **ret, struct ms_err *err)
{
	struct ix *ix = calloc(1, sizeof(*ix));
	int r;

	if (!ix) {
		free(buf);
		return ms_err_errno(err, ENOMEM, "index");
	}
	ix->map = buf;
	ix->map_len = len;
	ix->owned = true;
	/* Made here, not read: its checksum and identity are known good. */
	r = ix_check(buf, len, NULL, 0, ix, err);
	if (r) {
		ix_close(ix);
		return r;
	}
	*ret = ix;
	return 0;
}
