// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Addresses to symbols, source lines and inline chains.
 *
 * libdwfl loads each module the way it loads the running kernel's: the
 * module is reported at its runtime range, find_elf hands it our (debug)
 * file, and section_address gives the map's addresses, so every address
 * libdwfl returns is a runtime address. libdwfl answers symbols and lines
 * from sorted tables it keeps; the inline chain it would rebuild per
 * address (dwarf_getscopes walks the CU each time), so we build, once per
 * module, a sorted table of functions and answer each address by binary
 * search. A function's inlined calls (depth-first) are collected the first
 * time an address falls in it: walking every function's DIE tree up front
 * was a fifth of the time to resolve one address, and an oops touches a
 * few dozen functions of thousands.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "modsect.h"

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

/* An outermost inlined call: where its subtree starts in fn->inl. */
struct top {
	uint64_t ext_lo, ext_hi;
	size_t at;
};

struct fn {
	uint64_t lo, hi;
	const char *name;
	Dwarf_Die die; /* the subprogram, for the walk on first use */
	struct inl *inl; /* depth-first, those in [lo, hi) */
	size_t ninl;
	/*
	 * The depth-0 entries of inl, packed: a lookup reads these instead
	 * of striding through inl, whose entries are three times the size.
	 */
	struct top *top;
	size_t ntop;
	bool walked;
};

struct sym {
	uint64_t addr, size;
	const char *name;
	bool global;
};

struct smod {
	const struct ms_layout *l;
	Dwfl_Module *dm;
	struct sym *syms; /* by address, built on first use */
	struct sym **byname; /* the same, by name */
	size_t nsyms;
	bool syms_built;
	struct fn *fns; /* sorted by lo, built on first use */
	uint64_t *fn_lo; /* fns[i].lo: binary search in 8 bytes, not 100 */
	uint64_t *sym_addr; /* syms[i].addr, likewise */
	size_t nfns, capfns;
	bool built;
	Dwarf_Addr bias; /* of the module's DWARF, the same for every CU */
	uint64_t lo, hi; /* runtime range reported to libdwfl */
};

struct ms_symbolizer {
	Dwfl *dwfl;
	struct smod **mods; /* sorted by lo; each owned, libdwfl points at it */
	size_t nmods;
	const struct ms_ksym *core; /* by address, from the first text symbol */
	size_t ncore;
	Dwfl_Callbacks cb;
};

static int find_elf(Dwfl_Module *mod, void **userdata, const char *modname,
		    Dwarf_Addr base, char **file_name, Elf **elfp)
{
	const struct smod *sm = *userdata;
	const struct ms_layout *l = sm->l;
	const char *path = l->debug && l->debug->file ?
				   ms_modfile_debugger_path(l->debug->file) :
				   ms_modfile_debugger_path(l->file);
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	(void)mod, (void)modname, (void)base;
	if (fd < 0)
		return -1;
	*file_name = strdup(path);
	*elfp = NULL; /* libdwfl opens fd itself */
	return fd;
}

static int find_debuginfo(Dwfl_Module *mod, void **userdata,
			  const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	/* The file we gave is the debug info (or there is none). */
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
	(void)debuglink_file, (void)debuglink_crc, (void)debuginfo_file_name;
	return -1;
}

static int section_address(Dwfl_Module *mod, void **userdata,
			   const char *modname, Dwarf_Addr base,
			   const char *secname, GElf_Word shndx,
			   const GElf_Shdr *shdr, Dwarf_Addr *addr)
{
	const struct smod *sm = *userdata;

	(void)mod, (void)modname, (void)base, (void)shndx, (void)shdr;
	for (size_t i = 0; i < sm->l->nsecs; i++) {
		const struct ms_lsec *s = &sm->l->secs[i];

		if (strcmp(s->name, secname))
			continue;
		if (s->place == MS_PLACE_LOADED ||
		    s->place == MS_PLACE_PERCPU) {
			*addr = s->addr;
			return 0;
		}
		break;
	}
	/* Not loaded (freed .init, .modinfo): its symbols resolve nowhere. */
	*addr = (Dwarf_Addr)-1;
	return 0;
}

int ms_symbolizer_new(struct ms_symbolizer **ret, struct ms_err *err)
{
	struct ms_symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return ms_err_errno(err, ENOMEM, "symbolizer");
	s->cb.find_elf = find_elf;
	s->cb.find_debuginfo = find_debuginfo;
	s->cb.section_address = section_address;
	s->dwfl = dwfl_begin(&s->cb);
	if (!s->dwfl) {
		free(s);
		return ms_err_set(err, ENOMEM, "libdwfl: %s", dwfl_errmsg(-1));
	}
	*ret = s;
	return 0;
}

static void free_fns(struct smod *sm)
{
	for (size_t i = 0; i < sm->nfns; i++) {
		free(sm->fns[i].inl);
		free(sm->fns[i].top);
	}
	free(sm->fns);
	free(sm->fn_lo);
	free(sm->sym_addr);
	free(sm->syms);
	free(sm->byname);
}

void ms_symbolizer_free(struct ms_symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nmods; i++) {
		free_fns(s->mods[i]);
		free(s->mods[i]);
	}
	free(s->mods);
	dwfl_end(s->dwfl);
	free(s);
}

/* The runtime range of what the module has loaded (per-cpu aside). */
static bool module_range(const struct ms_layout *l, uint64_t *lo, uint64_t *hi)
{
	*lo = UINT64_MAX;
	*hi = 0;
	for (size_t i = 0; i < l->nsecs; i++) {
		const struct ms_lsec *s = &l->secs[i];

		if (s->place != MS_PLACE_LOADED)
			continue;
		if (s->addr < *lo)
			*lo = s->addr;
		if (s->addr + (s->size ? s->size : 1) > *hi)
			*hi = s->addr + (s->size ? s->size : 1);
	}
	return *lo < *hi;
}

/* Index of the first module starting after addr. */
static size_t upper(const struct ms_symbolizer *s, uint64_t addr)
{
	size_t lo = 0, hi = s->nmods;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->mods[mid]->lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Modules can be added at any time (libdwfl takes further reports with
 * dwfl_report_begin_add), so callers load only the modules they meet.
 */
int ms_symbolizer_add(struct ms_symbolizer *s, const struct ms_layout *l,
		      struct ms_err *err)
{
	struct smod *sm = calloc(1, sizeof(*sm)), **n;
	size_t at;
	void **ud;

	if (!sm)
		return ms_err_errno(err, ENOMEM, "symbolizer");
	sm->l = l;
	if (!module_range(l, &sm->lo, &sm->hi)) {
		free(sm);
		return ms_err_set(err, EINVAL, "module %s has nothing loaded",
				  l->mod->name);
	}
	at = upper(s, sm->lo);
	if ((at > 0 && s->mods[at - 1]->hi > sm->lo) ||
	    (at < s->nmods && s->mods[at]->lo < sm->hi)) {
		const struct smod *o =
			s->mods[at > 0 && s->mods[at - 1]->hi > sm->lo ? at - 1 :
									 at];

		free(sm);
		return ms_err_set(err, EINVAL,
				  "modules %s and %s overlap in the map",
				  o->l->mod->name, l->mod->name);
	}
	n = realloc(s->mods, (s->nmods + 1) * sizeof(*n));
	if (!n) {
		free(sm);
		return ms_err_errno(err, ENOMEM, "symbolizer");
	}
	s->mods = n;
	memmove(&n[at + 1], &n[at], (s->nmods - at) * sizeof(*n));
	n[at] = sm;
	s->nmods++;
	dwfl_report_begin_add(s->dwfl);
	sm->dm = dwfl_report_module(s->dwfl, l->mod->name, sm->lo, sm->hi);
	if (dwfl_report_end(s->dwfl, NULL, NULL) != 0 || !sm->dm)
		return ms_err_set(err, EINVAL, "libdwfl: %s: %s", l->mod->name,
				  dwfl_errmsg(-1));
	dwfl_module_info(sm->dm, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	*ud = sm;
	return 0;
}

bool ms_symbolizer_has(const struct ms_symbolizer *s, const char *module)
{
	for (size_t i = 0; i < s->nmods; i++)
		if (ms_modname_eq(s->mods[i]->l->mod->name, module))
			return true;
	return false;
}

/* ---- per-module function and inline tables ---- */

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *n =
		dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));

	return n ? n : "??";
}

static int add_fn(struct smod *sm, uint64_t lo, uint64_t hi, Dwarf_Die *die)
{
	if (sm->nfns == sm->capfns) {
		size_t ncap = sm->capfns ? 2 * sm->capfns : 256;
		struct fn *n = realloc(sm->fns, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		sm->fns = n;
		sm->capfns = ncap;
	}
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
		if (w->ninl == w->capinl) {
			size_t ncap = w->capinl ? 2 * w->capinl : 16;
			struct inl *n = realloc(w->inl, ncap * sizeof(*n));

			if (!n)
				return -ENOMEM;
			w->inl = n;
			w->capinl = ncap;
		}
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

static int set_tops(struct fn *f)
{
	for (size_t i = 0; i < f->ninl; i = f->inl[i].skip)
		f->ntop++;
	f->top = malloc(f->ntop * sizeof(*f->top));
	if (!f->top)
		return -ENOMEM;
	for (size_t i = 0, t = 0; i < f->ninl; i = f->inl[i].skip)
		f->top[t++] =
			(struct top){ f->inl[i].ext_lo, f->inl[i].ext_hi, i };
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
			f->inl[f->ninl++] = w.inl[j];
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

/*
 * The sort keys of a sorted table, packed: a binary search then reads 8
 * bytes per step, not a whole entry. Out of memory, *n becomes 0, so the
 * table reads as empty rather than unsearchable.
 */
static uint64_t *keys_of(const void *base, size_t *n, size_t size,
			 size_t key_off)
{
	uint64_t *k = malloc((*n + 1) * sizeof(*k));

	if (!k)
		*n = 0;
	for (size_t i = 0; k && i < *n; i++)
		memcpy(&k[i], (const char *)base + i * size + key_off,
		       sizeof(*k));
	return k;
}
#define KEYS_OF(arr, n, field) \
	keys_of((arr), (n), sizeof(*(arr)), offsetof(__typeof__(*(arr)), field))

static int cmp_fn(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int build(struct smod *sm)
{
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;
	int r = 0;

	sm->built = true;
	while (!r && (cu = dwfl_module_nextcu(sm->dm, cu, &bias))) {
		sm->bias = bias;
		r = walk_cu(sm, cu);
	}
	if (sm->nfns)
		qsort(sm->fns, sm->nfns, sizeof(*sm->fns), cmp_fn);
	sm->fn_lo = KEYS_OF(sm->fns, &sm->nfns, lo);
	return sm->fn_lo ? r : -ENOMEM;
}

static struct fn *find_fn(const struct smod *sm, uint64_t addr)
{
	size_t lo = ms_upper_bound(sm->fn_lo, sm->nfns, sizeof(*sm->fn_lo), 0,
				   addr);

	/* The last function starting at or before addr, if it covers it. */
	if (lo == 0 || addr >= sm->fns[lo - 1].hi)
		return NULL;
	return &sm->fns[lo - 1];
}

static struct smod *find_mod(struct ms_symbolizer *s, uint64_t addr)
{
	size_t at = upper(s, addr);

	if (at == 0 || addr >= s->mods[at - 1]->hi)
		return NULL;
	return s->mods[at - 1];
}

static void find_section(const struct ms_layout *l, uint64_t addr,
			 struct ms_symres *res)
{
	for (size_t i = 0; i < l->nsecs; i++) {
		const struct ms_lsec *s = &l->secs[i];

		if (s->place == MS_PLACE_LOADED && addr >= s->addr &&
		    addr < s->addr + s->size) {
			res->section = s->name;
			res->section_offset = addr - s->addr;
			return;
		}
	}
}

/* ---- per-module symbol table ---- */

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
 * libdwfl's dwfl_module_addrinfo scans the whole symbol table for every
 * address; one sorted copy answers each lookup by binary search.
 */
static int build_syms(struct smod *sm)
{
	int n = dwfl_module_getsymtab(sm->dm);

	sm->syms_built = true;
	if (n <= 0)
		return 0;
	sm->syms = calloc((size_t)n, sizeof(*sm->syms));
	if (!sm->syms)
		return -ENOMEM;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(
			sm->dm, i, &sym, &addr, &shndx, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);

		/* Defined code and data in loaded sections only. */
		if (!name || !*name || shndx == SHN_UNDEF ||
		    type == STT_SECTION || type == STT_FILE ||
		    addr == (GElf_Addr)-1 || addr < sm->lo || addr >= sm->hi)
			continue;
		sm->syms[sm->nsyms++] = (struct sym){
			.addr = addr,
			.size = sym.st_size,
			.name = name,
			.global = GELF_ST_BIND(sym.st_info) != STB_LOCAL,
		};
	}
	if (sm->nsyms)
		qsort(sm->syms, sm->nsyms, sizeof(*sm->syms), cmp_sym);
	sm->sym_addr = KEYS_OF(sm->syms, &sm->nsyms, addr);
	if (!sm->sym_addr)
		return -ENOMEM;
	sm->byname = calloc(sm->nsyms + 1, sizeof(*sm->byname));
	if (!sm->byname)
		return -ENOMEM;
	for (size_t i = 0; i < sm->nsyms; i++)
		sm->byname[i] = &sm->syms[i];
	if (sm->nsyms)
		qsort(sm->byname, sm->nsyms, sizeof(*sm->byname), cmp_byname);
	return 0;
}

/*
 * The symbol covering addr: a sized one whose range holds it, else an
 * unsized one at or before it with no sized symbol in between. Bytes past
 * a function's end (padding) belong to no symbol.
 */
static const struct sym *find_sym(const struct smod *sm, uint64_t addr)
{
	size_t lo = ms_upper_bound(sm->sym_addr, sm->nsyms,
				   sizeof(*sm->sym_addr), 0, addr);
	const struct sym *unsized = NULL;

	if (lo == 0)
		return NULL;
	/* Look back over symbols that may enclose addr (nested, aliases). */
	for (size_t i = lo, seen = 0; i-- > 0 && seen < 64; seen++) {
		const struct sym *y = &sm->syms[i];

		if (y->size && addr < y->addr + y->size)
			return y;
		if (!y->size && !unsized && y->addr == sm->syms[lo - 1].addr)
			unsized = y;
	}
	return unsized;
}

/* Source line of addr, into frame f. */
static void line_of(Dwfl_Module *dm, uint64_t addr, struct ms_frame *f)
{
	Dwfl_Line *line = dwfl_module_getsrc(dm, addr);
	int lineno = 0, col = 0;

	if (!line)
		return;
	f->file = dwfl_lineinfo(line, NULL, &lineno, &col, NULL, NULL);
	f->line = lineno;
	f->col = col;
}

void ms_symbolizer_set_core(struct ms_symbolizer *s, const struct ms_map *map)
{
	size_t first = map->ncore;

	/*
	 * Per-cpu and absolute symbols sit at small numbers below the kernel
	 * image; starting at the first text symbol keeps 0x10 unresolved.
	 */
	for (size_t i = 0; i < map->ncore; i++)
		if (map->core[i].type == 't' || map->core[i].type == 'T') {
			first = i;
			break;
		}
	s->core = map->core + first;
	s->ncore = map->ncore - first;
}

/* kallsyms: the last symbol at or before addr, sized to the next one. */
static int core_lookup(const struct ms_symbolizer *s, uint64_t addr,
		       struct ms_symres *res)
{
	size_t lo = MS_UPPER_BOUND(s->core, s->ncore, addr, addr), next;

	if (lo == 0)
		return -ENOENT;
	for (next = lo;
	     next < s->ncore && s->core[next].addr == s->core[lo - 1].addr;)
		next++;
	/* Past the last symbol is outside the kernel image. */
	if (next == s->ncore)
		return -ENOENT;
	res->core = true;
	res->symbol = s->core[lo - 1].name;
	res->symbol_offset = res->addr - s->core[lo - 1].addr;
	res->symbol_size = s->core[next].addr - s->core[lo - 1].addr;
	res->frames[0] = (struct ms_frame){ .func = res->symbol };
	res->nframes = 1;
	return 0;
}

int ms_symbolize(struct ms_symbolizer *s, uint64_t addr, unsigned int flags,
		 struct ms_symres *res)
{
	/* A return address belongs to the call before it. */
	uint64_t look = flags & MS_SYM_RETURN ? addr - 1 : addr;
	struct smod *sm = find_mod(s, look);
	struct fn *fn;
	const struct inl *chain[MS_MAX_FRAMES];
	size_t depth = 0;
	const struct sym *y;
	const char *name;

	/* Frames are set as they are used: zeroing all was a tenth of a lookup. */
	res->addr = addr;
	res->module = NULL;
	res->core = false;
	res->section = NULL;
	res->section_offset = 0;
	res->symbol = NULL;
	res->symbol_offset = res->symbol_size = 0;
	res->nframes = 0;
	if (!sm)
		return core_lookup(s, look, res);
	res->module = sm->l->mod->name;
	find_section(sm->l, addr, res);
	if (!sm->syms_built && build_syms(sm) < 0)
		return -ENOMEM;
	y = find_sym(sm, look);
	name = y ? y->name : NULL;
	if (y) {
		res->symbol = y->name;
		res->symbol_offset = addr - y->addr;
		res->symbol_size = y->size;
	}
	if (!sm->built && build(sm) < 0)
		return -ENOMEM;
	fn = find_fn(sm, look);
	if (!fn) {
		/*
		 * No function's DWARF covers it (no debug info, or padding
		 * between functions): the symbol if any, and the line table.
		 */
		res->frames[0] =
			(struct ms_frame){ .func = name ? name : "??" };
		line_of(sm->dm, look, &res->frames[0]);
		res->nframes = name || res->frames[0].file ? 1 : 0;
		return 0;
	}
	if (!fn->walked && walk_fn(sm, fn) < 0)
		return -ENOMEM;
	/*
	 * Depth-first, a subtree ends at its root's skip, so the walk over
	 * inl is the walk over each outermost call whose ranges hold look.
	 */
	for (size_t t = 0; t < fn->ntop; t++) {
		const struct top *tp = &fn->top[t];

		if (look < tp->ext_lo || look >= tp->ext_hi)
			continue;
		for (size_t i = tp->at, end = fn->inl[i].skip; i < end;) {
			const struct inl *in = &fn->inl[i];

			if (look < in->ext_lo || look >= in->ext_hi ||
			    in->depth >= MS_MAX_FRAMES - 1) {
				i = in->skip; /* nor in its callees */
				continue;
			}
			if (look < in->lo || look >= in->hi) {
				i++; /* in another range, or between them */
				continue;
			}
			chain[in->depth] = in;
			depth = (size_t)in->depth + 1;
			i++;
		}
	}
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
			line_of(sm->dm, look, f);
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

int ms_symbolizer_lookup(struct ms_symbolizer *s, const char *module,
			 const char *name, uint64_t *addr_ret)
{
	for (size_t i = 0; i < s->nmods; i++) {
		struct smod *sm = s->mods[i];
		size_t lo = 0, hi;

		if (!ms_modname_eq(sm->l->mod->name, module))
			continue;
		if (!sm->syms_built && build_syms(sm) < 0)
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
	return -ENOENT;
}
