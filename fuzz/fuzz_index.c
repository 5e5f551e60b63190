// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the index reader (lib/symbolize/symindex.c). The checksum and
 * the file's identity are not checked here, so that every input reaches
 * the checks of the tables; an index they accept is then read whole as
 * a lookup would: every string, every row of every section.
 */
#include <stdlib.h>
#include <string.h>

#include "symbolize/ixlines.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	/* The reader maps files: page-aligned, as malloc's 16 bytes are. */
	void *buf = malloc(size ? size : 1);
	struct ms_err err = { 0 };
	struct ixlookup lk = { 0 };
	struct ix ix = { 0 };
	size_t sum = 0;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	if (ix_check(buf, size, NULL, 0, &ix, &err) < 0) {
		if (!err.msg[0] || err.code <= 0)
			abort(); /* every failure has a message */
		free(buf);
		return 0;
	}
	for (size_t i = 0; i < ix.n[IX_SECS]; i++)
		sum += strlen(ix_str(&ix, ix.secs[i].name));
	for (size_t i = 0; i < ix.n[IX_SYMS]; i++)
		sum += strlen(ix_str(&ix, ix.syms[i].name));
	for (size_t i = 0; i < ix.n[IX_FNS]; i++)
		for (uint32_t k = 0; k < ix.fns[i].nseg; k++) {
			const struct ix_seg *g = &ix.segs[ix.fns[i].seg_first + k];

			for (uint16_t j = 0; j < g->n; j++) {
				const struct ix_frame *fr = &ix.frames[g->first + j];

				sum += strlen(ix_str(&ix, fr->name));
				if (ix_str(&ix, fr->call_file))
					sum += strlen(ix_str(&ix, fr->call_file));
			}
		}
	if (ixlookup_init(&ix, &lk) == 0) {
		for (size_t s = 0; s < ix.n[IX_SECS]; s++)
			for (size_t i = lk.first[s]; i < lk.first[s + 1]; i++) {
				struct ms_frame f = { 0 };

				if (ixlines_find(&ix, &lk, (uint16_t)s,
						 ix.line_offs[i], 0, SIZE_MAX,
						 &f) &&
				    f.file)
					sum += strlen(f.file);
			}
		ixlookup_free(&lk);
	}
	free(buf);
	*(volatile size_t *)&sum = sum; /* keep the reads */
	return 0;
}
