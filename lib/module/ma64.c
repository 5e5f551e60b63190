// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An arm64 module's frame rules (unwind/a64.c) from its own code, at the
 * addresses its sections have in the map: each function symbol of a
 * loaded executable section (st_size bytes, or up to the next symbol
 * where the assembler gave none: mfuncs.c). The file's bytes are
 * unrelocated; the relocations of code (R_AARCH64_CALL26, JUMP26, ADR_PREL_*) are in
 * calls, branches to other functions and address loads, none of which
 * moves sp or x29, so the frame at every instruction is the same.
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>

#include "modfile-int.h"

int ms_layout_a64(const struct ms_layout *l, struct ms_a64 **ret,
		  struct ms_err *err)
{
	struct ms_a64_facts facts = { 0 };
	struct ms_a64_fn *fn;
	struct mod_code c;
	int r = mod_code_read(l, EM_AARCH64, ELFCLASS64, "arm64", &c, err);

	if (r)
		return r;
	fn = calloc(c.n + 1, sizeof(*fn));
	if (!fn) {
		mod_code_free(&c);
		return ms_err_errno(err, ENOMEM, "arm64 unwind tables");
	}
	for (size_t i = 0; i < c.n; i++)
		fn[i] = (struct ms_a64_fn){ c.fns[i].addr, c.fns[i].size,
					    c.fns[i].code, 0 };
	r = ms_a64_decode(fn, c.n, &facts, ret, err);
	free(fn);
	mod_code_free(&c);
	return r;
}
