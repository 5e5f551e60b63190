/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal to the kernel image code: kunpack.c turns an image file into
 * the kernel itself (a vmlinux ELF or a raw arm64 Image), kimage.c reads
 * an ELF, kraw.c a raw Image, both with kimage-scan.c.
 */
#ifndef MODSECT_KIMAGE_INT_H
#define MODSECT_KIMAGE_INT_H

#include <gelf.h>

#include "ksymtab.h"

/* A range of link addresses backed by the kernel's bytes. */
struct kimage_seg {
	uint64_t addr, size;
	size_t off; /* in data */
};

struct ms_kimage {
	char *path;
	char kind[48];
	/* the kernel: decompressed (malloc'd) or the file itself (mmap'd) */
	uint8_t *data;
	size_t size;
	uint8_t *map; /* the file's mapping, if still needed */
	size_t map_len;
	bool data_owned;
	Elf *elf; /* NULL for a raw Image */
	int machine, elfclass;
	bool big_endian;
	char build_id[2 * MS_BUILD_ID_MAX + 1]; /* "" if none */
	uint64_t build_id_addr;
	const char *banner; /* into data, NUL-terminated */
	uint64_t banner_addr;
	const uint8_t *btf;
	size_t btf_len;
	struct kimage_seg *segs;
	size_t nsegs;
	uint64_t start, end; /* _text .. _end */
	/* kallsyms, decoded at open: the range needs _text and _end */
	struct ms_ksymtab *ksyms;
	int ksyms_r;
	struct ms_err ksyms_err;
};

/*
 * kunpack.c: the kernel in buf (a whole image file): *out_ret is NULL if
 * buf is the kernel itself, else a malloc'd decompressed copy; kind gets
 * "bzImage+xz", "vmlinux", "Image+gzip", ...
 */
int ms_kunpack(const uint8_t *buf, size_t len, const char *path,
	       uint8_t **out_ret, size_t *outlen_ret, char *kind,
	       size_t kind_size, struct ms_err *err);
/* The arm64 Image header: "ARM\x64" at 0x38. */
bool ms_kunpack_is_arm64(const uint8_t *buf, size_t len);

/* Shared scanners (kimage-scan.c), over len bytes at link address addr. */
bool kimage_pick_banner(struct ms_kimage *k, const uint8_t *p, size_t len,
			uint64_t addr);
/* A GNU build-id note at p (4-aligned, in file byte order); true if so. */
bool kimage_note_build_id(struct ms_kimage *k, const uint8_t *p, size_t len,
			  uint64_t addr);
/* Appends a segment; -ENOMEM. */
int kimage_add_seg(struct ms_kimage *k, uint64_t addr, uint64_t size,
		   size_t off);

/* kraw.c: build-id, banner, BTF, kallsyms and link base of a raw Image. */
int kimage_raw_load(struct ms_kimage *k, struct ms_err *err);

#endif
