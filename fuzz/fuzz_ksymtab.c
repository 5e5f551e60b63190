// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the kallsyms table finder (lib/kernel/ksymtab.c) on hostile
 * memory. The first byte picks the target (bit 0: 32-bit, bit 1: big
 * endian), the rest is the blob, at a fixed kernel address. A table that
 * is found must hold what the finder promises: at least 257 symbols,
 * sorted by address, names printable and non-empty, a type letter each,
 * and lookups that find the first symbol of a name.
 */
#include <stdlib.h>
#include <string.h>

#include "modsect.h"

static void check(const struct ms_ksymtab *t)
{
	if (t->nsyms < 257)
		abort();
	for (size_t i = 0; i < t->nsyms; i++) {
		const struct ms_ksym *s = &t->syms[i];
		uint64_t a;

		if (!s->name[0] ||
		    !strchr("AaBbCcDdGgIiRrSsTtuVvWw", s->type) ||
		    (i && s->addr < t->syms[i - 1].addr))
			abort();
		for (const char *c = s->name; *c; c++)
			if (*c <= 0x20 || *c >= 0x7f)
				abort();
		if (i % 64 == 0) {
			size_t j = 0;

			while (strcmp(t->syms[j].name, s->name))
				j++;
			if (ms_ksymtab_lookup(t, s->name, &a) ||
			    a != t->syms[j].addr)
				abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct ms_ksymtab *t = NULL;
	struct ms_err err = { 0 };
	int ptr, r;
	bool be;

	if (size < 1)
		return 0;
	ptr = data[0] & 1 ? 4 : 8;
	be = data[0] & 2;
	r = ms_ksymtab_find(data + 1, size - 1,
			    ptr == 8 ? 0xffffffff82000000u : 0xc2000000u, ptr,
			    be, &t, &err);
	if (r) {
		if (r > 0 || !err.msg[0] || err.code <= 0 || t)
			abort(); /* every failure has a message */
		return 0;
	}
	check(t);
	ms_ksymtab_free(t);
	return 0;
}
