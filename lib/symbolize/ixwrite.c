// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The index file written (ixformat.h says its layout): tables grown as a
 * module's symbols, functions and line rows are given, each string and
 * each chain of inlined calls stored once, then laid out in one buffer
 * with its checksum, and written to the cache atomically.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ixformat.h"

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

/*
 * Room for entry n of v, the new room faulted in at once (ms_prefault)
 * rather than a page at a time as the table fills.
 */
static int vec_room(struct vec *v, size_t n, size_t size, size_t min)
{
	size_t old = v->cap;

	if (ms_reserve(&v->p, &v->cap, n, size, min) < 0)
		return -ENOMEM;
	if (v->cap != old)
		ms_prefault((char *)v->p + old * size, (v->cap - old) * size);
	return 0;
}

static int vec_push(struct vec *v, const void *e, size_t size)
{
	if (vec_room(v, v->n, size, 64) < 0)
		return -ENOMEM;
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
	if (vec_room(v, v->n + len - 1, 1, 65536) < 0)
		goto fail;
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
	h.sum = ix_file_sum(buf, at, &h);
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
