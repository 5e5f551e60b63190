// SPDX-License-Identifier: GPL-2.0-or-later
/* Memory sources: what every source shares (see target.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "target.h"

/*
 * Small reads (names, struct headers) go through a cache of aligned
 * lines: the strings of one module sit next to each other in a slab page,
 * so one round trip over the link serves dozens of them. A line never
 * crosses a page, so a line read fails only where the page does.
 */
#define LINE_SHIFT 10
#define LINE_SIZE (1u << LINE_SHIFT)
#define NLINES 128
#define SMALL_READ 512

struct ms_mem_cache {
	uint64_t tag[NLINES]; /* line address + 1; 0 = empty */
	unsigned char data[NLINES][LINE_SIZE];
};

void ms_mem_invalidate(struct ms_mem *m)
{
	if (m->cache)
		memset(m->cache->tag, 0, sizeof(m->cache->tag));
}

/*
 * Line at address line, read if it is not cached: 0 with *ret, 1 if it
 * is not all readable (the caller reads the bytes it wants directly), or
 * an I/O failure in err, which a direct read would only repeat.
 */
static int cached_line(struct ms_mem *m, uint64_t line,
		       const unsigned char **ret, struct ms_err *err)
{
	struct ms_mem_cache *c = m->cache;
	size_t i = (size_t)(line >> LINE_SHIFT) % NLINES;
	struct ms_err e = { 0 };
	int r;

	if (c->tag[i] == line + 1) {
		*ret = c->data[i];
		return 0;
	}
	c->tag[i] = 0;
	r = m->ops->read(m, line, c->data[i], LINE_SIZE, &e);
	if (r && ms_mem_io_failure(&e, r)) {
		*err = e;
		return r;
	}
	if (r)
		return 1;
	c->tag[i] = line + 1;
	*ret = c->data[i];
	return 0;
}

/*
 * All of [addr, addr + len) from cached lines: 0, 1 to read directly, or
 * an I/O failure (see cached_line).
 */
static int read_cached(struct ms_mem *m, uint64_t addr, void *buf, size_t len,
		       struct ms_err *err)
{
	unsigned char *out = buf;

	if (!m->cache && !(m->cache = calloc(1, sizeof(*m->cache))))
		return 1;
	while (len) {
		uint64_t line = addr & ~(uint64_t)(LINE_SIZE - 1);
		size_t off = (size_t)(addr - line);
		size_t n = LINE_SIZE - off < len ? LINE_SIZE - off : len;
		const unsigned char *d;
		int r = cached_line(m, line, &d, err);

		if (r)
			return r;
		memcpy(out, d + off, n);
		out += n;
		addr += n;
		len -= n;
	}
	return 0;
}

bool ms_mem_io_failure(const struct ms_err *err, int r)
{
	return r && ms_err_kind_of(err, r) == MS_E_IO;
}

int ms_mem_new(const struct ms_mem_ops *ops, void *priv, const char *origin,
	       struct ms_mem **ret, struct ms_err *err)
{
	struct ms_mem *m = calloc(1, sizeof(*m));

	if (!m || !(m->origin = strdup(origin))) {
		free(m);
		return ms_err_errno(err, ENOMEM, "%s", origin);
	}
	m->ops = ops;
	m->priv = priv;
	*ret = m;
	return 0;
}

void ms_mem_free(struct ms_mem *m)
{
	if (!m)
		return;
	if (m->ops && m->ops->close)
		m->ops->close(m);
	free(m->cache);
	free(m->origin);
	free(m);
}

int ms_mem_read(struct ms_mem *m, uint64_t addr, void *buf, size_t len,
		const char *what, struct ms_err *err)
{
	int r;

	if (len == 0)
		return 0;
	if (addr + len < addr)
		return ms_err_set(err, EFAULT,
				  "reading %s at 0x%" PRIx64
				  " (%zu bytes) from %s: range wraps around",
				  what, addr, len, m->origin);
	r = len <= SMALL_READ && addr + LINE_SIZE > addr ?
		    read_cached(m, addr, buf, len, err) :
		    1;
	if (r == 0) {
		m->nbytes += len;
		return 0;
	}
	if (r > 0)
		r = m->ops->read(m, addr, buf, len, err);
	if (r)
		return ms_err_prefix(err,
				     "reading %s at 0x%" PRIx64
				     " (%zu bytes) from %s",
				     what, addr, len, m->origin);
	m->nbytes += len;
	return 0;
}

int ms_mem_read_string(struct ms_mem *m, uint64_t addr, size_t max,
		       const char *what, char **ret, struct ms_err *err)
{
	/*
	 * Read in pieces that stop at a page end: a short string near the
	 * end of a mapping must not fail because max bytes are not mapped.
	 */
	char *s = malloc(max);
	size_t have = 0;

	if (!s)
		return ms_err_errno(err, ENOMEM, "reading %s", what);
	while (have < max) {
		uint64_t a = addr + have;
		size_t n = 4096 - (a & 4095);
		char *nul;
		int r;

		/* Most names are short: ask for little first, then more. */
		if (n > (have < 64 ? 64 : have))
			n = have < 64 ? 64 : have;

		if (n > max - have)
			n = max - have;
		r = ms_mem_read(m, a, s + have, n, what, err);
		if (r) {
			free(s);
			return r;
		}
		nul = memchr(s + have, '\0', n);
		have += n;
		if (nul) {
			*ret = s;
			return 0;
		}
	}
	free(s);
	return ms_err_set(err, EBADMSG,
			  "%s at 0x%" PRIx64 " in %s is not NUL-terminated within %zu bytes",
			  what, addr, m->origin, max);
}

int ms_mem_vmcoreinfo_get(struct ms_mem *m, const char *key, char **ret,
			  struct ms_err *err)
{
	const char *text = m->ops->vmcoreinfo ? m->ops->vmcoreinfo(m) : NULL;
	size_t klen = strlen(key);

	*ret = NULL;
	for (const char *l = text; l && *l;) {
		const char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) : strlen(l);

		if (n > klen && !strncmp(l, key, klen) && l[klen] == '=') {
			*ret = strndup(l + klen + 1, n - klen - 1);
			return *ret ? 0 :
				      ms_err_errno(err, ENOMEM,
						   "VMCOREINFO %s of %s", key,
						   m->origin);
		}
		l = e ? e + 1 : l + n;
	}
	return ms_err_set(err, ENOENT, "%s has %s", m->origin,
			  text ? "VMCOREINFO without that key" :
				 "no VMCOREINFO");
}

unsigned int ms_mem_ncpus(struct ms_mem *m)
{
	return m->ops->ncpus ? m->ops->ncpus(m) : 0;
}

int ms_mem_cpu_regs(struct ms_mem *m, unsigned int cpu, struct ms_regs *regs,
		    struct ms_err *err)
{
	memset(regs, 0, sizeof(*regs));
	if (!m->ops->cpu_regs)
		return ms_err_set(err, ENOTSUP,
				  "%s holds no CPU registers", m->origin);
	if (cpu >= ms_mem_ncpus(m))
		return ms_err_set(err, ENOENT,
				  "%s holds no registers of CPU %u", m->origin,
				  cpu);
	return m->ops->cpu_regs(m, cpu, regs, err);
}
