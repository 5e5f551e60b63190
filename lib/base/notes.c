// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ELF notes in a buffer: a module's or the kernel's notes from sysfs,
 * target memory or a file, in the byte order of the machine they are
 * from. libelf's gelf_getnote() needs an Elf_Scn, which sysfs and
 * memory are not; so every reader of notes reads them here.
 */
#include <errno.h>
#include <string.h>

#include "base.h"

#define NT_GNU_BUILD_ID_ 3 /* <elf.h>'s NT_GNU_BUILD_ID, without libelf */

void ms_notes_init(struct ms_notes *it, const void *p, size_t len,
		   bool big_endian)
{
	*it = (struct ms_notes){ p, len, 0, big_endian };
}

static uint32_t word(const struct ms_notes *it, size_t off)
{
	const uint8_t *p = it->p + off;

	return it->big_endian ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
					(uint32_t)p[2] << 8 | p[3] :
				(uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
					(uint32_t)p[1] << 8 | p[0];
}

/*
 * Name and desc are each padded to 4 bytes, in ELFCLASS64 as in 32 (the
 * gABI's 8 aside, what every Linux note does: include/linux/elfnote.h's
 * ELFNOTE_START and ELFNOTE_END, .balign 4). Sizes are added in 64 bits,
 * so a namesz near 4 GiB cannot wrap into a small one.
 */
static uint64_t pad4(uint32_t n)
{
	return ((uint64_t)n + 3) & ~(uint64_t)3;
}

int ms_notes_next(struct ms_notes *it, struct ms_note *ret)
{
	size_t left = it->len - it->off, at = it->off;
	uint32_t namesz, descsz;
	uint64_t desc;

	if (!left)
		return 0;
	if (left < 12)
		goto bad;
	namesz = word(it, at);
	descsz = word(it, at + 4);
	if (pad4(namesz) > left - 12)
		goto bad;
	desc = 12 + pad4(namesz);
	if (descsz > left - desc)
		goto bad;
	*ret = (struct ms_note){ .type = word(it, at + 8),
				 .namesz = namesz,
				 .descsz = descsz,
				 .name = (const char *)it->p + at + 12,
				 .desc = it->p + at + desc,
				 .desc_off = at + desc };
	/* The last note's padding may be cut off by the buffer's end. */
	it->off = pad4(descsz) > left - desc ? it->len :
					       at + desc + pad4(descsz);
	return 1;
bad:
	it->off = it->len;
	return -EBADMSG;
}

bool ms_note_is_build_id(const struct ms_note *n)
{
	return n->type == NT_GNU_BUILD_ID_ && n->namesz == 4 &&
	       !memcmp(n->name, "GNU", 4) && n->descsz > 0 &&
	       n->descsz <= MS_BUILD_ID_MAX;
}

int ms_notes_build_id(const void *notes, size_t len, bool big_endian,
		      char **ret)
{
	struct ms_notes it;
	struct ms_note n;

	*ret = NULL;
	ms_notes_init(&it, notes, len, big_endian);
	while (ms_notes_next(&it, &n) > 0)
		if (ms_note_is_build_id(&n))
			return (*ret = ms_hex_dup(n.desc, n.descsz)) ? 0 :
								       -ENOMEM;
	return 0;
}
