// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The sections of an index and its line rows, as they answer once it is
 * mapped: a section and offset for an address, the last row at or before
 * an offset. How the rows are taken from libdwfl is srcline_index's.
 */
#include <errno.h>
#include <stdlib.h>

#include "ixlines.h"

static int cmp_xsec(const void *a, const void *b)
{
	const struct ixsec *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void ixsecs_sort(struct ixsecs *xs)
{
	if (xs->n)
		qsort(xs->v, xs->n, sizeof(*xs->v), cmp_xsec);
}

void ixsecs_free(struct ixsecs *xs)
{
	free(xs->v);
	xs->v = NULL;
	xs->n = 0;
}

/* The section holding addr (or ending at it, if end), or NULL. */
static const struct ixsec *holder(const struct ixsecs *xs, uint64_t addr,
				  bool end)
{
	size_t lo = 0, hi = xs->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (xs->v[mid].addr <= addr - end)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || (end && addr == 0))
		return NULL;
	if (addr - xs->v[lo - 1].addr > xs->v[lo - 1].size ||
	    (!end && addr - xs->v[lo - 1].addr == xs->v[lo - 1].size))
		return NULL;
	return &xs->v[lo - 1];
}

bool ixsecs_find(const struct ixsecs *xs, uint64_t addr, bool end,
		 uint16_t *sec, uint32_t *off)
{
	const struct ixsec *s = holder(xs, addr, end);

	if (!s)
		return false;
	*sec = s->id;
	*off = (uint32_t)(addr - s->addr);
	return true;
}

int ixlookup_init(const struct ix *ix, struct ixlookup *lk)
{
	size_t nsecs = ix->n[IX_SECS];

	lk->off = ix->line_offs;
	lk->first = malloc((nsecs + 1) * sizeof(*lk->first));
	if (!lk->first)
		return -ENOMEM;
	for (size_t s = 0; s < nsecs; s++)
		lk->first[s] = ix->secs[s].first_line;
	lk->first[nsecs] = ix->n[IX_LINES];
	return 0;
}

void ixlookup_free(struct ixlookup *lk)
{
	free(lk->first);
	lk->off = NULL;
	lk->first = NULL;
}

/* In rows [lo, hi), the first past off. */
static size_t upper_in(const struct ixlookup *lk, size_t lo, size_t hi,
		       uint32_t off)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (lk->off[mid] <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int ixlines_find(const struct ix *ix, const struct ixlookup *lk, uint16_t sec,
		 uint32_t off, size_t lo, size_t hi, struct ms_frame *f)
{
	size_t first = lk->first[sec], end = lk->first[sec + 1], at;
	const struct ix_line *l;

	/* The last row of the section at or before off. */
	at = upper_in(lk, lo > first ? lo : first, hi < end ? hi : end, off);
	if (at == first || ix->lines[at - 1].line == IX_NO_LINE)
		return 0;
	l = &ix->lines[at - 1];
	f->file = ix_str(ix, l->file);
	f->line = l->line;
	f->col = l->col;
	return 1;
}

size_t ixlines_upper(const struct ixlookup *lk, uint16_t sec, uint32_t off)
{
	return upper_in(lk, lk->first[sec], lk->first[sec + 1], off);
}
