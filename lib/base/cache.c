// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A content-addressed cache for files a debugger must read from disk
 * (decompressed modules): $XDG_CACHE_HOME/modsect/<sha256><suffix>.
 */
#include <errno.h>
#include <fcntl.h>
#include <sha2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"

static int cache_dir(const struct ms_ctx *ctx, char **ret, struct ms_err *err)
{
	const char *dir = ms_ctx_cache_dir(ctx), *base;
	int n;

	if (dir)
		n = asprintf(ret, "%s", dir);
	else if ((base = getenv("XDG_CACHE_HOME")) && base[0] == '/')
		n = asprintf(ret, "%s/modsect", base);
	else if ((base = getenv("HOME")) && base[0] == '/')
		n = asprintf(ret, "%s/.cache/modsect", base);
	else
		return ms_err_set(
			err, ENOENT,
			"no cache directory for decompressed modules: set XDG_CACHE_HOME or HOME");
	return n < 0 ? ms_err_errno(err, ENOMEM, "cache") : 0;
}

static int mkdir_p(char *path)
{
	if (!*path)
		return -ENOENT;
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST) {
			*p = '/';
			return -errno;
		}
		*p = '/';
	}
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/* An existing entry is used only if it has the same bytes. */
static bool same_content(const char *path, const void *buf, size_t len)
{
	struct ms_err err;
	size_t n;
	char *old;
	bool same;

	if (ms_read_file(path, len + 1, &old, &n, &err) < 0)
		return false;
	same = n == len && memcmp(old, buf, len) == 0;
	free(old);
	return same;
}

int ms_cache_store(const struct ms_ctx *ctx, const void *buf, size_t len,
		   const char *suffix, char **path_ret, struct ms_err *err)
{
	char hex[SHA256_DIGEST_STRING_LENGTH];
	char *dir = NULL, *path = NULL;
	int r;

	SHA256Data(buf, len, hex);
	r = cache_dir(ctx, &dir, err);
	if (r)
		return r;
	if (asprintf(&path, "%s/%s%s", dir, hex, suffix) < 0) {
		free(dir);
		return ms_err_errno(err, ENOMEM, "cache");
	}
	if (!same_content(path, buf, len)) {
		r = mkdir_p(dir);
		if (r)
			ms_err_errno(err, -r,
				     "cannot create cache directory %s", dir);
		else
			r = ms_write_out(path, buf, len, err);
	}
	free(dir);
	if (r) {
		free(path);
		return r;
	}
	*path_ret = path;
	return 0;
}

int ms_cache_subdir(const struct ms_ctx *ctx, const char *name, char **ret,
		    struct ms_err *err)
{
	char *dir = NULL;
	int r = cache_dir(ctx, &dir, err);

	if (r)
		return r;
	if (asprintf(ret, "%s/%s", dir, name) < 0) {
		free(dir);
		return ms_err_errno(err, ENOMEM, "cache");
	}
	free(dir);
	r = mkdir_p(*ret);
	if (r) {
		ms_err_errno(err, -r, "cannot create cache directory %s", *ret);
		free(*ret);
		*ret = NULL;
	}
	return r;
}
