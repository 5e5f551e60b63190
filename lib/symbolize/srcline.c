// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An address's source line: libdwfl's answer from the line table, kept
 * to the CU the address is in where that matters, or an index's row.
 */
#include <elfutils/libdw.h>
#include <stdint.h>

#include "symbolize-int.h"

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

Dwfl_Line *srcline_getsrc(Dwfl_Module *dm, uint64_t addr, bool own_cu,
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
	line = srcline_getsrc(sm->dm, addr, !in_fn, NULL);
	if (!line)
		return;
	f->file = dwfl_lineinfo(line, NULL, &lineno, &col, NULL, NULL);
	f->line = lineno;
	f->col = col;
}
