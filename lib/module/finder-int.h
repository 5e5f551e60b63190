/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal to the finder: finder.c finds module files by name (modules.dep
 * through libkmod, the --search trees), fbuildid.c by build-id (the
 * build-id trees, debuginfod).
 */
#ifndef MODSECT_FINDER_INT_H
#define MODSECT_FINDER_INT_H

#include <sys/stat.h>
#include <elfutils/debuginfod.h>
#include <libkmod.h>

#include "module.h"

struct entry {
	char *name; /* normalized module name */
	char *path;
};

/* libkmod's functions we call, named and typed as libkmod.h has them. */
struct kmod_fns {
	__typeof__(&kmod_new) kmod_new;
	__typeof__(&kmod_set_log_fn) kmod_set_log_fn;
	__typeof__(&kmod_unref) kmod_unref;
	__typeof__(&kmod_module_new_from_name) kmod_module_new_from_name;
	__typeof__(&kmod_module_get_path) kmod_module_get_path;
	__typeof__(&kmod_module_unref) kmod_module_unref;
};

/* libdebuginfod's, likewise. */
struct debuginfod_fns {
	__typeof__(&debuginfod_begin) debuginfod_begin;
	__typeof__(&debuginfod_find_debuginfo) debuginfod_find_debuginfo;
	__typeof__(&debuginfod_end) debuginfod_end;
};

/* A module file opened, by path and identity. */
struct cached {
	char *path;
	struct stat id;
	struct ms_modfile *f; /* a reference the finder's */
};

struct ms_finder {
	const struct ms_ctx *ctx;
	char *moddir;
	void *klib; /* libkmod, loaded on the first lookup by name */
	struct kmod_fns kf;
	struct kmod_ctx *kmod; /* made on the first lookup by name */
	bool kmod_tried;
	struct ms_err kmod_err; /* why libkmod could not be loaded, if so */
	void *dlib; /* libdebuginfod, loaded on first use */
	struct debuginfod_fns df;
	debuginfod_client *dclient; /* made on first use */
	int dfailed; /* the error that made us stop asking, or 0 */
	struct entry *entries; /* search-tree files, sorted by name */
	size_t nentries, cap;
	bool indexed;
	struct cached *files; /* opened (ms_finder_open_file) */
	size_t nfiles, fcap;
	/* The machine whose files are preferred (ms_finder_prefer), if any. */
	const struct ms_arch *arch;
};

/* Adds a search-tree file (name normalized, owned by fi from now on). */
int add_entry(struct ms_finder *fi, char *name, const char *path);
/* Indexes the --search trees, once. */
int index_search(struct ms_finder *fi, struct ms_err *err);
/* A module name with '-' as '_', as modules.dep has it; NULL: no memory. */
char *normalized(const char *s);

#endif
