// SPDX-License-Identifier: GPL-2.0-or-later
/* Steps shared by the subcommands: set-up, messages, output. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

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

#ifndef MODSECT_STATIC
/* What the library tells that is no warning. */
static void say_note(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "modsect: note: %s\n", msg);
}
#endif

void warn_note(void *arg, const char *msg)
{
	(void)arg;
	warn("%s", msg);
}

#ifndef MODSECT_STATIC
void warn_index(int r, const struct ms_err *err)
{
	if (r < 0)
		warn("no index written (the next run reads the DWARF again): %s",
		     err->msg);
}
#endif

/* The static build (capture only) has no finder. */
#ifdef MODSECT_STATIC
#define ms_finder_debuginfod_error(fi) 0
#define ms_finder_new(ctx, release, ret, err) 0
#define ms_finder_free(fi) (void)(fi)
#endif

void run_finder_warn(struct run *run)
{
	int e = run->fi && !run->warned ?
			ms_finder_debuginfod_error(run->fi) :
			0;

	run->warned = true;
	if (e && e != -ENOENT)
		warn("debuginfod failed (%s); check DEBUGINFOD_URLS, or use --offline",
		     strerror(-e));
}

static int setup_ctx(const struct opts *o, struct ms_ctx **ret,
		     struct ms_err *err)
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

void warn_no_orc(const struct ms_map *map)
{
	/* Only x86-64 has ORC: elsewhere none is nothing to say. */
	if (map->why_no_orc && map->machine && !strcmp(map->machine, "x86_64"))
		warn("no unwind tables for the core kernel, so bt past the first frames is the debugger's guess: %s",
		     map->why_no_orc);
}

void warn_no_btf(const struct ms_map *map)
{
	if (map->why_no_btf && !map->core_btf)
		warn("no types for the core kernel, only its symbols: %s",
		     map->why_no_btf);
}

int read_map(const struct ms_ctx *ctx, const struct opts *o,
	     const char *only_module, unsigned int flags, struct ms_map **ret,
	     struct ms_err *err)
{
	struct ms_source src = {
		.capture = o->capture,
		.remote = o->remote,
		.vmcore = o->vmcore,
		.baud = o->baud,
		.timeout_ms = o->timeout_ms,
		.kernel_image = o->kernel_image,
		.module_at = o->module_at,
		.force = o->force,
		.mem_stats = getenv("MODSECT_MEM_STATS") != NULL,
#ifndef MODSECT_STATIC
		.find_layout = ms_layout_file_find,
		.find_arg = (void *)ctx,
		.note = say_note,
#endif
	};
	int r = ms_source_read(ctx, &src, only_module, flags, ret, err);

	for (size_t i = 0; !r && i < (*ret)->nvanished; i++)
		warn("module %s was unloaded while it was read; left out",
		     (*ret)->vanished[i]);
	return r;
}

/* The module the command's arguments name alone, as its entry says. */
static const char *only_module(const struct cmd *c, const struct opts *o)
{
	if (o->all || !o->nargs)
		return NULL;
	if (c->setup & RUN_ONE)
		return o->args[0];
	if ((c->setup & RUN_ONE_ONLY) && o->nargs == 1)
		return o->args[0];
	return NULL;
}

int run_setup(const struct cmd *c, struct run *run)
{
	const struct opts *o = run->o;
	bool core = (c->setup & RUN_CORE) || o->kallsyms || o->kernel ||
		    o->vmlinux;
	/* Unwind tables and types go with the core kernel's symbols. */
	bool orc = (c->setup & RUN_ORC) || (o->kernel && !o->vmlinux);
	int r = setup_ctx(o, &run->ctx, &run->err);

	if (!r && (c->setup & RUN_MAP))
		r = read_map(run->ctx, o, only_module(c, o),
			     (core ? MS_READ_CORE : 0) |
				     (orc ? MS_READ_ORC | MS_READ_BTF : 0) |
				     (o->btf ? MS_READ_BTF : 0),
			     &run->map, &run->err);
	if (!r && (c->setup & RUN_FINDER))
		r = ms_finder_new(run->ctx, run->map->release, &run->fi,
				  &run->err);
	return r;
}

void run_clear(struct run *run)
{
	ms_finder_free(run->fi);
	ms_map_free(run->map);
	ms_ctx_free(run->ctx);
}

unsigned int layout_flags(const struct opts *o)
{
	return (o->force ? MS_LAYOUT_FORCE : 0) |
	       (o->init ? MS_LAYOUT_INIT : 0);
}

int write_buf(const struct opts *o, struct ms_buf *b, struct ms_err *err)
{
	int r = ms_buf_close(b, err);

	return r ? r : ms_write_out(o->output, b->data, b->len, err);
}
