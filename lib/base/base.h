/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The base of the library: errors, helpers, bytes written (buffers,
 * LEB128, string tables) and ELF notes read, the context (what would
 * otherwise be global), output and input streams, the architecture
 * table, decompression and the cache. Uses nothing else of modsect.
 */
#ifndef MODSECT_BASE_H
#define MODSECT_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- errors (err.c) ---- */

/*
 * What kind of failure an error is, apart from its errno: the command
 * line maps the kind to the exit status modsect(1) documents, so no
 * library code picks an errno to steer it.
 */
enum ms_ekind {
	MS_E_UNSET, /* no error said */
	MS_E_NOTFOUND, /* a module not loaded, no file for it: exit 1 */
	MS_E_REFUSED, /* a file or map modsect will not use: exit 3 */
	MS_E_INPUT, /* malformed input: a capture, memory, a file: exit 3 */
	MS_E_IO, /* reading or writing failed, a target stopped answering */
	MS_E_RESOURCE, /* out of memory or another limit of this machine */
};

struct ms_err {
	int code; /* positive errno */
	enum ms_ekind kind;
	char msg[1024];
};

/*
 * Sets err and returns -code, so callers can write "return ms_err_set(...)".
 * The kind is the usual one of code (ms_ekind_of_errno); say another with
 * ms_err_kind.
 */
int ms_err_set(struct ms_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* ms_err_set with the kind said. */
int ms_err_kind(struct ms_err *err, enum ms_ekind kind, int code,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Gives an error already set another kind; returns -code. */
int ms_err_rekind(struct ms_err *err, enum ms_ekind kind);
/*
 * The kind an errno usually means: ENOENT not found; EIO, ETIMEDOUT,
 * ECONNRESET, EPIPE, ENOSPC I/O; ENOMEM resource; EBADMSG, EINVAL,
 * ERANGE, EOVERFLOW bad input; anything else refused.
 */
enum ms_ekind ms_ekind_of_errno(int code);
/* err's kind, or that of r (a negative errno) if err says none. */
enum ms_ekind ms_err_kind_of(const struct ms_err *err, int r);
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

/* ---- hexadecimal (hex.c) ---- */

/* A hex digit's value (either case), or -1. */
int ms_hexval(int c);
/* n hex digits (n even) to n / 2 bytes; -EBADMSG for anything else. */
int ms_hex_decode(const char *hex, size_t n, uint8_t *out);
/* 1 to 16 hex digits, no prefix, to a value; -EBADMSG for anything else. */
int ms_hex_u64(const char *s, size_t n, uint64_t *ret);
/* n bytes as lower-case hex into out (2 * n + 1 bytes); returns out. */
char *ms_hex_encode(const void *buf, size_t n, char *out);
/* The same in a new string (a build-id as the kernel prints it); NULL. */
char *ms_hex_dup(const void *buf, size_t n);

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
/*
 * Room for element n (the next) of an array at *(void **)arrp whose
 * count is the only size kept: it grows to min elements at n 0, then
 * doubles whenever n reaches a power of two. 0, or -ENOMEM with the
 * array unchanged.
 */
int ms_grow(void *arrp, size_t n, size_t size, size_t min);
/* The same for an array that keeps its capacity in *cap. */
int ms_reserve(void *arrp, size_t *cap, size_t n, size_t size, size_t min);
/* qsort's order of uint64_t values. */
int ms_cmp_u64(const void *a, const void *b);
/*
 * A set of strings, for what is said or looked at once: a handful (the
 * modules a report names, the warnings of a stream), so a list. Zeroed
 * is empty.
 */
struct ms_strset {
	char **v;
	size_t n, cap;
};
/* 1 if str is new (a copy is kept), 0 if it was there; -ENOMEM. */
int ms_strset_add(struct ms_strset *s, const char *str);
void ms_strset_free(struct ms_strset *s);
/*
 * Whether two stat()s are of the same file, unchanged (device, inode,
 * size, modification time): what was read of it once still holds.
 */
struct stat;
bool ms_stat_same(const struct stat *a, const struct stat *b);
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
/* The first index of v (n sorted values) whose value is not below x. */
size_t ms_lower_bound_u32(const uint32_t *v, size_t n, uint64_t x);
/*
 * Maps in the pages of [p, p + len), a large buffer about to be written,
 * in one call: on a virtual machine each page's first write was a fault
 * costing microseconds, and a table of megabytes has thousands of pages.
 */
void ms_prefault(void *p, size_t len);

/* ---- bytes written (bytes.c) ---- */

/* This machine's byte order, for what the running kernel itself gives. */
#define MS_HOST_BIG_ENDIAN (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)

/*
 * A growing buffer of bytes in one byte order, for the DWARF, CFI and
 * ELF modsect writes. A write that fails (no memory, more than max, a
 * patch over bytes not written) sets oom, and every write after it does
 * nothing: the writer checks oom once, at the end, and throws the bytes
 * away. Zeroed is empty, little-endian, limited by memory alone. (The
 * CFI writer's put, put8, put_le, put_uleb, put_sleb are ms_bytes_put,
 * _put8, _uint on a little-endian buffer, _uleb, _sleb.)
 */
struct ms_bytes {
	uint8_t *buf;
	size_t len, cap;
	size_t max; /* the most bytes it may hold; 0: no limit */
	bool big_endian; /* of the words put (_put16, _put32, _put64, _uint) */
	bool oom; /* a write failed: the bytes are to be thrown away */
};

void ms_bytes_put(struct ms_bytes *b, const void *p, size_t n);
void ms_bytes_put8(struct ms_bytes *b, uint8_t v);
void ms_bytes_put16(struct ms_bytes *b, uint16_t v);
void ms_bytes_put32(struct ms_bytes *b, uint32_t v);
void ms_bytes_put64(struct ms_bytes *b, uint64_t v);
/* The low size bytes (1 to 8) of v, in b's order. */
void ms_bytes_uint(struct ms_bytes *b, uint64_t v, int size);
/* v as unsigned and signed LEB128 (DWARF 4, 7.6). */
void ms_bytes_uleb(struct ms_bytes *b, uint64_t v);
void ms_bytes_sleb(struct ms_bytes *b, int64_t v);
/*
 * The low size bytes of v, in b's order, over those at pos, which must
 * have been written: a length known only once what it counts is.
 */
void ms_bytes_patch(struct ms_bytes *b, size_t pos, uint64_t v, int size);
/* Frees the bytes; b is zeroed (empty, little-endian, no limit). */
void ms_bytes_free(struct ms_bytes *b);

/* v's LEB128 into p, which has MS_LEB_MAX bytes; the number written. */
#define MS_LEB_MAX 10
size_t ms_uleb(uint8_t *p, uint64_t v);
size_t ms_sleb(uint8_t *p, int64_t v);

/*
 * A string table as ELF (.strtab, .shstrtab) and DWARF (.debug_str) keep
 * them: "\0" first, so that offset 0 is the empty string, then each
 * string added once. Zeroed is empty; b.max may limit it.
 */
struct ms_strtab {
	struct ms_bytes b; /* the table */
	uint32_t *slot; /* a hash of the strings: offset + 1, 0 free */
	size_t nslot, nused;
};

/*
 * The offset of s in t, s added if it is new: 0, or -ENOMEM (no memory,
 * past b.max or 4 GiB: offsets are 32-bit) with *off_ret 0 and t->b.oom
 * set, so every add after fails too and a writer may check it once.
 */
int ms_strtab_add(struct ms_strtab *t, const char *s, uint32_t *off_ret);
void ms_strtab_free(struct ms_strtab *t);

/* ---- ELF notes (notes.c) ---- */

/*
 * Reads the notes in len bytes at p (their namesz, descsz and type in
 * the given byte order: that of the kernel or file they are from), each
 * checked to lie within them. Zeroed or from ms_notes_init.
 */
struct ms_notes {
	const uint8_t *p;
	size_t len, off;
	bool big_endian;
};
struct ms_note {
	uint32_t type, namesz, descsz;
	const char *name; /* namesz bytes, its NUL counted as ELF does */
	const uint8_t *desc; /* descsz bytes */
	size_t desc_off; /* of desc, from p */
};

void ms_notes_init(struct ms_notes *it, const void *p, size_t len,
		   bool big_endian);
/*
 * 1 with the next note in ret, 0 after the last, -EBADMSG at one that
 * does not fit in the bytes left (and 0 after it).
 */
int ms_notes_next(struct ms_notes *it, struct ms_note *ret);
/* The most bytes of a build-id modsect takes (SHA-1's are 20). */
#define MS_BUILD_ID_MAX 64
/* Whether n is a GNU build-id (NT_GNU_BUILD_ID, "GNU", 1 to 64 bytes). */
bool ms_note_is_build_id(const struct ms_note *n);
/*
 * The first GNU build-id in the notes, as hex in a new string in *ret
 * (NULL if there is none before the end or a malformed note); 0, or
 * -ENOMEM.
 */
int ms_notes_build_id(const void *notes, size_t len, bool big_endian,
		      char **ret);

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
/*
 * What write_fd(fd, arg) writes to a temporary file, in memory: for ELF
 * files, which libelf writes to a file descriptor.
 */
int ms_fd_bytes(int (*write_fd)(int fd, const void *arg, struct ms_err *err),
		const void *arg, char **buf_ret, size_t *len_ret,
		struct ms_err *err);
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

/* ---- architectures (arch.c) ---- */

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
/* ELF machine, class and data of a kernel's `uname -m`; -ENOTSUP if unknown. */
int ms_machine_elf(const char *uname_m, int *em, int *cls, int *data);
/*
 * Whether two machines (uname -m) are both known and of another ELF
 * machine or class: no module of one is the other's (byte order aside,
 * which a report does not show).
 */
bool ms_machine_other(const char *a, const char *b);

/* "x86_64 (ELF machine 62, 64-bit)", or "unknown (...)", into buf. */
const char *ms_elf_machine_str(int em, int cls, char *buf, size_t size);
/* uname -m's name of an ELF machine and class, or "unknown". */
const char *ms_machine_name(int em, int cls);

/* ---- compressed data (decompress.c) and the cache (cache.c) ---- */

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

#endif
