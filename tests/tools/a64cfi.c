// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * a64cfi: arm64 frame rules (lib/unwind/a64.c) made from an object
 * file's code, for tests/t-a64.sh.
 *
 *   a64cfi OBJ [OUT]
 *
 * Decodes every function symbol (STT_FUNC, with its size) of OBJ's
 * .text (at its address; tests/t-a64.sh links it at 0): a function named entry_* is decoded as
 * an exception entry (pt_regs: sp at 248, pc at 256, stackframe at 304,
 * arm64's), end_* as the end of the stack, undef_* as code not to read.
 * Prints "NAME +OFF KIND [CFA fp=AT lr=AT x19=AT...]" per row (as
 * a64dump), then "functions N instructions N lost N". With OUT, writes
 * the rules as .debug_frame in an ELF file of AArch64 (for readelf and
 * gdb). Errors: "a64cfi: MESSAGE", exit 1; usage 2.
 */
#include <elf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fncode.h"
#include "modsect.h"

static const char *const kinds[] = { "undef", "end", "frame", "regs" };

static unsigned int flags_of(const char *name)
{
	if (!strncmp(name, "entry_", 6))
		return MS_A64_FN_ENTRY;
	if (!strncmp(name, "end_", 4))
		return MS_A64_FN_END;
	if (!strncmp(name, "undef_", 6))
		return MS_A64_FN_UNDEF;
	return 0;
}

static void row(const struct ms_a64_row *r, const char *name, uint64_t at)
{
	printf("%s +0x%" PRIx64 " %s", name, r->ip - at, kinds[r->kind]);
	if (r->kind == MS_A64_FRAME) {
		printf(" %s+%d fp=%d lr=%d", r->cfa_reg == 29 ? "x29" : "sp",
		       r->cfa_off, r->fp_at, r->lr_at);
		for (int i = 0; i < 10; i++)
			if (r->saved[i])
				printf(" x%d=%d", 19 + i, r->saved[i]);
	} else if (r->kind == MS_A64_REGS) {
		printf(" regs@sp+%d", r->cfa_off);
	}
	printf("\n");
}

int main(int argc, char **argv)
{
	struct ms_a64_facts facts = { true, 248, 256, 304 };
	struct ms_a64_fn fn[FC_MAX_FNS];
	struct ms_err err = { 0 };
	struct ms_a64 *a = NULL;
	static struct fc_obj o;
	void *cfi = NULL;
	size_t len = 0, f = 0;
	int r;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: a64cfi OBJ [OUT]\n");
		return 2;
	}
	if (fc_read("a64cfi", argv[1], &o))
		return 1;
	for (size_t i = 0; i < o.n; i++)
		fn[i] = (struct ms_a64_fn){ o.fn[i].addr, o.fn[i].size,
					    o.fn[i].code,
					    flags_of(o.fn[i].name) };
	if (ms_a64_decode(fn, o.n, &facts, &a, &err))
		goto fail;
	for (size_t i = 0; i < a->n; i++) {
		const struct fc_fn *in = fc_fn_at(&o, &f, a->r[i].ip);

		row(&a->r[i], in->name, in->addr);
	}
	printf("functions %zu instructions %zu lost %zu\n", a->nfuncs,
	       a->ninsns, a->nlost);
	if (argc == 3) {
		if (ms_a64_to_debug_frame(a, 0, &cfi, &len, &err))
			goto fail;
		r = fc_write_cfi(EM_AARCH64, ELFCLASS64, cfi, len, argv[2],
				 &err);
		if (r < 0)
			goto fail;
		if (r)
			return 1;
		free(cfi);
	}
	ms_a64_free(a);
	fc_close(&o);
	return 0;
fail:
	fprintf(stderr, "a64cfi: %s\n", err.msg);
	return 1;
}
