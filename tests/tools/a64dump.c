// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * a64dump: the arm64 frame rules modsect makes from a kernel image's
 * code (lib/kernel/ka64.c, lib/unwind/a64.c), for tests/t-a64.sh.
 *
 *   a64dump IMAGE [NAME]...
 *
 * Prints "functions N instructions N lost N rows N", then for each NAME
 * (a kallsyms symbol) its rows as "ROW +OFF KIND CFA fp=AT lr=AT", KIND
 * one of undef, end, frame, regs; CFA "x29+N", "sp+N" (frame) or
 * "regs@sp+N" (regs). Errors: "a64dump: MESSAGE", exit 1; usage 2.
 */
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fncode.h"
#include "modsect.h"

static const char *const kinds[] = { "undef", "end", "frame", "regs" };

static void show(const void *tab, uint64_t addr, uint64_t size)
{
	const struct ms_a64 *a = tab;

	for (size_t i = 0; i < a->n; i++) {
		const struct ms_a64_row *r = &a->r[i];

		if (r->ip < addr || r->ip >= addr + size)
			continue;
		printf("ROW +0x%" PRIx64 " %s", r->ip - addr, kinds[r->kind]);
		if (r->kind == MS_A64_FRAME)
			printf(" %s+%d fp=%d lr=%d",
			       r->cfa_reg == 29 ? "x29" : "sp", r->cfa_off,
			       r->fp_at, r->lr_at);
		else if (r->kind == MS_A64_REGS)
			printf(" regs@sp+%d", r->cfa_off);
		printf("\n");
	}
}

int main(int argc, char **argv)
{
	struct ms_err err = { 0 };
	struct ms_kimage *k = NULL;
	const struct ms_ksymtab *t;
	struct ms_a64 *a = NULL;
	struct btf *btf = NULL;
	const void *raw;
	size_t len = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: a64dump IMAGE [NAME]...\n");
		return 2;
	}
	if (ms_kimage_open(argv[1], &k, &err) || ms_kimage_ksymtab(k, &t, &err))
		goto fail;
	raw = ms_kimage_btf(k, &len);
	if (raw && len)
		btf = btf__new(raw, (uint32_t)len);
	if (btf && libbpf_get_error(btf))
		btf = NULL;
	if (ms_kimage_a64(k, btf, 0, &a, &err))
		goto fail;
	printf("functions %zu instructions %zu lost %zu rows %zu\n", a->nfuncs,
	       a->ninsns, a->nlost, a->n);
	if (getenv("A64DUMP_LOST"))
		for (size_t i = 0; i < a->n; i++)
			if (a->r[i].kind == MS_A64_UNDEF)
				printf("LOST 0x%" PRIx64 " %" PRIu64 "\n",
				       a->r[i].ip,
				       (a->r[i].end - a->r[i].ip) / 4);
	fc_show_names(t, argv + 2, argc - 2, show, a);
	ms_a64_free(a);
	btf__free(btf);
	ms_kimage_free(k);
	return 0;
fail:
	fprintf(stderr, "a64dump: %s\n", err.msg);
	btf__free(btf);
	ms_kimage_free(k);
	return 1;
}
