// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What kimage.c (an ELF vmlinux) and kraw.c (a raw arm64 Image) both
 * look for in the kernel's bytes, and the segments both record: here, so
 * that each calls down into this and neither calls the other back.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kimage-int.h"

static const char banner_magic[] = "Linux version ";

int kimage_add_seg(struct ms_kimage *k, uint64_t addr, uint64_t size,
		   size_t off)
{
	if (ms_grow(&k->segs, k->nsegs, sizeof(*k->segs), 8))
		return -ENOMEM;
	k->segs[k->nsegs++] = (struct kimage_seg){ addr, size, off };
	return 0;
}

bool kimage_note_build_id(struct ms_kimage *k, const uint8_t *p, size_t len,
			  uint64_t addr)
{
	struct ms_notes it;
	struct ms_note n;

	ms_notes_init(&it, p, len, k->big_endian);
	while (ms_notes_next(&it, &n) > 0)
		if (ms_note_is_build_id(&n)) {
			ms_hex_encode(n.desc, n.descsz, k->build_id);
			k->build_id_addr = addr + n.desc_off;
			return true;
		}
	return false;
}

/*
 * linux_banner: "Linux version ...\n". Since v6.1 the image also keeps
 * init/version.c's weak first-link copy, "#" with no build number
 * (2df8220cc511 "kbuild: build init/built-in.a just once"); the strong
 * one from init/version-timestamp.c has "#<number>", so it wins.
 */
bool kimage_pick_banner(struct ms_kimage *k, const uint8_t *p, size_t len,
			uint64_t addr)
{
	const uint8_t *s = p, *end = p + len;
	bool best = false;

	while ((s = memmem(s, (size_t)(end - s), banner_magic,
			   sizeof(banner_magic) - 1))) {
		const uint8_t *z = memchr(
			s, 0,
			(size_t)(end - s) < 1024 ? (size_t)(end - s) : 1024);
		const uint8_t *h;
		bool ok = z && z > s && z[-1] == '\n', numbered;

		for (const uint8_t *c = s; ok && c < z - 1; c++)
			ok = *c >= 0x20 && *c < 0x7f;
		if (ok) {
			h = memchr(s, '#', (size_t)(z - s));
			numbered = h && h[1] >= '0' && h[1] <= '9';
			if (!k->banner || (numbered && !best)) {
				k->banner = (const char *)s;
				k->banner_addr = addr + (uint64_t)(s - p);
				best = numbered;
			}
			if (best)
				return true;
		}
		s++;
	}
	return k->banner != NULL;
}
