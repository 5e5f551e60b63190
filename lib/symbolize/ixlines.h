/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The sections and line rows of an index (ixlines.c). */
#ifndef MODSECT_IXLINES_H
#define MODSECT_IXLINES_H

#include "symindex.h"

/* A section of the layout an index is built from, and its index id. */
struct ixsec {
	uint64_t addr, size;
	uint16_t id;
};

struct ixsecs {
	struct ixsec *v; /* by address */
	size_t n;
};

void ixsecs_free(struct ixsecs *xs);
void ixsecs_sort(struct ixsecs *xs);
/*
 * The section and offset of addr; with end, addr may be a section's end
 * (the exclusive bound of a range). false if in no section.
 */
bool ixsecs_find(const struct ixsecs *xs, uint64_t addr, bool end,
		 uint16_t *sec, uint32_t *off);

/* What a line lookup searches: the rows' offsets, each section's run. */
struct ixlookup {
	const uint32_t *off; /* per row: the index's */
	size_t *first; /* per section, its first row; [nsecs] = rows */
};

int ixlookup_init(const struct ix *ix, struct ixlookup *lk);
void ixlookup_free(struct ixlookup *lk);
/*
 * The line at (sec, off) into f: 1, or 0 if the line table has none.
 * Rows before lo are known to be at or before off, rows from hi past it
 * (0, SIZE_MAX: nothing is known).
 */
int ixlines_find(const struct ix *ix, const struct ixlookup *lk, uint16_t sec,
		 uint32_t off, size_t lo, size_t hi, struct ms_frame *f);
/* The rows of sec at or before off, counted from the first row of all. */
size_t ixlines_upper(const struct ixlookup *lk, uint16_t sec, uint32_t off);

#endif
