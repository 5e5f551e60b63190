// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An address's source line: libdwfl's answer from the line table, kept
 * to the CU the address is in where that matters, or an index's row.
 *
 * Into an index: libdwfl answers a line (dwfl_module_getsrc) with the
 * last row at or before the address in the line table of the CU whose
 * aranges hold it, or none if that row ends a sequence. The answer can
 * change only at a row's address or at an arange's bounds; between two
 * such points it is the answer at the first. So the index asks libdwfl
 * at every such point and keeps the answers: the same answers, found
 * without the DWARF.
 */
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "symbolize-int.h"

/* The ranges of the last CU checked, for the next address (if it fits). */
#define CUSPANS_MAX 32
struct cuspans {
	Dwarf_Die *cu;
	size_t n;
	bool over; /* more ranges than these: read each time */
	uint64_t lo[CUSPANS_MAX], hi[CUSPANS_MAX];
};

/* The ranges of cu into c; c->over if it has more than c holds. */
static void load_spans(Dwfl_Module *dm, Dwarf_Die *cu, struct cuspans *c)
{
	Dwarf_Addr bias = 0, base, lo, hi;
	ptrdiff_t off = 0;

	dwfl_module_getdwarf(dm, &bias);
	c->cu = cu;
	c->n = 0;
	c->over = false;
	while ((off = dwarf_ranges(cu, off, &base, &lo, &hi)) > 0) {
		if (c->n == CUSPANS_MAX) {
			c->over = true;
			return;
		}
		c->lo[c->n] = lo + bias;
		c->hi[c->n++] = hi + bias;
	}
}

/*
 * Whether addr lies in the ranges of cu: from c, which keeps the last
 * CU's (an index asks for every line row, mostly of one CU after
 * another), else read from the DWARF.
 */
static bool in_cu(Dwfl_Module *dm, Dwarf_Die *cu, uint64_t addr,
		  struct cuspans *c)
{
	Dwarf_Addr bias = 0, base, lo, hi;
	ptrdiff_t off = 0;

	if (!cu)
		return false;
	if (c && c->cu != cu)
		load_spans(dm, cu, c);
	if (c && !c->over) {
		for (size_t i = 0; i < c->n; i++)
			if (addr >= c->lo[i] && addr < c->hi[i])
				return true;
		return false;
	}
	dwfl_module_getdwarf(dm, &bias);
	while ((off = dwarf_ranges(cu, off, &base, &lo, &hi)) > 0)
		if (addr >= lo + bias && addr < hi + bias)
			return true;
	return false;
}

/*
 * libdwfl's line at addr, with own_cu only one of the CU holding addr;
 * c (zeroed before the first call, or NULL) keeps that CU's ranges.
 */
static Dwfl_Line *getsrc(Dwfl_Module *dm, uint64_t addr, bool own_cu,
			 struct cuspans *c)
{
	Dwfl_Line *line = dwfl_module_getsrc(dm, addr);

	/*
	 * libdwfl gives an address past every range of a CU (the padding
	 * after its last function) to the CU before it in the layout at
	 * hand, so that its line depends on where other sections are.
	 * Outside a function, a line is taken only from the CU the address
	 * is in, which is the same in every layout (and in the index).
	 */
	return line && own_cu && !in_cu(dm, dwfl_linecu(line), addr, c) ?
		       NULL :
		       line;
}

void srcline_find(const struct smod *sm, uint64_t addr, bool in_fn,
		  struct ms_frame *f)
{
	Dwfl_Line *line;
	int lineno = 0, col = 0;
	uint16_t sec;
	uint32_t off;

	if (sm->ix) {
		if (ixsecs_find(&sm->ix_secs, addr, false, &sec, &off))
			ixlines_find(sm->ix, &sm->ix_lines, sec, off, 0,
				     SIZE_MAX, f);
		return;
	}
	line = getsrc(sm->dm, addr, !in_fn, NULL);
	if (!line)
		return;
	f->file = dwfl_lineinfo(line, NULL, &lineno, &col, NULL, NULL);
	f->line = lineno;
	f->col = col;
}

struct points {
	uint64_t *v;
	size_t n, cap;
};

static int point(struct points *p, uint64_t addr)
{
	size_t old = p->cap;

	if (ms_reserve(&p->v, &p->cap, p->n, sizeof(*p->v), 4096) < 0)
		return -ENOMEM;
	/* Faulted in at once, not a page at a time as it fills. */
	if (p->cap != old)
		ms_prefault(p->v + old, (p->cap - old) * sizeof(*p->v));
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

int srcline_index(Dwfl_Module *dm, const struct ixsecs *xs, struct ixw *w)
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
		line = getsrc(dm, p.v[i], true, &cus);
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
