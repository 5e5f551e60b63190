/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Addresses to symbols, source lines and inline chains (symbolize.c and
 * the files it uses), from the DWARF or the index (ix*.c, symindex.c),
 * and frames in kernel log text (logparse.c).
 */
#ifndef MODSECT_SYMBOLIZE_H
#define MODSECT_SYMBOLIZE_H

#include "module/module.h"

/* ---- addresses to symbols and lines (symbolize.c) ---- */

#define MS_MAX_FRAMES 32
#define MS_SYM_RETURN 0x1 /* a return address: look up addr - 1 */

struct ms_frame {
	const char *func;
	const char *file; /* NULL if unknown */
	int line, col;
};

struct ms_symres {
	uint64_t addr;
	const char *module; /* NULL: in no module */
	bool core; /* symbol is the core kernel's (kallsyms) */
	const char *section; /* NULL if in no loaded section */
	uint64_t section_offset;
	const char *symbol; /* NULL if none */
	/* symbol_size as kallsyms counts it: st_size, or to the next symbol */
	uint64_t symbol_offset, symbol_size;
	/*
	 * In the padding after the symbol (alignment after a function): it
	 * is named as the kernel would, symbol_size counted to the next
	 * symbol of the section (or its end), and symbol_elf_size is where
	 * the symbol itself ends.
	 */
	bool past_end;
	uint64_t symbol_elf_size;
	struct ms_frame frames[MS_MAX_FRAMES]; /* innermost first; nframes set */
	size_t nframes;
};

struct ms_symbolizer;

int ms_symbolizer_new(struct ms_symbolizer **ret, struct ms_err *err);
/*
 * Adds a module, at any time; the layout (and its debug info) must
 * outlive s. Modules whose ranges overlap are refused.
 */
int ms_symbolizer_add(struct ms_symbolizer *s, const struct ms_layout *l,
		      struct ms_err *err);
bool ms_symbolizer_has(const struct ms_symbolizer *s, const char *module);
/*
 * Core kernel symbols (the map's, which must outlive s) for addresses in
 * no module: symbol+offset only, with the size counted to the next symbol
 * as the kernel does.
 */
void ms_symbolizer_set_core(struct ms_symbolizer *s, const struct ms_map *map);
void ms_symbolizer_free(struct ms_symbolizer *s);
/*
 * Index files (one per build-id, under dir) for the modules added after
 * (ixmake.c): a module with one is answered from it and its DWARF is
 * never read; one without gets one (made and written) the first time it
 * is used, with answers the same. dir NULL: none. 0, or -ENOMEM.
 */
int ms_symbolizer_set_index_dir(struct ms_symbolizer *s, const char *dir,
				struct ms_err *err);
/*
 * Index files opened and checked once a run, shared by the symbolizers
 * that use the pool (ixuse.c): each report of a stream has its own
 * symbolizer, over the same modules. Must outlive them.
 */
struct ms_ixpool;
int ms_ixpool_new(struct ms_ixpool **ret, struct ms_err *err);
void ms_ixpool_free(struct ms_ixpool *pool);
void ms_symbolizer_set_index_pool(struct ms_symbolizer *s,
				  struct ms_ixpool *pool);
/*
 * 0 if every index made was written, else the first failure to make or
 * write one (once: the next call says 0).
 */
int ms_symbolizer_index_error(struct ms_symbolizer *s, struct ms_err *err);
/*
 * What addr is; strings live as long as s. -ENOENT if it is in no module
 * nor (ms_symbolizer_set_core) the core kernel's symbols; -ENOMEM if a
 * module's tables could not be built, res then saying what was found.
 * err says which, a failure to make an index aside (kept for
 * ms_symbolizer_index_error: the module is answered from its DWARF).
 */
int ms_symbolize(struct ms_symbolizer *s, uint64_t addr, unsigned int flags,
		 struct ms_symres *res, struct ms_err *err);

/*
 * Name to runtime address, for "func+0x1a/0x60 [mod]": -ENOENT if the
 * module was not added or has no such symbol, -ENOMEM; err says which.
 */
int ms_symbolizer_lookup(struct ms_symbolizer *s, const char *module,
			 const char *name, uint64_t *addr_ret,
			 struct ms_err *err);

/* ---- frames in kernel log text (logparse.c) ---- */

enum ms_logframe_kind {
	MS_LOGFRAME_SYMBOL, /* func+0x1a/0x60 [mod], maybe after its [<addr>] */
	MS_LOGFRAME_ADDRESS, /* [<ffffffffc0a14000>], [<c1234567>], 0x... */
};

struct ms_logframe {
	enum ms_logframe_kind kind;
	size_t start, end; /* the frame's bytes in the line */
	char symbol[256];
	char module[64]; /* "" for the core kernel */
	/*
	 * The module's GNU build-id as CONFIG_STACKTRACE_BUILD_ID prints it
	 * after the name ("[mod 0123...]"), lower-case hex; "" if none.
	 */
	char build_id[41];
	uint64_t offset;
	bool has_address; /* address was printed (always for ADDRESS) */
	uint64_t address; /* as printed: 32-bit ones are not extended */
	bool exact; /* where execution was (RIP, pc, WARNING at), not a return */
	bool regs_pc; /* a register dump's program counter (RIP:, EIP:, pc :) */
	/*
	 * A WARNING's "at": exact unless the architecture warns through
	 * warn_slowpath_fmt (32-bit ARM), which prints a return address.
	 */
	bool warning;
};

/*
 * Finds the first frame at or after byte from; 1 if found, 0 if none. A
 * raw address and the symbol printed after it are one frame.
 */
int ms_log_frame(const char *line, size_t from, struct ms_logframe *f);
/* arm64's "Call trace:" header, whose first entry is the regs' pc. */
bool ms_log_trace_start(const char *line);
/*
 * s390's "Last Breaking-Event-Address:" with its address on the next
 * line, which is exact (the branch's own), not a return address.
 */
bool ms_log_last_break(const char *line);
/* The architecture (uname -m) a line of a report shows, or NULL. */
const char *ms_log_machine(const char *line);
/*
 * An address from an arm64 report without its pointer authentication
 * code; addr itself if it has none. For arm64 only (see logparse.c).
 */
uint64_t ms_arm64_strip_pac(uint64_t addr);
/* Whether a map's machine (uname -m) is arm64's. */
bool ms_machine_arm64(const char *machine);

/* ---- reports in a stream (logreport.c) ---- */

/* Whether a line opens a kernel report ("WARNING: ", "BUG: ", "Oops"...). */
bool ms_log_report_start(const char *line);
/* Whether a line closes one ("---[ end trace ...]---"). */
bool ms_log_report_end(const char *line);
/* lockdep's "stack backtrace:", after which a report goes on. */
bool ms_log_lockdep_stack(const char *line);

/* ---- modules loaded when first needed (lazy.c) ---- */

struct ms_lazy_opts {
	unsigned int layout_flags; /* MS_LAYOUT_* for each module */
	bool no_index; /* read the DWARF, never an index (nor write one) */
	/*
	 * A module file refused (not the loaded build, another machine's,
	 * unreadable) is told to note, like one not found, and its addresses
	 * stay unresolved, rather than failing the call.
	 */
	bool refused_noted;
	struct ms_ixpool *ix_pool; /* indexes shared with others, or NULL */
	/* Told once of each module whose file is not found (may be NULL). */
	void (*note)(void *arg, const char *msg);
	void *note_arg;
};

/*
 * A symbolizer over the map (and its core symbols) whose modules are
 * found, checked and added when an address or name first needs them:
 * resolving one address opens one module file, not every loaded one.
 * With an index directory in the cache unless o->no_index.
 */
struct ms_lazy;
int ms_lazy_new(struct ms_finder *fi, const struct ms_map *map,
		const struct ms_lazy_opts *o, struct ms_lazy **ret,
		struct ms_err *err);
void ms_lazy_free(struct ms_lazy *z);
struct ms_symbolizer *ms_lazy_symbolizer(const struct ms_lazy *z);
/* The file of the module named, once loaded; NULL before or if none. */
const struct ms_modfile *ms_lazy_file(const struct ms_lazy *z,
				      const char *name);
/* Loads the module named (if it is in the map); 0 also if it has no file. */
int ms_lazy_by_name(struct ms_lazy *z, const char *name, struct ms_err *err);
/* Loads the module that may hold addr, if any. */
int ms_lazy_by_addr(struct ms_lazy *z, uint64_t addr, struct ms_err *err);
/* After modules were added to the map (which sorts and moves them). */
int ms_lazy_sync(struct ms_lazy *z, struct ms_err *err);
/* The first failure to make or write an index, once (ms_symbolizer_index_error). */
int ms_lazy_index_error(struct ms_lazy *z, struct ms_err *err);

#endif
