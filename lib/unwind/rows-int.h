/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tables of rows that a64.c and x86.c make from code (struct
 * ms_a64_row, struct ms_x86_row): rows sorted by address, each row's
 * struct beginning with uint64_t ip, end (checked where it is used), the
 * state before each instruction of [ip, end). Internal to lib/unwind/.
 */
#ifndef MODSECT_ROWS_INT_H
#define MODSECT_ROWS_INT_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base/base.h"

/* The word at offset at (0: ip, 8: end) of row i of size bytes. */
static inline uint64_t rows_word(const void *rows, size_t size, size_t i,
				 size_t at)
{
	uint64_t v;

	memcpy(&v, (const char *)rows + i * size + at, sizeof(v));
	return v;
}

/* The row of the n that holds ip, or NULL. */
static inline const void *rows_find(const void *rows, size_t n, size_t size,
				    uint64_t ip)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rows_word(rows, size, mid, 8) <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && rows_word(rows, size, lo, 0) <= ip ?
		       (const char *)rows + lo * size :
		       NULL;
}

/*
 * Appends row r to the array at arrp (*n rows, room for *cap): or, where
 * r goes on from the last row (not a function's first, fstart) and same
 * says they have the same rule, grows the last over it. 0 or -ENOMEM.
 */
static inline int rows_add(void *arrp, size_t *n, size_t *cap, size_t size,
			   const void *r, bool fstart,
			   bool (*same)(const void *, const void *))
{
	char *rows;

	memcpy(&rows, arrp, sizeof(rows));
	if (*n && !fstart &&
	    rows_word(rows, size, *n - 1, 8) == rows_word(r, size, 0, 0)) {
		char *last = rows + (*n - 1) * size;

		if (same(last, r)) {
			memcpy(last + 8, (const char *)r + 8, sizeof(uint64_t));
			return 0;
		}
	}
	if (ms_reserve(arrp, cap, *n + 1, size, 4096))
		return -ENOMEM;
	memcpy(&rows, arrp, sizeof(rows));
	memcpy(rows + (*n)++ * size, r, size);
	return 0;
}

#endif
