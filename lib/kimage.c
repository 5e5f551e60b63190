// SPDX-License-Identifier: GPL-2.0-or-later
/* Kernel images: placeholder until written (replace this whole file). */
#include <errno.h>

#include "kmem.h"

int ms_kimage_open(const char *path, struct ms_kimage **ret, struct ms_err *err)
{
	(void)ret;
	return ms_err_set(err, ENOTSUP, "--kernel-image %s: not implemented yet",
			  path);
}

void ms_kimage_free(struct ms_kimage *k) { (void)k; }
const char *ms_kimage_path(const struct ms_kimage *k) { (void)k; return ""; }
const char *ms_kimage_kind(const struct ms_kimage *k) { (void)k; return ""; }
int ms_kimage_elf_machine(const struct ms_kimage *k) { (void)k; return 0; }
int ms_kimage_elf_class(const struct ms_kimage *k) { (void)k; return 0; }
const char *ms_kimage_build_id(const struct ms_kimage *k) { (void)k; return NULL; }
uint64_t ms_kimage_build_id_addr(const struct ms_kimage *k) { (void)k; return 0; }
const char *ms_kimage_banner(const struct ms_kimage *k) { (void)k; return NULL; }
uint64_t ms_kimage_banner_addr(const struct ms_kimage *k) { (void)k; return 0; }
const void *ms_kimage_btf(const struct ms_kimage *k, size_t *len_ret)
{
	(void)k;
	*len_ret = 0;
	return NULL;
}
int ms_kimage_ksymtab(struct ms_kimage *k, const struct ms_ksymtab **ret,
		      struct ms_err *err)
{
	(void)k, (void)ret;
	return ms_err_set(err, ENOTSUP, "not implemented yet");
}
int ms_kimage_bytes(const struct ms_kimage *k, uint64_t addr, size_t len,
		    const void **ret)
{
	(void)k, (void)addr, (void)len, (void)ret;
	return -ENOENT;
}
void ms_kimage_range(const struct ms_kimage *k, uint64_t *start, uint64_t *end)
{
	(void)k;
	*start = *end = 0;
}
