/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Module files: what the debuggers read (modcopy.c), reading them
 * (modfile.c), finding them by name (finder.c) and by build-id
 * (fbuildid.c), joining a file to the map with every check (layout.c),
 * its debug info (debuginfo.c), laying out the modules a report names
 * that the map lacks (place.c), and all of it for one module
 * (resolve.c). Each file uses only those before it in this list.
 */
#ifndef MODSECT_MODULE_H
#define MODSECT_MODULE_H

#include "map/map.h"

/* ---- module files (modfile.c, modcopy.c, finder.c, fbuildid.c) ---- */

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
/*
 * Files of machine (uname -m; NULL: any) are preferred where several
 * have the module's name: the --search trees of a stream of reports of
 * several machines.
 */
void ms_finder_prefer(struct ms_finder *fi, const char *machine);
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
			 size_t len, char **path_ret, struct ms_err *err);
/* The error that made the finder stop asking debuginfod, or 0. */
int ms_finder_debuginfod_error(const struct ms_finder *fi);
/*
 * For a kernel without BTF (kernel.h's ms_layout_find_fn; arg is the
 * struct ms_ctx): a file with DWARF of struct module built for release,
 * from the --search trees (a module with debug info whose vermagic names
 * release), a debug vmlinux in --debug-dir or /usr/lib/debug (by
 * build-id or release), or debuginfod. -ENOENT saying where it looked.
 */
int ms_layout_file_find(void *arg, const char *release, int elf_machine,
			const char *build_id, char **path_ret,
			struct ms_err *err);
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

/* Where the next module without a map is laid out (place.c). */
struct ms_placing {
	uint64_t base, base32; /* for 64- and 32-bit files */
};

void ms_place_init(struct ms_placing *pl);
/*
 * A module a report names, with the build-id it prints ("" if none),
 * laid out from its file if the map lacks it, or given that build-id if
 * the map's module has none. 0 if done or nothing to do; 1 if note says
 * why its frames are left unannotated (no file, another build than the
 * map's or the printed one, a file that does not read); or a negative
 * errno.
 */
int ms_map_place(struct ms_map *map, struct ms_finder *fi, struct ms_placing *pl,
		 const char *module, const char *build_id, struct ms_err *note,
		 struct ms_err *err);
int ms_modfile_open(const struct ms_ctx *ctx, const char *path,
		    struct ms_modfile **ret, struct ms_err *err);
/*
 * Another owner of f, which is read only: each ms_modfile_free drops
 * one, the last frees it.
 */
struct ms_modfile *ms_modfile_ref(struct ms_modfile *f);
/*
 * ms_modfile_open through fi's files: one opened before (the same file,
 * by device, inode, size and time) is shared, not read again, as a stream
 * of reports names the same modules again (each report with its own
 * layouts). Freed with ms_modfile_free; fi keeps its own reference.
 */
int ms_finder_open_file(struct ms_finder *fi, const char *path,
			struct ms_modfile **ret, struct ms_err *err);
void ms_modfile_free(struct ms_modfile *f);
const char *ms_modfile_path(const struct ms_modfile *f);
/* The file a debugger should read: the decompressed cache copy if any. */
const char *ms_modfile_debugger_path(const struct ms_modfile *f);
/*
 * gdb's file becomes a copy without the module's own CFI where modsect
 * gives its own and gdb would read the module's first (modcopy.c: an
 * arm64 module built with -g). Writes to the cache only then.
 */
int ms_modfile_gdb_own_cfi(const struct ms_ctx *ctx, struct ms_modfile *f,
			   struct ms_err *err);
/* The file lldb gets: debugger_path, or a copy with its DWARF hidden. */
const char *ms_modfile_lldb_path(const struct ms_modfile *f);
bool ms_modfile_dwarf_hidden(const struct ms_modfile *f);
const char *ms_modfile_compression(const struct ms_modfile *f); /* or NULL */
const char *ms_modfile_build_id(const struct ms_modfile *f); /* or NULL */
const char *ms_modfile_srcversion(const struct ms_modfile *f); /* or NULL */
const char *ms_modfile_modname(const struct ms_modfile *f); /* or NULL */
int ms_modfile_elfclass(const struct ms_modfile *f); /* ELFCLASS32/64 */

/* The file's e_machine, class and data, for messages and comparisons. */
void ms_modfile_machine(const struct ms_modfile *f, int *em, int *cls,
			int *data);
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
/*
 * Whether the loader of a kernel of ELF machine em frees section name after
 * init (its module_init_section()); em 0 (unknown) takes the generic rule.
 */
bool ms_section_is_init(int em, const char *name);

/*
 * Checks a file against the loaded module: build-id, else srcversion, and
 * the .modinfo name. On a mismatch returns -EBADMSG with why said (a
 * refusal, which --force overrides).
 */
int ms_verify_file(const struct ms_module *mod, const struct ms_modfile *f,
		   enum ms_verify *ret, struct ms_err *why);

/* ---- the module's ORC tables (morc.c) ---- */

/*
 * The ORC tables of l's module file at the addresses l gives its
 * sections; -ENOENT (said in err) if it has none (not x86-64, or a
 * kernel without ORC). release tells the format of tables without an
 * .orc_header.
 */
int ms_layout_orc(const struct ms_layout *l, const char *release,
		  struct ms_orc **ret, struct ms_err *err);
/*
 * An arm64 module's frame rules made from its code, at the map's
 * addresses (ma64.c); -ENOENT, said in err, for another machine.
 */
int ms_layout_a64(const struct ms_layout *l, struct ms_a64 **ret,
		  struct ms_err *err);
/* An i386 module's, likewise (mi386.c). */
int ms_layout_x86(const struct ms_layout *l, struct ms_x86 **ret,
		  struct ms_err *err);
/*
 * The same tables with each address as MS_ORC_SECTION(ELF index of its
 * section, offset in it): for a copy of the file, whose debugger places
 * the sections itself.
 */
#define MS_ORC_SECTION_SHIFT 40
#define MS_ORC_SECTION(ndx, off) \
	(((uint64_t)(ndx) << MS_ORC_SECTION_SHIFT) | (uint64_t)(off))
#define MS_ORC_SECTION_MAX 0xff00 /* SHN_LORESERVE: no section index */
/*
 * The module file's .BTF: split BTF on the kernel's (CONFIG_DEBUG_INFO_
 * BTF_MODULES), unchecked bytes owned by f; -ENOENT if it has none.
 */
int ms_modfile_btf(const struct ms_modfile *f, const void **data_ret,
		   size_t *len_ret);
int ms_modfile_orc_sections(const struct ms_modfile *f, const char *release,
			    struct ms_orc **ret, struct ms_err *err);

/*
 * lldb finds the unwind tables of an address only in the file that holds
 * it: sym (l's file or its debug file, which lldb loads) gets a copy in
 * the cache with l's ORC, or an i386 module's rules from its code
 * (mi386.c), as .debug_frame (lldbcopy.c), which lldb_path then names.
 * -ENOENT (said in err) when the module has neither; *nentries_ret (may
 * be NULL) gets the number of ORC entries or functions.
 */
int ms_modfile_lldb_unwind(const struct ms_ctx *ctx, struct ms_modfile *sym,
			   const struct ms_layout *l, const char *release,
			   size_t *nentries_ret, struct ms_err *err);

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

/* ---- one module, resolved (resolve.c) ---- */

/* A module with its file, layout and debug info, for the commands. */
struct ms_resolved {
	struct ms_modfile *file;
	struct ms_layout *layout;
	struct ms_debuginfo *debug;
};

/*
 * Finds mod's file (path if not NULL, else through fi), checks it is the
 * loaded build and of the map's machine, lays it out (flags:
 * MS_LAYOUT_*; MS_LAYOUT_FORCE also forces a --debug-file) and finds its
 * debug info (debug_file if not NULL). -ENOENT if no file is found.
 */
int ms_module_resolve(struct ms_finder *fi, const struct ms_map *map,
		      const struct ms_module *mod, const char *path,
		      const char *debug_file, unsigned int flags,
		      struct ms_resolved *ret, struct ms_err *err);
void ms_resolved_clear(struct ms_resolved *r);
/*
 * The file ms_module_resolve would take for mod (the best candidate, even
 * of another build), to name it; NULL if none (or no memory).
 */
char *ms_module_file_path(struct ms_finder *fi, const struct ms_module *mod);

#endif
