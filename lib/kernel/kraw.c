// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A raw arm64 Image (Debian's arm64 vmlinuz; Image.gz elsewhere): the
 * kernel's bytes from _text on, a 64-byte header, and no sections. The
 * build-id note, the banner and BTF are found by scanning for their own
 * shapes, kallsyms by ms_ksymtab_find over the whole image.
 *
 * The link address is nowhere in the header. The arm64 kernel is linked
 * -pie with --no-apply-dynamic-relocs and relocates itself at boot, so
 * the pointer kallsyms_relative_base reads 0 in the file; its value and
 * its place are in the R_AARCH64_RELATIVE entry of .rela.dyn (also in
 * the image) that fills it in: r_offset is the place's link address, so
 * r_offset minus the place's offset in the image is the link address of
 * the image, _text (0xffff800008000000 on 6.1 with 48-bit VAs), and
 * r_addend is the real kallsyms_relative_base.
 */
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kimage-int.h"

#define R_AARCH64_RELATIVE_ 1027
/* KIMAGE_VADDR is at least 2 MiB aligned (128 MiB on 6.1) */
#define BASE_ALIGN (UINT64_C(2) << 20)

static uint64_t get(const struct ms_kimage *k, size_t off, unsigned int n)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < n; i++)
		v = v << 8 | k->data[off + (k->big_endian ? i : n - 1 - i)];
	return v;
}

/*
 * The link address of the image from the relocation of
 * kallsyms_relative_base (see above); 0 and *relbase_ret untouched if
 * there is none. Another pointer can happen to sit where the kallsyms
 * pointer would if the image were linked 2 MiB lower (Debian's
 * 6.1.0-50-arm64: places 0x...8d24540 and 0x...8f24540). KIMAGE_VADDR
 * is far more aligned than 2 MiB (6.1: 0xffff800008000000, 128 MiB), so
 * of the candidates the most aligned wins, then the one whose
 * kallsyms_relative_base (the lowest symbol) is nearest the start.
 */
static uint64_t link_base(const struct ms_kimage *k, size_t relbase_off,
			  uint64_t image_size, uint64_t *relbase_ret)
{
	uint64_t base = 0, relbase = 0;

	for (size_t p = 0; p + 24 <= k->size; p += 8) {
		uint64_t place, b, add;

		if (get(k, p + 8, 8) != R_AARCH64_RELATIVE_)
			continue;
		place = get(k, p, 8);
		b = place - relbase_off;
		add = get(k, p + 16, 8);
		if (place < relbase_off || b % BASE_ALIGN || add < b ||
		    add - b >= image_size || !b)
			continue;
		if (base && (__builtin_ctzll(b) < __builtin_ctzll(base) ||
			     (__builtin_ctzll(b) == __builtin_ctzll(base) &&
			      add - b >= relbase - base)))
			continue;
		base = b;
		relbase = add;
	}
	if (base)
		*relbase_ret = relbase;
	return base;
}

/* Is off inside an ELF embedded in the image (the vDSOs)? */
static bool in_embedded_elf(const struct ms_kimage *k, size_t off)
{
	size_t lo = off > (1u << 20) ? off - (1u << 20) : 0;

	for (size_t e = off & ~(size_t)4095;; e -= 4096) {
		const uint8_t *h = k->data + e;
		uint64_t shend, phend;

		if (e + 64 <= k->size && !memcmp(h, "\177ELF", 4) &&
		    (h[4] == ELFCLASS32 || h[4] == ELFCLASS64)) {
			bool c64 = h[4] == ELFCLASS64;
			struct ms_kimage t = { .data = (uint8_t *)h };

			t.big_endian = h[5] == ELFDATA2MSB;
			shend = get(&t, c64 ? 0x28 : 0x20, c64 ? 8 : 4) +
				get(&t, c64 ? 0x3c : 0x30, 2) *
					get(&t, c64 ? 0x3a : 0x2e, 2);
			phend = get(&t, c64 ? 0x20 : 0x1c, c64 ? 8 : 4) +
				get(&t, c64 ? 0x38 : 0x2c, 2) *
					get(&t, c64 ? 0x36 : 0x2a, 2);
			if (off - e < shend || off - e < phend)
				return true;
		}
		if (e < lo + 4096)
			return false;
	}
}

/* The kernel's own GNU build-id note, not one of a vDSO in the image. */
static void find_build_id(struct ms_kimage *k, uint64_t base)
{
	/* namesz 4, descsz 20 (SHA-1), type 3 (NT_GNU_BUILD_ID), "GNU" */
	uint8_t pat[16];
	const uint8_t *s = k->data, *end = k->data + k->size;

	memcpy(pat,
	       k->big_endian ? "\0\0\0\4\0\0\0\x14\0\0\0\3GNU" :
			       "\4\0\0\0\x14\0\0\0\3\0\0\0GNU",
	       sizeof(pat));
	while ((s = memmem(s, (size_t)(end - s), pat, sizeof(pat)))) {
		size_t off = (size_t)(s - k->data);

		if (off % 4 == 0 && end - s >= 36 && !in_embedded_elf(k, off) &&
		    kimage_note_build_id(k, s, 36, base + off))
			return;
		s++;
	}
}

/*
 * The BTF header (include/uapi/linux/btf.h): magic 0xeb9f, version 1,
 * hdr_len 24, then the type and string sections; kept if libbpf parses
 * it.
 */
static void find_btf(struct ms_kimage *k)
{
	const uint8_t le[] = { 0x9f, 0xeb, 1 }, be[] = { 0xeb, 0x9f, 1 };
	const uint8_t *s = k->data, *end = k->data + k->size;

	while ((s = memmem(s, (size_t)(end - s), k->big_endian ? be : le, 3))) {
		size_t off = (size_t)(s - k->data);
		uint64_t tend, send, total;
		struct btf *btf;

		if (end - s < 24 || get(k, off + 4, 4) != 24) {
			s++;
			continue;
		}
		tend = get(k, off + 8, 4) + get(k, off + 12, 4);
		send = get(k, off + 16, 4) + get(k, off + 20, 4);
		total = 24 + (tend > send ? tend : send);
		if (total <= (uint64_t)(end - s) && tend > 0) {
			btf = btf__new(s, (uint32_t)total);
			if (!libbpf_get_error(btf)) {
				btf__free(btf);
				k->btf = s;
				k->btf_len = total;
				return;
			}
		}
		s++;
	}
}

int kimage_raw_load(struct ms_kimage *k, struct ms_err *err)
{
	struct ms_ksymtab_info info;
	struct ms_err kerr = { 0 };
	uint64_t image_size, base, relbase = 0;
	int r;

	/* booting.rst: flags bit 0 is the kernel's endianness */
	k->big_endian = false;
	k->big_endian = get(k, 24, 8) & 1;
	k->machine = EM_AARCH64;
	k->elfclass = ELFCLASS64;
	image_size = get(k, 16, 8);
	if (image_size < k->size)
		image_size = k->size; /* 0 before v3.17 */
	r = ms_ksymtab_find_info(k->data, k->size, 0, 8, k->big_endian,
				 &k->ksyms, &info, &kerr);
	if (r)
		return ms_err_set(
			err, -r,
			"%s: raw arm64 Image: no kallsyms to find its link address from: %s",
			k->path, kerr.msg);
	if (info.relbase_off == SIZE_MAX ||
	    !(base = link_base(k, info.relbase_off, image_size, &relbase)))
		return ms_err_set(
			err, ENOENT,
			"%s: raw arm64 Image: no relocation of kallsyms_relative_base (at offset 0x%zx) gives its link address",
			k->path, info.relbase_off);
	/* unapplied: the offsets are relative to 0, not to relative_base */
	if (info.relbase == 0 && info.mode == MS_KSYM_RELATIVE)
		ms_ksymtab_relocate(k->ksyms, relbase);
	else if (info.relbase != relbase)
		return ms_err_set(
			err, EINVAL,
			"%s: raw arm64 Image: kallsyms_relative_base is 0x%" PRIx64
			" but its relocation says 0x%" PRIx64,
			k->path, info.relbase, relbase);
	k->start = base;
	k->end = base + image_size;
	if (kimage_add_seg(k, base, k->size, 0))
		return ms_err_set(err, ENOMEM, "out of memory");
	find_build_id(k, base);
	kimage_pick_banner(k, k->data, k->size, base);
	find_btf(k);
	return 0;
}
