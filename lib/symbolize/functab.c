// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A module's functions from its DWARF, sorted by address once, and each
 * function's inlined calls: libdwfl would rebuild the inline chain per
 * address (dwarf_getscopes walks the CU each time), so a function's
 * inlined calls (depth-first) are collected the first time an address
 * falls in it. Walking every function's DIE tree up front was a fifth of
 * the time to resolve one address, and an oops touches a few dozen
 * functions of thousands.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize-int.h"

struct inl {
	uint64_t lo, hi;
	const char *name;
	const char *call_file;
	int call_line, call_col;
	int depth; /* 0: directly inside the function */
	uint64_t ext_lo,
		ext_hi; /* all ranges of the call: its callees lie here */
	size_t skip; /* the next entry outside this one's subtree */
};

/*
 * An outermost inlined call: where its subtree starts in fn->inl. The
 * tops are sorted by ext_lo, and max_hi is the largest ext_hi of this
 * one and those before it: a lookup finds the tops that may hold an
 * address by binary search and a short walk back, not a scan of all (a
 * large function has thousands).
 */
struct top {
	uint64_t ext_lo, ext_hi, max_hi;
	size_t at;
};

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *n =
		dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));

	return n ? n : "??";
}

static int add_fn(struct smod *sm, uint64_t lo, uint64_t hi, Dwarf_Die *die)
{
	if (ms_reserve(&sm->fns, &sm->capfns, sm->nfns, sizeof(*sm->fns),
		       256) < 0)
		return -ENOMEM;
	sm->fns[sm->nfns++] = (struct fn){
		.lo = lo, .hi = hi, .name = die_name(die), .die = *die
	};
	return 0;
}

struct walk {
	uint64_t bias;
	Dwarf_Files *files;
	size_t nfiles;
	struct inl *inl; /* inlined calls of the current function */
	size_t ninl, capinl;
};

/* One entry per range of the call, each knowing the extent of them all. */
static int add_inl(struct walk *w, Dwarf_Die *die, int depth)
{
	Dwarf_Addr base, lo, hi;
	Dwarf_Attribute a;
	Dwarf_Word file = 0, line = 0, col = 0;
	Dwarf_Addr ext_lo = UINT64_MAX, ext_hi = 0;
	const char *name = NULL, *call_file = NULL;
	size_t first = w->ninl;
	ptrdiff_t off = 0;

	dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &a), &file);
	dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &a), &line);
	dwarf_formudata(dwarf_attr(die, DW_AT_call_column, &a), &col);
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (ms_reserve(&w->inl, &w->capinl, w->ninl, sizeof(*w->inl),
			       16) < 0)
			return -ENOMEM;
		if (!name) {
			name = die_name(die);
			if (w->files && file < w->nfiles)
				call_file = dwarf_filesrc(w->files, file, NULL,
							  NULL);
		}
		w->inl[w->ninl++] = (struct inl){
			.lo = lo + w->bias,
			.hi = hi + w->bias,
			.name = name,
			.call_file = call_file,
			.call_line = (int)line,
			.call_col = (int)col,
			.depth = depth,
		};
		ext_lo = lo < ext_lo ? lo : ext_lo;
		ext_hi = hi > ext_hi ? hi : ext_hi;
	}
	for (size_t i = first; i < w->ninl; i++) {
		w->inl[i].ext_lo = ext_lo + w->bias;
		w->inl[i].ext_hi = ext_hi + w->bias;
	}
	return 0;
}

/* Inlined calls below die, depth-first. */
static int walk_inlines(struct walk *w, Dwarf_Die *die, int depth)
{
	Dwarf_Die child;
	int r = 0;

	if (dwarf_child(die, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_inlined_subroutine) {
			r = add_inl(w, &child, depth);
			if (!r)
				r = walk_inlines(w, &child, depth + 1);
		} else if (tag == DW_TAG_lexical_block) {
			r = walk_inlines(w, &child, depth);
		}
	} while (!r && dwarf_siblingof(&child, &child) == 0);
	return r;
}

/*
 * In depth-first order an entry's subtree is the run of deeper entries
 * after it; skip lets a lookup jump over subtrees that miss the address.
 */
static int set_skips(struct fn *f)
{
	size_t *open = malloc((f->ninl + 1) * sizeof(*open)), n = 0;

	if (!open)
		return -ENOMEM;
	for (size_t i = 0; i < f->ninl; i++) {
		while (n && f->inl[open[n - 1]].depth >= f->inl[i].depth)
			f->inl[open[--n]].skip = i;
		open[n++] = i;
	}
	while (n)
		f->inl[open[--n]].skip = f->ninl;
	free(open);
	return 0;
}

static int cmp_top(const void *a, const void *b)
{
	const struct top *x = a, *y = b;

	if (x->ext_lo != y->ext_lo)
		return x->ext_lo < y->ext_lo ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

static int set_tops(struct fn *f)
{
	uint64_t max_hi = 0;

	for (size_t i = 0; i < f->ninl; i = f->inl[i].skip)
		f->ntop++;
	f->top = malloc(f->ntop * sizeof(*f->top));
	if (!f->top)
		return -ENOMEM;
	for (size_t i = 0, t = 0; i < f->ninl; i = f->inl[i].skip)
		f->top[t++] = (struct top){ f->inl[i].ext_lo, f->inl[i].ext_hi,
					    0, i };
	qsort(f->top, f->ntop, sizeof(*f->top), cmp_top);
	for (size_t t = 0; t < f->ntop; t++) {
		if (f->top[t].ext_hi > max_hi)
			max_hi = f->top[t].ext_hi;
		f->top[t].max_hi = max_hi;
	}
	return 0;
}

/* A function split in parts (.cold, ranges) is one entry per part. */
static int add_subprogram(struct smod *sm, Dwarf_Die *die)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	int r = 0;

	while (!r && (off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0)
		r = add_fn(sm, lo + sm->bias, hi + sm->bias, die);
	return r;
}

static int walk_cu(struct smod *sm, Dwarf_Die *die)
{
	Dwarf_Die child;
	int r = 0;

	if (dwarf_child(die, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_subprogram &&
		    dwarf_hasattr(&child, DW_AT_low_pc))
			r = add_subprogram(sm, &child);
		else if (tag == DW_TAG_subprogram &&
			 dwarf_hasattr(&child, DW_AT_ranges))
			r = add_subprogram(sm, &child);
		else if (tag == DW_TAG_namespace)
			r = walk_cu(sm, &child);
	} while (!r && dwarf_siblingof(&child, &child) == 0);
	return r;
}

/*
 * A call's extent within f's part: the lookups it prunes are of
 * addresses in the part, for which it prunes the same. Calls with a .cold
 * part would otherwise reach across to the other section and be walked
 * for every address in between.
 */
static struct inl clamp(struct inl in, const struct fn *f)
{
	if (in.ext_lo < f->lo)
		in.ext_lo = f->lo;
	if (in.ext_hi > f->hi)
		in.ext_hi = f->hi;
	return in;
}

/* The inlined calls of f's function that fall in f's part. */
static int walk_fn(const struct smod *sm, struct fn *f)
{
	struct walk w = { .bias = sm->bias };
	Dwarf_Die cu;
	int r;

	f->walked = true;
	if (!dwarf_diecu(&f->die, &cu, NULL, NULL) ||
	    dwarf_getsrcfiles(&cu, &w.files, &w.nfiles) != 0)
		w.files = NULL;
	r = walk_inlines(&w, &f->die, 0);
	if (!r && w.ninl) {
		f->inl = malloc(w.ninl * sizeof(*f->inl));
		if (!f->inl)
			r = -ENOMEM;
	}
	for (size_t j = 0; !r && j < w.ninl; j++)
		if (w.inl[j].lo < f->hi && w.inl[j].hi > f->lo)
			f->inl[f->ninl++] = clamp(w.inl[j], f);
	if (!r && f->ninl)
		r = set_skips(f);
	if (!r && f->ninl)
		r = set_tops(f);
	free(w.inl);
	if (r) {
		/* Out of memory: the function answers without inlines. */
		free(f->inl);
		free(f->top);
		f->inl = NULL;
		f->top = NULL;
		f->ninl = f->ntop = 0;
	}
	return r;
}

static int cmp_fn(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

int functab_build(struct smod *sm)
{
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;
	int r = 0;

	sm->built = true;
	if (sm->ix)
		r = ixfns_build(sm);
	while (!r && !sm->ix && (cu = dwfl_module_nextcu(sm->dm, cu, &bias))) {
		sm->bias = bias;
		r = walk_cu(sm, cu);
	}
	/* From an index they come in order, unless it is damaged. */
	if (!ms_sorted(sm->fns, sm->nfns, sizeof(*sm->fns), cmp_fn))
		qsort(sm->fns, sm->nfns, sizeof(*sm->fns), cmp_fn);
	sm->fn_lo = SORTED_KEYS(sm->fns, &sm->nfns, lo);
	return sm->fn_lo ? r : -ENOMEM;
}

void functab_free(struct smod *sm)
{
	for (size_t i = 0; i < sm->nfns; i++) {
		free(sm->fns[i].inl);
		free(sm->fns[i].top);
	}
	free(sm->fns);
	free(sm->fn_lo);
}

struct fn *functab_find(const struct smod *sm, uint64_t addr)
{
	size_t lo = ms_upper_bound(sm->fn_lo, sm->nfns, sizeof(*sm->fn_lo), 0,
				   addr);

	/* The last function starting at or before addr, if it covers it. */
	if (lo == 0 || addr >= sm->fns[lo - 1].hi)
		return NULL;
	return &sm->fns[lo - 1];
}

/*
 * What a walk in inl's order leaves: at each depth the last call there
 * holding addr, and the depth after the last one found. Subtrees may be
 * walked in any order: each entry's place in inl says which is last.
 */
struct chain {
	const struct inl **at; /* per depth */
	size_t last; /* inl index of the last one found, + 1; 0: none */
	size_t depth;
};

static void found(const struct fn *fn, const struct inl *in, struct chain *c)
{
	size_t i = (size_t)(in - fn->inl);
	const struct inl *was = c->at[in->depth];

	if (!was || was < in)
		c->at[in->depth] = in;
	if (i + 1 > c->last) {
		c->last = i + 1;
		c->depth = (size_t)in->depth + 1;
	}
}

/* The subtree of the outermost call at inl[at]: its calls holding addr. */
static void subtree(const struct fn *fn, size_t at, uint64_t addr,
		    struct chain *c)
{
	for (size_t i = at, end = fn->inl[at].skip; i < end;) {
		const struct inl *in = &fn->inl[i];

		if (addr < in->ext_lo || addr >= in->ext_hi ||
		    in->depth >= MS_MAX_FRAMES - 1) {
			i = in->skip; /* nor in its callees */
			continue;
		}
		if (addr < in->lo || addr >= in->hi) {
			i++; /* in another range, or between them */
			continue;
		}
		found(fn, in, c);
		i++;
	}
}

/*
 * The inlined calls whose ranges hold addr, outermost first, into chain;
 * returns how many. Depth-first, a subtree ends at its root's skip, so
 * the walk over inl is the walk over each outermost call holding addr;
 * the tops (sorted by extent) say which outermost calls can.
 */
static size_t chain_of(const struct fn *fn, uint64_t addr,
		       const struct inl **chain)
{
	struct chain c = { .at = chain };
	size_t lo = 0, hi = fn->ntop;

	if (!fn->ninl)
		return 0; /* nor tops, which clang-analyzer cannot see */
	for (size_t d = 0; d < MS_MAX_FRAMES; d++)
		chain[d] = NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (fn->top[mid].ext_lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t t = lo; t-- > 0 && fn->top[t].max_hi > addr;)
		if (fn->top[t].ext_hi > addr)
			subtree(fn, fn->top[t].at, addr, &c);
	return c.depth;
}

int functab_frames(const struct smod *sm, struct fn *fn, uint64_t addr,
		   struct ms_symres *res)
{
	const struct inl *chain[MS_MAX_FRAMES];
	size_t depth;

	if (sm->ix)
		return ixfns_frames(sm, fn, addr, res);
	if (!fn->walked && walk_fn(sm, fn) < 0)
		return -ENOMEM;
	depth = chain_of(fn, addr, chain);
	/*
	 * chain[0] is the outermost inlined call, chain[depth - 1] the
	 * innermost. Frame 0 is the innermost scope at the line table's line;
	 * frame k is the scope that called frame k - 1, at that call's line.
	 */
	for (size_t k = 0; k <= depth; k++) {
		struct ms_frame *f = &res->frames[k];

		*f = (struct ms_frame){
			.func = k < depth ? chain[depth - 1 - k]->name :
					    fn->name
		};
		if (k == 0) {
			srcline_find(sm, addr, true, f);
		} else {
			const struct inl *callee = chain[depth - k];

			f->file = callee->call_file;
			f->line = callee->call_line;
			f->col = callee->call_col;
		}
	}
	res->nframes = depth + 1;
	return 0;
}

/*
 * A range [lo, hi) of the layout the index is built on, as section and
 * offsets; -ERANGE unless it lies in one section.
 */
static int ix_range(const struct ixsecs *xs, uint64_t lo, uint64_t hi,
		    uint16_t *sec, uint32_t *off_lo, uint32_t *off_hi)
{
	uint16_t hsec;

	if (!ixsecs_find(xs, lo, false, sec, off_lo))
		return -ERANGE;
	if (hi == lo) {
		*off_hi = *off_lo;
		return 0;
	}
	if (hi < lo || !ixsecs_find(xs, hi, true, &hsec, off_hi) ||
	    hsec != *sec)
		return -ERANGE;
	return 0;
}

/*
 * Where the inline chain may change in f: its start, and each end of
 * every call's ranges and extent that falls inside it; sorted, each once.
 */
static uint64_t *change_points(const struct fn *f, size_t *n)
{
	uint64_t *p = malloc((4 * f->ninl + 1) * sizeof(*p));
	size_t k = 0, m = 0;

	if (!p)
		return NULL;
	p[k++] = f->lo;
	for (size_t i = 0; i < f->ninl; i++) {
		const struct inl *in = &f->inl[i];
		uint64_t e[4] = { in->lo, in->hi, in->ext_lo, in->ext_hi };

		for (int j = 0; j < 4; j++)
			if (e[j] > f->lo && e[j] < f->hi)
				p[k++] = e[j];
	}
	ms_sort_u64(p, k);
	for (size_t i = 0; i < k; i++)
		if (i == 0 || p[i] != p[m - 1])
			p[m++] = p[i];
	*n = m;
	return p;
}

/*
 * f's inline segments: the chain chain_of gives at each change point,
 * innermost first as functab_frames reads it, a segment where it differs
 * from the one before. Computed by the lookup itself, the index answers
 * as the DWARF does.
 */
static int index_segs(const struct fn *f, struct ixw *w, uint32_t *nseg)
{
	const struct inl *chain[MS_MAX_FRAMES];
	struct ix_frame fr[MS_MAX_FRAMES], prev[MS_MAX_FRAMES];
	size_t n = 0, pd = SIZE_MAX;
	uint64_t *p = f->ninl ? change_points(f, &n) : NULL;
	int r = f->ninl && !p ? -ENOMEM : 0;

	*nseg = 0;
	for (size_t i = 0; !r && i < n; i++) {
		size_t d = chain_of(f, p[i], chain);
		struct ix_seg g = { .off = (uint32_t)(p[i] - f->lo), .n = (uint16_t)d };

		for (size_t k = 0; k < d; k++) {
			const struct inl *in = chain[d - 1 - k];

			fr[k] = (struct ix_frame){
				.name = ixw_str(w, in->name),
				.call_file = in->call_file ?
						     ixw_str(w, in->call_file) :
						     IX_NONE,
				.call_line = in->call_line,
				.call_col = in->call_col,
			};
		}
		if (d == pd && !memcmp(fr, prev, d * sizeof(*fr)))
			continue;
		r = ixw_frames(w, fr, d, &g.first);
		if (!r)
			r = ixw_seg(w, &g);
		memcpy(prev, fr, d * sizeof(*fr));
		pd = d;
		++*nseg;
	}
	free(p);
	return r;
}

/*
 * Every function part in the order the table has them, which a stable
 * sort by any layout's addresses keeps for parts at one address, as it
 * keeps the walk's order when built from the DWARF.
 */
int functab_index(struct smod *sm, const struct ixsecs *xs, struct ixw *w)
{
	int r = sm->built ? 0 : functab_build(sm);

	for (size_t i = 0; !r && i < sm->nfns; i++) {
		struct fn *f = &sm->fns[i];
		struct ix_fn x = { .name = ixw_str(w, f->name) };

		if (!f->walked)
			r = walk_fn(sm, f);
		if (!r)
			r = ix_range(xs, f->lo, f->hi, &x.sec, &x.lo, &x.hi);
		x.seg_first = (uint32_t)ixw_nseg(w);
		if (!r)
			r = index_segs(f, w, &x.nseg);
		if (!r)
			r = ixw_fn(w, &x);
	}
	return r;
}
