/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a debugger or a user reads: gdb and lldb commands (emit.c), the
 * core kernel's symbols as an ELF file (kelf.c); resolve's answers are
 * in answer.h.
 */
#ifndef MODSECT_EMIT_H
#define MODSECT_EMIT_H

#include "symbolize/symbolize.h"
#include "types/types.h"

/* ---- emitters (emit.c) ---- */

int ms_emit_gdb(FILE *out, const struct ms_layout *l, struct ms_err *err);
int ms_emit_lldb(FILE *out, const struct ms_layout *l, struct ms_err *err);
/*
 * The lines that give a fresh debugger the kernel's architecture, first in
 * a script; arch NULL if unknown (a comment only). why says where it was
 * taken from ("machine aarch64 in the map"). Nothing else can fail: a
 * failed write is out's error (ferror), which its owner checks when it
 * closes out, as for any fprintf to it.
 */
void ms_emit_gdb_arch(FILE *out, const struct ms_arch *arch, const char *why);
void ms_emit_lldb_arch(FILE *out, const struct ms_arch *arch, const char *why);
/* Quotes a path for gdb's argv parser / lldb's command parser. */
int ms_quote_gdb(const char *s, char **ret, struct ms_err *err);
int ms_quote_lldb(const char *s, char **ret, struct ms_err *err);

/* ---- the core kernel's symbols as an ELF file (kelf.c) ---- */

/*
 * Writes to fd an ELF file of the map's core kernel symbols at their
 * runtime addresses, for the map's machine, for gdb's add-symbol-file
 * and lldb's target modules add.
 */
int ms_kallsyms_elf(const struct ms_map *map, int fd, struct ms_err *err);
/*
 * The same for one debugger: lldb's unwind tables differ from gdb's
 * (MS_CFI_LLDB), so each gets its own file.
 */
int ms_kallsyms_elf_for(const struct ms_map *map, bool lldb, int fd,
			struct ms_err *err);
/*
 * Checks a vmlinux against the running kernel (build-id of the map, from
 * /sys/kernel/notes) and gives the KASLR offset to add to its addresses
 * (runtime _stext from kallsyms minus the file's). A mismatch is refused
 * unless force; *note_ret says what was verified.
 */
int ms_vmlinux_offset(const char *path, const struct ms_map *map, bool force,
		      int64_t *offset_ret, char **note_ret, struct ms_err *err);

/* ---- whole debugger scripts (script.c) ---- */

struct ms_script_opts {
	bool lldb; /* lldb's commands, else gdb's */
	const char *only; /* one module, or NULL for every one (--all) */
	const char *path; /* with only: its file, if the user named one */
	const char *debug_file; /* with only: its debug info, if named */
	unsigned int layout_flags; /* MS_LAYOUT_* */
	bool kernel; /* the core kernel's symbols first */
	const char *vmlinux; /* with kernel: a debug vmlinux, not kallsyms */
	bool force; /* a vmlinux of another build */
	/* Somewhere to look for files without a release (--moddir, --search). */
	bool where_given;
	const char *producer; /* "modsect VERSION", for the first line */
};

struct ms_script_result {
	char **skipped; /* why each module --all passed over was */
	size_t nskipped;
};

/*
 * Writes the whole script for the map's modules (so->only, or all) to
 * out: the header, the architecture, the core kernel if asked, each
 * module's commands. Nothing is written on failure. For every module,
 * one whose file is not found is skipped (said in the script and in
 * res), unless none is found (-ENOENT).
 */
int ms_script_write(FILE *out, struct ms_finder *fi, const struct ms_map *map,
		    const struct ms_script_opts *so,
		    struct ms_script_result *res, struct ms_err *err);
void ms_script_result_clear(struct ms_script_result *res);
/*
 * An x86-64 ELF file holding only the .debug_frame made from orc, at its
 * addresses (unwelf.c): a module's unwind tables for a debugger.
 */
int ms_unwind_elf_bytes(const struct ms_orc *orc, char **buf_ret,
			size_t *len_ret, struct ms_err *err);
/* The same around CFI the caller made (len bytes of .debug_frame). */
struct ms_dbgsec {
	const char *name;
	const void *buf;
	size_t len;
};
/* An ELF file of the given debug sections only (unwelf.c). */
struct ms_dbgelf {
	int em, cls, data; /* e_machine, ELFCLASS*, ELFDATA* */
	const struct ms_dbgsec *secs;
	size_t nsecs;
};
int ms_debug_elf_bytes(const struct ms_dbgelf *d, char **buf_ret,
		       size_t *len_ret, struct ms_err *err);
int ms_cfi_elf_bytes(const void *cfi, size_t len, char **buf_ret,
		     size_t *len_ret, struct ms_err *err);
/*
 * The map's core BTF as DWARF (ktypes.c): its types, its functions at
 * their kallsyms addresses, its per-cpu variables.
 */
int ms_map_types(const struct ms_map *map, int addr_size, bool big_endian,
		 struct ms_dwarf *out, struct ms_err *err);
/*
 * A module's own types from the split BTF in its file f, on the map's
 * core BTF (parsed once into *base): -ENOENT, said in err, if either
 * has none.
 */
int ms_module_types(const struct ms_map *map, struct btf **base,
		    const struct ms_modfile *f, int addr_size,
		    bool big_endian, struct ms_dwarf *out, struct ms_err *err);
/*
 * The path of the map's kallsyms ELF in the cache (kcache.c), made only
 * if the cache has none from the same inputs.
 */
int ms_kallsyms_elf_cached(const struct ms_ctx *ctx, const struct ms_map *map,
			   bool lldb, char **path_ret, struct ms_err *err);
/* The ELF of the map's core symbols (ms_kallsyms_elf), in memory. */
int ms_kallsyms_elf_bytes(const struct ms_map *map, char **buf_ret,
			  size_t *len_ret, struct ms_err *err);
int ms_kallsyms_elf_bytes_for(const struct ms_map *map, bool lldb,
			      char **buf_ret, size_t *len_ret,
			      struct ms_err *err);

/* Modules' unwind tables, for the end of a gdb script. */
struct ms_unwinds {
	struct {
		const char *name;
		struct ms_orc *orc; /* or NULL */
		struct ms_a64 *a64; /* arm64's, instead; or NULL */
		struct ms_x86 *x86; /* i386's, instead; or NULL */
		struct ms_dwarf types; /* from its BTF, info NULL if none */
	} *mods;
	size_t n;
	struct btf *base; /* the map's core BTF, parsed once */
	int em, cls, data; /* the files' ELF machine, class, data */
};
void ms_unwinds_clear(struct ms_unwinds *u);
/*
 * lldb: each module's types in u as a file lldb adds as a module of its
 * own (unwscript.c); lldb finds types in every module.
 */
int ms_script_lldb_types(const struct ms_ctx *ctx, FILE *out,
			 const struct ms_unwinds *u, struct ms_err *err);

/*
 * The end of a gdb script that gives unwind tables and types
 * (unwscript.c): each module's in u as a file gdb adds, and, when there
 * are any (core: the kallsyms ELF has the core kernel's), a frame filter
 * that names the frames gdb unwinds as signal frames and shows the
 * arguments of functions typed from BTF. Python, so last: a gdb without
 * it has loaded every symbol before it stops here.
 */
/*
 * init (NULL: none): [lo, hi) of the core kernel's init text, which an
 * arm64 kernel frees and unmaps; gdb gets an unwinder for frames there.
 */
/*
 * The start of a gdb Python unwinder in a script: "python", the imports,
 * and the frame id class gdb's create_unwind_info() takes.
 */
extern const char ms_script_unwinder_head[];

/*
 * s390x, ppc64 and 32-bit ARM: a gdb unwinder that walks as the kernel's
 * own unwinder does (stkscript.c); whether map's machine has one.
 */
bool ms_script_kernel_stack(FILE *out, const struct ms_map *map);

int ms_script_unwind_tail(const struct ms_ctx *ctx, FILE *out, bool core,
			  const uint64_t *init,
			  const struct ms_unwinds *u, struct ms_err *err);

/* ---- kernel reports, annotated (decode.c) ---- */

struct ms_decode_opts {
	unsigned int layout_flags; /* MS_LAYOUT_* for each module */
	bool no_index; /* read the DWARF, never an index (nor write one) */
	const char *machine; /* the report's (uname -m), if the map has none */
	struct ms_ixpool *ix_pool; /* indexes shared across reports, or NULL */
	/* Told once of each module left unannotated, and why (may be NULL). */
	void (*note)(void *arg, const char *msg);
	void *note_arg;
};

/*
 * A decoder of one report over map, whose modules it finds through fi
 * when a frame first needs them. The modules the first lines (as
 * ms_decode_text gives them) name that the map lacks are laid out from
 * their files at once; the map grows. Before its first line, it is given
 * the lazy symbolizer it reads through (ms_decoder_attach).
 */
struct ms_decoder;
int ms_decoder_new(struct ms_map *map, struct ms_finder *fi,
		   const struct ms_decode_opts *o, char *const *first,
		   size_t nfirst, struct ms_decoder **ret, struct ms_err *err);
/* The map, with the modules the first lines named placed. */
struct ms_map *ms_decoder_map(const struct ms_decoder *d);
/* The lazy symbolizer a decoder with these options reads a map through. */
int ms_decode_lazy(const struct ms_map *map, struct ms_finder *fi,
		   const struct ms_decode_opts *o, struct ms_lazy **ret,
		   struct ms_err *err);
/*
 * Decodes over map, equal to the decoder's own (ms_map_same: another
 * report's, whose modules are loaded already), and z over it; both the
 * caller's, outliving d.
 */
void ms_decoder_attach(struct ms_decoder *d, struct ms_map *map,
		       struct ms_lazy *z);
/*
 * Writes ln to out with every module frame annotated; text is the line as
 * ms_decode_text gives it. place: lay out the modules it names that the
 * map lacks first (not needed for the first lines).
 */
int ms_decoder_line(struct ms_decoder *d, FILE *out, const struct ms_line *ln,
		    const char *text, bool place, struct ms_err *err);
void ms_decoder_free(struct ms_decoder *d);
/*
 * The line as the report parser reads it: a C string, so a NUL byte (a
 * crashed program's output on the console) becomes 0x01, which no frame
 * or marker holds, and the bytes after it are still read. In *scratch
 * (of *cap bytes, grown) when it must be copied; NULL: no memory.
 */
const char *ms_decode_text(const struct ms_line *ln, char **scratch,
			   size_t *cap);

/* ---- a stream of reports, each decoded on its own (reports.c) ---- */

struct ms_stream_opts {
	struct ms_decode_opts d; /* its machine unused: each report's own */
	/*
	 * The map given (live, a capture, memory), or NULL. It decodes the
	 * reports of its machine, or every report with map_for_all (the
	 * user named it); the others have none.
	 */
	const struct ms_map *map;
	bool map_for_all;
	/*
	 * With no map, the modules of a report of the host's machine are
	 * looked for under the host's release too (NULL: only --moddir and
	 * --search find them, as when --root stands for another system).
	 */
	const char *host_machine, *host_release;
};

struct ms_stream_res {
	size_t unannotated; /* warnings of frames left unannotated, and why */
	int index_rc; /* the first index not written, as ms_decoder_index_error */
	struct ms_err index_err;
};

/*
 * Copies in to out with every module frame annotated, each report on its
 * own (see reports.c). A module file missing or refused costs its
 * frames and one warning (o->d.note, once a stream), counted in res;
 * only running out of memory or input fails, and out then has every
 * line before the failing one.
 */
int ms_decode_stream(const struct ms_ctx *ctx, struct ms_lines *in, FILE *out,
		     const struct ms_stream_opts *o, struct ms_stream_res *res,
		     struct ms_err *err);


/* resolve's answers, written inline for speed (answer.c). */
#include "emit/answer.h"

#endif
