// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * i386cfi: i386 frame rules (lib/unwind/x86.c) made from an object
 * file's code, for tests/t-i386.sh.
 *
 *   i386cfi OBJ [OUT]
 *
 * Decodes every function symbol (STT_FUNC, with its size) of OBJ's
 * .text (at its address): a function named entry_* is decoded as
 * entry code (pt_regs: i386's fixed layout), regs_* as entry code with
 * its pt_regs at esp, end_* as the end of the stack, undef_* as code not
 * to read, *.cold as a part of another function's body. Prints "NAME
 * +OFF KIND [CFA [signal] REG@AT...]" per row (as i386dump), then
 * "functions N bytes N lost N". With OUT, writes the rules as
 * .debug_frame in an ELF32 file of i386 (for readelf and gdb), with
 * user space below 0x1000 ending the walk. Errors: "i386cfi: MESSAGE",
 * exit 1; usage 2.
 */
#include <elf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fncode.h"
#include "modsect.h"

static const char *const kinds[] = { "undef", "end", "frame", "regs" };
static const char *const saved[] = { "ebp", "ebx", "esi", "edi" };

static unsigned int flags_of(const char *name)
{
	if (!strncmp(name, "entry_", 6))
		return MS_X86_FN_ENTRY;
	if (!strncmp(name, "regs_", 5))
		return MS_X86_FN_REGS;
	if (!strncmp(name, "end_", 4))
		return MS_X86_FN_END;
	if (!strncmp(name, "undef_", 6))
		return MS_X86_FN_UNDEF;
	if (strstr(name, ".cold"))
		return MS_X86_FN_COLD;
	return 0;
}

static void row(const struct ms_x86_row *r, const char *name, uint64_t at)
{
	printf("%s +0x%" PRIx64 " %s", name, r->ip - at, kinds[r->kind]);
	if (r->kind == MS_X86_FRAME)
		printf(" %s+%d%s", r->cfa_reg == 5 ? "ebp" : "esp", r->cfa_off,
		       r->signal ? " signal" : "");
	else if (r->kind == MS_X86_REGS)
		printf(" regs@esp+%d", r->cfa_off);
	for (int i = 0; i < 4; i++)
		if (r->saved[i])
			printf(" %s@%d", saved[i], r->saved[i]);
	printf("\n");
}

int main(int argc, char **argv)
{
	struct ms_x86_facts facts;
	struct ms_x86_fn fn[FC_MAX_FNS];
	struct ms_err err = { 0 };
	struct ms_x86 *a = NULL;
	static struct fc_obj o;
	void *cfi = NULL;
	size_t len = 0, f = 0;
	int r;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: i386cfi OBJ [OUT]\n");
		return 2;
	}
	if (fc_read("i386cfi", argv[1], &o))
		return 1;
	for (size_t i = 0; i < o.n; i++)
		fn[i] = (struct ms_x86_fn){ o.fn[i].addr, o.fn[i].size,
					    o.fn[i].code,
					    flags_of(o.fn[i].name) };
	ms_x86_default_facts(&facts);
	if (ms_x86_decode(fn, o.n, &facts, &a, &err))
		goto fail;
	for (size_t i = 0; i < a->n; i++) {
		const struct fc_fn *in = fc_fn_at(&o, &f, a->r[i].ip);

		row(&a->r[i], in->name, in->addr);
	}
	a->user_end = 0x1000;
	printf("functions %zu bytes %zu lost %zu\n", a->nfuncs, a->ninsns,
	       a->nlost);
	if (argc == 3) {
		if (ms_x86_to_debug_frame(a, 0, &cfi, &len, &err))
			goto fail;
		r = fc_write_cfi(EM_386, ELFCLASS32, cfi, len, argv[2], &err);
		if (r < 0)
			goto fail;
		if (r)
			return 1;
		free(cfi);
	}
	ms_x86_free(a);
	fc_close(&o);
	return 0;
fail:
	fprintf(stderr, "i386cfi: %s\n", err.msg);
	return 1;
}
