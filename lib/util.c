// SPDX-License-Identifier: GPL-2.0-or-later
/* Small helpers shared by the units. */
#include <string.h>

#include "modsect.h"

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
