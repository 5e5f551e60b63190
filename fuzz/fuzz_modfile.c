// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the module-file reader. The input is written to a
 * memfd and opened by path (/proc/self/fd/N) with ms_modfile_open, so it
 * goes through ms_read_file, ms_decompress (gzip, xz, zstd wrappers),
 * libelf, the build-id note and .modinfo. A file that opens is then laid
 * out (ms_map_add_placed), checked against its own map (ms_layout_build),
 * its symbols walked, and gdb and lldb commands emitted to memory.
 * Decompressed copies go to a temp cache dir and are removed after each
 * input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "modsect.h"

static struct ms_ctx *ctx;
static int fd = -1;
static char path[64];

static int count_sym(const char *name, uint64_t value, void *arg)
{
	(void)name;
	(void)value;
	++*(size_t *)arg;
	return 0;
}

static void init(void)
{
	struct ms_err err = { 0 };
	char dir[] = "/tmp/modsect-fuzz-cache.XXXXXX";

	if (ms_ctx_new(&ctx, &err) < 0 || !mkdtemp(dir) ||
	    ms_ctx_set_cache_dir(ctx, dir, &err) < 0)
		abort();
	fd = memfd_create("modfile-fuzz", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
}

static void use(struct ms_modfile *f)
{
	struct ms_map *map = calloc(1, sizeof(*map));
	struct ms_err err = { 0 };
	size_t nsym = 0;
	uint64_t v;

	(void)ms_modfile_build_id(f);
	(void)ms_modfile_srcversion(f);
	(void)ms_modfile_modname(f);
	(void)ms_modfile_has_dwarf(f);
	(void)ms_modfile_elfclass(f);
	for (size_t i = 0; i < ms_modfile_section_count(f); i++) {
		const struct ms_filesec *s = ms_modfile_section(f, i);

		if (!s || !s->name ||
		    ms_modfile_section_by_name(f, s->name) == NULL)
			abort();
		(void)ms_modfile_foreach_symbol(f, s->name, count_sym, &nsym);
	}
	(void)ms_modfile_symbol_in(f, ".data..percpu", "x", &v);
	if (!map || !(map->origin = strdup("fuzz")))
		abort();
	if (ms_map_add_placed(map, "fuzzmod", f, 0xffffffffc0000000ull,
			      &err) == 0 &&
	    ms_map_finish(map, &err) == 0 && map->nmodules == 1) {
		struct ms_layout *l;

		if (ms_layout_build(&map->modules[0], f, MS_LAYOUT_FORCE, &l,
				    &err) == 0) {
			struct ms_buf b;

			if (ms_buf_open(&b, &err) == 0) {
				(void)ms_emit_gdb(b.f, l, &err);
				(void)ms_emit_lldb(b.f, l, &err);
				(void)ms_buf_close(&b, &err);
				ms_buf_free(&b);
			}
			ms_layout_free(l);
		}
	}
	ms_map_free(map);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct ms_err err = { 0 };
	struct ms_modfile *f;

	if (!ctx)
		init();
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	if (ms_modfile_open(ctx, path, &f, &err) < 0) {
		if (!err.msg[0])
			abort();
		return 0;
	}
	use(f);
	if (ms_modfile_compression(f))
		unlink(ms_modfile_debugger_path(f));
	ms_modfile_free(f);
	return 0;
}
