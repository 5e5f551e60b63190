/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libmodsect: where a loaded Linux module's sections are, what file they
 * came from, and how a debugger wants to hear about it.
 *
 * Data flows one way: a source (live sysfs or a capture file) gives a
 * map (struct ms_map); a module file (struct ms_modfile) says what the
 * sections are; a layout (struct ms_layout) joins the two after every
 * check; emitters turn a layout into debugger commands.
 *
 * Every function that can fail returns 0 or a negative errno and fills
 * a struct ms_err with a message for the one place that prints it.
 */
#ifndef MODSECT_H
#define MODSECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define MODSECT_VERSION "0.1.0"

/* ---- errors (err.c) ---- */

struct ms_err {
	int code; /* positive errno */
	char msg[1024];
};

/* Sets err and returns -code, so callers can write "return ms_err_set(...)". */
int ms_err_set(struct ms_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Like ms_err_set, with ": strerror(code)" appended. */
int ms_err_errno(struct ms_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * Untrusted names in messages: non-printable bytes and '\\' as \\xHH, so
 * a message is always one line of plain text.
 */
const char *ms_esc(const char *s, char *buf, size_t size);
#define MS_ESC(s) ms_esc((s), (char[256]){ 0 }, 256)
/* Puts context in front of an existing message: "ctx: old message". */
int ms_err_prefix(struct ms_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- helpers (util.c) ---- */

/*
 * In an array sorted by a uint64_t field at key_off, the number of
 * elements whose field is <= key: the index after the last one at or
 * before key.
 */
size_t ms_upper_bound(const void *base, size_t n, size_t size, size_t key_off,
		      uint64_t key);
#define MS_UPPER_BOUND(arr, n, field, key)                               \
	ms_upper_bound((arr), (n), sizeof(*(arr)),                       \
		       offsetof(__typeof__(*(arr)), field), (key))
/* qsort's order of uint64_t values. */
int ms_cmp_u64(const void *a, const void *b);
/*
 * n records of size bytes at base, sorted by the uint64_t at their start,
 * equal keys in their order; tmp holds n records. A radix sort: qsort of
 * a few hundred thousand was a tenth of the time of their use.
 */
void ms_radix_sort(void *base, void *tmp, size_t n, size_t size);
/* Whether n entries of size bytes are in cmp's order. */
bool ms_sorted(const void *base, size_t n, size_t size,
	       int (*cmp)(const void *, const void *));
/* v sorted (by ms_radix_sort, given the memory). */
void ms_sort_u64(uint64_t *v, size_t n);
/*
 * Maps in the pages of [p, p + len), a large buffer about to be written,
 * in one call: on a virtual machine each page's first write was a fault
 * costing microseconds, and a table of megabytes has thousands of pages.
 */
void ms_prefault(void *p, size_t len);

/* ---- context (ctx.c) ---- */

/*
 * What would otherwise be global: the root directory that /sys and /proc
 * are read under, where module files and caches live.
 */
struct ms_ctx;

int ms_ctx_new(struct ms_ctx **ret, struct ms_err *err);
void ms_ctx_free(struct ms_ctx *ctx);
int ms_ctx_set_root(struct ms_ctx *ctx, const char *root, struct ms_err *err);
int ms_ctx_set_moddir(struct ms_ctx *ctx, const char *dir, struct ms_err *err);
int ms_ctx_add_search(struct ms_ctx *ctx, const char *dir, struct ms_err *err);
int ms_ctx_set_cache_dir(struct ms_ctx *ctx, const char *dir,
			 struct ms_err *err);
const char *ms_ctx_root(const struct ms_ctx *ctx);
const char *ms_ctx_moddir(const struct ms_ctx *ctx);
size_t ms_ctx_search_count(const struct ms_ctx *ctx);
const char *ms_ctx_search(const struct ms_ctx *ctx, size_t i);
const char *ms_ctx_cache_dir(const struct ms_ctx *ctx);
int ms_ctx_add_debug_dir(struct ms_ctx *ctx, const char *dir,
			 struct ms_err *err);
size_t ms_ctx_debug_dir_count(const struct ms_ctx *ctx);
const char *ms_ctx_debug_dir(const struct ms_ctx *ctx, size_t i);
void ms_ctx_set_offline(struct ms_ctx *ctx, bool offline);
bool ms_ctx_offline(const struct ms_ctx *ctx);

struct ms_modfile;

/* ---- the section map (map.c, sysfs.c, capture.c) ---- */

struct ms_section {
	char *name; /* as the kernel listed it; untrusted */
	uint64_t addr;
};

/* A module's symbol as /proc/kallsyms lists it. */
struct ms_ksym {
	char *name;
	uint64_t addr;
	char type;
	uint32_t seq; /* core: order in the source, which breaks address ties */
};

struct ms_module {
	char *name; /* as in /sys/module: underscores */
	char *initstate; /* "live", "coming", "going" or NULL if unknown */
	char *srcversion; /* NULL if unknown */
	char *build_id; /* lower-case hex, NULL if unknown */
	struct ms_section *sections;
	size_t nsections;
	struct ms_ksym *ksyms; /* from kallsyms, may be empty */
	size_t nksyms;
	uint64_t load_id; /* live: inode of its sections/, new on every load */
};

struct ms_map {
	char *origin; /* "live" or the capture's path, for messages */
	char *release; /* kernel release, NULL if the source did not say */
	char *machine; /* uname -m of the target, NULL if unknown */
	struct ms_module *modules;
	size_t nmodules;
	struct ms_ksym *core; /* core kernel kallsyms, by address; optional */
	size_t ncore;
	char *kernel_build_id; /* from /sys/kernel/notes, NULL if unknown */
	char **vanished; /* live: modules unloaded while read, left out */
	size_t nvanished;
};

void ms_map_free(struct ms_map *map);
/* Frees what a module owns (for sources building a map). */
void ms_module_clear(struct ms_module *m);
const struct ms_module *ms_map_find(const struct ms_map *map, const char *name);
const struct ms_section *ms_module_section(const struct ms_module *mod,
					   const char *name);
/* Module names compare with '-' and '_' as the same character. */
bool ms_modname_eq(const char *a, const char *b);
/* The first GNU build-id in a buffer of ELF notes, as hex; NULL if none. */
char *ms_notes_build_id(const void *notes, size_t n);
/* Sorts modules by name and sections by address; finds duplicates. */
int ms_map_finish(struct ms_map *map, struct ms_err *err);

/*
 * Adds module name to the map with its file's allocatable sections laid
 * out from base, as if loaded there and still initializing (so .init.*
 * counts), and the file's build-id: for symbolizing "func+off [mod]"
 * frames with no map. A separate debug file will do (its NOBITS sections
 * keep their sizes). Pointers into map->modules are invalid afterwards;
 * call ms_map_finish.
 */
int ms_map_add_placed(struct ms_map *map, const char *name,
		      const struct ms_modfile *f, uint64_t base,
		      struct ms_err *err);


#define MS_READ_CORE 0x1 /* also the core kernel's kallsyms */

/* Reads the live map under ctx's root; only_module NULL means all. */
int ms_map_read_live(const struct ms_ctx *ctx, const char *only_module,
		     unsigned int flags, struct ms_map **ret,
		     struct ms_err *err);
/* Adds a core kernel symbol (before ms_map_finish). */
int ms_map_add_core(struct ms_map *map, const char *name, uint64_t addr,
		    char type);
/* Reads a capture in any format ms_capture_write or the README's sh loops write. */
int ms_map_read_capture(const char *path, struct ms_map **ret,
			struct ms_err *err);
int ms_map_parse_capture(const char *text, size_t len, const char *origin,
			 struct ms_map **ret, struct ms_err *err);
/* Writes the map in capture format version 1. */
int ms_capture_write(FILE *out, const struct ms_map *map, struct ms_err *err);

/* ---- module files (modfile.c, decompress.c, cache.c) ---- */

struct ms_modfile;

struct ms_filesec {
	const char *name;
	uint64_t flags; /* sh_flags */
	uint64_t size;
	uint64_t align;
	uint64_t offset; /* sh_offset: where its bytes are in the file */
	uint32_t type; /* sh_type */
};

/*
 * A finder knows where module files are: modules.dep of the module
 * directory (through libkmod), then the --search trees, indexed once.
 */
struct ms_finder;

int ms_finder_new(const struct ms_ctx *ctx, const char *release,
		  struct ms_finder **ret, struct ms_err *err);
void ms_finder_free(struct ms_finder *fi);
/* The module directory in use, or NULL if none is known. */
const char *ms_finder_moddir(const struct ms_finder *fi);
const struct ms_ctx *ms_finder_ctx(const struct ms_finder *fi);
/*
 * Asks debuginfod for the debug info of a build-id: 0 with the cached
 * file's path, or a negative errno. After a failure to reach the servers
 * the finder stops asking, so --all does not wait a timeout per module.
 */
int ms_finder_debuginfod(struct ms_finder *fi, const unsigned char *id,
			 size_t len, char **path_ret);
/* The error that made the finder stop asking debuginfod, or 0. */
int ms_finder_debuginfod_error(const struct ms_finder *fi);
/*
 * Opens the file of a module: of all candidates in order, the first whose
 * build-id is want_build_id, or the first one when want_build_id is NULL
 * or nothing matches (the layout then refuses it). -ENOENT if none.
 */
int ms_finder_open(struct ms_finder *fi, const char *modname,
		   const char *want_build_id, struct ms_modfile **ret,
		   struct ms_err *err);
/*
 * Opens a file of module modname whose GNU build-id is build_id (hex): the
 * module files ms_finder_open knows, then DIR/.build-id/xx/rest.debug in
 * each --debug-dir and in /usr/lib/debug, then debuginfod (unless
 * offline). A separate debug file will do: its section headers keep the
 * module's sizes. A file found is remembered as a candidate of modname,
 * so ms_finder_open(fi, modname, build_id, ...) opens it from then on.
 * -ENOENT if there is none; -EBADMSG if only files of other builds were
 * found, with a message naming the module, a file and both build-ids.
 */
int ms_finder_open_build_id(struct ms_finder *fi, const char *modname,
			    const char *build_id, struct ms_modfile **ret,
			    struct ms_err *err);
/*
 * 1 the first time (modname, build_id) is noted, 0 after; -ENOMEM.
 * build_id may be "". For callers that meet a module many times (each
 * frame of a report) and must look for it, or warn about it, once.
 */
int ms_finder_note(struct ms_finder *fi, const char *modname,
		   const char *build_id);

/* Where the next module without a map is laid out (place.c). */
struct ms_placing {
	uint64_t base, base32; /* for 64- and 32-bit files */
};

void ms_place_init(struct ms_placing *pl);
/*
 * A module a report names, with the build-id it prints ("" if none),
 * laid out from its file if the map lacks it, or given that build-id if
 * the map's module has none. 0 if done or nothing to do (no such file:
 * its frames pass through); 1 if note says why its frames are left
 * unannotated (another build than the map's or the printed one); or a
 * negative errno.
 */
int ms_map_place(struct ms_map *map, struct ms_finder *fi, struct ms_placing *pl,
		 const char *module, const char *build_id, struct ms_err *note,
		 struct ms_err *err);
int ms_modfile_open(const struct ms_ctx *ctx, const char *path,
		    struct ms_modfile **ret, struct ms_err *err);
void ms_modfile_free(struct ms_modfile *f);
const char *ms_modfile_path(const struct ms_modfile *f);
/* The file a debugger should read: the decompressed cache copy if any. */
const char *ms_modfile_debugger_path(const struct ms_modfile *f);
/* The file lldb gets: debugger_path, or a copy with its DWARF hidden. */
const char *ms_modfile_lldb_path(const struct ms_modfile *f);
bool ms_modfile_dwarf_hidden(const struct ms_modfile *f);
const char *ms_modfile_compression(const struct ms_modfile *f); /* or NULL */
const char *ms_modfile_build_id(const struct ms_modfile *f); /* or NULL */
const char *ms_modfile_srcversion(const struct ms_modfile *f); /* or NULL */
const char *ms_modfile_modname(const struct ms_modfile *f); /* or NULL */
int ms_modfile_elfclass(const struct ms_modfile *f); /* ELFCLASS32/64 */
/* ELF machine, class and data of a kernel's `uname -m`; -ENOTSUP if unknown. */
int ms_machine_elf(const char *uname_m, int *em, int *cls, int *data);

/* A kernel architecture: how uname, ELF, gdb and lldb name it. */
struct ms_arch {
	const char *machine; /* uname -m */
	int em, cls, data; /* e_machine, ELFCLASS*, ELFDATA* */
	const char *gdb; /* gdb's `set architecture` name */
	const char *lldb; /* lldb's target triple */
};

/* The architecture of a `uname -m`, or NULL if modsect does not know it. */
const struct ms_arch *ms_arch_of_machine(const char *uname_m);
/* The architecture of an ELF machine, class and data, or NULL. */
const struct ms_arch *ms_arch_of_elf(int em, int cls, int data);
/* The file's e_machine, class and data, for messages and comparisons. */
void ms_modfile_machine(const struct ms_modfile *f, int *em, int *cls,
			int *data);
/* "x86_64 (ELF machine 62, 64-bit)", or "unknown (...)", into buf. */
const char *ms_elf_machine_str(int em, int cls, char *buf, size_t size);
/* uname -m's name of an ELF machine and class, or "unknown". */
const char *ms_machine_name(int em, int cls);
/* Refuses a file for another machine or class than the kernel's. */
int ms_modfile_check_machine(const struct ms_modfile *f, const char *machine,
			     struct ms_err *err);
/* Whether the file carries DWARF (a non-empty .debug_info). */
bool ms_modfile_has_dwarf(const struct ms_modfile *f);
size_t ms_modfile_section_count(const struct ms_modfile *f);
const struct ms_filesec *ms_modfile_section(const struct ms_modfile *f,
					    size_t i);
const struct ms_filesec *ms_modfile_section_by_name(const struct ms_modfile *f,
						    const char *name);
/* Offset of a symbol defined in the named section; -ENOENT if none. */
int ms_modfile_symbol_in(const struct ms_modfile *f, const char *secname,
			 const char *symname, uint64_t *value_ret);
/* Calls fn for each named symbol defined in the section. */
int ms_modfile_foreach_symbol(const struct ms_modfile *f, const char *secname,
			      int (*fn)(const char *name, uint64_t value,
					void *arg),
			      void *arg);

/* Decompresses gzip, xz or zstd by magic; *kind_ret NULL if not compressed. */
int ms_decompress(const void *buf, size_t len, void **out_ret,
		  size_t *outlen_ret, const char **kind_ret,
		  struct ms_err *err);
/* Stores buf in the cache under its SHA-256, atomically; returns the path. */
int ms_cache_store(const struct ms_ctx *ctx, const void *buf, size_t len,
		   const char *suffix, char **path_ret, struct ms_err *err);
/* The cache's subdirectory name (made if missing), for other caches. */
int ms_cache_subdir(const struct ms_ctx *ctx, const char *name, char **ret,
		    struct ms_err *err);

/* ---- layout: map + file, checked (layout.c) ---- */

enum ms_place {
	MS_PLACE_LOADED, /* address from the map */
	MS_PLACE_PERCPU, /* per-cpu base derived from kallsyms */
	MS_PLACE_PARKED, /* not loaded: parked at an address nothing uses */
	MS_PLACE_INIT_FREED, /* .init.* of a live module, left out */
	MS_PLACE_NOT_ALLOC, /* listed by the kernel, not allocatable in file */
};

struct ms_lsec {
	const char *name;
	uint64_t addr; /* what the debugger is told */
	uint64_t map_addr; /* what the map said, if in_map */
	uint64_t size;
	uint64_t flags;
	enum ms_place place;
	bool init;
	bool in_map;
};

enum ms_verify {
	MS_VERIFIED_BUILD_ID,
	MS_VERIFIED_SRCVERSION,
	MS_UNVERIFIED,
	MS_FORCED, /* mismatch overridden with --force */
};

#define MS_LAYOUT_INIT 0x1 /* keep .init.* even if the module is live */
#define MS_LAYOUT_FORCE 0x2 /* accept a build-id mismatch */

struct ms_layout {
	const struct ms_module *mod;
	const struct ms_modfile *file;
	struct ms_lsec *secs; /* map sections first, then parked ones */
	size_t nsecs;
	enum ms_verify verify;
	bool init_included; /* .init.* given to the debugger */
	bool init_freed; /* .init.* left out because the module is live */
	char *note; /* why unverified / what was forced, or NULL */
	const struct ms_debuginfo *debug; /* set by the caller, may be NULL */
};

int ms_layout_build(const struct ms_module *mod, const struct ms_modfile *f,
		    unsigned int flags, struct ms_layout **ret,
		    struct ms_err *err);
void ms_layout_free(struct ms_layout *l);
/* The file a debugger reads: the debug info if found, else the module. */
const char *ms_layout_debugger_path(const struct ms_layout *l);
const char *ms_layout_lldb_path(const struct ms_layout *l);
bool ms_layout_dwarf_hidden(const struct ms_layout *l);
const char *ms_verify_str(enum ms_verify v);
/* Rejects names a debugger command could be confused by. */
int ms_check_name(const char *what, const char *name, struct ms_err *err);
bool ms_section_is_init(const char *name);
/* Checks a map's addresses are not hidden (all zero). */
int ms_map_check_visible(const struct ms_map *map, struct ms_err *err);

/*
 * Checks a file against the loaded module: build-id, else srcversion, and
 * the .modinfo name. On a mismatch returns -EBADMSG with why (for --force).
 */
int ms_verify_file(const struct ms_module *mod, const struct ms_modfile *f,
		   enum ms_verify *ret, char *why, size_t whylen);

/* ---- debug info (debuginfo.c) ---- */

enum ms_dsource {
	MS_DS_NONE,
	MS_DS_DEBUG_FILE, /* --debug-file */
	MS_DS_DEBUG_DIR, /* --debug-dir */
	MS_DS_SYSTEM, /* /usr/lib/debug */
	MS_DS_MODULE, /* the module file has DWARF */
	MS_DS_DEBUGINFOD,
};

struct ms_skip {
	char *path;
	char *reason;
};

struct ms_debuginfo {
	struct ms_modfile *file; /* NULL if none was found */
	bool owned; /* false when file is the module file */
	enum ms_dsource source;
	enum ms_verify verify;
	struct ms_skip *skipped; /* candidates passed over, in order */
	size_t nskipped;
};

#define MS_DEBUG_FORCE 0x1

/*
 * Finds debug info for mod: --debug-file, --debug-dir trees, /usr/lib/debug
 * (by build-id, then by the module's path), the module file itself, then
 * debuginfod. modfile (may be NULL) is the module's file, moddir where it
 * was found. A candidate that does not match the loaded module is skipped;
 * a --debug-file that does not match is refused unless MS_DEBUG_FORCE.
 */
int ms_debuginfo_find(struct ms_finder *fi, const struct ms_module *mod,
		      const struct ms_modfile *modfile, const char *release,
		      const char *debug_file, unsigned int flags,
		      struct ms_debuginfo **ret, struct ms_err *err);
void ms_debuginfo_free(struct ms_debuginfo *d);
const char *ms_dsource_str(enum ms_dsource s);

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
 * Index files (one per build-id, under dir) for the modules added after:
 * a module with one is answered from it and its DWARF is never read; one
 * without gets one (made and written) the first time it is used, with
 * answers the same.
 */
void ms_symbolizer_set_index_dir(struct ms_symbolizer *s, const char *dir);
/*
 * 0 if every index made was written, else the first failure to make or
 * write one (once: the next call says 0).
 */
int ms_symbolizer_index_error(struct ms_symbolizer *s, struct ms_err *err);
/* -ENOENT if addr is in no module; strings live as long as s. */
int ms_symbolize(struct ms_symbolizer *s, uint64_t addr, unsigned int flags,
		 struct ms_symres *res);

/* Name to runtime address, for "func+0x1a/0x60 [mod]"; -ENOENT if none. */
int ms_symbolizer_lookup(struct ms_symbolizer *s, const char *module,
			 const char *name, uint64_t *addr_ret);

/* ---- the core kernel's symbols as an ELF file (kelf.c) ---- */

/*
 * Writes to fd an ELF file of the map's core kernel symbols at their
 * runtime addresses, for the map's machine, for gdb's add-symbol-file
 * and lldb's target modules add.
 */
int ms_kallsyms_elf(const struct ms_map *map, int fd, struct ms_err *err);
/*
 * Checks a vmlinux against the running kernel (build-id of the map, from
 * /sys/kernel/notes) and gives the KASLR offset to add to its addresses
 * (runtime _stext from kallsyms minus the file's). A mismatch is refused
 * unless force; *note_ret says what was verified.
 */
int ms_vmlinux_offset(const char *path, const struct ms_map *map, bool force,
		      int64_t *offset_ret, char **note_ret, struct ms_err *err);

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
/* The architecture (uname -m) a line of a report shows, or NULL. */
const char *ms_log_machine(const char *line);
/*
 * An address from an arm64 report without its pointer authentication
 * code; addr itself if it has none. For arm64 only (see logparse.c).
 */
uint64_t ms_arm64_strip_pac(uint64_t addr);
/* Whether a map's machine (uname -m) is arm64's. */
bool ms_machine_arm64(const char *machine);

/* ---- emitters (emit.c) ---- */

int ms_emit_gdb(FILE *out, const struct ms_layout *l, struct ms_err *err);
int ms_emit_lldb(FILE *out, const struct ms_layout *l, struct ms_err *err);
/*
 * The lines that give a fresh debugger the kernel's architecture, first in
 * a script; arch NULL if unknown (a comment only). why says where it was
 * taken from ("machine aarch64 in the map").
 */
void ms_emit_gdb_arch(FILE *out, const struct ms_arch *arch, const char *why);
void ms_emit_lldb_arch(FILE *out, const struct ms_arch *arch, const char *why);
/* Quotes a path for gdb's argv parser / lldb's command parser. */
int ms_quote_gdb(const char *s, char **ret, struct ms_err *err);
int ms_quote_lldb(const char *s, char **ret, struct ms_err *err);

/* ---- output (output.c) ---- */

/*
 * Output is built in memory and written at the end in one piece, so a
 * failure leaves no half-written file or half a script on stdout.
 */
struct ms_buf {
	char *data;
	size_t len;
	FILE *f;
};

int ms_buf_open(struct ms_buf *b, struct ms_err *err);
int ms_buf_close(struct ms_buf *b, struct ms_err *err);
void ms_buf_free(struct ms_buf *b);
/* Writes data to path atomically (temp file + rename), or to stdout for "-" or NULL. */
int ms_write_out(const char *path, const void *data, size_t len,
		 struct ms_err *err);
/* Reads a whole file. */
int ms_read_file(const char *path, size_t max, char **buf_ret, size_t *len_ret,
		 struct ms_err *err);

/* ---- streams (stream.c) ---- */

/*
 * Lines of a text, read as they come, every byte kept. A line longer than
 * the reader's max comes in pieces of at most max bytes.
 */
struct ms_lines;
struct ms_line {
	char *text; /* len bytes, NULs included, then a NUL of our own */
	size_t len;
	bool newline; /* the input had a newline after it */
	bool piece; /* part of a line longer than max: not whole */
	uint64_t lineno; /* from 1 */
};

/* path "-" is standard input. */
int ms_lines_open(const char *path, size_t max, struct ms_lines **ret,
		  struct ms_err *err);
/* 1 with the next line (valid until the next call), 0 at the end, -errno. */
int ms_lines_next(struct ms_lines *l, struct ms_line *ret, struct ms_err *err);
/* Whether the input is a regular file (else a pipe: flush as lines come). */
bool ms_lines_regular(const struct ms_lines *l);
void ms_lines_free(struct ms_lines *l);

/*
 * Output written as it comes: to standard output, or to a temporary file
 * that becomes path only on commit, so a failed run leaves no half file.
 */
struct ms_out;
int ms_out_open(const char *path, struct ms_out **ret, struct ms_err *err);
FILE *ms_out_file(const struct ms_out *o);
/* Flushes and, for a file, renames it into place; frees o either way. */
int ms_out_commit(struct ms_out *o, struct ms_err *err);
/* Drops a file's output; frees o. */
void ms_out_abort(struct ms_out *o);

#endif
