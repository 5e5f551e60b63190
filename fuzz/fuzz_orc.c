// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the ORC reader (lib/unwind/orc.c) and the CFI made
 * from what it accepts (lib/unwind/cfi.c), on hostile tables. The first
 * byte picks the format (1 + byte % 4); the rest is n 4-byte ip offsets
 * then n 6-byte entries (n = rest / 10), at a fixed kernel address, as
 * in an image or in memory. What is read must be sorted with one entry
 * per address, each ending after it starts; its CFI, read back with
 * libdw, must give a row with the entry's signal flag at every entry.
 */
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>

#include "modsect.h"

static void check_cfi(const struct ms_orc *orc)
{
	struct ms_err err = { 0 };
	char *buf;
	size_t len;
	Elf *elf;
	Dwarf *dw;
	Dwarf_CFI *cfi;

	if (ms_unwind_elf_bytes(orc, &buf, &len, &err))
		abort();
	elf = elf_memory(buf, len);
	dw = elf ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
	cfi = dw ? dwarf_getcfi(dw) : NULL;
	if (!cfi && orc->n)
		abort();
	for (size_t i = 0; cfi && i < orc->n; i++) {
		Dwarf_Frame *f;
		Dwarf_Addr start, end;
		bool sig;

		if (dwarf_cfi_addrframe(cfi, orc->e[i].ip, &f) ||
		    dwarf_frame_info(f, &start, &end, &sig) < 0 ||
		    start != orc->e[i].ip || sig != orc->e[i].signal)
			abort();
		free(f);
	}
	dwarf_end(dw);
	elf_end(elf);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ms_err err = { 0 };
	struct ms_orc *orc;
	size_t n;

	if (size < 1)
		return 0;
	n = (size - 1) / 10;
	elf_version(EV_CURRENT);
	if (ms_orc_from_tables(data + 1, 4 * n, 0xffffffff81000000,
			       data + 1 + 4 * n, 6 * n, 1 + data[0] % 4,
			       "fuzz", &orc, &err))
		return 0;
	if (orc->n > n || orc->nbad > n)
		abort();
	for (size_t i = 0; i < orc->n; i++)
		if (orc->e[i].end <= orc->e[i].ip ||
		    (i && orc->e[i].ip <= orc->e[i - 1].ip) ||
		    orc->e[i].type > MS_ORC_REGS_PARTIAL)
			abort();
	check_cfi(orc);
	ms_orc_free(orc);
	return 0;
}
