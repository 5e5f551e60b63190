// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Addresses to symbols, source lines and inline chains.
 *
 * libdwfl loads each module the way it loads the running kernel's: the
 * module is reported at its runtime range, find_elf hands it our (debug)
 * file, and section_address gives the map's addresses, so every address
 * libdwfl returns is a runtime address. libdwfl answers lines from sorted
 * tables it keeps; symbols (symtab.c) and functions with their inlined
 * calls (functab.c) come from tables of our own, built once per module
 * and searched by address.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolize-int.h"

struct ms_symbolizer {
	Dwfl *dwfl;
	struct smod **mods; /* sorted by lo; each owned, libdwfl points at it */
	size_t nmods;
	const struct ms_ksym *core; /* by address, from the first text symbol */
	size_t ncore;
	Dwfl_Callbacks cb;
	char *ix_dir; /* index files (ixuse.c), or NULL */
	struct ms_ixpool *ix_pool; /* the caller's, or NULL */
	ix_maker *ix_make; /* makes a missing one (ixmake.c sets it) */
	int ix_rc; /* the first index not made or not written */
	struct ms_err ix_err;
};

struct smod *symbolizer_mod(const struct ms_symbolizer *s, size_t i)
{
	return i < s->nmods ? s->mods[i] : NULL;
}

int symbolizer_set_index(struct ms_symbolizer *s, const char *dir,
			 ix_maker *make, struct ms_err *err)
{
	char *d = dir ? strdup(dir) : NULL;

	if (dir && !d)
		return ms_err_errno(err, ENOMEM, "index directory");
	free(s->ix_dir);
	s->ix_dir = d;
	s->ix_make = make;
	return 0;
}

void ms_symbolizer_set_index_pool(struct ms_symbolizer *s,
				  struct ms_ixpool *pool)
{
	s->ix_pool = pool;
}

int ms_symbolizer_index_error(struct ms_symbolizer *s, struct ms_err *err)
{
	int r = s->ix_rc;

	if (r)
		*err = s->ix_err;
	s->ix_rc = 0;
	return r;
}

/*
 * A module with no index gets one the first time it is used, and is
 * answered from it: the index's walk of the DWARF is the one read of
 * it, where answering first and indexing after read it twice (in the
 * map's layout, then in the index's own). A failure is kept for
 * ms_symbolizer_index_error; the module is then answered from the DWARF.
 */
static void make_index(struct ms_symbolizer *s, struct smod *sm)
{
	struct ms_err e = { 0 };
	int rc;

	sm->ix_want = false;
	if (!s->ix_make)
		return;
	rc = s->ix_make(sm, s->ix_dir, &e);
	if (rc < 0 && !s->ix_rc) {
		s->ix_rc = rc;
		s->ix_err = e;
	}
}

/*
 * The file, mapped by us: libelf would map it copy-on-write and take a
 * page fault for every page the relocation of the DWARF writes (18,000
 * for btrfs.ko, a third of reading it); MAP_POPULATE copies them in one
 * call. The mapping is the module's, unmapped after libdwfl is done.
 */
static Elf *map_elf(struct smod *sm, int fd)
{
	struct stat st;
	void *m;
	Elf *e;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0)
		return NULL;
	m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (m == MAP_FAILED)
		return NULL;
	e = elf_memory(m, (size_t)st.st_size);
	if (!e) {
		munmap(m, (size_t)st.st_size);
		return NULL;
	}
	sm->image = m;
	sm->image_len = (size_t)st.st_size;
	return e;
}

static int find_elf(Dwfl_Module *mod, void **userdata, const char *modname,
		    Dwarf_Addr base, char **file_name, Elf **elfp)
{
	struct smod *sm = *userdata;
	const struct ms_layout *l = sm->l;
	const char *path = l->debug && l->debug->file ?
				   ms_modfile_debugger_path(l->debug->file) :
				   ms_modfile_debugger_path(l->file);
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	(void)mod, (void)modname, (void)base;
	if (fd < 0)
		return -1;
	*file_name = strdup(path);
	/* Else libdwfl opens fd itself. */
	*elfp = sm->image ? NULL : map_elf(sm, fd);
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

void ms_symbolizer_free(struct ms_symbolizer *s)
{
	if (!s)
		return;
	/* libdwfl's Elf of a module reads the module's image. */
	dwfl_end(s->dwfl);
	for (size_t i = 0; i < s->nmods; i++) {
		functab_free(s->mods[i]);
		symtab_free(s->mods[i]);
		srcline_free(s->mods[i]);
		ix_detach(s->mods[i]);
		if (s->mods[i]->image)
			munmap(s->mods[i]->image, s->mods[i]->image_len);
		free(s->mods[i]);
	}
	free(s->mods);
	free(s->ix_dir);
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
	struct smod *sm = calloc(1, sizeof(*sm));
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
	if (ms_grow(&s->mods, s->nmods, sizeof(*s->mods), 8) < 0) {
		free(sm);
		return ms_err_errno(err, ENOMEM, "symbolizer");
	}
	memmove(&s->mods[at + 1], &s->mods[at],
		(s->nmods - at) * sizeof(*s->mods));
	s->mods[at] = sm;
	s->nmods++;
	if (s->ix_dir) {
		int rc = ix_attach(sm, s->ix_dir, s->ix_pool);

		if (rc < 0)
			return ms_err_errno(err, -rc, "index of %s",
					    l->mod->name);
		if (rc > 0)
			return 0; /* libdwfl never needs to see it */
	}
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

/* The loaded section of l holding addr, or NULL. */
static const struct ms_lsec *loaded_section(const struct ms_layout *l,
					    uint64_t addr)
{
	for (size_t i = 0; i < l->nsecs; i++) {
		const struct ms_lsec *s = &l->secs[i];

		if (s->place == MS_PLACE_LOADED && addr >= s->addr &&
		    addr < s->addr + s->size)
			return s;
	}
	return NULL;
}

/*
 * The module holding addr in one of its loaded sections, and that
 * section. A module's range also spans the gaps between its sections,
 * where nothing of it is.
 */
static struct smod *find_mod(struct ms_symbolizer *s, uint64_t addr,
			     const struct ms_lsec **sec_ret)
{
	size_t at = upper(s, addr);

	if (at == 0 || addr >= s->mods[at - 1]->hi)
		return NULL;
	*sec_ret = loaded_section(s->mods[at - 1]->l, addr);
	return *sec_ret ? s->mods[at - 1] : NULL;
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

/*
 * kallsyms: the symbol at or before addr, sized to the next one; of
 * aliases the first in kallsyms order, as get_symbol_pos takes it (686:
 * entry_SYSENTER_32, not __irqentry_text_end at the same address).
 */
static int core_lookup(const struct ms_symbolizer *s, uint64_t addr,
		       struct ms_symres *res)
{
	size_t lo = MS_UPPER_BOUND(s->core, s->ncore, addr, addr), first;
	const struct ms_ksym *k;

	if (lo == 0)
		return -ENOENT;
	/* Past the last symbol is outside the kernel image. */
	if (lo == s->ncore)
		return -ENOENT;
	for (first = lo - 1;
	     first > 0 && s->core[first - 1].addr == s->core[lo - 1].addr;)
		first--;
	k = &s->core[first];
	res->core = true;
	res->symbol = k->name;
	res->symbol_offset = res->addr - k->addr;
	res->symbol_size = s->core[lo].addr - k->addr;
	res->frames[0] = (struct ms_frame){ .func = res->symbol };
	res->nframes = 1;
	return 0;
}

/* The symbol of a module address, as kallsyms names it (symtab.c). */
static void set_symbol(const struct smod *sm, uint64_t addr, uint64_t look,
		       const struct ms_lsec *sec, struct ms_symres *res)
{
	struct symhit hit;

	symtab_find(sm, look, sec, &hit);
	if (!hit.sym)
		return;
	res->symbol = hit.sym->name;
	res->symbol_offset = addr - hit.sym->addr;
	res->symbol_size = hit.size;
	res->symbol_elf_size = hit.sym->size;
	res->past_end = hit.past_end;
}

/* -ENOENT: addr is in no module, nor in the core kernel's symbols. */
static int nowhere(uint64_t addr, struct ms_err *err)
{
	return ms_err_set(err, ENOENT, "0x%" PRIx64 " is in nothing known",
			  addr);
}

/* -ENOMEM building sm's tables, said in err. */
static int no_tables(const struct smod *sm, struct ms_err *err)
{
	return ms_err_errno(err, ENOMEM, "tables of %s", sm->l->mod->name);
}

/*
 * A return address belongs to the call before it: looked up at addr - 1.
 * On 32-bit ARM a return into Thumb code has bit 0 set, the state, not
 * the address (the lr of a bl or blx from Thumb is the next instruction's
 * address + 1; arch/arm/kernel/unwind.c prints the pc it unwinds to as
 * it is), and addr - 1 is that next instruction: the call ends at
 * (addr & ~1) - 1. ARM-state code is 4-byte aligned, so an odd return
 * address is always Thumb.
 */
static struct smod *return_mod(struct ms_symbolizer *s, uint64_t addr,
			       uint64_t *look, const struct ms_lsec **sec)
{
	struct smod *sm = find_mod(s, addr - 1, sec);
	int em, cls, data;

	*look = addr - 1;
	if (!sm || !(addr & 1))
		return sm;
	ms_modfile_machine(sm->l->file, &em, &cls, &data);
	if (em != EM_ARM)
		return sm;
	*look = addr - 2;
	return find_mod(s, *look, sec);
}

int ms_symbolize(struct ms_symbolizer *s, uint64_t addr, unsigned int flags,
		 struct ms_symres *res, struct ms_err *err)
{
	uint64_t look = addr;
	const struct ms_lsec *sec = NULL, *at;
	struct smod *sm = flags & MS_SYM_RETURN ?
				  return_mod(s, addr, &look, &sec) :
				  find_mod(s, look, &sec);
	const char *name;
	struct fn *fn;

	/* Frames are set as they are used: zeroing all was a tenth of a lookup. */
	res->addr = addr;
	res->module = NULL;
	res->core = false;
	res->section = NULL;
	res->section_offset = 0;
	res->symbol = NULL;
	res->symbol_offset = res->symbol_size = res->symbol_elf_size = 0;
	res->past_end = false;
	res->nframes = 0;
	if (!sm)
		return core_lookup(s, look, res) < 0 ? nowhere(addr, err) : 0;
	res->module = sm->l->mod->name;
	at = addr == look ? sec : loaded_section(sm->l, addr);
	if (at) {
		res->section = at->name;
		res->section_offset = addr - at->addr;
	}
	if (sm->ix_want)
		make_index(s, sm);
	if (!sm->syms_built && symtab_build(sm) < 0)
		return no_tables(sm, err);
	set_symbol(sm, addr, look, sec, res);
	/* Padding is none of the function's code: its frame is not named so. */
	name = res->symbol && !res->past_end ? res->symbol : NULL;
	if (!sm->built && functab_build(sm) < 0)
		return no_tables(sm, err);
	if (!sm->cur_built && srcline_build(sm) < 0)
		return no_tables(sm, err);
	fn = functab_find(sm, look);
	if (!fn) {
		/*
		 * No function's DWARF covers it (no debug info, or padding
		 * between functions): the symbol if any, and the line table.
		 */
		res->frames[0] =
			(struct ms_frame){ .func = name ? name : "??" };
		srcline_find(sm, look, false, &res->frames[0]);
		res->nframes = name || res->frames[0].file ? 1 : 0;
		return 0;
	}
	return functab_frames(sm, fn, look, res) < 0 ? no_tables(sm, err) : 0;
}

int ms_symbolizer_lookup(struct ms_symbolizer *s, const char *module,
			 const char *name, uint64_t *addr_ret,
			 struct ms_err *err)
{
	struct smod *sm = NULL;
	int r;

	for (size_t i = 0; !sm && i < s->nmods; i++)
		if (ms_modname_eq(s->mods[i]->l->mod->name, module))
			sm = s->mods[i];
	if (!sm)
		return ms_err_set(err, ENOENT, "module %s not added",
				  MS_ESC(module));
	if (sm->ix_want)
		make_index(s, sm);
	r = symtab_lookup(sm, name, addr_ret);
	if (r == -ENOENT)
		return ms_err_set(err, ENOENT, "%s: no symbol %s",
				  sm->l->mod->name, MS_ESC(name));
	return r < 0 ? no_tables(sm, err) : 0;
}
