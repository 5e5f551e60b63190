// SPDX-License-Identifier: GPL-2.0-or-later
/* Steps shared by the subcommands: context, map, module file, output. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#ifndef MODSECT_STATIC
#endif

int report(const struct ms_err *err, int r)
{
	fprintf(stderr, "modsect: %s\n", err->msg[0] ? err->msg : strerror(-r));
	return ms_err_kind_of(err, r) == MS_E_NOTFOUND ? EXIT_NOTFOUND :
							  EXIT_REFUSED;
}

void warn(const char *fmt, ...)
{
	va_list ap;

	fputs("modsect: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int setup_ctx(const struct opts *o, struct ms_ctx **ret, struct ms_err *err)
{
	struct ms_ctx *ctx;
	int r = ms_ctx_new(&ctx, err);

	if (r)
		return r;
	if (o->root)
		r = ms_ctx_set_root(ctx, o->root, err);
	if (!r && o->moddir)
		r = ms_ctx_set_moddir(ctx, o->moddir, err);
	if (!r && o->cache)
		r = ms_ctx_set_cache_dir(ctx, o->cache, err);
	for (size_t i = 0; !r && i < o->nsearch; i++)
		r = ms_ctx_add_search(ctx, o->search[i], err);
	for (size_t i = 0; !r && i < o->ndebug_dirs; i++)
		r = ms_ctx_add_debug_dir(ctx, o->debug_dirs[i], err);
	ms_ctx_set_offline(ctx, o->offline);
	if (r) {
		ms_ctx_free(ctx);
		return r;
	}
	*ret = ctx;
	return 0;
}

#ifndef MODSECT_STATIC
/* --remote, --vmcore: the map from the kernel's memory. */
static int read_memory(const struct opts *o, const char *only_module,
		       unsigned int flags, struct ms_map **ret,
		       struct ms_err *err)
{
	struct ms_remote_opts ro = { o->baud, o->timeout_ms };
	struct ms_mem_src src = { 0 };
	int r;

	if (o->remote)
		r = ms_remote_open(o->remote, &ro, &src.mem, err);
	else
		r = ms_vmcore_open(o->vmcore, &src.mem, err);
	if (r)
		return r;
	src.kernel_image = o->kernel_image;
	src.force = o->force;
	src.module_at = o->module_at;
	r = ms_map_read_memory(&src, only_module, flags, ret, err);
	if (getenv("MODSECT_MEM_STATS"))
		fprintf(stderr, "modsect: %s: %llu requests, %llu bytes\n",
			src.mem->origin,
			(unsigned long long)src.mem->nrequests,
			(unsigned long long)src.mem->nbytes);
	ms_mem_free(src.mem);
	return r;
}
#endif

int load_map(const struct ms_ctx *ctx, const struct opts *o,
	     const char *only_module, struct ms_map **ret, struct ms_err *err)
{
	unsigned int flags = o->kallsyms || o->core ? MS_READ_CORE : 0;
	struct ms_map *map;
	int r;

#ifndef MODSECT_STATIC
	if (o->remote || o->vmcore)
		r = read_memory(o, only_module, flags, &map, err);
	else
#endif
	if (o->capture)
		r = ms_map_read_capture(o->capture, &map, err);
	else
		r = ms_map_read_live(ctx, only_module, flags, &map, err);
	if (r)
		return r;
	for (size_t i = 0; i < map->nvanished; i++)
		warn("module %s was unloaded while it was read; left out",
		     map->vanished[i]);
	r = ms_map_check_visible(map, err);
	if (!r && only_module && !ms_map_find(map, only_module))
		r = ms_err_set(err, ENOENT, "module %s is not in %s",
			       only_module, map->origin);
	if (r) {
		ms_map_free(map);
		return r;
	}
	*ret = map;
	return 0;
}

int write_buf(const struct opts *o, struct ms_buf *b, struct ms_err *err)
{
	int r = ms_buf_close(b, err);

	return r ? r : ms_write_out(o->output, b->data, b->len, err);
}
