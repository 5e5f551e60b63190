/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a kernel image or the kernel's memory says: kallsyms tables
 * (ksymtab.c), kernel images (kimage.c), where the running kernel is
 * and its BTF layouts (kfind.c, kbtf.c, kdata.c), and the module walk
 * (kmem.c) that gives an ordinary struct ms_map.
 */
#ifndef MODSECT_KERNEL_H
#define MODSECT_KERNEL_H

#include "map/map.h"
#include "target/target.h"

/* ---- kallsyms tables (ksymtab.c) ---- */

/*
 * The kernel's compressed symbol table, found in a blob of kernel
 * read-only data (the image's .rodata, or memory read from the target)
 * without any symbol telling where it is, and decoded. Symbols are at
 * the addresses the blob holds (link-time in an image, runtime in
 * memory), in kallsyms order (by address), types as /proc/kallsyms
 * prints them.
 */
struct ms_ksymtab {
	struct ms_ksym *syms;
	size_t nsyms;
	/* where the tables were found, as offsets into the blob (for tests) */
	size_t names_off, token_table_off;
};

/*
 * buf holds len bytes that are at address base in the kernel; ptr_size
 * is 4 or 8, big_endian for the target's byte order.
 */
int ms_ksymtab_find(const void *buf, size_t len, uint64_t base,
		    int ptr_size, bool big_endian, struct ms_ksymtab **ret,
		    struct ms_err *err);
void ms_ksymtab_free(struct ms_ksymtab *t);
/*
 * Address of the first symbol called name (any type). Its only failure
 * is that there is none: -ENOENT, no message (callers say what they
 * looked for).
 */
int ms_ksymtab_lookup(const struct ms_ksymtab *t, const char *name,
		      uint64_t *addr_ret);

/* ---- kernel images (kimage.c) ---- */

/*
 * A kernel image: bzImage (gzip, xz, zstd, lz4 payload), a raw
 * compressed Image (arm64 vmlinuz is gzip'ed), a plain or debug vmlinux.
 * What it gives: the ELF (or raw) kernel bytes, the build-id, the
 * linux_banner string and its link address, BTF, and kallsyms.
 */
struct ms_kimage;

int ms_kimage_open(const char *path, struct ms_kimage **ret,
		   struct ms_err *err);
/*
 * ms_kimage_open, through ctx's cache: a compressed image's kernel is kept
 * there, decompressed, under the file's SHA-256, and read from there
 * the next time.
 */
int ms_kimage_open_cached(const struct ms_ctx *ctx, const char *path,
			  struct ms_kimage **ret, struct ms_err *err);
void ms_kimage_free(struct ms_kimage *k);
const char *ms_kimage_path(const struct ms_kimage *k);
/* "bzImage+xz", "vmlinux", "Image+gzip" ...: for messages */
const char *ms_kimage_kind(const struct ms_kimage *k);
int ms_kimage_elf_machine(const struct ms_kimage *k); /* EM_* */
int ms_kimage_elf_class(const struct ms_kimage *k); /* ELFCLASS32/64 */
/* Lower-case hex of the GNU build-id note, or NULL. */
const char *ms_kimage_build_id(const struct ms_kimage *k);
/* Link address of the build-id note's descriptor (0 if none). */
uint64_t ms_kimage_build_id_addr(const struct ms_kimage *k);
/* "Linux version 6.1.0-27-amd64 (...) ...\n" and its link address. */
const char *ms_kimage_banner(const struct ms_kimage *k);
uint64_t ms_kimage_banner_addr(const struct ms_kimage *k);
/* The .BTF section, or NULL with *len 0 (kernel built without BTF). */
const void *ms_kimage_btf(const struct ms_kimage *k, size_t *len_ret);
/* kallsyms at link addresses, found on first call; owned by k. */
int ms_kimage_ksymtab(struct ms_kimage *k, const struct ms_ksymtab **ret,
		      struct ms_err *err);
/*
 * The image's bytes at link address addr (len bytes), for comparing with
 * memory; -ENOENT (said in err) if the range is not all in the image's
 * loaded data.
 */
int ms_kimage_bytes(const struct ms_kimage *k, uint64_t addr, size_t len,
		    const void **ret, struct ms_err *err);
/* Link-time address range of the loaded image: _text .. _end. */
void ms_kimage_range(const struct ms_kimage *k, uint64_t *start,
		     uint64_t *end);
/*
 * A section of an ELF image by name: its link address and bytes; -ENOENT
 * (no message) if there is none, it has no bytes, or the image is raw.
 */
int ms_kimage_section(const struct ms_kimage *k, const char *name,
		      uint64_t *addr_ret, const void **data_ret,
		      size_t *len_ret);

/* ---- the core kernel's ORC tables (korc.c) ---- */

/*
 * The image's ORC tables, moved by offset (runtime minus link address):
 * -ENOENT if it has none (not x86-64, or built without
 * CONFIG_UNWINDER_ORC), said in err; release tells the format of tables
 * without an .orc_header.
 */
int ms_kimage_orc(const struct ms_kimage *k, const char *release,
		  int64_t offset, struct ms_orc **ret, struct ms_err *err);
/*
 * Gives map what flags ask for (MS_READ_ORC, MS_READ_BTF) and it lacks
 * from the kernel image at path (kfacts.c; checked against the map's
 * build-id, unless force; the KASLR offset from kallsyms), or says in
 * map->why_no_orc, why_no_btf why not. Fails only for want of memory.
 */
int ms_map_add_image(const struct ms_ctx *ctx, struct ms_map *map,
		     const char *path, bool force, unsigned int flags,
		     struct ms_err *err);

/* ---- the map from memory (kmem.c) ---- */

struct ms_mem_src {
	const struct ms_ctx *ctx; /* its cache keeps decompressed images */
	struct ms_mem *mem;
	const char *kernel_image; /* path, or NULL: find all in memory */
	bool force; /* accept an image whose build-id differs */
	/*
	 * Nonzero: only the module whose struct module is at this address,
	 * which must be on the module list (a debugger stopped in
	 * do_init_module knows the address, not the name).
	 */
	uint64_t module_at;
};

/*
 * Reads the section map from kernel memory: finds the kernel (KASLR
 * offset), checks the image is the running build, reads BTF and
 * kallsyms, walks the module list. flags: MS_READ_CORE for the core
 * kernel's symbols. only_module NULL means all.
 */
int ms_map_read_memory(const struct ms_mem_src *src, const char *only_module,
		       unsigned int flags, struct ms_map **ret,
		       struct ms_err *err);

#endif
