// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the tables of a module (symtab.c, functab.c, ixfns.c) share: the
 * packed keys of a sorted table, and an index's entries in the address
 * order of the layout at hand. Below them all, so that none calls the
 * others for these.
 */
#include <stdlib.h>
#include <string.h>

#include "symbolize-int.h"

uint64_t *sorted_keys(const void *base, size_t *n, size_t size, size_t key_off)
{
	uint64_t *k = malloc((*n + 1) * sizeof(*k));

	if (!k)
		*n = 0;
	for (size_t i = 0; k && i < *n; i++)
		memcpy(&k[i], (const char *)base + i * size + key_off,
		       sizeof(*k));
	return k;
}

size_t *ix_by_address(const struct smod *sm, const void *tab, size_t n,
		      size_t size, size_t sec_off, size_t *n_ret)
{
	const unsigned char *t = tab;
	size_t nsecs = sm->ix->n[IX_SECS], at = 0;
	size_t *start = calloc(nsecs + 1, sizeof(*start));
	size_t *order = malloc((n + 1) * sizeof(*order));
	uint16_t sec;

	if (!start || !order) {
		free(start);
		free(order);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		memcpy(&sec, t + i * size + sec_off, sizeof(sec));
		start[sec]++;
	}
	/* Each loaded section's entries, the sections by runtime address. */
	for (size_t k = 0; k < sm->ix_secs.n; k++) {
		size_t id = sm->ix_secs.v[k].id, c = start[id];

		start[id] = at;
		at += c;
	}
	for (size_t i = 0; i < n; i++) {
		memcpy(&sec, t + i * size + sec_off, sizeof(sec));
		if (sm->ix_base[sec] != IX_UNPLACED)
			order[start[sec]++] = i;
	}
	free(start);
	*n_ret = at;
	return order;
}
