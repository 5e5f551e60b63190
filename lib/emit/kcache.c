// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kallsyms ELF in memory, and kept in the cache under the SHA-256 of
 * what it is made from (the core symbols, ORC tables and BTF, the
 * machine, for which debugger): the same kernel and boot makes it once,
 * and `modsect follow`, which rereads the map at every module event,
 * does not pay for its unwind tables and types again.
 */
#include <errno.h>
#include <sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <unistd.h>

#include "emit.h"

static int kallsyms_fd(int fd, const void *map, struct ms_err *err)
{
	return ms_kallsyms_elf_for(map, false, fd, err);
}

static int kallsyms_lldb_fd(int fd, const void *map, struct ms_err *err)
{
	return ms_kallsyms_elf_for(map, true, fd, err);
}

int ms_kallsyms_elf_bytes(const struct ms_map *map, char **buf_ret,
			  size_t *len_ret, struct ms_err *err)
{
	return ms_fd_bytes(kallsyms_fd, map, buf_ret, len_ret, err);
}

int ms_kallsyms_elf_bytes_for(const struct ms_map *map, bool lldb,
			      char **buf_ret, size_t *len_ret,
			      struct ms_err *err)
{
	return ms_fd_bytes(lldb ? kallsyms_lldb_fd : kallsyms_fd, map, buf_ret,
			   len_ret, err);
}

/* Bump when the ELF modsect makes from the same inputs changes. */
#define KELF_FORMAT "modsect kallsyms ELF 1"

static void put_u64(SHA2_CTX *h, uint64_t v)
{
	unsigned char b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	SHA256Update(h, b, sizeof(b));
}

static void put_str(SHA2_CTX *h, const char *s)
{
	SHA256Update(h, (const unsigned char *)(s ? s : ""),
		     strlen(s ? s : "") + 1);
}

static void key_of(const struct ms_map *map, bool lldb,
		   char hex[SHA256_DIGEST_STRING_LENGTH])
{
	SHA2_CTX h;

	SHA256Init(&h);
	put_str(&h, KELF_FORMAT);
	put_str(&h, lldb ? "lldb" : "gdb");
	put_str(&h, map->machine);
	put_u64(&h, map->ncore);
	for (size_t i = 0; i < map->ncore; i++) {
		put_u64(&h, map->core[i].addr);
		put_u64(&h, (unsigned char)map->core[i].type);
		put_str(&h, map->core[i].name);
	}
	put_u64(&h, map->core_orc ? map->core_orc->n : UINT64_MAX);
	for (size_t i = 0; map->core_orc && i < map->core_orc->n; i++) {
		const struct ms_orc_entry *e = &map->core_orc->e[i];

		put_u64(&h, e->ip);
		put_u64(&h, e->end);
		put_u64(&h, (uint64_t)(uint16_t)e->sp_offset << 32 |
				    (uint16_t)e->bp_offset);
		put_u64(&h, (uint64_t)e->sp_reg << 24 | e->bp_reg << 16 |
				    e->type << 8 | e->signal);
	}
	put_u64(&h, map->core_a64 ? map->core_a64->n : UINT64_MAX);
	for (size_t i = 0; map->core_a64 && i < map->core_a64->n; i++) {
		const struct ms_a64_row *r = &map->core_a64->r[i];

		put_u64(&h, r->ip);
		put_u64(&h, r->end);
		put_u64(&h, (uint64_t)r->kind << 40 | (uint64_t)r->fstart << 32 |
				    (uint64_t)r->cfa_reg << 24 |
				    (uint32_t)r->cfa_off);
		put_u64(&h, (uint64_t)(uint32_t)r->fp_at << 32 |
				    (uint32_t)r->lr_at);
		for (int j = 0; j < 10; j++)
			put_u64(&h, (uint16_t)r->saved[j]);
	}
	put_u64(&h, map->core_x86 ? map->core_x86->n : UINT64_MAX);
	for (size_t i = 0; map->core_x86 && i < map->core_x86->n; i++) {
		const struct ms_x86_row *r = &map->core_x86->r[i];

		put_u64(&h, r->ip);
		put_u64(&h, r->end);
		put_u64(&h, (uint64_t)r->kind << 48 | (uint64_t)r->signal << 40 |
				    (uint64_t)r->fstart << 32 |
				    (uint64_t)r->cfa_reg << 24 |
				    (uint32_t)r->cfa_off);
		for (int j = 0; j < 4; j++)
			put_u64(&h, (uint16_t)r->saved[j]);
	}
	if (map->core_x86)
		put_u64(&h, map->core_x86->user_end);
	put_u64(&h, map->core_btf ? map->core_btf_len : UINT64_MAX);
	if (map->core_btf)
		SHA256Update(&h, map->core_btf, map->core_btf_len);
	SHA256End(&h, hex);
}

/*
 * The ELF itself stays content-addressed (<sha256>.kallsyms.elf, as
 * before); kallsyms/<key> is a link to it.
 */
int ms_kallsyms_elf_cached(const struct ms_ctx *ctx, const struct ms_map *map,
			   bool lldb, char **path_ret, struct ms_err *err)
{
	char hex[SHA256_DIGEST_STRING_LENGTH];
	char *dir = NULL, *link = NULL, *path = NULL, *buf = NULL;
	size_t len;
	int r;

	key_of(map, lldb, hex);
	r = ms_cache_subdir(ctx, "kallsyms", &dir, err);
	if (!r && asprintf(&link, "%s/%s", dir, hex) < 0) {
		link = NULL;
		r = ms_err_errno(err, ENOMEM, "cache");
	}
	free(dir);
	if (!r && (path = realpath(link, NULL)) && access(path, R_OK) == 0) {
		free(link);
		*path_ret = path;
		return 0;
	}
	free(path);
	path = NULL;
	if (!r)
		r = ms_kallsyms_elf_bytes_for(map, lldb, &buf, &len, err);
	if (!r)
		r = ms_cache_store(ctx, buf, len, ".kallsyms.elf", &path, err);
	if (!r) {
		/* A link that cannot be made costs the next run the build. */
		unlink(link);
		(void)!symlink(path, link);
	}
	free(buf);
	free(link);
	if (r)
		return r;
	*path_ret = path;
	return 0;
}
