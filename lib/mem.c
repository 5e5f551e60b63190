// SPDX-License-Identifier: GPL-2.0-or-later
/* Memory sources: what every source shares (see kmem.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kmem.h"

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

int ms_mem_read_u64(struct ms_mem *m, uint64_t addr, const char *what,
		    uint64_t *ret, struct ms_err *err)
{
	uint64_t v;
	int r = ms_mem_read(m, addr, &v, sizeof(v), what, err);

	if (!r)
		*ret = v;
	return r;
}

char *ms_mem_vmcoreinfo_get(struct ms_mem *m, const char *key)
{
	const char *text = m->ops->vmcoreinfo ? m->ops->vmcoreinfo(m) : NULL;
	size_t klen = strlen(key);

	for (const char *l = text; l && *l;) {
		const char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) : strlen(l);

		if (n > klen && !strncmp(l, key, klen) && l[klen] == '=')
			return strndup(l + klen + 1, n - klen - 1);
		l = e ? e + 1 : l + n;
	}
	errno = ENOENT;
	return NULL;
}
