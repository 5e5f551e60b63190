// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the module walk over kernel memory (lib/kernel/kmem.c via
 * kern_fill_map). The input is the fake kernel's arena, mapped at FK_BASE
 * where `modules` is (tests/tools/fakekern.h), walked with the 6.1 BTF
 * and with the 6.14 one; init_uts_ns is fixed. Seeds: the arenas of
 * `kmemwalk --dump-seed FILE good` and `layout614` (fuzz/seeds.sh).
 *
 * Every failure has a message; a map that is read must be written by
 * ms_capture_write in a form that reads back with the same modules.
 */
#include <stdlib.h>
#include <string.h>

#include "../tests/tools/fakekern.h"

static struct btf *btfs[2];
static unsigned char uts[FK_UTS_SIZE];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	btfs[0] = fk_btf(&fk_layout_61);
	btfs[1] = fk_btf(&fk_layout_614);
	if (!btfs[0] || !btfs[1])
		abort();
	fk_uts_init(uts);
	return 0;
}

static void same_modules(const struct ms_map *a, const struct ms_map *b)
{
	if (a->nmodules != b->nmodules)
		abort();
	for (size_t i = 0; i < a->nmodules; i++) {
		const struct ms_module *x = &a->modules[i], *y = &b->modules[i];

		/* the capture reader takes my-mod and my_mod as one name */
		if (!ms_modname_eq(x->name, y->name) ||
		    x->nsections != y->nsections ||
		    x->nksyms != y->nksyms ||
		    !x->srcversion != !y->srcversion ||
		    (x->srcversion && strcmp(x->srcversion, y->srcversion)))
			abort();
	}
}

static void check_map(const struct ms_map *map)
{
	struct ms_map *again = NULL;
	struct ms_err err = { 0 };
	struct ms_buf b;

	for (size_t i = 0; i < map->nmodules; i++)
		if (!map->modules[i].nsections) /* sysfs lists none such */
			abort();
	/* The capture reader refuses a capture without modules. */
	if (!map->nmodules)
		return;
	if (ms_buf_open(&b, &err))
		return;
	if (!ms_capture_write(b.f, map, &err) && !ms_buf_close(&b, &err)) {
		if (ms_map_parse_capture(b.data, b.len, "again", &again,
					 &err) < 0) {
			fprintf(stderr,
				"a map read from memory does not read back from its capture: %s\n",
				err.msg);
			abort();
		}
		same_modules(map, again);
		ms_map_free(again);
	}
	ms_buf_free(&b);
}

static void walk(struct btf *btf, const struct fk_view *v)
{
	struct ms_map *map = calloc(1, sizeof(*map));
	struct ms_err err = { 0 };
	struct ms_mem *mem = NULL;
	struct kern k;
	int r;

	if (!map || fk_mem_open(v, &mem, &err)) {
		free(map);
		return;
	}
	fk_kern_init(&k, mem, btf);
	r = kern_fill_map(&k, NULL, 0, map, &err);
	if (r < 0 && (!err.msg[0] || err.code <= 0))
		abort(); /* every failure has a message */
	if (!r)
		check_map(map);
	fk_kern_clear(&k);
	ms_map_free(map);
	ms_mem_free(mem);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	/* Memory is mapped by pages: the input, then zeros to a page end. */
	size_t len = (size + FK_PAGE - 1) & ~(size_t)(FK_PAGE - 1);
	unsigned char *arena = calloc(1, len ? len : 1);
	struct fk_view v = { arena, len, uts };

	if (!arena)
		return 0;
	if (size)
		memcpy(arena, data, size);
	walk(btfs[0], &v);
	walk(btfs[1], &v);
	free(arena);
	return 0;
}
