// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the arm64 decoder (lib/unwind/a64.c) and the CFI made
 * from its rows (lib/unwind/a64cfi.c), on hostile code, as memory gives
 * it. The first byte splits the rest into up to 8 functions (each byte
 * of a small header: a size in words and flags); their code follows.
 * Every instruction must be in exactly one row, rows sorted and back to
 * back within a function; their CFI, read back with libdw, must give a
 * row at every row's start.
 */
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>

#include "modsect.h"

#define BASE 0xffff800008000000ull

static void check_cfi(const struct ms_a64 *a)
{
	struct ms_err err = { 0 };
	void *cfi = NULL;
	char *buf;
	size_t len, blen;
	Elf *elf;
	Dwarf *dw;
	Dwarf_CFI *c;

	if (ms_a64_to_debug_frame(a, 0, &cfi, &len, &err) ||
	    ms_cfi_elf_bytes(cfi, len, &buf, &blen, &err))
		abort();
	elf = elf_memory(buf, blen);
	dw = elf ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
	c = dw ? dwarf_getcfi(dw) : NULL;
	if (!c && a->n)
		abort();
	for (size_t i = 0; c && i < a->n; i++) {
		Dwarf_Frame *f;

		if (dwarf_cfi_addrframe(c, a->r[i].ip, &f))
			abort();
		free(f);
	}
	dwarf_end(dw);
	elf_end(elf);
	free(buf);
	free(cfi);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ms_a64_facts facts = { true, 248, 256, 304 };
	struct ms_a64_fn fn[8];
	struct ms_err err = { 0 };
	struct ms_a64 *a;
	size_t nf, off, words, total = 0;
	uint64_t addr = BASE;

	if (size < 1)
		return 0;
	nf = 1 + data[0] % 8;
	if (size < 1 + nf)
		return 0;
	off = 1 + nf;
	for (size_t i = 0; i < nf; i++) {
		words = (size_t)(data[1 + i] & 0x1f) + 1;
		if (off + 4 * words > size)
			words = (size - off) / 4;
		fn[i] = (struct ms_a64_fn){ addr, 4 * words, data + off,
					    (data[1 + i] >> 5) & 0xf };
		addr += 4 * words + 4 * (data[1 + i] >> 7);
		off += 4 * words;
		total += words;
	}
	elf_version(EV_CURRENT);
	if (ms_a64_decode(fn, nf, &facts, &a, &err))
		return 0;
	if (a->ninsns != total)
		abort();
	for (size_t i = 0; i < a->n; i++)
		if (a->r[i].end <= a->r[i].ip ||
		    (i && a->r[i].ip < a->r[i - 1].end) ||
		    a->r[i].kind > MS_A64_REGS)
			abort();
	check_cfi(a);
	ms_a64_free(a);
	return 0;
}
