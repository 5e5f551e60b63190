/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Memory sources: the section map read from the kernel's own memory.
 *
 * A memory source (struct ms_mem) reads kernel virtual addresses: over
 * the GDB remote serial protocol (gdbremote.c), from a vmcore through
 * libkdumpfile (vmcore.c), or from a memory image file for tests and
 * fuzzing (memimg.c). The kernel's symbols and types come from a kernel
 * image (kimage.c: vmlinuz or vmlinux) or from memory itself; kallsyms
 * tables are found and decoded by ksymtab.c; kmem.c walks the module
 * list with BTF and gives an ordinary struct ms_map, so nothing
 * downstream knows the map came from memory.
 *
 * Memory is hostile: every read is bounded and checked, every list walk
 * bounded and cycle-checked, every count sanity-checked.
 */
#ifndef MODSECT_KMEM_H
#define MODSECT_KMEM_H

#include "modsect.h"

/* ---- memory sources (mem.c, gdbremote.c, vmcore.c, memimg.c) ---- */

struct ms_mem;

struct ms_mem_ops {
	/*
	 * Reads len bytes at kernel virtual address addr, all or nothing.
	 * On failure the message says what failed (stub error, unmapped,
	 * timeout); ms_mem_read puts what was being read in front of it.
	 */
	int (*read)(struct ms_mem *m, uint64_t addr, void *buf, size_t len,
		    struct ms_err *err);
	/* Optional (NULL): the whole VMCOREINFO text, NUL-terminated. */
	const char *(*vmcoreinfo)(struct ms_mem *m);
	/*
	 * Optional: a program counter of a stopped CPU (gdb remote: the
	 * stop reply / 'g'), a hint for finding the kernel; -ENOTSUP.
	 */
	int (*pc)(struct ms_mem *m, uint64_t *pc_ret, struct ms_err *err);
	void (*close)(struct ms_mem *m);
};

struct ms_mem {
	const struct ms_mem_ops *ops;
	void *priv;
	char *origin; /* "remote 127.0.0.1:1234", "vmcore FILE": for messages */
	/* ELF machine and class of the target if the source knows, else 0 */
	int elf_machine, elf_class;
	/* Counters for bench/: requests sent (round trips) and bytes read. */
	uint64_t nrequests, nbytes;
	struct ms_mem_cache *cache; /* small reads, see mem.c */
};

/* Allocates a source with its ops; origin is copied. */
int ms_mem_new(const struct ms_mem_ops *ops, void *priv, const char *origin,
	       struct ms_mem **ret, struct ms_err *err);
/*
 * Forgets cached memory: call it when the target may have run since the
 * last read (the cache assumes a stopped target or a dump).
 */
void ms_mem_invalidate(struct ms_mem *m);
/* Closes the source (ops->close) and frees it; NULL is a no-op. */
void ms_mem_free(struct ms_mem *m);
/*
 * Reads len bytes at addr; on failure the message is
 * "reading WHAT at 0xADDR (LEN bytes) from ORIGIN: why".
 */
int ms_mem_read(struct ms_mem *m, uint64_t addr, void *buf, size_t len,
		const char *what, struct ms_err *err);
/* A NUL-terminated string of at most max bytes (with the NUL) at addr. */
int ms_mem_read_string(struct ms_mem *m, uint64_t addr, size_t max,
		       const char *what, char **ret, struct ms_err *err);
/*
 * Value of KEY=value in VMCOREINFO text (a copy, caller frees), or NULL
 * with errno ENOENT if the source has no VMCOREINFO or no such key.
 */
char *ms_mem_vmcoreinfo_get(struct ms_mem *m, const char *key);

/*
 * GDB remote serial protocol (gdbremote.c). spec is HOST:PORT (":1234"
 * means 127.0.0.1:1234), [IPv6]:PORT, a path to a tty (baud applies,
 * 0 for 115200), or fd:N, a connected stream socket that becomes the
 * source's (closed with it). timeout_ms bounds each request (0: 5000).
 */
struct ms_remote_opts {
	unsigned int baud;
	unsigned int timeout_ms;
};
int ms_remote_open(const char *spec, const struct ms_remote_opts *o,
		   struct ms_mem **ret, struct ms_err *err);

/* A vmcore: ELF or compressed kdump, through libkdumpfile (vmcore.c). */
int ms_vmcore_open(const char *path, struct ms_mem **ret, struct ms_err *err);

/*
 * A memory image for tests and fuzzing (memimg.c). Text format, one
 * block a line: "ADDR HEXBYTES" (ADDR hex without 0x), '#' comments;
 * "vmcoreinfo KEY=VALUE" lines form the VMCOREINFO text; "pc ADDR" gives
 * the pc. Anything else, overlapping blocks or odd hex is an error.
 */
int ms_memimg_parse(const char *text, size_t len, const char *origin,
		    struct ms_mem **ret, struct ms_err *err);
int ms_memimg_open(const char *path, struct ms_mem **ret, struct ms_err *err);

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
/* Address of the first symbol called name (any type); -ENOENT. */
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
 * memory; -ENOENT if the range is not all in the image's loaded data.
 */
int ms_kimage_bytes(const struct ms_kimage *k, uint64_t addr, size_t len,
		    const void **ret);
/* Link-time address range of the loaded image: _text .. _end. */
void ms_kimage_range(const struct ms_kimage *k, uint64_t *start,
		     uint64_t *end);

/* ---- the map from memory (kmem.c) ---- */

struct ms_mem_src {
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
