/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The command line: one table of subcommands, shared option handling. */
#ifndef MODSECT_CLI_H
#define MODSECT_CLI_H

#include "modsect.h"

/* Exit statuses, documented in modsect(1). */
enum {
	EXIT_OK = 0,
	EXIT_NOTFOUND = 1, /* module not loaded, file not found */
	EXIT_USAGE = 2,
	EXIT_REFUSED = 3, /* bad input, mismatch, hidden addresses, I/O */
};

/* Options a subcommand accepts (struct cmd.opts). */
enum {
	OPT_ROOT = 1 << 0,
	OPT_CAPTURE = 1 << 1,
	OPT_MODDIR = 1 << 2,
	OPT_SEARCH = 1 << 3,
	OPT_OUTPUT = 1 << 4,
	OPT_JSON = 1 << 5,
	OPT_ALL = 1 << 6,
	OPT_FORCE = 1 << 7,
	OPT_INIT = 1 << 8,
	OPT_CACHE = 1 << 9,
	OPT_DEBUG = 1 << 10, /* --debug-dir, --offline */
	OPT_DEBUG_FILE = 1 << 11,
	OPT_KALLSYMS = 1 << 12,
	OPT_KERNEL = 1 << 13,
	OPT_MEMORY = 1 << 14, /* --remote, --vmcore, --kernel-image, ... */
	OPT_INDEX = 1 << 15, /* --no-index */
#ifdef MODSECT_STATIC
	OPT_SOURCE = OPT_ROOT | OPT_CAPTURE,
#else
	OPT_SOURCE = OPT_ROOT | OPT_CAPTURE | OPT_MEMORY,
#endif
	OPT_FILES = OPT_MODDIR | OPT_SEARCH | OPT_CACHE | OPT_FORCE | OPT_DEBUG,
};

struct opts {
	const char *root, *capture, *moddir, *output, *cache;
	const char *debug_file;
	const char *vmlinux; /* --vmlinux: a debug vmlinux for the core kernel */
	const char *remote, *vmcore; /* memory sources */
	const char *kernel_image; /* --kernel-image: kallsyms and BTF */
	uint64_t module_at; /* --module-at: one struct module's address */
	unsigned int baud, timeout_ms;
	const char **search, **debug_dirs;
	size_t nsearch, ndebug_dirs;
	bool json, all, force, init, offline;
	bool no_index; /* --no-index: symbolize from the DWARF, write no index */
	bool kallsyms; /* --kallsyms: capture the core kernel's symbols */
	bool core; /* the command needs core symbols (resolve, decode) */
	bool kernel; /* --kernel: gdb/lldb load the core kernel's symbols too */
	char **args; /* positional arguments */
	int nargs;
};

struct cmd {
	const char *name;
	int (*fn)(struct opts *o);
	unsigned int opts;
	const char *args; /* positional synopsis */
	const char *summary;
	int min_args, max_args;
};

extern const struct cmd commands[];

/* Prints "modsect: message" for a library error; returns the exit status. */
int report(const struct ms_err *err, int r);
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Says once that debuginfod could not be reached, if so. */
void warn_debuginfod(const struct ms_finder *fi);

/* Shared steps of the commands (common.c). */
int setup_ctx(const struct opts *o, struct ms_ctx **ret, struct ms_err *err);
int load_map(const struct ms_ctx *ctx, const struct opts *o,
	     const char *only_module, struct ms_map **ret, struct ms_err *err);
unsigned int layout_flags(const struct opts *o);
/* Finds and opens the file for mod, or the explicit path if not NULL. */
int open_modfile(const struct ms_ctx *ctx, struct ms_finder *fi,
		 const struct ms_module *mod, const char *path,
		 struct ms_modfile **ret, struct ms_err *err);

/* A module with its file, layout and debug info, for the commands. */
struct resolved {
	struct ms_modfile *file;
	struct ms_layout *layout;
	struct ms_debuginfo *debug;
};

/* Opens, checks and finds debug info for one module; -ENOENT if no file. */
int resolve(const struct ms_ctx *ctx, struct ms_finder *fi,
	    const struct opts *o, const struct ms_map *map,
	    const struct ms_module *mod, const char *path,
	    struct resolved *ret, struct ms_err *err);
void resolved_clear(struct resolved *r);

/* Modules loaded into a symbolizer when first needed (symbols.c). */
struct lazy {
	const struct ms_ctx *ctx;
	struct ms_finder *fi;
	const struct opts *o;
	const struct ms_map *map;
	struct ms_symbolizer *sym;
	struct resolved *res; /* per map module */
	char *state; /* per map module: untried, loaded, missing */
	struct start *starts; /* every section start, sorted */
	size_t nstarts;
	const char **names; /* per map module, as res and state are */
	size_t nmods;
};

int lazy_init(struct lazy *z, const struct ms_ctx *ctx, struct ms_finder *fi,
	      const struct opts *o, const struct ms_map *map,
	      struct ms_err *err);
void lazy_clear(struct lazy *z);
/* Writes the index of each module used that had none (says once if not). */
void lazy_index_warn(struct lazy *z);
/* After modules were added to the map (which sorts and moves them). */
int lazy_sync(struct lazy *z, struct ms_err *err);
int lazy_by_name(struct lazy *z, const char *name, struct ms_err *err);
int lazy_by_addr(struct lazy *z, uint64_t addr, struct ms_err *err);

struct json_object;
/* debug_file, debug_source, debug_verified, debug_skipped (sections.c). */
void debug_json(struct json_object *o, const struct ms_debuginfo *d);
/* gdb and lldb: emit one module or --all, written at once. */
int emit_modules(struct opts *o,
		 int (*emit)(FILE *, const struct ms_layout *, struct ms_err *),
		 const char *comment_intro);
int write_buf(const struct opts *o, struct ms_buf *b, struct ms_err *err);

int do_gdb(struct opts *o);
int do_lldb(struct opts *o);
int do_sections(struct opts *o);
int do_list(struct opts *o);
int do_capture(struct opts *o);
int do_debuginfo(struct opts *o);
int do_resolve(struct opts *o);
int do_decode(struct opts *o);
int do_kallsyms(struct opts *o);
/* The ELF of the map's core symbols, in memory (kallsyms.c). */
int kallsyms_elf_bytes(const struct ms_map *map, char **buf_ret,
		       size_t *len_ret, struct ms_err *err);

#endif
