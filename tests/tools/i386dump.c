// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * i386dump: the i386 frame rules modsect makes from a kernel image's
 * code (lib/kernel/ki386.c, lib/unwind/x86.c), for tests/t-i386.sh.
 *
 *   i386dump IMAGE [NAME]...
 *
 * Prints "functions N bytes N lost N rows N user-end 0xN", then for each
 * NAME (a kallsyms symbol) its rows as "ROW +OFF KIND CFA saved", KIND
 * one of undef, end, frame, regs; CFA "ebp+N" or "esp+N" (frame, with
 * " signal" after a stack switch) or "regs@esp+N" (regs); saved as
 * "ebp@-N ebx@-N esi@-N edi@-N" for those saved. With I386DUMP_LOST
 * set, "LOST 0xADDR BYTES" for each row without a rule. Errors:
 * "i386dump: MESSAGE", exit 1; usage 2.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fncode.h"
#include "modsect.h"

static const char *const kinds[] = { "undef", "end", "frame", "regs" };
static const char *const saved[] = { "ebp", "ebx", "esi", "edi" };

static void show(const void *tab, uint64_t addr, uint64_t size)
{
	const struct ms_x86 *a = tab;

	for (size_t i = 0; i < a->n; i++) {
		const struct ms_x86_row *r = &a->r[i];

		if (r->ip < addr || r->ip >= addr + size)
			continue;
		printf("ROW +0x%" PRIx64 " %s", r->ip - addr, kinds[r->kind]);
		if (r->kind == MS_X86_FRAME)
			printf(" %s+%d%s", r->cfa_reg == 5 ? "ebp" : "esp",
			       r->cfa_off, r->signal ? " signal" : "");
		else if (r->kind == MS_X86_REGS)
			printf(" regs@esp+%d", r->cfa_off);
		for (int k = 0; k < 4; k++)
			if (r->saved[k])
				printf(" %s@%d", saved[k], r->saved[k]);
		printf("\n");
	}
}

int main(int argc, char **argv)
{
	struct ms_err err = { 0 };
	struct ms_kimage *k = NULL;
	const struct ms_ksymtab *t;
	struct ms_x86 *a = NULL;

	if (argc < 2) {
		fprintf(stderr, "usage: i386dump IMAGE [NAME]...\n");
		return 2;
	}
	if (ms_kimage_open(argv[1], &k, &err) ||
	    ms_kimage_ksymtab(k, &t, &err) ||
	    ms_kimage_x86(k, NULL, 0, &a, &err))
		goto fail;
	printf("functions %zu bytes %zu lost %zu rows %zu user-end 0x%" PRIx64
	       "\n",
	       a->nfuncs, a->ninsns, a->nlost, a->n, a->user_end);
	if (getenv("I386DUMP_LOST"))
		for (size_t i = 0; i < a->n; i++)
			if (a->r[i].kind == MS_X86_UNDEF)
				printf("LOST 0x%" PRIx64 " %" PRIu64 "\n",
				       a->r[i].ip, a->r[i].end - a->r[i].ip);
	fc_show_names(t, argv + 2, argc - 2, show, a);
	ms_x86_free(a);
	ms_kimage_free(k);
	return 0;
fail:
	fprintf(stderr, "i386dump: %s\n", err.msg);
	ms_x86_free(a);
	ms_kimage_free(k);
	return 1;
}
