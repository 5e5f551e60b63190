// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A module's functions and inlined calls from its index: the function
 * parts placed in the layout at hand, and an address's frames from the
 * segment of its part, whose chain the index holds ready.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

#include "symbolize-int.h"

int ixfns_build(struct smod *sm)
{
	const struct ix *ix = sm->ix;
	size_t n = 0, *order = ix_by_address(sm, ix->fns, ix->n[IX_FNS],
					     sizeof(*ix->fns),
					     offsetof(struct ix_fn, sec), &n);

	sm->fns = calloc(n + 1, sizeof(*sm->fns));
	if (!order || !sm->fns) {
		free(order);
		return -ENOMEM;
	}
	sm->capfns = n + 1;
	for (size_t k = 0; k < n; k++) {
		const struct ix_fn *x = &ix->fns[order[k]];

		sm->fns[sm->nfns++] = (struct fn){
			.lo = sm->ix_base[x->sec] + x->lo,
			.hi = sm->ix_base[x->sec] + x->hi,
			.name = ix_str(ix, x->name),
			.ix_seg_first = x->seg_first,
			.ix_nseg = x->nseg,
			.ix_sec = x->sec,
			.ix_row_hi = SIZE_MAX, /* not yet found */
		};
	}
	free(order);
	return 0;
}

/* The segment of fn holding addr, or NULL if fn has none. */
static const struct ix_seg *segment(const struct ix *ix, const struct fn *fn,
				    uint64_t addr)
{
	const struct ix_seg *g = ix->segs + fn->ix_seg_first;
	uint64_t off = addr - fn->lo;
	size_t lo = 0, hi = fn->ix_nseg;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g[mid].off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* The first segment is at the part's start (ix_check). */
	return lo ? &g[lo - 1] : NULL;
}

/*
 * The rows that can answer for fn's part, found on its first lookup:
 * from the last at or before its start to the last before its end. A
 * lookup then searches a few dozen, not the section's thousands.
 */
static void rows_of(const struct smod *sm, struct fn *fn)
{
	uint32_t lo = (uint32_t)(fn->lo - sm->ix_base[fn->ix_sec]);
	uint32_t last = (uint32_t)(fn->hi - sm->ix_base[fn->ix_sec]);

	last = last > lo ? last - 1 : lo;
	fn->ix_row_lo = ixlines_upper(&sm->ix_lines, fn->ix_sec, lo);
	fn->ix_row_hi = ixlines_upper(&sm->ix_lines, fn->ix_sec, last);
}

int ixfns_frames(const struct smod *sm, struct fn *fn, uint64_t addr,
		 struct ms_symres *res)
{
	const struct ix *ix = sm->ix;
	const struct ix_seg *g = segment(ix, fn, addr);
	const struct ix_frame *ch = g ? ix->frames + g->first : NULL;
	size_t depth = g ? g->n : 0;

	/*
	 * ch[0] is the innermost inlined call; frame k is ch[k], or the
	 * function itself past the chain, at the line table's line for
	 * frame 0 and at the call in it of frame k - 1 for the others.
	 */
	for (size_t k = 0; k <= depth; k++) {
		struct ms_frame *f = &res->frames[k];

		*f = (struct ms_frame){
			.func = k < depth ? ix_str(ix, ch[k].name) : fn->name
		};
		if (k == 0) {
			if (fn->ix_row_hi == SIZE_MAX)
				rows_of(sm, fn);
			ixlines_find(ix, &sm->ix_lines, fn->ix_sec,
				     (uint32_t)(addr - sm->ix_base[fn->ix_sec]),
				     fn->ix_row_lo, fn->ix_row_hi, f);
		} else {
			f->file = ix_str(ix, ch[k - 1].call_file);
			f->line = ch[k - 1].call_line;
			f->col = ch[k - 1].call_col;
		}
	}
	res->nframes = depth + 1;
	return 0;
}
