// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The running kernel as found (struct kern, kmem-int.h): its byte order,
 * where KASLR moved its symbols, and reading its memory. What the finder
 * (kfind.c, kdata.c) and the module walk (kmem.c, kmsyms.c) share, so
 * that each of them calls down into this and none calls the other back.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kmem-int.h"

uint64_t kget(const struct kern *k, const void *buf, size_t off, size_t size)
{
	const unsigned char *p = (const unsigned char *)buf + off;
	uint64_t v = 0;

	if (size > 8)
		size = 8;
	for (size_t i = 0; i < size; i++)
		v |= (uint64_t)p[k->big_endian ? size - 1 - i : i] << (8 * i);
	return v;
}

/*
 * KASLR moves everything from _text on, also what lies past _end
 * (__init_scratch_end); absolute per-cpu symbols (KALLSYMS_ABSOLUTE_PERCPU)
 * are offsets below it and stay.
 */
uint64_t kern_moved(const struct kern *k, uint64_t a)
{
	return k->offset && a >= k->link_start ? a + (uint64_t)k->offset : a;
}

/*
 * By name, in a linear scan: a handful of lookups per run, and it works
 * on any table (the image's, memory's, or a test's).
 */
int kern_sym(const struct kern *k, const char *name, uint64_t *ret,
	     struct ms_err *err)
{
	const struct ms_ksym *s = NULL;

	for (size_t i = 0; k->ksyms && i < k->ksyms->nsyms && !s; i++)
		if (!strcmp(k->ksyms->syms[i].name, name))
			s = &k->ksyms->syms[i];
	if (!s)
		return ms_err_set(
			err, ENOENT,
			"the kernel's kallsyms has no symbol %s (kernel %s)",
			name, k->release ? k->release : "unknown");
	*ret = kern_moved(k, s->addr);
	return 0;
}

int kern_read_array(const struct kern *k, uint64_t addr, size_t n, size_t size,
		    size_t max, const char *what, void **ret,
		    struct ms_err *err)
{
	void *buf;
	int r;

	if (n > max)
		return ms_err_set(
			err, EBADMSG,
			"%s at 0x%" PRIx64
			" in %s: %zu entries, more than %zu (corrupted memory?)",
			what, addr, k->origin, n, max);
	buf = malloc(n * size + 1);
	if (!buf)
		return ms_err_errno(err, ENOMEM, "reading %s", what);
	r = ms_mem_read(k->mem, addr, buf, n * size, what, err);
	if (r) {
		free(buf);
		return r;
	}
	*ret = buf;
	return 0;
}

int kern_probe(const struct kern *k, uint64_t addr, void *buf, size_t len,
	       const char *what, struct ms_err *err)
{
	struct ms_err e = { 0 };
	int r = ms_mem_read(k->mem, addr, buf, len, what, &e);

	if (!r)
		return 0;
	if (!ms_mem_io_failure(&e, r))
		return 1;
	*err = e;
	return r;
}
