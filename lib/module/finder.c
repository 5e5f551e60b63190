// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where a module's file is: the module directory's modules.dep (through
 * libkmod, which treats '-' and '_' alike), then the --search trees,
 * matched by file name and indexed once per finder.
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

#define MAX_DEPTH 32

static void kmod_quiet(void *data, int priority, const char *file, int line,
		       const char *fn, const char *format, va_list args)
{
	(void)data, (void)priority, (void)file, (void)line, (void)fn;
	(void)format, (void)args;
}

int ms_finder_new(const struct ms_ctx *ctx, const char *release,
		  struct ms_finder **ret, struct ms_err *err)
{
	struct ms_finder *fi = calloc(1, sizeof(*fi));
	int n = 0;

	if (!fi)
		return ms_err_errno(err, ENOMEM, "finder");
	fi->ctx = ctx;
	if (ms_ctx_moddir(ctx))
		n = asprintf(&fi->moddir, "%s", ms_ctx_moddir(ctx));
	else if (release)
		n = asprintf(&fi->moddir, "%s/lib/modules/%s", ms_ctx_root(ctx),
			     release);
	if (n < 0) {
		free(fi);
		return ms_err_errno(err, ENOMEM, "finder");
	}
	*ret = fi;
	return 0;
}

void ms_finder_free(struct ms_finder *fi)
{
	if (!fi)
		return;
	for (size_t i = 0; i < fi->nentries; i++) {
		free(fi->entries[i].name);
		free(fi->entries[i].path);
	}
	free(fi->entries);
	for (size_t i = 0; i < fi->nfiles; i++) {
		free(fi->files[i].path);
		ms_modfile_free(fi->files[i].f);
	}
	free(fi->files);
	if (fi->kmod)
		fi->kf.kmod_unref(fi->kmod);
	if (fi->klib)
		dlclose(fi->klib);
	if (fi->dclient)
		fi->df.debuginfod_end(fi->dclient);
	if (fi->dlib)
		dlclose(fi->dlib);
	free(fi->moddir);
	free(fi);
}

const char *ms_finder_moddir(const struct ms_finder *fi)
{
	return fi->moddir;
}

int ms_finder_debuginfod_error(const struct ms_finder *fi)
{
	/* No DEBUGINFOD_URLS is no error. */
	return fi->dfailed == -ENOSYS ? 0 : fi->dfailed;
}

const struct ms_ctx *ms_finder_ctx(const struct ms_finder *fi)
{
	return fi->ctx;
}

/* "dm-mod.ko.xz" -> "dm_mod"; NULL if not a module file name. */
static char *module_name_of(const char *file)
{
	static const char *const exts[] = { ".ko", ".ko.gz", ".ko.xz",
					    ".ko.zst" };
	size_t len = strlen(file);

	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		size_t el = strlen(exts[i]);
		char *name;

		if (len <= el || strcmp(file + len - el, exts[i]))
			continue;
		name = strndup(file, len - el);
		for (char *c = name; c && *c; c++)
			if (*c == '-')
				*c = '_';
		return name;
	}
	return NULL;
}

int add_entry(struct ms_finder *fi, char *name, const char *path)
{
	if (ms_reserve(&fi->entries, &fi->cap, fi->nentries,
		       sizeof(*fi->entries), 64))
		return -ENOMEM;
	fi->entries[fi->nentries].name = name;
	if (!(fi->entries[fi->nentries].path = strdup(path)))
		return -ENOMEM;
	fi->nentries++;
	return 0;
}

static int walk(struct ms_finder *fi, const char *dir, int depth)
{
	struct dirent *de;
	DIR *d;
	int r = 0;

	if (depth > MAX_DEPTH || !(d = opendir(dir)))
		return 0; /* unreadable corners of a build tree are skipped */
	while (!r && (de = readdir(d))) {
		char *path, *name;
		struct stat st;

		if (de->d_name[0] == '.')
			continue; /* ., .., and kbuild's .tmp files */
		if (asprintf(&path, "%s/%s", dir, de->d_name) < 0)
			return closedir(d), -ENOMEM;
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			r = walk(fi, path, depth + 1);
		} else if ((name = module_name_of(de->d_name))) {
			r = add_entry(fi, name, path);
			if (r)
				free(name);
		}
		free(path);
	}
	closedir(d);
	return r;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->path, y->path);
}

int index_search(struct ms_finder *fi, struct ms_err *err)
{
	size_t n = ms_ctx_search_count(fi->ctx);

	if (fi->indexed)
		return 0;
	for (size_t i = 0; i < n; i++) {
		size_t first = fi->nentries;
		struct stat st;
		int r;

		if (stat(ms_ctx_search(fi->ctx, i), &st) < 0 ||
		    !S_ISDIR(st.st_mode))
			return ms_err_errno(err, ENOTDIR, "--search %s",
					    ms_ctx_search(fi->ctx, i));
		r = walk(fi, ms_ctx_search(fi->ctx, i), 0);
		if (r)
			return ms_err_errno(err, -r, "indexing %s",
					    ms_ctx_search(fi->ctx, i));
		/* Sort each tree on its own so tree order stays precedence. */
		if (fi->nentries > first)
			qsort(fi->entries + first, fi->nentries - first,
			      sizeof(*fi->entries), cmp_entry);
	}
	fi->indexed = true;
	return 0;
}

/*
 * libkmod is loaded, and its context made, on the first lookup by name:
 * it brings libcrypto, 4 ms of every start-up when linked, and most runs
 * (resolve, decode from an index) look no module up. Tried once; why
 * libkmod could not be loaded stays in kmod_err for the message of a
 * module not found.
 */
static void open_kmod(struct ms_finder *fi)
{
	static const char *const no_config[] = { NULL };
	const struct ms_dlsym syms[] = {
		MS_DLSYM(&fi->kf, kmod_new),
		MS_DLSYM(&fi->kf, kmod_set_log_fn),
		MS_DLSYM(&fi->kf, kmod_unref),
		MS_DLSYM(&fi->kf, kmod_module_new_from_name),
		MS_DLSYM(&fi->kf, kmod_module_get_path),
		MS_DLSYM(&fi->kf, kmod_module_unref),
	};

	char dep[PATH_MAX];

	if (fi->kmod_tried)
		return;
	fi->kmod_tried = true;
	/*
	 * libkmod finds a module's path in modules.dep.bin alone (libkmod.c
	 * kmod_search_moddep): without one, as for the host's release on a
	 * machine with no modules, there is nothing to load it for.
	 */
	if (snprintf(dep, sizeof(dep), "%s/modules.dep.bin", fi->moddir) >=
		    (int)sizeof(dep) ||
	    access(dep, F_OK) != 0)
		return;
	if (ms_dlib_open("libkmod.so.2", "libkmod2", syms,
			 sizeof(syms) / sizeof(syms[0]), &fi->klib,
			 &fi->kmod_err))
		return;
	/* Only modules.dep matters; host modprobe.d is irrelevant. */
	fi->kmod = fi->kf.kmod_new(fi->moddir, no_config);
	if (fi->kmod)
		fi->kf.kmod_set_log_fn(fi->kmod, kmod_quiet, NULL);
}

static char *kmod_path(struct ms_finder *fi, const char *modname)
{
	struct kmod_module *mod = NULL;
	const char *p;
	char *path = NULL;

	if (!fi->moddir)
		return NULL;
	open_kmod(fi);
	if (!fi->kmod ||
	    fi->kf.kmod_module_new_from_name(fi->kmod, modname, &mod) < 0)
		return NULL;
	p = fi->kf.kmod_module_get_path(mod);
	if (p)
		path = strdup(p);
	fi->kf.kmod_module_unref(mod);
	return path;
}

char *normalized(const char *s)
{
	char *n = strdup(s);

	for (char *c = n; c && *c; c++)
		if (*c == '-')
			*c = '_';
	return n;
}

/*
 * Files kept open at most: more modules than any kernel loads, and a
 * bound for a long `follow` session that meets many rebuilt ones.
 */
#define FILES_KEPT 1024

int ms_finder_open_file(struct ms_finder *fi, const char *path,
			struct ms_modfile **ret, struct ms_err *err)
{
	struct cached *c;
	struct stat st;
	int r;

	if (stat(path, &st) < 0)
		return ms_modfile_open(fi->ctx, path, ret, err); /* says why */
	for (size_t i = 0; i < fi->nfiles; i++)
		if (strcmp(fi->files[i].path, path) == 0 &&
		    ms_stat_same(&fi->files[i].id, &st)) {
			*ret = ms_modfile_ref(fi->files[i].f);
			return 0;
		}
	r = ms_modfile_open(fi->ctx, path, ret, err);
	if (r || fi->nfiles >= FILES_KEPT ||
	    ms_reserve(&fi->files, &fi->fcap, fi->nfiles, sizeof(*fi->files),
		       16))
		return r;
	c = &fi->files[fi->nfiles];
	if (!(c->path = strdup(path)))
		return 0; /* not kept, still the caller's */
	c->id = st;
	c->f = ms_modfile_ref(*ret);
	fi->nfiles++;
	return 0;
}

void ms_finder_prefer(struct ms_finder *fi, const char *machine)
{
	fi->arch = machine ? ms_arch_of_machine(machine) : NULL;
}

/* Whether f is of the machine preferred, or none is. */
static bool preferred(const struct ms_finder *fi, const struct ms_modfile *f)
{
	int em, cls, data;

	if (!fi->arch)
		return true;
	ms_modfile_machine(f, &em, &cls, &data);
	return em == fi->arch->em && cls == fi->arch->cls;
}

/*
 * Tries one candidate; keeps it in *best if it is the best so far: the
 * first of the build wanted (any, if none is) and the machine preferred
 * ends the search; another is kept only if there is none yet, so that
 * what the caller refuses it for is said.
 */
static int consider(struct ms_finder *fi, const char *path, const char *want,
		    struct ms_modfile **best, struct ms_err *err, bool *done)
{
	struct ms_modfile *f;
	const char *bid;
	int r = ms_finder_open_file(fi, path, &f, err);

	if (r)
		return r;
	bid = ms_modfile_build_id(f);
	if ((!want || (bid && strcmp(bid, want) == 0)) && preferred(fi, f)) {
		ms_modfile_free(*best);
		*best = f;
		*done = true;
	} else if (!*best) {
		*best = f;
	} else {
		ms_modfile_free(f);
	}
	return 0;
}

int ms_finder_open(struct ms_finder *fi, const char *modname,
		   const char *want_build_id, struct ms_modfile **ret,
		   struct ms_err *err)
{
	struct ms_modfile *best = NULL;
	char *name = normalized(modname), *path;
	struct ms_err first = { 0 };
	bool done = false;
	int r = 0;

	if (!name)
		return ms_err_errno(err, ENOMEM, "finder");
	/*
	 * A stale modules.dep entry must not hide the --search trees: a
	 * candidate that cannot be opened is passed over, and its error is
	 * reported only if nothing else is found.
	 */
	path = kmod_path(fi, name);
	if (path && consider(fi, path, want_build_id, &best, err, &done))
		first = *err;
	free(path);
	r = done ? 0 : index_search(fi, err);
	for (size_t i = 0; !r && !done && i < fi->nentries; i++)
		if (strcmp(fi->entries[i].name, name) == 0 &&
		    consider(fi, fi->entries[i].path, want_build_id, &best, err,
			     &done) &&
		    !first.code)
			first = *err;
	if (!r && !best && first.code) {
		*err = first;
		r = -first.code;
	} else if (!r && !best) {
		/*
		 * ENOENT even without libkmod: on it, callers go on to the
		 * debug directories and debuginfod, which need no libkmod.
		 */
		if (fi->moddir && fi->kmod_err.code)
			r = ms_err_set(
				err, ENOENT,
				"no file for module %s%s: %s/modules.dep not read, as %s; give the file, --moddir or --search DIR",
				modname,
				ms_ctx_search_count(fi->ctx) ?
					" in the --search trees" :
					"",
				fi->moddir, fi->kmod_err.msg);
		else if (fi->moddir)
			r = ms_err_set(
				err, ENOENT,
				"no file for module %s: not in %s/modules.dep%s; give the file, --moddir or --search DIR",
				modname, fi->moddir,
				ms_ctx_search_count(fi->ctx) ?
					" nor in the --search trees" :
					"");
		else
			r = ms_err_set(
				err, ENOENT,
				"no file for module %s: the kernel release is unknown%s; give the file, --moddir or --search DIR",
				modname,
				ms_ctx_search_count(fi->ctx) ?
					" and the --search trees have none" :
					"");
	}
	free(name);
	if (r) {
		ms_modfile_free(best);
		return r;
	}
	*ret = best;
	return 0;
}
