/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal to symbolization: symbolize.c keeps the modules and answers an
 * address, symtab.c holds each module's ELF symbols, functab.c its DWARF
 * functions and their inlined calls. Each table is built the first time
 * an address falls in the module, from the DWARF or from an index.
 *
 * The files, bottom up: each calls only those before it (tests/t-layers.sh
 * and scripts/depgraph.py check, from the linker's view).
 *
 *   symindex.c   the index file read and checked (ixformat.h)
 *   ixwrite.c    the index file written (symindex.c's checksum)
 *   ixlines.c    an index's sections and line rows, as they answer
 *   tables.c     sorted tables' keys; an index's entries in address order
 *   ixuse.c      a module's index found in the cache, placed in its layout
 *   ixfns.c      functions and inlined calls from an index
 *   srcline.c    source lines from libdwfl (or, for CUs .debug_aranges
 *                leave out, by their own ranges) or an index; lines into one
 *   symtab.c     ELF symbols from libdwfl or an index; symbols into one
 *   functab.c    functions and inlined calls from the DWARF (or ixfns.c);
 *                functions into an index
 *   symbolize.c  the symbolizer: its modules, an address's answer
 *   ixmake.c     a module's index made, by a symbolizer of its own; the
 *                symbolizer calls it through the maker it is given
 *                (ix_maker, set by ms_symbolizer_set_index_dir)
 *
 * logparse.c, frames in log text, and logreport.c, reports in a stream,
 * use none of them.
 */
#ifndef MODSECT_SYMBOLIZE_INT_H
#define MODSECT_SYMBOLIZE_INT_H

#include <elfutils/libdwfl.h>

#include "ixlines.h"
#include "symbolize.h"

struct sym {
	uint64_t addr, size;
	const char *name;
	bool global;
};

struct inl;
struct top;
struct curange;

/* A function's part (one range of its code), from the DWARF or an index. */
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
	/*
	 * With an index: its segments, and the line rows it may answer
	 * with (ix_row_hi SIZE_MAX until its first lookup).
	 */
	uint32_t ix_seg_first, ix_nseg;
	uint16_t ix_sec;
	size_t ix_row_lo, ix_row_hi;
};

struct smod {
	const struct ms_layout *l;
	Dwfl_Module *dm;
	struct sym *syms; /* by address, built on first use */
	struct sym **byname; /* the same, by name; made after BYNAME_AFTER scans */
	unsigned int name_scans;
	size_t nsyms;
	bool syms_built;
	struct fn *fns; /* sorted by lo, built on first use */
	uint64_t *fn_lo; /* fns[i].lo: binary search in 8 bytes, not 100 */
	uint64_t *sym_addr; /* syms[i].addr, likewise */
	size_t nfns, capfns;
	bool built;
	Dwarf_Addr bias; /* of the module's DWARF, the same for every CU */
	uint64_t lo, hi; /* runtime range reported to libdwfl */
	/*
	 * With an index (symindex.h) the tables come from it and libdwfl
	 * never sees the module (dm is NULL). ix_base: each index section's
	 * runtime address, IX_UNPLACED if it is not loaded; ix_secs: the
	 * loaded ones, for line lookups.
	 */
	struct ix *ix;
	uint64_t *ix_base;
	struct ixsecs ix_secs;
	struct ixlookup ix_lines;
	bool ix_want; /* no index yet: make one on first use */
	/*
	 * The ranges of the CUs' own DIEs that .debug_aranges leave out, by
	 * lo (srcline.c): libdwfl finds a line's CU only through
	 * .debug_aranges, which clang writes only with -gdwarf-aranges.
	 * Built with the other tables; cur_over: there were more than the
	 * table holds, or no memory for them (each answer of libdwfl is then
	 * checked against its CU).
	 */
	struct curange *cur;
	size_t ncur, capcur;
	Dwarf_Addr cur_bias;
	bool cur_built, cur_over;
	void *image; /* the file libdwfl reads, mapped (symbolize.c) */
	size_t image_len;
};

#define IX_UNPLACED UINT64_MAX

/* The i-th module of a symbolizer, by address (for ixmake.c). */
struct smod *symbolizer_mod(const struct ms_symbolizer *s, size_t i);
/*
 * Makes the index of sm's file, writes it into dir and gives it to sm:
 * what the symbolizer calls for a module without one (ixmake.c's).
 */
typedef int ix_maker(struct smod *sm, const char *dir, struct ms_err *err);
/*
 * Index files under dir for the modules added after, made by make where
 * missing (dir NULL: none); 0, or -ENOMEM with the settings unchanged.
 */
int symbolizer_set_index(struct ms_symbolizer *s, const char *dir,
			 ix_maker *make, struct ms_err *err);

/* ---- sorted tables (tables.c) ---- */

/*
 * The sort keys of a sorted table, packed: a binary search then reads 8
 * bytes per step, not a whole entry. Out of memory, *n becomes 0, so the
 * table reads as empty rather than unsearchable.
 */
uint64_t *sorted_keys(const void *base, size_t *n, size_t size, size_t key_off);
#define SORTED_KEYS(arr, n, field)              \
	sorted_keys((arr), (n), sizeof(*(arr)), \
		    offsetof(__typeof__(*(arr)), field))
/*
 * The entries of an index table (n of size bytes, each with its section
 * at sec_off) that are loaded, in the order of their sections' runtime
 * addresses, in table order within one: the index writes each section's
 * entries in address order, so this is address order in any layout,
 * found without a sort. NULL if out of memory.
 */
size_t *ix_by_address(const struct smod *sm, const void *tab, size_t n,
		      size_t size, size_t sec_off, size_t *n_ret);

/* ---- the index of a module's file (ixuse.c) ---- */

/* The file an index is of: the one libdwfl reads. */
const struct ms_modfile *ix_source(const struct ms_layout *l);
/*
 * The index's path for l's file under dir, and the file's size; NULL if
 * the file has no build-id (or out of memory).
 */
char *ix_path(const struct ms_layout *l, const char *dir, uint64_t *size_ret);
/*
 * Gives sm its index from dir (through pool, if not NULL): 1, or 0 if it
 * has none (sm->ix_want is then set when one can be written), or -ENOMEM.
 */
int ix_attach(struct smod *sm, const char *dir, struct ms_ixpool *pool);
/* Gives sm the index ix, which it then owns: 0, or -ENOMEM. */
int ix_adopt(struct smod *sm, struct ix *ix);
void ix_detach(struct smod *sm);

/* ---- functions from an index (ixfns.c) ---- */

/* The function parts of sm's index, placed where sm's layout put them. */
int ixfns_build(struct smod *sm);
/* functab_frames, from the index's segments. */
int ixfns_frames(const struct smod *sm, struct fn *fn, uint64_t addr,
		 struct ms_symres *res);

/* ---- source lines (srcline.c) ---- */

/*
 * Source line of addr from the line table, into f; f->file NULL if none.
 * in_fn: addr is in a function's DWARF range (else its CU is checked).
 */
void srcline_find(const struct smod *sm, uint64_t addr, bool in_fn,
		  struct ms_frame *f);
/*
 * The ranges of the CUs .debug_aranges leave out (sm->cur), from the
 * DWARF (none with an index): 0 or -ENOMEM. srcline_free frees them.
 */
int srcline_build(struct smod *sm);
void srcline_free(struct smod *sm);
/* Every line answer of the module, as srcline_find gives it, into w. */
int srcline_index(struct smod *sm, const struct ixsecs *xs, struct ixw *w);

/* ---- ELF symbols (symtab.c) ---- */

/* What an address is in, as kallsyms would name it. */
struct symhit {
	const struct sym *sym; /* NULL if none */
	uint64_t size; /* sym's ELF size, or in padding to the next symbol */
	bool past_end; /* in the padding after sym's last byte */
};

int symtab_build(struct smod *sm);
void symtab_free(struct smod *sm);
/* sec: the loaded section holding addr, which bounds the padding. */
void symtab_find(const struct smod *sm, uint64_t addr,
		 const struct ms_lsec *sec, struct symhit *ret);
/* The runtime address of a symbol; -ENOENT if none. */
int symtab_lookup(struct smod *sm, const char *name, uint64_t *addr_ret);
/* The module's symbols into an index being built on layout xs. */
int symtab_index(struct smod *sm, const struct ixsecs *xs, struct ixw *w);

/* ---- DWARF functions and inlined calls (functab.c) ---- */

int functab_build(struct smod *sm);
void functab_free(struct smod *sm);
/* The part of a function that covers addr, or NULL. */
struct fn *functab_find(const struct smod *sm, uint64_t addr);
/*
 * res->frames for addr in fn: the inlined calls innermost first, then fn
 * itself; -ENOMEM if the inline tree could not be read.
 */
int functab_frames(const struct smod *sm, struct fn *fn, uint64_t addr,
		   struct ms_symres *res);
/* Every function and its inlined calls into an index built on layout xs. */
int functab_index(struct smod *sm, const struct ixsecs *xs, struct ixw *w);

#endif
