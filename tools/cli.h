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
	OPT_SERVE = 1 << 16, /* --kcore, --listen */
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
	bool btf; /* --btf: capture the core kernel's BTF */
	bool kernel; /* --kernel: gdb/lldb load the core kernel's symbols too */
	bool kcore; /* --kcore: serve /proc/kcore */
	const char *listen; /* --listen HOST:PORT */
	char **args; /* positional arguments */
	int nargs;
};

/*
 * What main sets up before a command runs (git's RUN_SETUP): the context
 * always; then, as the command's table entry says, the map and a finder.
 */
enum {
	RUN_MAP = 1 << 0, /* the map from --root, --capture, --remote, ... */
	RUN_FINDER = 1 << 1, /* a finder of module files for the map */
	RUN_CORE = 1 << 2, /* the map has the core kernel's symbols too */
	RUN_ONE = 1 << 3, /* unless --all, the map of the first argument only */
	RUN_ONE_ONLY = 1 << 4, /* with exactly one argument, its map only */
	RUN_ORC = 1 << 5, /* and its unwind tables (as --kernel asks) */
};

/* A command's run: what main set up for it, and its error. */
struct run {
	struct opts *o;
	struct ms_ctx *ctx;
	struct ms_map *map; /* RUN_MAP */
	struct ms_finder *fi; /* RUN_FINDER */
	struct ms_err err;
	bool warned; /* run_finder_warn was called */
};

struct cmd {
	const char *name;
	/*
	 * Returns the exit status, or a negative errno with run->err said,
	 * which main reports.
	 */
	int (*fn)(struct run *run);
	unsigned int opts; /* OPT_*: the options it takes */
	unsigned int setup; /* RUN_* */
	const char *args; /* positional synopsis */
	const char *summary;
	int min_args, max_args;
	const char *writes; /* it writes this to -o FILE only ("an ELF file") */
};

extern const struct cmd commands[];

/* Options (options.c). 0, -1 after --help, or EXIT_USAGE (said). */
int parse_options(const struct cmd *c, int argc, char **argv, struct opts *o);
void usage(FILE *out);
int usage_error(const struct cmd *c, const char *fmt, const char *arg);

/* Prints "modsect: message" for a library error; returns the exit status. */
int report(const struct ms_err *err, int r);
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Shared steps of the commands (common.c). */
int run_setup(const struct cmd *c, struct run *run);
void run_clear(struct run *run);
/* A library's note (ms_lazy_opts.note, ms_decode_opts.note) as a warning. */
void warn_note(void *arg, const char *msg);
/* r, err of an index that could not be made or written: a warning. */
void warn_index(int r, const struct ms_err *err);
/* Says once that debuginfod could not be reached, if so. */
void run_finder_warn(struct run *run);
/* The map the options name (decode reads its own, when it can). */
/* Says why the map has no unwind tables for the core kernel, if x86-64. */
void warn_no_orc(const struct ms_map *map);
void warn_no_btf(const struct ms_map *map);
/* flags: MS_READ_CORE, MS_READ_ORC */
int read_map(const struct ms_ctx *ctx, const struct opts *o,
	     const char *only_module, unsigned int flags, struct ms_map **ret,
	     struct ms_err *err);
unsigned int layout_flags(const struct opts *o);
int write_buf(const struct opts *o, struct ms_buf *b, struct ms_err *err);
/* gdb and lldb: one module or --all, written at once (emit.c). */
int emit_modules(struct run *run, bool lldb);

struct json_object;
/* --json output (json.c): a document printed and freed, and its pieces. */
void json_print(FILE *out, struct json_object *doc);
struct json_object *json_hex(uint64_t v);
/* The debug info candidates passed over: [{file, reason}...]. */
struct json_object *json_skipped(const struct ms_debuginfo *d);

int do_gdb(struct run *run);
int do_lldb(struct run *run);
int do_sections(struct run *run);
int do_list(struct run *run);
int do_capture(struct run *run);
int do_debuginfo(struct run *run);
int do_resolve(struct run *run);
int do_decode(struct run *run);
int do_kallsyms(struct run *run);
int do_serve(struct run *run);

#endif
