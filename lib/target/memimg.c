// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A memory image in a text file: the memory source of the unit tests and
 * the fuzz targets, so the walk over kernel memory runs on fake memory.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "target.h"

#define MEMIMG_MAX (256u << 20)

struct block {
	uint64_t addr;
	size_t len;
	unsigned char *bytes;
};

struct memimg {
	struct block *blocks; /* sorted by address, not overlapping */
	size_t nblocks;
	char *vmcoreinfo;
	uint64_t pc;
	bool has_pc;
};

static void memimg_free(struct memimg *im)
{
	if (!im)
		return;
	for (size_t i = 0; i < im->nblocks; i++)
		free(im->blocks[i].bytes);
	free(im->blocks);
	free(im->vmcoreinfo);
	free(im);
}

static int memimg_read(struct ms_mem *m, uint64_t addr, void *buf, size_t len,
		       struct ms_err *err)
{
	const struct memimg *im = m->priv;
	unsigned char *out = buf;

	while (len) {
		const struct block *b = NULL;
		size_t lo = 0, hi = im->nblocks, n;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (im->blocks[mid].addr <= addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo)
			b = &im->blocks[lo - 1];
		if (!b || addr - b->addr >= b->len)
			return ms_err_set(err, EFAULT,
					  "0x%" PRIx64 " is not in the image",
					  addr);
		n = b->len - (size_t)(addr - b->addr);
		if (n > len)
			n = len;
		memcpy(out, b->bytes + (addr - b->addr), n);
		out += n;
		addr += n;
		len -= n;
	}
	return 0;
}

static const char *memimg_vmcoreinfo(struct ms_mem *m)
{
	return ((struct memimg *)m->priv)->vmcoreinfo;
}

static int memimg_pc(struct ms_mem *m, uint64_t *pc, struct ms_err *err)
{
	const struct memimg *im = m->priv;

	if (!im->has_pc)
		return ms_err_set(err, ENOTSUP, "%s has no pc", m->origin);
	*pc = im->pc;
	return 0;
}

static void memimg_close(struct ms_mem *m)
{
	memimg_free(m->priv);
}

static const struct ms_mem_ops memimg_ops = {
	.read = memimg_read,
	.vmcoreinfo = memimg_vmcoreinfo,
	.pc = memimg_pc,
	.close = memimg_close,
};

/* Hex without prefix; -EINVAL, as this format's other errors. */
static int parse_u64(const char *s, size_t n, uint64_t *ret)
{
	return ms_hex_u64(s, n, ret) ? -EINVAL : 0;
}

static int cmp_block(const void *a, const void *b)
{
	const struct block *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int add_block(struct memimg *im, uint64_t addr, const char *hex,
		     size_t n)
{
	struct block *nb;
	unsigned char *bytes;

	if (n == 0 || n % 2)
		return -EINVAL;
	if (addr + n / 2 - 1 < addr)
		return -ERANGE;
	bytes = malloc(n / 2);
	if (!bytes)
		return -ENOMEM;
	if (ms_hex_decode(hex, n, bytes)) {
		free(bytes);
		return -EINVAL;
	}
	nb = realloc(im->blocks, (im->nblocks + 1) * sizeof(*nb));
	if (!nb) {
		free(bytes);
		return -ENOMEM;
	}
	im->blocks = nb;
	nb[im->nblocks++] = (struct block){ addr, n / 2, bytes };
	return 0;
}

static int add_vmcoreinfo(struct memimg *im, const char *s, size_t n)
{
	size_t old = im->vmcoreinfo ? strlen(im->vmcoreinfo) : 0;
	char *v;

	if (memchr(s, '\0', n) || !memchr(s, '=', n))
		return -EINVAL;
	v = realloc(im->vmcoreinfo, old + n + 2);
	if (!v)
		return -ENOMEM;
	memcpy(v + old, s, n);
	v[old + n] = '\n';
	v[old + n + 1] = '\0';
	im->vmcoreinfo = v;
	return 0;
}

static int parse_line(struct memimg *im, const char *l, size_t n)
{
	const char *sp = memchr(l, ' ', n);
	uint64_t v;

	if (!sp)
		return -EINVAL;
	if (sp - l == 10 && !memcmp(l, "vmcoreinfo", 10))
		return add_vmcoreinfo(im, sp + 1, n - 11);
	if (sp - l == 2 && !memcmp(l, "pc", 2)) {
		if (parse_u64(sp + 1, n - 3, &v))
			return -EINVAL;
		im->pc = v;
		im->has_pc = true;
		return 0;
	}
	if (parse_u64(l, (size_t)(sp - l), &v))
		return -EINVAL;
	return add_block(im, v, sp + 1, n - (size_t)(sp - l) - 1);
}

int ms_memimg_parse(const char *text, size_t len, const char *origin,
		    struct ms_mem **ret, struct ms_err *err)
{
	struct memimg *im = calloc(1, sizeof(*im));
	size_t lineno = 0;
	int r = 0;

	if (!im)
		return ms_err_errno(err, ENOMEM, "%s", origin);
	for (size_t off = 0; off < len && !r;) {
		const char *l = text + off;
		const char *e = memchr(l, '\n', len - off);
		size_t n = e ? (size_t)(e - l) : len - off;

		off += n + 1;
		lineno++;
		if (n && l[n - 1] == '\r')
			n--;
		if (n == 0 || l[0] == '#')
			continue;
		r = parse_line(im, l, n);
		if (r == -ENOMEM)
			r = ms_err_errno(err, ENOMEM, "%s", origin);
		else if (r)
			r = ms_err_set(err, EINVAL,
				       "%s:%zu: not a memory image line", origin,
				       lineno);
	}
	if (!r) {
		qsort(im->blocks, im->nblocks, sizeof(*im->blocks), cmp_block);
		for (size_t i = 1; i < im->nblocks && !r; i++)
			if (im->blocks[i].addr - im->blocks[i - 1].addr <
			    im->blocks[i - 1].len)
				r = ms_err_set(err, EINVAL,
					       "%s: blocks at 0x%" PRIx64
					       " and 0x%" PRIx64 " overlap",
					       origin, im->blocks[i - 1].addr,
					       im->blocks[i].addr);
	}
	if (!r)
		r = ms_mem_new(&memimg_ops, im, origin, ret, err);
	if (r)
		memimg_free(im);
	return r;
}

int ms_memimg_open(const char *path, struct ms_mem **ret, struct ms_err *err)
{
	char *buf;
	size_t len;
	int r = ms_read_file(path, MEMIMG_MAX, &buf, &len, err);

	if (r)
		return r;
	r = ms_memimg_parse(buf, len, path, ret, err);
	free(buf);
	return r;
}
