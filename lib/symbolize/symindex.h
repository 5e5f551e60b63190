/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The index of a module file (ixformat.h): what symbolization needs of
 * its ELF symbols, DWARF functions, inlined calls and line table, in
 * section-relative offsets, so that any layout of the module reads it.
 * Written once per build-id into the cache, mapped by later runs, which
 * then never open the DWARF.
 */
#ifndef MODSECT_SYMINDEX_H
#define MODSECT_SYMINDEX_H

#include <stdint.h>

#include "symbolize.h"

#define IX_NONE UINT32_MAX /* no string: a line row with no line */

/* A section; its line rows are from first_line to the next section's. */
struct ix_sec {
	uint32_t name;
	uint32_t first_line;
	uint64_t size;
};

struct ix_sym {
	uint32_t name;
	uint16_t sec;
	uint8_t global, pad;
	uint32_t off, size;
};

/* A function's part (one range); its inline segments follow in ix_seg. */
struct ix_fn {
	uint32_t name;
	uint16_t sec, pad;
	uint32_t lo, hi;
	uint32_t seg_first, nseg;
};

/*
 * A function part from off (bytes from its start) to the next segment's
 * off, or its end: the inlined calls that hold every address there,
 * innermost first, as frames [first, first + n) of ix_frame. A part with
 * no inlined calls has no segments. Precomputed, a lookup is a binary
 * search where walking the calls' ranges was a third of its time.
 */
struct ix_seg {
	uint32_t off, first;
	uint16_t n, pad;
};

/* An inlined call in a chain: its name, and where its caller called it. */
struct ix_frame {
	uint32_t name, call_file;
	int32_t call_line, call_col;
};

/*
 * A line row: the line table's answer from its offset (ix_line_offs, the
 * same index) to the next row's: a line, whose file may be unknown
 * (IX_NONE), or none (line IX_NO_LINE). The offsets are a table of their
 * own, which the lookup's binary search reads as it is mapped.
 */
struct ix_line {
	uint32_t file;
	int32_t line, col;
};

#define IX_NO_LINE INT32_MIN

/* A line row as the writer takes it. */
struct ix_row {
	uint16_t sec;
	bool found;
	uint32_t off, file;
	int32_t line, col;
};

enum ix_table {
	IX_SECS,
	IX_SYMS,
	IX_FNS,
	IX_SEGS,
	IX_FRAMES,
	IX_LINE_OFFS,
	IX_LINES,
	IX_STRS,
	IX_NTABLES
};

/* ---- writing (ixwrite.c) ---- */

struct ixw;

struct ixw *ixw_new(void);
void ixw_free(struct ixw *w);
/* A string's offset in the string table (each string stored once). */
uint32_t ixw_str(struct ixw *w, const char *s);
/* Appends entries; 0, or -ENOMEM (the writer then refuses to write). */
int ixw_sec(struct ixw *w, const char *name, uint64_t size);
int ixw_sym(struct ixw *w, const struct ix_sym *y);
int ixw_fn(struct ixw *w, const struct ix_fn *f);
int ixw_seg(struct ixw *w, const struct ix_seg *g);
/*
 * A chain of n frames, stored once however often it is given: *first
 * says where (0 for none).
 */
int ixw_frames(struct ixw *w, const struct ix_frame *v, size_t n,
	       uint32_t *first);
/* Rows in order of section, then offset; -EINVAL if out of order. */
int ixw_line(struct ixw *w, const struct ix_row *l);
size_t ixw_nseg(const struct ixw *w);
/* The index for a file of build_id and size, in one malloc'd buffer. */
int ixw_image(struct ixw *w, const char *build_id, uint64_t file_size,
	      void **buf_ret, size_t *len_ret, struct ms_err *err);
/* Writes an index's bytes to path, atomically. */
int ix_write(const char *path, const void *buf, size_t len,
	     struct ms_err *err);

/* ---- reading (symindex.c) ---- */

struct ix {
	void *map;
	size_t map_len;
	bool owned; /* map is malloc'd (made in this run), not mapped */
	unsigned int refs; /* its owners: smods, and an ms_ixpool */
	const struct ix_sec *secs;
	const struct ix_sym *syms;
	const struct ix_fn *fns;
	const struct ix_seg *segs;
	const struct ix_frame *frames;
	const uint32_t *line_offs; /* ascending in each section */
	const struct ix_line *lines;
	const char *strs;
	size_t n[IX_NTABLES]; /* entries; bytes for IX_STRS */
};

/*
 * Maps path and checks it whole: header, checksum, every count, offset
 * and reference. -ENOENT if there is none, -EINVAL (err says why) if it
 * is damaged or of another file.
 */
int ix_open(const char *path, const char *build_id, uint64_t file_size,
	    struct ix **ret, struct ms_err *err);
/*
 * Checks an index in memory (8-byte aligned), as ix_open does; with
 * build_id NULL all but whose file it is and its checksum, so that a
 * fuzzer reaches the tables.
 */
int ix_check(const void *buf, size_t len, const char *build_id,
	     uint64_t file_size, struct ix *ix, struct ms_err *err);
/* The index of bytes just made by ixw_image, which it then owns. */
int ix_from_image(void *buf, size_t len, struct ix **ret, struct ms_err *err);
void ix_close(struct ix *ix);

static inline const char *ix_str(const struct ix *ix, uint32_t off)
{
	return off == IX_NONE ? NULL : ix->strs + off;
}

#endif
