// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a live or captured map takes from the kernel image the user
 * gives (or live, the one installed for the running release): the core
 * kernel's ORC tables, moved by the KASLR offset, and its BTF, when the
 * map's own source has none. The image must be the running kernel's
 * build (its build-id), unless forced.
 */
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kmem-int.h"

/* Runtime minus link address, from a symbol in both kallsyms tables. */
static int image_offset(struct ms_kimage *img, const struct ms_map *map,
			int64_t *ret, struct ms_err *err)
{
	static const char *const anchors[] = { "_stext", "_text",
					       "startup_64" };
	const struct ms_ksymtab *t;
	int r = ms_kimage_ksymtab(img, &t, err);

	for (size_t i = 0; !r && i < 3; i++) {
		uint64_t link, run;

		if (!ms_ksymtab_lookup(t, anchors[i], &link) &&
		    ms_map_core_symbol(map, anchors[i], &run)) {
			*ret = (int64_t)(run - link);
			return 0;
		}
	}
	return r ? r :
		   ms_err_set(
			   err, ENOENT,
			   "%s: no _stext in both its kallsyms and those of %s: the KASLR offset is unknown",
			   ms_kimage_path(img), map->origin);
}

static int check_build(const struct ms_map *map, struct ms_kimage *img,
		       const char *path, bool force, struct ms_err *why)
{
	const char *bid = ms_kimage_build_id(img);

	if (map->kernel_build_id && bid && strcmp(map->kernel_build_id, bid) &&
	    !force)
		return ms_err_kind(
			why, MS_E_REFUSED, EBADMSG,
			"%s has build-id %s but the running kernel %s: not its image (--force to use it anyway)",
			path, bid, map->kernel_build_id);
	return 0;
}

static int image_btf(struct ms_map *map, struct ms_kimage *img,
		     const char *path, struct ms_err *why)
{
	size_t len = 0;
	const void *btf = ms_kimage_btf(img, &len);

	if (!btf)
		return ms_err_set(
			why, ENOENT,
			"%s has no BTF (a kernel built without CONFIG_DEBUG_INFO_BTF)",
			path);
	return ms_map_set_btf(map, btf, len, why);
}

/* x86-64's ORC tables, or the rules made from arm64's or i386's code. */
static int image_unwind(struct ms_kimage *img, struct ms_map *map,
			int64_t off, struct ms_err *why)
{
	int em = ms_kimage_elf_machine(img), r;
	struct btf *btf = NULL;

	if (em != EM_AARCH64 && em != EM_386)
		return ms_kimage_orc(img, map->release, off, &map->core_orc,
				     why);
	if (map->core_btf && map->core_btf_len <= UINT32_MAX)
		btf = btf__new(map->core_btf, (uint32_t)map->core_btf_len);
	if (btf && libbpf_get_error(btf))
		btf = NULL;
	r = em == EM_386 ?
		    ms_kimage_x86(img, btf, off, &map->core_x86, why) :
		    ms_kimage_a64(img, btf, off, &map->core_a64, why);
	btf__free(btf);
	return r;
}

/* Keeps why's message in *why_ret; fails only for want of memory. */
static int say_why(int r, const struct ms_err *why, char **why_ret,
		   struct ms_err *err)
{
	if (r == -ENOMEM)
		return ms_err_errno(err, ENOMEM, "kernel image");
	if (r && !*why_ret && !(*why_ret = strdup(why->msg)))
		return ms_err_errno(err, ENOMEM, "kernel image");
	return 0;
}

int ms_map_add_image(const struct ms_ctx *ctx, struct ms_map *map,
		     const char *path, bool force, unsigned int flags,
		     struct ms_err *err)
{
	struct ms_kimage *img = NULL;
	struct ms_err why = { 0 }, bwhy = { 0 };
	bool orc = (flags & MS_READ_ORC) && !map->core_orc && !map->why_no_orc;
	bool btf = (flags & MS_READ_BTF) && !map->core_btf;
	int64_t off = 0;
	int r = ms_kimage_open_cached(ctx, path, &img, &why), rb;

	if (!r)
		r = check_build(map, img, path, force, &why);
	if (btf) {
		rb = r ? r : image_btf(map, img, path, &bwhy);
		if (say_why(rb, r ? &why : &bwhy, &map->why_no_btf, err)) {
			ms_kimage_free(img);
			return -ENOMEM;
		}
	}
	if (orc && !r)
		r = image_offset(img, map, &off, &why);
	if (orc && !r)
		r = image_unwind(img, map, off, &why);
	ms_kimage_free(img);
	return orc ? say_why(r, &why, &map->why_no_orc, err) : 0;
}
