// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * From a kernel image file to the kernel itself: an x86 bzImage's
 * payload, an arm64 EFI zboot image's payload, or a compressed file,
 * decompressed to the vmlinux ELF (x86: vmlinux.bin, the vmlinux minus
 * symbols, with the KASLR relocations appended) or a raw arm64 Image.
 */
#include <errno.h>
#include <lz4.h>
#include <stdlib.h>
#include <string.h>

#include "kimage-int.h"

/* ms_decompress's bound too: no kernel comes near it. */
#define MAX_OUT ((size_t)1 << 30)
/* lz4 -l: the legacy frame's blocks are 8 MiB (lz4's LEGACY_BLOCKSIZE) */
#define LZ4_LEGACY_MAGIC 0x184c2102u
#define LZ4_LEGACY_BLOCK (8u << 20)

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static bool is_elf(const uint8_t *p, size_t len)
{
	return len >= 64 && memcmp(p, "\177ELF", 4) == 0;
}

bool ms_kunpack_is_arm64(const uint8_t *p, size_t len)
{
	/* Documentation/arch/arm64/booting.rst: the 64-byte header */
	return len >= 64 && memcmp(p + 0x38, "ARM\x64", 4) == 0;
}

static bool is_bzimage(const uint8_t *p, size_t len)
{
	return len >= 0x250 && memcmp(p + 0x202, "HdrS", 4) == 0;
}

/* arm64 EFI zboot (v6.1, drivers/firmware/efi/libstub/zboot-header.S) */
static bool is_zboot(const uint8_t *p, size_t len)
{
	return len >= 64 && memcmp(p, "MZ\0\0zimg", 8) == 0;
}

static int grow(uint8_t **out, size_t *cap, size_t need, struct ms_err *err)
{
	size_t ncap = *cap ? 2 * *cap : 4 * (size_t)LZ4_LEGACY_BLOCK;
	uint8_t *np;

	if (need <= *cap)
		return 0;
	if (ncap > MAX_OUT + LZ4_LEGACY_BLOCK)
		return ms_err_set(
			err, EFBIG,
			"lz4 data decompresses to more than %zu bytes",
			MAX_OUT);
	if (!(np = realloc(*out, ncap)))
		return ms_err_set(err, ENOMEM, "lz4: out of memory");
	*out = np;
	*cap = ncap;
	return 0;
}

/*
 * The legacy frame, as the kernel writes it (lz4 -l): the magic, then
 * blocks of a little-endian compressed size and the block; the magic
 * again starts another frame (lib/decompress_unlz4.c does the same).
 */
static int unlz4_legacy(const uint8_t *p, size_t len, uint8_t **out_ret,
			size_t *outlen_ret, struct ms_err *err)
{
	size_t off = 4, olen = 0, cap = 0;
	uint8_t *out = NULL;
	int r = 0;

	while (off < len && !r) {
		uint32_t c;
		int n;

		if (len - off < 4) {
			r = ms_err_set(err, EINVAL, "lz4 data is truncated");
			break;
		}
		c = le32(p + off);
		off += 4;
		if (c == LZ4_LEGACY_MAGIC)
			continue;
		if (c > len - off) {
			r = ms_err_set(err, EINVAL, "lz4 data is truncated");
			break;
		}
		if (c > (uint32_t)LZ4_compressBound(LZ4_LEGACY_BLOCK)) {
			r = ms_err_set(err, EINVAL, "lz4 data is corrupt");
			break;
		}
		if ((r = grow(&out, &cap, olen + LZ4_LEGACY_BLOCK, err)))
			break;
		n = LZ4_decompress_safe((const char *)p + off,
					(char *)out + olen, (int)c,
					LZ4_LEGACY_BLOCK);
		if (n < 0)
			r = ms_err_set(err, EINVAL, "lz4 data is corrupt");
		else
			olen += (size_t)n;
		off += c;
	}
	if (r) {
		free(out);
		return r;
	}
	*out_ret = out;
	*outlen_ret = olen;
	return 0;
}

/*
 * Decompresses by magic. The kernel's own formats: gzip, xz, zstd, lz4
 * (legacy frame), and bzip2, lzma, lzo, which Debian does not use.
 * *kind_ret NULL: not compressed data we know.
 */
static int decompress(const uint8_t *p, size_t len, uint8_t **out_ret,
		      size_t *outlen_ret, const char **kind_ret,
		      struct ms_err *err)
{
	static const struct {
		const char *magic, *name;
		size_t n;
	} other[] = {
		{ "BZh", "bzip2", 3 },
		{ "\x5d\0\0", "lzma", 3 },
		{ "\x89LZO", "lzo", 4 },
	};
	void *out = NULL;
	int r;

	if (len >= 4 && le32(p) == LZ4_LEGACY_MAGIC) {
		*kind_ret = "lz4";
		return unlz4_legacy(p, len, out_ret, outlen_ret, err);
	}
	r = ms_decompress(p, len, &out, outlen_ret, kind_ret, err);
	if (r || *kind_ret) {
		*out_ret = out;
		return r;
	}
	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++)
		if (len >= other[i].n && !memcmp(p, other[i].magic, other[i].n))
			return ms_err_set(
				err, ENOTSUP,
				"%s-compressed kernels are not supported (gzip, xz, zstd and lz4 are)",
				other[i].name);
	return 0;
}

/*
 * Documentation/arch/x86/boot.rst: setup_sects at 0x1f1 (0 means 4),
 * "HdrS" at 0x202, the protocol version at 0x206; payload_offset (from
 * the protected-mode code, after the setup sectors) and payload_length
 * at 0x248 and 0x24c since protocol 2.08. The build appends the
 * decompressed size as 4 little-endian bytes to the compressed data
 * (scripts/Makefile.lib size_append), inside payload_length.
 */
static int bzimage_payload(const uint8_t *p, size_t len, const char *path,
			   const uint8_t **pay_ret, size_t *plen_ret,
			   uint32_t *size_ret, struct ms_err *err)
{
	unsigned int ver = p[0x206] | p[0x207] << 8;
	size_t sects = p[0x1f1] ? p[0x1f1] : 4;
	uint64_t off = (sects + 1) * 512 + (uint64_t)le32(p + 0x248);
	uint32_t plen = le32(p + 0x24c);

	if (ver < 0x208)
		return ms_err_set(
			err, EINVAL,
			"%s: bzImage boot protocol %u.%02u has no payload fields (2.08 and later have)",
			path, ver >> 8, ver & 0xff);
	if (off > len || plen > len - off || plen < 8)
		return ms_err_set(
			err, EINVAL,
			"%s: bzImage payload (offset %llu, %u bytes) is not inside the file (%zu bytes)",
			path, (unsigned long long)off, plen, len);
	*pay_ret = p + off;
	*plen_ret = plen - 4;
	*size_ret = le32(p + off + plen - 4);
	return 0;
}

/* The arm64 zboot header: payload offset at 8, its size at 12. */
static int zboot_payload(const uint8_t *p, size_t len, const char *path,
			 const uint8_t **pay_ret, size_t *plen_ret,
			 struct ms_err *err)
{
	uint32_t off = le32(p + 8), plen = le32(p + 12);

	if (off > len || plen > len - off)
		return ms_err_set(
			err, EINVAL,
			"%s: zboot payload (offset %u, %u bytes) is not inside the file (%zu bytes)",
			path, off, plen, len);
	*pay_ret = p + off;
	*plen_ret = plen;
	return 0;
}

/* Checks what came out of the decompressor and names the kind. */
static int unpacked(const char *path, const char *wrap, const char *comp,
		    uint8_t *out, size_t olen, uint32_t want, char *kind,
		    size_t kind_size, struct ms_err *err)
{
	bool bz = wrap && !strcmp(wrap, "bzImage");
	bool elf = is_elf(out, olen);

	if (!elf && (bz || !ms_kunpack_is_arm64(out, olen)))
		return ms_err_set(err, EINVAL,
				  "%s: the %s%s%s data is not a vmlinux ELF%s",
				  path, wrap ? wrap : "", wrap ? " " : "", comp,
				  bz ? "" : " or arm64 Image");
	/* bzImage: the appended size catches a fake or damaged payload */
	if (bz && want != olen)
		return ms_err_set(
			err, EINVAL,
			"%s: bzImage payload decompresses to %zu bytes, its trailer says %u",
			path, olen, want);
	snprintf(kind, kind_size, "%s+%s",
		 wrap ? wrap :
		 elf  ? "vmlinux" :
			"Image",
		 comp);
	return 0;
}

int ms_kunpack(const uint8_t *buf, size_t len, const char *path,
	       uint8_t **out_ret, size_t *outlen_ret, char *kind,
	       size_t kind_size, struct ms_err *err)
{
	const uint8_t *pay = buf;
	size_t plen = len, olen = 0;
	const char *wrap = NULL, *comp = NULL;
	uint32_t want = 0;
	uint8_t *out = NULL, *shrunk;
	int r = 0;

	*out_ret = NULL;
	if (is_elf(buf, len) || ms_kunpack_is_arm64(buf, len)) {
		snprintf(kind, kind_size, "%s",
			 is_elf(buf, len) ? "vmlinux" : "Image");
		*outlen_ret = len;
		return 0;
	}
	if (is_bzimage(buf, len)) {
		wrap = "bzImage";
		r = bzimage_payload(buf, len, path, &pay, &plen, &want, err);
	} else if (is_zboot(buf, len)) {
		wrap = "zboot";
		r = zboot_payload(buf, len, path, &pay, &plen, err);
	}
	if (r)
		return r;
	r = decompress(pay, plen, &out, &olen, &comp, err);
	if (r && wrap)
		return ms_err_prefix(err, "%s: %s payload", path, wrap);
	if (r)
		return ms_err_prefix(err, "%s", path);
	if (!comp && wrap)
		return ms_err_set(
			err, EINVAL,
			"%s: the %s payload is not compressed data we know",
			path, wrap);
	if (!comp)
		return ms_err_set(
			err, EINVAL,
			"%s: not a kernel image (no ELF header, bzImage setup header, arm64 Image header or compressed data)",
			path);
	r = unpacked(path, wrap, comp, out, olen, want, kind, kind_size, err);
	if (r) {
		free(out);
		return r;
	}
	/* the buffer grew by doubling: give back what the kernel does not use */
	if (olen && (shrunk = realloc(out, olen)))
		out = shrunk;
	*out_ret = out;
	*outlen_ret = olen;
	return 0;
}
