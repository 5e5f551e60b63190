// SPDX-License-Identifier: GPL-2.0-or-later
/* Small helpers shared by the units. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"

size_t ms_upper_bound(const void *base, size_t n, size_t size, size_t key_off,
		      uint64_t key)
{
	const char *p = base;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t v;

		memcpy(&v, p + mid * size + key_off, sizeof(v));
		if (v <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int ms_cmp_u64(const void *a, const void *b)
{
	uint64_t x, y;

	memcpy(&x, a, sizeof(x));
	memcpy(&y, b, sizeof(y));
	return x < y ? -1 : x > y;
}

void ms_prefault(void *p, size_t len)
{
#ifdef MADV_POPULATE_WRITE
	long ps = sysconf(_SC_PAGESIZE);
	uintptr_t a, e;

	if (ps <= 0 || len < 16 * (size_t)ps)
		return;
	a = ((uintptr_t)p + (uintptr_t)ps - 1) & ~((uintptr_t)ps - 1);
	e = ((uintptr_t)p + len) & ~((uintptr_t)ps - 1);
	/* Before Linux 5.14 (EINVAL) the pages fault in one by one, as ever. */
	if (e > a)
		madvise((void *)a, e - a, MADV_POPULATE_WRITE);
#else
	(void)p, (void)len;
#endif
}

static uint64_t key_at(const unsigned char *p)
{
	uint64_t k;

	memcpy(&k, p, sizeof(k));
	return k;
}

void ms_radix_sort(void *base, void *tmp, size_t n, size_t size)
{
	unsigned char *v = base, *t = tmp;

	/* Bytes least significant first, each pass stable; a pass in which
	 * every key has the same byte (addresses' upper half) is skipped. */
	for (unsigned int shift = 0; n && shift < 64; shift += 8) {
		size_t count[256] = { 0 }, at = 0;

		for (size_t i = 0; i < n; i++)
			count[key_at(v + i * size) >> shift & 0xff]++;
		if (count[key_at(v) >> shift & 0xff] == n)
			continue;
		for (size_t b = 0; b < 256; b++) {
			size_t c = count[b];

			count[b] = at;
			at += c;
		}
		for (size_t i = 0; i < n; i++) {
			const unsigned char *e = v + i * size;

			memcpy(t + count[key_at(e) >> shift & 0xff]++ * size, e,
			       size);
		}
		memcpy(v, t, n * size);
	}
}

size_t ms_lower_bound_u32(const uint32_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void ms_sort_u64(uint64_t *v, size_t n)
{
	uint64_t *tmp = n > 256 ? malloc(n * sizeof(*tmp)) : NULL;

	/* Small, or no memory for the radix sort's second array: qsort. */
	if (!tmp) {
		if (n)
			qsort(v, n, sizeof(*v), ms_cmp_u64);
		return;
	}
	ms_prefault(tmp, n * sizeof(*tmp));
	ms_radix_sort(v, tmp, n, sizeof(*v));
	free(tmp);
}

bool ms_sorted(const void *base, size_t n, size_t size,
	       int (*cmp)(const void *, const void *))
{
	const char *p = base;

	for (size_t i = 1; i < n; i++)
		if (cmp(p + (i - 1) * size, p + i * size) > 0)
			return false;
	return true;
}

static int resize(void *arrp, size_t want, size_t size)
{
	void **arr = arrp;
	void *p;

	if (want > SIZE_MAX / size)
		return -ENOMEM;
	p = realloc(*arr, want * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	return 0;
}

int ms_grow(void *arrp, size_t n, size_t size, size_t min)
{
	if (n == 0)
		return resize(arrp, min, size);
	if (n < min || (n & (n - 1)))
		return 0;
	return n > SIZE_MAX / 2 ? -ENOMEM : resize(arrp, 2 * n, size);
}

int ms_reserve(void *arrp, size_t *cap, size_t n, size_t size, size_t min)
{
	size_t want;
	int r;

	if (n < *cap)
		return 0;
	want = *cap ? *cap : min;
	while (want <= n)
		if ((want *= 2) == 0)
			return -ENOMEM;
	r = resize(arrp, want, size);
	if (!r)
		*cap = want;
	return r;
}

int ms_strset_add(struct ms_strset *s, const char *str)
{
	char *copy;

	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], str) == 0)
			return 0;
	if (ms_reserve(&s->v, &s->cap, s->n, sizeof(*s->v), 16) ||
	    !(copy = strdup(str)))
		return -ENOMEM;
	s->v[s->n++] = copy;
	return 1;
}

void ms_strset_free(struct ms_strset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	*s = (struct ms_strset){ 0 };
}

bool ms_stat_same(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	       a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}
