/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The bytes of an index file, for its reader (symindex.c) and its writer
 * (ixwrite.c) only: a header, then seven tables (sections, symbols,
 * function parts, their inline segments, the chains of inlined calls
 * those name, line rows' offsets and their answers, strings), each 8-byte
 * aligned. The header names the build-id and size of the file it came
 * from and a checksum of all of it.
 */
#ifndef MODSECT_IXFORMAT_H
#define MODSECT_IXFORMAT_H

#include "symindex.h"

#define IX_MAGIC "MSINDEX\n"
/* 4: lines of the CUs .debug_aranges leave out (clang's), which 3 lacked */
#define IX_VERSION 4
#define IX_ORDER 0x01020304u /* the writer's byte order: only ours is read */

struct ix_header {
	char magic[8];
	uint32_t version, order;
	uint64_t sum; /* ix_file_sum of the whole file, with sum 0 */
	uint64_t file_size;
	uint64_t total;
	char build_id[72]; /* hex, NUL-padded */
	struct {
		uint64_t off, count;
	} t[IX_NTABLES];
};

static const size_t entry_size[IX_NTABLES] = {
	[IX_SECS] = sizeof(struct ix_sec),   [IX_SYMS] = sizeof(struct ix_sym),
	[IX_FNS] = sizeof(struct ix_fn),     [IX_SEGS] = sizeof(struct ix_seg),
	[IX_FRAMES] = sizeof(struct ix_frame), [IX_LINE_OFFS] = sizeof(uint32_t),
	[IX_LINES] = sizeof(struct ix_line),
	[IX_STRS] = 1,
};

/*
 * The checksum of an index of len bytes whose header is h (its sum field
 * taken as 0): what the writer stores in h->sum and the reader compares.
 */
uint64_t ix_file_sum(const void *buf, size_t len, const struct ix_header *h);

#endif
