// SPDX-License-Identifier: GPL-2.0-or-later
/* From what the user named to a checked map: see source.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef MODSECT_STATIC
#include <bpf/btf.h>
#endif

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
	src.find_layout = s->find_layout;
	src.find_arg = s->find_arg;
	src.note = s->note;
	src.note_arg = s->note_arg;
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
 * What a live or captured map lacks of the core kernel's facts (ORC
 * tables, BTF) comes from the kernel image: --kernel-image, or live, the
 * one installed for the running release.
 */
static int image_facts(const struct ms_ctx *ctx, const struct ms_source *s,
		       struct ms_map *map, unsigned int flags,
		       struct ms_err *err)
{
	char *path = NULL;
	int r = 0;

	if (!map->ncore || map->core_orc || map->core_a64 || map->core_x86 ||
	    map->why_no_orc)
		flags &= ~(unsigned int)MS_READ_ORC;
	if (map->core_btf)
		flags &= ~(unsigned int)MS_READ_BTF;
	if (!flags)
		return 0;
	if (s->kernel_image)
		return ms_map_add_image(ctx, map, s->kernel_image, s->force,
					flags, err);
	if (!s->capture && map->release &&
	    asprintf(&path, "%s/boot/vmlinuz-%s",
		     ms_ctx_root(ctx) ? ms_ctx_root(ctx) : "",
		     map->release) < 0)
		return ms_err_errno(err, ENOMEM, "kernel image");
	if (path && access(path, R_OK) == 0) {
		r = ms_map_add_image(ctx, map, path, false, flags, err);
		free(path);
		return r;
	}
	free(path);
	if ((flags & MS_READ_ORC) &&
	    !(map->why_no_orc = strdup(
		      s->capture ?
			      "a capture does not carry them: give --kernel-image /boot/vmlinuz-RELEASE, the image the kernel booted" :
			      "no kernel image to read them from: give --kernel-image /boot/vmlinuz-RELEASE")))
		return ms_err_errno(err, ENOMEM, "ORC");
	if ((flags & MS_READ_BTF) && !map->why_no_btf &&
	    !(map->why_no_btf = strdup(
		      s->capture ?
			      "the capture has no BTF: capture with --btf, or give --kernel-image /boot/vmlinuz-RELEASE, the image the kernel booted" :
			      "no BTF: give --kernel-image /boot/vmlinuz-RELEASE")))
		return ms_err_errno(err, ENOMEM, "BTF");
	return 0;
}
#endif

#ifndef MODSECT_STATIC
/*
 * BTF from a file or a capture is untrusted: what libbpf refuses is
 * dropped, said in why_no_btf, and the rest of the map stands.
 */
static int check_btf(struct ms_map *map, struct ms_err *err)
{
	struct btf *btf;

	if (!map->core_btf)
		return 0;
	btf = map->core_btf_len <= MS_MAX_BTF ?
		      btf__new(map->core_btf, (uint32_t)map->core_btf_len) :
		      NULL;
	if (btf) {
		btf__free(btf);
		return 0;
	}
	free(map->core_btf);
	map->core_btf = NULL;
	map->core_btf_len = 0;
	free(map->why_no_btf);
	if (asprintf(&map->why_no_btf,
		     "the kernel's BTF from %s is not valid BTF (libbpf refuses it)",
		     map->origin) < 0) {
		map->why_no_btf = NULL;
		return ms_err_errno(err, ENOMEM, "BTF");
	}
	return 0;
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
	if (!r && (flags & (MS_READ_ORC | MS_READ_BTF)))
		r = image_facts(ctx, src, map, flags, err);
	if (!r)
		r = check_btf(map, err);
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

#ifndef MODSECT_STATIC
int ms_source_kernel(const struct ms_ctx *ctx, const struct ms_source *src,
		     bool kcore, struct ms_mem **mem_ret,
		     struct ms_kernel **ret, struct ms_err *err)
{
	struct ms_remote_opts ro = { src->baud, src->timeout_ms };
	struct ms_mem *mem = NULL;
	int r = kcore	      ? ms_kcore_open(NULL, &mem, err) :
		src->remote ? ms_remote_open(src->remote, &ro, &mem, err) :
			      ms_vmcore_open(src->vmcore, &mem, err);

	if (!r) {
		struct ms_mem_src ms = { .ctx = ctx,
					 .mem = mem,
					 .kernel_image = src->kernel_image,
					 .force = src->force };

		r = ms_kernel_open(&ms, ret, err);
	}
	if (r) {
		ms_mem_free(mem);
		return r;
	}
	*mem_ret = mem;
	return 0;
}
#endif
