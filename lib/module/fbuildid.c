// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A module's file by its build-id: the files the finder knows by name,
 * the build-id trees of --debug-dir and /usr/lib/debug, then debuginfod
 * (libdebuginfod, opened when first needed).
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/dlib.h"
#include "finder-int.h"

/*
 * libdebuginfod is opened when first asked, as libdw opens it
 * (libdwfl/debuginfod-client.c): linked, it brought libcurl and two dozen
 * libraries into the start-up of every run, a tenth of resolving 20,000
 * addresses from an index. With no DEBUGINFOD_URLS it would answer
 * -ENOSYS; so does this, without loading it.
 */
static int open_debuginfod(struct ms_finder *fi)
{
	const struct ms_dlsym syms[] = {
		MS_DLSYM(&fi->df, debuginfod_begin),
		MS_DLSYM(&fi->df, debuginfod_find_debuginfo),
		MS_DLSYM(&fi->df, debuginfod_end),
	};
	const char *urls = getenv("DEBUGINFOD_URLS");
	struct ms_err lerr;
	int r;

	if (fi->dclient)
		return 0;
	if (!urls || !*urls)
		return -ENOSYS;
	/*
	 * Asked for, but not installed: -ELIBACC says so (warn_debuginfod
	 * prints strerror, so the message has no reader).
	 */
	if (!fi->dlib) {
		r = ms_dlib_open("libdebuginfod.so.1", "libdebuginfod1", syms,
				 sizeof(syms) / sizeof(syms[0]), &fi->dlib,
				 &lerr);
		if (r)
			return r;
	}
	fi->dclient = fi->df.debuginfod_begin();
	return fi->dclient ? 0 : -ENOMEM;
}

/* The error of a debuginfod request, into err; returns r. */
static int said(const unsigned char *id, size_t len, int r, struct ms_err *err)
{
	char hex[2 * 64 + 1];

	ms_hex_encode(id, len < 64 ? len : 64, hex);
	if (r == -ENOSYS)
		return ms_err_set(err, ENOSYS, "debuginfod: no DEBUGINFOD_URLS");
	if (r == -ENOENT)
		return ms_err_set(err, ENOENT,
				  "debuginfod: build-id %s is not on the servers",
				  hex);
	return ms_err_errno(err, -r, "debuginfod: build-id %s", hex);
}

int ms_finder_debuginfod(struct ms_finder *fi, const unsigned char *id,
			 size_t len, char **path_ret, struct ms_err *err)
{
	int fd;

	if (fi->dfailed)
		return said(id, len, fi->dfailed, err);
	fd = open_debuginfod(fi);
	if (fd == -ENOSYS || fd == -ELIBACC || fd == -ELIBBAD)
		fi->dfailed = fd;
	if (fd)
		return said(id, len, fd, err);
	/* Honours DEBUGINFOD_URLS, _CACHE_PATH and _TIMEOUT. */
	fd = fi->df.debuginfod_find_debuginfo(fi->dclient, id, (int)len,
					      path_ret);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	/* Not found is an answer; anything else means the servers are out of reach. */
	if (fd != -ENOENT)
		fi->dfailed = fd;
	return said(id, len, fd, err);
}

/*
 * Where a file of a given build-id lies besides the module files: a debug
 * directory's build-id tree, DIR/.build-id/xx/rest.debug (gdb's layout,
 * which Debian's -dbg packages install and ms_debuginfo_find reads too).
 */
static int open_in_build_id_dirs(struct ms_finder *fi, const char *bid,
				 struct ms_modfile **ret)
{
	size_t n = ms_ctx_debug_dir_count(fi->ctx);

	for (size_t i = 0; i <= n; i++) {
		struct ms_err ferr = { 0 };
		struct stat st;
		char *path;
		int r;

		if (i < n)
			r = asprintf(&path, "%s/.build-id/%.2s/%s.debug",
				     ms_ctx_debug_dir(fi->ctx, i), bid, bid + 2);
		else
			r = asprintf(&path, "%s/usr/lib/debug/.build-id/%.2s/%s.debug",
				     ms_ctx_root(fi->ctx), bid, bid + 2);
		if (r < 0)
			return -ENOMEM;
		r = stat(path, &st) == 0 && S_ISREG(st.st_mode) ?
			    ms_finder_open_file(fi, path, ret, &ferr) :
			    -ENOENT;
		free(path);
		if (r == -ENOMEM)
			return r;
		if (r == 0 && ms_modfile_build_id(*ret) &&
		    strcmp(ms_modfile_build_id(*ret), bid) == 0)
			return 0;
		if (r == 0)
			ms_modfile_free(*ret);
	}
	return -ENOENT;
}

static int open_from_debuginfod(struct ms_finder *fi, const char *bid,
				struct ms_modfile **ret)
{
	unsigned char id[64];
	size_t len = strlen(bid) / 2;
	struct ms_err ferr = { 0 };
	char *path = NULL;
	int r;

	if (ms_ctx_offline(fi->ctx) || len > sizeof(id) ||
	    ms_hex_decode(bid, 2 * len, id))
		return -ENOENT;
	r = ms_finder_debuginfod(fi, id, len, &path, &ferr);
	if (r < 0)
		return r == -ENOMEM ? r : -ENOENT;
	r = ms_finder_open_file(fi, path, ret, &ferr);
	free(path);
	if (r == 0 && (!ms_modfile_build_id(*ret) ||
		       strcmp(ms_modfile_build_id(*ret), bid))) {
		ms_modfile_free(*ret);
		r = -ENOENT;
	}
	return r == -ENOMEM ? r : r ? -ENOENT : 0;
}

/* Makes path a candidate of modname for ms_finder_open from now on. */
static int remember(struct ms_finder *fi, const char *modname,
		    const char *path, struct ms_err *err)
{
	char *name = normalized(modname);
	int r = index_search(fi, err);

	if (r) {
		free(name);
		return r;
	}
	/* After the --search trees, which keep their precedence. */
	if (!name || add_entry(fi, name, path) < 0) {
		free(name);
		return ms_err_errno(err, ENOMEM, "finder");
	}
	return 0;
}

static bool hex_id(const char *s)
{
	size_t n = strlen(s);

	return n >= 2 && n % 2 == 0 && n <= 128 &&
	       strspn(s, "0123456789abcdef") == n;
}

int ms_finder_open_build_id(struct ms_finder *fi, const char *modname,
			    const char *build_id, struct ms_modfile **ret,
			    struct ms_err *err)
{
	struct ms_modfile *f = NULL, *other = NULL;
	struct ms_err ferr = { 0 };
	int r;

	if (!hex_id(build_id))
		return ms_err_set(err, EINVAL,
				  "module %s: build-id %s is not lower-case hex",
				  MS_ESC(modname), MS_ESC(build_id));
	r = ms_finder_open(fi, modname, build_id, &f, &ferr);
	if (r == 0 && ms_modfile_build_id(f) &&
	    strcmp(ms_modfile_build_id(f), build_id) == 0) {
		*ret = f;
		return 0;
	}
	/* Kept for the message: the file that the name alone would give. */
	other = r == 0 ? f : NULL;
	r = open_in_build_id_dirs(fi, build_id, &f);
	if (r == -ENOENT)
		r = open_from_debuginfod(fi, build_id, &f);
	if (r == 0) {
		r = remember(fi, modname, ms_modfile_path(f), err);
		if (r)
			ms_modfile_free(f);
		else
			*ret = f;
	} else if (r == -ENOMEM) {
		r = ms_err_errno(err, ENOMEM, "finder");
	} else if (other) {
		r = ms_err_set(err, EBADMSG,
			       "module %s: no file has build-id %s (%s has %s)",
			       modname, build_id, ms_modfile_path(other),
			       ms_modfile_build_id(other) ?
				       ms_modfile_build_id(other) :
				       "none");
	} else {
		r = ms_err_set(err, ENOENT,
			       "module %s: no file with build-id %s", modname,
			       build_id);
	}
	ms_modfile_free(other);
	return r;
}
