// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The live section map, from /sys/module/<m>/sections/ (since 2.6.8),
 * /sys/module/<m>/notes/ and /proc/kallsyms, all under the context's root.
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "sysfs-int.h"

static int add_module(struct ms_map *map, int sysmod, const char *name,
		      size_t *cap, struct ms_err *err)
{
	int r;

	if (ms_reserve(&map->modules, cap, map->nmodules,
		       sizeof(*map->modules), 64))
		return ms_err_errno(err, ENOMEM, "reading modules");
	r = read_module(sysmod, name, sysfs_big_endian(map),
			&map->modules[map->nmodules], err);
	if (r == 0)
		map->nmodules++;
	return r;
}

/* One module, named as the user wrote it. */
static int read_one(struct ms_map *map, int sysmod, const char *path,
		    const char *only_module, struct ms_err *err)
{
	char *name = strdup(only_module);
	size_t cap = 0;
	int r;

	if (!name)
		return ms_err_errno(err, ENOMEM, "reading modules");
	/* /sys/module names use KBUILD_MODNAME, with underscores. */
	for (char *p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	r = add_module(map, sysmod, name, &cap, err);
	if (r == -ENOENT || r == -ENOTDIR)
		r = ms_err_set(err, ENOENT,
			       "module %s is not loaded (no %s/%s/sections)",
			       only_module, path, name);
	else if (r == -ESRCH)
		r = add_vanished(map, name); /* said by the caller */
	free(name);
	return r;
}

/*
 * Most directories are built-in modules', with no sections/: two checks
 * each, not an open of each directory (a third of decode's system calls).
 */
static bool built_in(int sysmod, const char *name)
{
	char sec[NAME_MAX + sizeof("/sections")];

	return snprintf(sec, sizeof(sec), "%s/sections", name) <
		       (int)sizeof(sec) &&
	       faccessat(sysmod, sec, F_OK, 0) != 0 && errno == ENOENT &&
	       faccessat(sysmod, name, F_OK, 0) == 0;
}

/* Every loaded module. */
static int read_all(struct ms_map *map, int sysmod, const char *path,
		    struct ms_err *err)
{
	DIR *d = fdopendir(dup(sysmod));
	struct dirent *de;
	size_t cap = 0;
	int r = 0;

	if (!d)
		return ms_err_errno(err, errno, "cannot read %s", path);
	while (!r && (de = readdir(d))) {
		if (de->d_name[0] == '.' || built_in(sysmod, de->d_name))
			continue;
		r = add_module(map, sysmod, de->d_name, &cap, err);
		/*
		 * No sections/ is a built-in module; no directory at all any
		 * more, one unloaded since readdir(). A module unloaded while
		 * we read is left out whole, never half-listed, and named in
		 * map->vanished.
		 */
		if ((r == -ENOENT || r == -ENOTDIR) &&
		    faccessat(sysmod, de->d_name, F_OK, 0) == 0)
			r = 0;
		else if (r == -ENOENT || r == -ESRCH)
			r = add_vanished(map, de->d_name) ?
				    ms_err_errno(err, ENOMEM, "reading modules") :
				    0;
	}
	closedir(d);
	return r;
}

/* The running kernel's own BTF (CONFIG_DEBUG_INFO_BTF), or why not. */
static int read_btf(const char *root, struct ms_map *map, struct ms_err *err)
{
	char path[4096];
	struct ms_err why = { 0 };
	char *buf = NULL;
	int r;

	snprintf(path, sizeof(path), "%s/sys/kernel/btf/vmlinux", root);
	r = ms_read_file(path, MS_MAX_BTF, &buf, &map->core_btf_len, &why);
	if (!r) {
		map->core_btf = buf;
		return 0;
	}
	if (r == -ENOMEM)
		return ms_err_errno(err, ENOMEM, "BTF");
	if (asprintf(&map->why_no_btf, "%s%s", why.msg,
		     r == -ENOENT ?
			     " (a kernel built without CONFIG_DEBUG_INFO_BTF)" :
			     "") < 0)
		return ms_err_errno(err, ENOMEM, "BTF");
	return 0;
}

/* After the modules' sections: kallsyms, and what changed meanwhile. */
static int finish(const char *root, int sysmod, struct ms_map *map,
		  const char *only_module, unsigned int flags,
		  struct ms_err *err)
{
	int r = ms_map_finish(map, err);

	if (!r)
		r = read_kallsyms(root, sysmod, map, flags & MS_READ_CORE, err);
	if (!r && (flags & MS_READ_BTF))
		r = read_btf(root, map, err);
	if (!r)
		r = recheck(root, sysmod, map, only_module, err);
	if (!r && only_module && map->nvanished)
		r = ms_err_set(
			err, ENOENT,
			"module %s was unloaded while it was read; try again if it is loaded again",
			only_module);
	if (!r)
		r = ms_map_finish(map, err); /* sorts core symbols, sections */
	return r;
}

int ms_map_read_live(const struct ms_ctx *ctx, const char *only_module,
		     unsigned int flags, struct ms_map **ret,
		     struct ms_err *err)
{
	const char *root = ms_ctx_root(ctx);
	struct ms_map *map = calloc(1, sizeof(*map));
	char path[4096];
	int sysmod = -1, r;

	if (!map || !(map->origin = strdup(*root ? root : "live system"))) {
		free(map);
		return ms_err_errno(err, ENOMEM, "reading modules");
	}
	snprintf(path, sizeof(path), "%s/sys/module", root);
	sysmod = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sysmod < 0) {
		r = ms_err_errno(err, errno, "cannot open %s", path);
	} else {
		read_kernel(root, map);
		r = only_module ? read_one(map, sysmod, path, only_module, err) :
				  read_all(map, sysmod, path, err);
	}
	if (!r)
		r = finish(root, sysmod, map, only_module, flags, err);
	if (sysmod >= 0)
		close(sysmod);
	if (r) {
		ms_map_free(map);
		return r;
	}
	*ret = map;
	return 0;
}
