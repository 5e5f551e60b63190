// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The sections of an index, and its line rows: how they are taken from
 * libdw when the index is built, and how they answer once it is mapped.
 *
 * libdwfl answers a line (dwfl_module_getsrc) with the last row at or
 * before the address in the line table of the CU whose aranges hold it,
 * or none if that row ends a sequence. The answer can change only at a
 * row's address or at an arange's bounds; between two such points it is
 * the answer at the first. So the index asks libdwfl at every such point
 * and keeps the answers: the same answers, found without the DWARF.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ixlines.h"
#include "symbolize-int.h"

static int cmp_xsec(const void *a, const void *b)
{
	const struct ixsec *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int ixsecs_of_layout(const struct ms_layout *l, struct ixw *w,
		     struct ixsecs *ret)
{
	ret->v = calloc(l->nsecs + 1, sizeof(*ret->v));
	ret->n = 0;
	if (!ret->v)
		return -ENOMEM;
	for (size_t i = 0; i < l->nsecs; i++) {
		const struct ms_lsec *s = &l->secs[i];

		if (s->place != MS_PLACE_LOADED || !s->size)
			continue;
		if (s->size > UINT32_MAX || ret->n >= UINT16_MAX)
			return -EFBIG;
		ret->v[ret->n] = (struct ixsec){ s->addr, s->size,
						 (uint16_t)ret->n };
		if (ixw_sec(w, s->name, s->size) < 0)
			return -ENOMEM;
		ret->n++;
	}
	ixsecs_sort(ret);
	return 0;
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

struct points {
	uint64_t *v;
	size_t n, cap;
};

static int point(struct points *p, uint64_t addr)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 4096;
		uint64_t *v = realloc(p->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		ms_prefault(v + p->cap, (cap - p->cap) * sizeof(*v));
		p->v = v;
		p->cap = cap;
	}
	p->v[p->n++] = addr;
	return 0;
}

/* Every address where libdwfl's line answer can change. */
static int change_points(Dwfl_Module *dm, const struct ixsecs *xs,
			 struct points *p)
{
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;
	Dwarf *dw = dwfl_module_getdwarf(dm, &bias);
	Dwarf_Aranges *ar;
	size_t nar;
	int r = 0;

	for (size_t i = 0; !r && i < xs->n; i++)
		r = point(p, xs->v[i].addr);
	while (!r && (cu = dwfl_module_nextcu(dm, cu, &bias))) {
		Dwarf_Lines *lines;
		size_t n;
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;

		if (dwarf_getsrclines(cu, &lines, &n) == 0)
			for (size_t i = 0; !r && i < n; i++) {
				Dwarf_Addr a;

				if (dwarf_lineaddr(dwarf_onesrcline(lines, i),
						   &a) == 0)
					r = point(p, a + bias);
			}
		while (!r && (off = dwarf_ranges(cu, off, &base, &lo, &hi)) > 0) {
			r = point(p, lo + bias);
			if (!r)
				r = point(p, hi + bias);
		}
	}
	if (!r && dw && dwarf_getaranges(dw, &ar, &nar) == 0)
		for (size_t i = 0; !r && i < nar; i++) {
			Dwarf_Addr a;
			Dwarf_Word len;

			if (dwarf_getarangeinfo(dwarf_onearange(ar, i), &a, &len,
						NULL) == 0) {
				r = point(p, a + bias);
				if (!r)
					r = point(p, a + len + bias);
			}
		}
	return r;
}

int ixlines_write(Dwfl_Module *dm, const struct ixsecs *xs, struct ixw *w)
{
	struct points p = { 0 };
	struct ix_row last = { .sec = UINT16_MAX };
	struct cuspans cus = { 0 };
	int r = change_points(dm, xs, &p);

	if (!r)
		ms_sort_u64(p.v, p.n);
	for (size_t i = 0; !r && i < p.n; i++) {
		struct ix_row row = { .file = IX_NONE };
		Dwfl_Line *line;
		const char *file;
		int lineno = 0, col = 0;

		if ((i > 0 && p.v[i] == p.v[i - 1]) ||
		    !ixsecs_find(xs, p.v[i], false, &row.sec, &row.off))
			continue;
		/*
		 * What srcline_find answers outside a function; inside one
		 * the address is in its CU, and the two answers are the same.
		 */
		line = srcline_getsrc(dm, p.v[i], true, &cus);
		file = line ? dwfl_lineinfo(line, NULL, &lineno, &col, NULL,
					    NULL) :
			      NULL;
		if (line) {
			row.found = true;
			row.file = file ? ixw_str(w, file) : IX_NONE;
			row.line = lineno;
			row.col = col;
		}
		/* A row that says what the one before says adds nothing. */
		if (row.sec == last.sec && row.found == last.found &&
		    row.file == last.file && row.line == last.line &&
		    row.col == last.col)
			continue;
		r = ixw_line(w, &row);
		last = row;
	}
	free(p.v);
	return r;
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
