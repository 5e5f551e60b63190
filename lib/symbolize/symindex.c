// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The index file read (ixformat.h says its layout): a reader checks all
 * of it, the checksum of the whole and every count, offset and reference
 * in the tables, before it trusts one byte, since a cache can be damaged,
 * truncated or written by another version. The writer is ixwrite.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ixformat.h"

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

uint64_t ix_file_sum(const void *buf, size_t len, const struct ix_header *h)
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
	if (build_id && ix_file_sum(buf, len, &h) != h.sum)
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
	ix->refs = 1;
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
	if (!ix || --ix->refs > 0)
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
	ix->refs = 1;
	/* Made here, not read: its checksum and identity are known good. */
	r = ix_check(buf, len, NULL, 0, ix, err);
	if (r) {
		ix_close(ix);
		return r;
	}
	*ret = ix;
	return 0;
}
