// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An address's source line: libdwfl's answer from the line table, kept
 * to the CU the address is in where that matters, or an index's row.
 *
 * libdwfl finds an address's CU only through .debug_aranges, and clang
 * writes none unless given -gdwarf-aranges (which the kernel's
 * scripts/Makefile.debug does not pass: -g and -gdwarf-4 or -gdwarf-5
 * only), so a module built with LLVM=1 had no lines at all. The CUs that
 * .debug_aranges leave out are found by their own ranges instead
 * (DW_AT_low_pc/high_pc, DW_AT_ranges, DWARF 5's rnglists, as libdw
 * reads them), and the line taken from that CU's table as libdwfl
 * would take it (dwarf_getsrc_die does the same search). With complete
 * .debug_aranges (gcc's) the table is empty and libdwfl answers alone.
 *
 * Into an index: the answer is the last row at or before the address in
 * the line table of the CU whose ranges (or aranges) hold it, or none if
 * that row ends a sequence. The answer can change only at a row's
 * address or at a range's or arange's bounds; between two such points it
 * is the answer at the first. So the index asks at every such point and
 * keeps the answers: the same answers, found without the DWARF.
 */
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "symbolize-int.h"

/*
 * A range of a CU that .debug_aranges do not hold; max_hi: the largest hi
 * of this entry and those before it, which bounds the walk back.
 */
struct curange {
	uint64_t lo, hi, max_hi;
	Dwarf_Die *cu; /* libdwfl's, which lives as long as the module */
};

/* At most this many (24 bytes each): 6 MiB for a module of any size. */
#define CURANGES_MAX 262144

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

/* Whether one arange of the CU at cuoff holds all of [lo, hi). */
static bool in_aranges(Dwarf_Aranges *ar, Dwarf_Addr lo, Dwarf_Addr hi,
		       Dwarf_Off cuoff)
{
	Dwarf_Arange *a = ar ? dwarf_getarange_addr(ar, lo) : NULL;
	Dwarf_Addr start;
	Dwarf_Word len;
	Dwarf_Off off;

	return a && dwarf_getarangeinfo(a, &start, &len, &off) == 0 &&
	       off == cuoff && hi - start <= len;
}

/* The ranges of cu that ar does not hold, into sm's table. */
static int add_cu(struct smod *sm, Dwarf_Die *cu, Dwarf_Aranges *ar)
{
	Dwarf_Addr base, lo, hi;
	Dwarf_Off cuoff = dwarf_dieoffset(cu);
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(cu, off, &base, &lo, &hi)) > 0) {
		if (lo >= hi || in_aranges(ar, lo, hi, cuoff))
			continue;
		if (sm->ncur == CURANGES_MAX) {
			sm->cur_over = true;
			return 0;
		}
		/* Out of memory: checked as if over (see getsrc). */
		if (ms_reserve(&sm->cur, &sm->capcur, sm->ncur,
			       sizeof(*sm->cur), 16) < 0) {
			sm->cur_over = true;
			return -ENOMEM;
		}
		sm->cur[sm->ncur++] = (struct curange){ lo, hi, 0, cu };
	}
	return 0;
}

static int cmp_cur(const void *a, const void *b)
{
	const struct curange *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

int srcline_build(struct smod *sm)
{
	Dwarf_Aranges *ar = NULL;
	Dwarf_Die *cu = NULL;
	Dwarf *dw;
	uint64_t max_hi = 0;
	size_t nar;
	int r = 0;

	sm->cur_built = true;
	if (sm->ix || !(dw = dwfl_module_getdwarf(sm->dm, &sm->cur_bias)))
		return 0;
	/* No .debug_aranges is no error: libdw gives none. */
	if (dwarf_getaranges(dw, &ar, &nar) != 0)
		ar = NULL;
	while (!r && !sm->cur_over &&
	       (cu = dwfl_module_nextcu(sm->dm, cu, &sm->cur_bias)))
		r = add_cu(sm, cu, ar);
	if (sm->ncur) /* qsort's base must not be NULL, even for none */
		qsort(sm->cur, sm->ncur, sizeof(*sm->cur), cmp_cur);
	for (size_t i = 0; i < sm->ncur; i++) {
		if (sm->cur[i].hi > max_hi)
			max_hi = sm->cur[i].hi;
		sm->cur[i].max_hi = max_hi;
	}
	return r;
}

void srcline_free(struct smod *sm)
{
	free(sm->cur);
	sm->cur = NULL;
	sm->ncur = sm->capcur = 0;
}

/*
 * Whether sm's table has a CU whose ranges hold addr (a DWARF address),
 * into *cu; *cu NULL if two CUs claim it, which no answer then fits.
 */
static bool table_cu(const struct smod *sm, Dwarf_Addr addr, Dwarf_Die **cu)
{
	size_t i = MS_UPPER_BOUND(sm->cur, sm->ncur, lo, addr);
	bool hit = false;

	*cu = NULL;
	while (i-- > 0 && sm->cur[i].max_hi > addr) {
		if (addr >= sm->cur[i].hi)
			continue;
		if (hit && *cu != sm->cur[i].cu) {
			*cu = NULL;
			return true;
		}
		*cu = sm->cur[i].cu;
		hit = true;
	}
	return hit;
}

/*
 * The line at addr, with own_cu only one of the CU holding addr; c
 * (zeroed before the first call, or NULL) keeps that CU's ranges.
 */
static Dwarf_Line *getsrc(const struct smod *sm, uint64_t addr, bool own_cu,
			  struct cuspans *c)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu;
	Dwfl_Line *line;

	/* A CU .debug_aranges leave out: its line, from its own table. */
	if (sm->ncur && table_cu(sm, addr - sm->cur_bias, &cu))
		return cu ? dwarf_getsrc_die(cu, addr - sm->cur_bias) : NULL;
	line = dwfl_module_getsrc(sm->dm, addr);
	/*
	 * libdwfl gives an address past every range of a CU (the padding
	 * after its last function) to the CU before it in the layout at
	 * hand, so that its line depends on where other sections are.
	 * Outside a function, a line is taken only from the CU the address
	 * is in, which is the same in every layout (and in the index); and
	 * everywhere when the table could not hold every CU .debug_aranges
	 * leave out (the address may be in one of those).
	 */
	if (line && (own_cu || sm->cur_over) &&
	    !in_cu(sm->dm, dwfl_linecu(line), addr, c))
		return NULL;
	return line ? dwfl_dwarf_line(line, &bias) : NULL;
}

/* line's file, line and column into f (f->file NULL if it has none). */
static void line_info(Dwarf_Line *line, struct ms_frame *f)
{
	int lineno = 0, col = 0;

	f->file = dwarf_linesrc(line, NULL, NULL);
	dwarf_lineno(line, &lineno);
	dwarf_linecol(line, &col);
	f->line = lineno;
	f->col = col;
}

void srcline_find(const struct smod *sm, uint64_t addr, bool in_fn,
		  struct ms_frame *f)
{
	Dwarf_Line *line;
	uint16_t sec;
	uint32_t off;

	if (sm->ix) {
		if (ixsecs_find(&sm->ix_secs, addr, false, &sec, &off))
			ixlines_find(sm->ix, &sm->ix_lines, sec, off, 0,
				     SIZE_MAX, f);
		return;
	}
	line = getsrc(sm, addr, !in_fn, NULL);
	if (line)
		line_info(line, f);
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

int srcline_index(struct smod *sm, const struct ixsecs *xs, struct ixw *w)
{
	struct points p = { 0 };
	struct ix_row last = { .sec = UINT16_MAX };
	struct cuspans cus = { 0 };
	int r = sm->cur_built ? 0 : srcline_build(sm);

	if (!r)
		r = change_points(sm->dm, xs, &p);
	if (!r)
		ms_sort_u64(p.v, p.n);
	for (size_t i = 0; !r && i < p.n; i++) {
		struct ix_row row = { .file = IX_NONE };
		struct ms_frame f = { 0 };
		Dwarf_Line *line;

		if ((i > 0 && p.v[i] == p.v[i - 1]) ||
		    !ixsecs_find(xs, p.v[i], false, &row.sec, &row.off))
			continue;
		/*
		 * What srcline_find answers outside a function; inside one
		 * the address is in its CU, and the two answers are the same.
		 */
		line = getsrc(sm, p.v[i], true, &cus);
		if (line) {
			line_info(line, &f);
			row.found = true;
			row.file = f.file ? ixw_str(w, f.file) : IX_NONE;
			row.line = f.line;
			row.col = f.col;
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
