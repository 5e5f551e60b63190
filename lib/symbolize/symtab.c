// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A module's ELF symbols at their runtime addresses, sorted once:
 * libdwfl's dwfl_module_addrinfo scans the whole symbol table for every
 * address, and a module has tens of thousands of symbols.
 *
 * Names follow the kernel's kallsyms, so that what modsect prints is what
 * an oops of the same address would print: the bytes after a function's
 * end (alignment padding) belong to the function before them, with the
 * size counted to the next symbol (kernel/module/kallsyms.c,
 * find_kallsyms_symbol, ignores st_size).
 */
#include <errno.h>
#include <stddef.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize-int.h"

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* At one address, sized before unsized, global before local. */
	if ((x->size != 0) != (y->size != 0))
		return x->size ? -1 : 1;
	return (int)y->global - (int)x->global;
}

static int cmp_byname(const void *a, const void *b)
{
	const struct sym *x = *(struct sym *const *)a;
	const struct sym *y = *(struct sym *const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->addr < y->addr ? -1 : x->addr > y->addr);
}

/*
 * Mapping symbols ($x and $d of arm64, local labels) mark where code or
 * data starts, not a function: kallsyms never names them, nor ends the
 * symbol before them there (include/linux/module_symbol.h).
 */
static bool mapping_symbol(const char *name)
{
	return name[0] == '$' || (name[0] == '.' && name[1] == 'L') ||
	       (name[0] == 'L' && name[1] == '0');
}

/* Whether the symtab's entry is one kallsyms could name; its address. */
static const char *wanted(Dwfl_Module *dm, int i, GElf_Sym *sym,
			  GElf_Addr *addr)
{
	GElf_Word shndx;
	const char *name =
		dwfl_module_getsym_info(dm, i, sym, addr, &shndx, NULL, NULL);
	int type = GELF_ST_TYPE(sym->st_info);

	/* Defined code and data in loaded sections only. */
	if (!name || !*name || mapping_symbol(name) || shndx == SHN_UNDEF ||
	    type == STT_SECTION || type == STT_FILE ||
	    *addr == (GElf_Addr)-1)
		return NULL;
	return name;
}

static void add_sym(struct smod *sm, uint64_t addr, uint64_t size,
		    const char *name, bool global)
{
	if (addr < sm->lo || addr >= sm->hi)
		return;
	sm->syms[sm->nsyms++] = (struct sym){
		.addr = addr,
		.size = size,
		.name = name,
		.global = global,
	};
}

/* The symbols of the index, in address order (ix_by_address). */
static int ix_syms(struct smod *sm)
{
	const struct ix *ix = sm->ix;
	size_t n = 0, *order = ix_by_address(sm, ix->syms, ix->n[IX_SYMS],
					     sizeof(*ix->syms),
					     offsetof(struct ix_sym, sec), &n);

	sm->syms = calloc(n + 1, sizeof(*sm->syms));
	if (!order || !sm->syms) {
		free(order);
		return -ENOMEM;
	}
	for (size_t k = 0; k < n; k++) {
		const struct ix_sym *y = &ix->syms[order[k]];

		add_sym(sm, sm->ix_base[y->sec] + y->off, y->size,
			ix_str(ix, y->name), y->global);
	}
	free(order);
	return 0;
}

int symtab_build(struct smod *sm)
{
	int n = sm->ix ? 0 : dwfl_module_getsymtab(sm->dm), r = 0;

	sm->syms_built = true;
	if (sm->ix)
		r = ix_syms(sm);
	else if (n > 0 && !(sm->syms = calloc((size_t)n, sizeof(*sm->syms))))
		r = -ENOMEM;
	for (int i = 1; !r && i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *name = wanted(sm->dm, i, &sym, &addr);

		if (name)
			add_sym(sm, addr, sym.st_size, name,
				GELF_ST_BIND(sym.st_info) != STB_LOCAL);
	}
	if (r)
		return r;
	if (!ms_sorted(sm->syms, sm->nsyms, sizeof(*sm->syms), cmp_sym))
		qsort(sm->syms, sm->nsyms, sizeof(*sm->syms), cmp_sym);
	sm->sym_addr = SORTED_KEYS(sm->syms, &sm->nsyms, addr);
	if (!sm->sym_addr) {
		sm->nsyms = 0; /* a later lookup must not read sym_addr */
		return -ENOMEM;
	}
	return 0;
}

/*
 * The symbols by name, made when many names are looked up: resolve
 * looks up none, and sorting btrfs.ko's 11,000 names was a tenth of
 * resolving one address from the index and of decoding a 10-frame oops.
 */
#define BYNAME_AFTER 64

static int byname_build(struct smod *sm)
{
	sm->byname = calloc(sm->nsyms + 1, sizeof(*sm->byname));
	if (!sm->byname)
		return -ENOMEM;
	for (size_t i = 0; i < sm->nsyms; i++)
		sm->byname[i] = &sm->syms[i];
	if (sm->nsyms)
		qsort(sm->byname, sm->nsyms, sizeof(*sm->byname), cmp_byname);
	return 0;
}

void symtab_free(struct smod *sm)
{
	free(sm->sym_addr);
	free(sm->syms);
	free(sm->byname);
}

/*
 * addr is past the end of every symbol at syms[lo - 1]'s address, the
 * last at or before it: padding, named after the first of them (sized,
 * global first), up to the next symbol of the section or its end. A
 * symbol of another section names nothing: the gap between sections is
 * no one's padding.
 */
static void padding(const struct smod *sm, size_t lo, const struct ms_lsec *sec,
		    struct symhit *ret)
{
	size_t first = lo - 1;
	uint64_t end;

	while (first > 0 && sm->syms[first - 1].addr == sm->syms[lo - 1].addr)
		first--;
	if (!sec || sm->syms[first].addr < sec->addr)
		return;
	end = sec->addr + sec->size;
	if (lo < sm->nsyms && sm->syms[lo].addr < end)
		end = sm->syms[lo].addr;
	*ret = (struct symhit){ &sm->syms[first], end - sm->syms[first].addr,
				true };
}

/*
 * The symbol covering addr: a sized one whose range holds it, else an
 * unsized one at or before it with no sized symbol in between, else the
 * one whose padding it is in.
 */
void symtab_find(const struct smod *sm, uint64_t addr,
		 const struct ms_lsec *sec, struct symhit *ret)
{
	size_t lo = ms_upper_bound(sm->sym_addr, sm->nsyms,
				   sizeof(*sm->sym_addr), 0, addr);
	const struct sym *unsized = NULL;

	*ret = (struct symhit){ 0 };
	if (lo == 0)
		return;
	/* Look back over symbols that may enclose addr (nested, aliases). */
	for (size_t i = lo, seen = 0; i-- > 0 && seen < 64; seen++) {
		const struct sym *y = &sm->syms[i];

		if (y->size && addr < y->addr + y->size) {
			*ret = (struct symhit){ y, y->size, false };
			return;
		}
		if (!y->size && !unsized && y->addr == sm->syms[lo - 1].addr)
			unsized = y;
	}
	if (unsized)
		*ret = (struct symhit){ unsized, 0, false };
	else
		padding(sm, lo, sec, ret);
}

int symtab_lookup(struct smod *sm, const char *name, uint64_t *addr_ret)
{
	size_t lo = 0, hi;

	if (!sm->syms_built && symtab_build(sm) < 0)
		return -ENOMEM;
	/*
	 * A report's few frames are found by a scan (of same names, the
	 * lowest address, as the sorted table gives); sorting the names pays
	 * only for many, a stream of reports.
	 */
	if (!sm->byname && sm->name_scans < BYNAME_AFTER) {
		const struct sym *best = NULL;

		sm->name_scans++;
		for (size_t i = 0; i < sm->nsyms; i++)
			if (!strcmp(sm->syms[i].name, name) &&
			    (!best || sm->syms[i].addr < best->addr))
				best = &sm->syms[i];
		if (!best)
			return -ENOENT;
		*addr_ret = best->addr;
		return 0;
	}
	if (!sm->byname && byname_build(sm) < 0)
		return -ENOMEM;
	hi = sm->nsyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(sm->byname[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < sm->nsyms && !strcmp(sm->byname[lo]->name, name)) {
		*addr_ret = sm->byname[lo]->addr;
		return 0;
	}
	return -ENOENT;
}

/*
 * The symbols in symtab order (a sort keeps that order for symbols alike,
 * as it does when they come from the symtab), at their offsets.
 */
int symtab_index(struct smod *sm, const struct ixsecs *xs, struct ixw *w)
{
	int n = dwfl_module_getsymtab(sm->dm), r = 0;

	for (int i = 1; !r && i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *name = wanted(sm->dm, i, &sym, &addr);
		struct ix_sym y = { 0 };

		if (!name)
			continue;
		/* A label at a section's end stays that section's. */
		if (!ixsecs_find(xs, addr, false, &y.sec, &y.off) &&
		    !ixsecs_find(xs, addr, true, &y.sec, &y.off))
			continue;
		if (sym.st_size > UINT32_MAX)
			return -ERANGE;
		y.name = ixw_str(w, name);
		y.size = (uint32_t)sym.st_size;
		y.global = GELF_ST_BIND(sym.st_info) != STB_LOCAL;
		r = ixw_sym(w, &y);
	}
	return r;
}
