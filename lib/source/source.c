// SPDX-License-Identifier: GPL-2.0-or-later
/* From what the user named to a checked map: see source.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "source.h"

#ifndef MODSECT_STATIC
/* --remote, --vmcore: the map from the kernel's memory. */
static int read_memory(const struct ms_ctx *ctx, const struct ms_source *s,
		       const char *only_module,
		       unsigned int flags, struct ms_map **ret,
		       struct ms_err *err)
{
	struct ms_remote_opts ro = { s->baud, s->timeout_ms };
	struct ms_mem_src src = { 0 };
	int r;

	if (s->remote)
		r = ms_remote_open(s->remote, &ro, &src.mem, err);
	else
		r = ms_vmcore_open(s->vmcore, &src.mem, err);
	if (r)
		return r;
	src.ctx = ctx;
	src.kernel_image = s->kernel_image;
	src.force = s->force;
	src.module_at = s->module_at;
	r = ms_map_read_memory(&src, only_module, flags, ret, err);
	if (s->mem_stats)
		fprintf(stderr, "modsect: %s: %llu requests, %llu bytes\n",
			src.mem->origin,
			(unsigned long long)src.mem->nrequests,
			(unsigned long long)src.mem->nbytes);
	ms_mem_free(src.mem);
	return r;
}
#endif

#ifndef MODSECT_STATIC
/*
 * A live or captured map's unwind tables come from the kernel image:
 * --kernel-image, or live, the one installed for the running release.
 */
static int image_orc(const struct ms_ctx *ctx, const struct ms_source *s,
		     struct ms_map *map, struct ms_err *err)
{
	char *path = NULL;
	int r;

	if (map->core_orc || map->why_no_orc)
		return 0; /* the memory source read them or said why not */
	if (s->kernel_image)
		return ms_map_add_image_orc(ctx, map, s->kernel_image,
					    s->force, err);
	if (!s->capture && map->release &&
	    asprintf(&path, "%s/boot/vmlinuz-%s",
		     ms_ctx_root(ctx) ? ms_ctx_root(ctx) : "",
		     map->release) < 0)
		return ms_err_errno(err, ENOMEM, "kernel image");
	if (path && access(path, R_OK) == 0) {
		r = ms_map_add_image_orc(ctx, map, path, false, err);
		free(path);
		return r;
	}
	free(path);
	map->why_no_orc = strdup(
		s->capture ?
			"a capture does not carry them: give --kernel-image /boot/vmlinuz-RELEASE, the image the kernel booted" :
			"no kernel image to read them from: give --kernel-image /boot/vmlinuz-RELEASE");
	return map->why_no_orc ? 0 : ms_err_errno(err, ENOMEM, "ORC");
}
#endif

int ms_source_read(const struct ms_ctx *ctx, const struct ms_source *src,
		   const char *only_module, unsigned int flags,
		   struct ms_map **ret, struct ms_err *err)
{
	struct ms_map *map;
	int r;

#ifndef MODSECT_STATIC
	if (src->remote || src->vmcore)
		r = read_memory(ctx, src, only_module, flags, &map, err);
	else
#endif
	if (src->capture)
		r = ms_map_read_capture(src->capture, &map, err);
	else
		r = ms_map_read_live(ctx, only_module, flags, &map, err);
	if (r)
		return r;
	r = ms_map_check_visible(map, err);
#ifndef MODSECT_STATIC
	if (!r && (flags & MS_READ_ORC) && map->ncore)
		r = image_orc(ctx, src, map, err);
#endif
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
