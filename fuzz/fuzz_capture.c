// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the capture reader (format 1, the sh loop, grep -r and
 * /proc/kallsyms lines). A map that parses must be written by
 * ms_capture_write in a form that parses again to the same map.
 */
#include <stdlib.h>
#include <string.h>

#include "modsect.h"

static void same_map(const struct ms_map *a, const struct ms_map *b)
{
	if (a->nmodules != b->nmodules || a->ncore != b->ncore)
		abort();
	for (size_t i = 0; i < a->nmodules; i++) {
		const struct ms_module *x = &a->modules[i], *y = &b->modules[i];

		if (strcmp(x->name, y->name) || x->nsections != y->nsections ||
		    x->nksyms != y->nksyms)
			abort();
		for (size_t j = 0; j < x->nsections; j++)
			if (strcmp(x->sections[j].name, y->sections[j].name) ||
			    x->sections[j].addr != y->sections[j].addr)
				abort();
	}
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct ms_map *map = NULL, *again = NULL;
	struct ms_err err = { 0 };
	struct ms_buf b;

	if (ms_map_parse_capture((const char *)data, size, "fuzz", &map,
				 &err) < 0) {
		if (!err.msg[0] || err.code <= 0)
			abort(); /* every failure has a message */
		return 0;
	}
	(void)ms_map_check_visible(map, &err);
	for (size_t i = 0; i < map->nmodules; i++) {
		const struct ms_module *m = &map->modules[i];

		if (ms_map_find(map, m->name) == NULL)
			abort();
		for (size_t j = 0; j < m->nsections; j++) {
			(void)ms_check_name("section", m->sections[j].name,
					    &err);
			(void)ms_section_is_init(0, m->sections[j].name);
		}
	}
	if (ms_buf_open(&b, &err) == 0) {
		if (ms_capture_write(b.f, map, &err) == 0 &&
		    ms_buf_close(&b, &err) == 0) {
			if (ms_map_parse_capture(b.data, b.len, "again",
						 &again, &err) < 0) {
				fprintf(stderr,
					"written capture does not read back: %s\n",
					err.msg);
				abort();
			}
			same_map(map, again);
			ms_map_free(again);
		}
		ms_buf_free(&b);
	}
	ms_map_free(map);
	return 0;
}
