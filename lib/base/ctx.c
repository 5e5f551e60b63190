// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"

struct ms_ctx {
	char *root; /* "" for the real system, never ends in '/' */
	char *moddir; /* NULL: /lib/modules/<release> under root */
	char **search;
	size_t nsearch;
	char *cache_dir; /* NULL: $XDG_CACHE_HOME/modsect or ~/.cache/modsect */
	char **debug_dirs;
	size_t ndebug_dirs;
	bool offline; /* never ask debuginfod */
};

int ms_ctx_new(struct ms_ctx **ret, struct ms_err *err)
{
	struct ms_ctx *ctx = calloc(1, sizeof(*ctx));

	if (!ctx || !(ctx->root = strdup(""))) {
		free(ctx);
		return ms_err_errno(err, ENOMEM, "context");
	}
	*ret = ctx;
	return 0;
}

void ms_ctx_free(struct ms_ctx *ctx)
{
	if (!ctx)
		return;
	free(ctx->root);
	free(ctx->moddir);
	for (size_t i = 0; i < ctx->nsearch; i++)
		free(ctx->search[i]);
	free(ctx->search);
	for (size_t i = 0; i < ctx->ndebug_dirs; i++)
		free(ctx->debug_dirs[i]);
	free(ctx->debug_dirs);
	free(ctx->cache_dir);
	free(ctx);
}

static int set_str(char **slot, const char *val, struct ms_err *err)
{
	char *s = strdup(val);

	if (!s)
		return ms_err_errno(err, ENOMEM, "context");
	free(*slot);
	*slot = s;
	return 0;
}

int ms_ctx_set_root(struct ms_ctx *ctx, const char *root, struct ms_err *err)
{
	int r = set_str(&ctx->root, root, err);
	size_t n;

	if (r)
		return r;
	/* "/" and "" both mean the real system; strip trailing slashes. */
	n = strlen(ctx->root);
	while (n > 0 && ctx->root[n - 1] == '/')
		ctx->root[--n] = '\0';
	return 0;
}

int ms_ctx_set_moddir(struct ms_ctx *ctx, const char *dir, struct ms_err *err)
{
	return set_str(&ctx->moddir, dir, err);
}

static int add_str(char ***list, size_t *n, const char *val, struct ms_err *err)
{
	char **nl = realloc(*list, (*n + 1) * sizeof(*nl));

	if (!nl)
		return ms_err_errno(err, ENOMEM, "context");
	*list = nl;
	if (!(nl[*n] = strdup(val)))
		return ms_err_errno(err, ENOMEM, "context");
	(*n)++;
	return 0;
}

int ms_ctx_add_search(struct ms_ctx *ctx, const char *dir, struct ms_err *err)
{
	return add_str(&ctx->search, &ctx->nsearch, dir, err);
}

int ms_ctx_add_debug_dir(struct ms_ctx *ctx, const char *dir,
			 struct ms_err *err)
{
	return add_str(&ctx->debug_dirs, &ctx->ndebug_dirs, dir, err);
}

void ms_ctx_set_offline(struct ms_ctx *ctx, bool offline)
{
	ctx->offline = offline;
}

bool ms_ctx_offline(const struct ms_ctx *ctx)
{
	return ctx->offline;
}

size_t ms_ctx_debug_dir_count(const struct ms_ctx *ctx)
{
	return ctx->ndebug_dirs;
}

const char *ms_ctx_debug_dir(const struct ms_ctx *ctx, size_t i)
{
	return i < ctx->ndebug_dirs ? ctx->debug_dirs[i] : NULL;
}

int ms_ctx_set_cache_dir(struct ms_ctx *ctx, const char *dir,
			 struct ms_err *err)
{
	return set_str(&ctx->cache_dir, dir, err);
}

const char *ms_ctx_root(const struct ms_ctx *ctx)
{
	return ctx->root;
}

const char *ms_ctx_moddir(const struct ms_ctx *ctx)
{
	return ctx->moddir;
}

size_t ms_ctx_search_count(const struct ms_ctx *ctx)
{
	return ctx->nsearch;
}

const char *ms_ctx_search(const struct ms_ctx *ctx, size_t i)
{
	return i < ctx->nsearch ? ctx->search[i] : NULL;
}

const char *ms_ctx_cache_dir(const struct ms_ctx *ctx)
{
	return ctx->cache_dir;
}
