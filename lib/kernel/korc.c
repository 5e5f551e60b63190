// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The core kernel's ORC tables (x86-64, CONFIG_UNWINDER_ORC): from the
 * kernel image's .orc_unwind_ip, .orc_unwind and .orc_header sections,
 * or from memory between the symbols the linker script puts around them
 * (include/asm-generic/vmlinux.lds.h, ORC_UNWIND_TABLE). The kernel sorts
 * nothing at boot since f14bf6a350df (5.6): the image's tables are what
 * runs, moved by the KASLR offset.
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kmem-int.h"

int ms_kimage_orc(const struct ms_kimage *k, const char *release,
		  int64_t offset, struct ms_orc **ret, struct ms_err *err)
{
	const void *ips, *ents, *hdr = NULL;
	size_t ips_len, ents_len, hdr_len = 0;
	uint64_t ips_addr, a;
	int ver, r;

	if (ms_kimage_elf_machine(k) != EM_X86_64)
		return ms_err_set(err, ENOENT,
				  "%s: no ORC tables: only x86-64 kernels have them",
				  ms_kimage_path(k));
	if (ms_kimage_section(k, ".orc_unwind_ip", &ips_addr, &ips,
			      &ips_len) ||
	    ms_kimage_section(k, ".orc_unwind", &a, &ents, &ents_len))
		return ms_err_set(
			err, ENOENT,
			"%s: no .orc_unwind sections: a kernel built without CONFIG_UNWINDER_ORC",
			ms_kimage_path(k));
	if (ms_kimage_section(k, ".orc_header", &a, &hdr, &hdr_len))
		hdr = NULL;
	r = ms_orc_version(hdr, hdr_len, release, ms_kimage_path(k), &ver,
			   err);
	if (!r)
		r = ms_orc_from_tables(ips, ips_len, ips_addr, ents, ents_len,
				       ver, ms_kimage_path(k), ret, err);
	if (!r)
		ms_orc_move(*ret, offset);
	return r;
}

/* The bytes between two symbols: __start_X .. __stop_X. */
static int read_between(const struct kern *k, const char *start,
			const char *stop, size_t max, void **buf,
			size_t *len, uint64_t *addr, struct ms_err *err)
{
	uint64_t a, b;
	int r = kern_sym(k, start, &a, err);

	if (!r)
		r = kern_sym(k, stop, &b, err);
	if (r)
		return r;
	if (b < a || b - a > max)
		return ms_err_kind(err, MS_E_INPUT, EBADMSG,
				   "%s: %s..%s is 0x%" PRIx64 "..0x%" PRIx64
				   ": not a table of at most %zu bytes",
				   k->origin, start, stop, a, b, max);
	*addr = a;
	*len = (size_t)(b - a);
	return kern_read_array(k, a, *len, 1, max, start, buf, err);
}

int kern_read_orc(const struct kern *k, struct ms_orc **ret,
		  struct ms_err *err)
{
	void *ips = NULL, *ents = NULL, *hdr = NULL;
	size_t ips_len, ents_len, hdr_len = 0;
	uint64_t ips_addr, a;
	int ver, r;

	if (k->img)
		return ms_kimage_orc(k->img, k->release, k->offset, ret, err);
	if (k->elf_machine != EM_X86_64)
		return ms_err_set(err, ENOENT,
				  "%s: no ORC tables: only x86-64 kernels have them",
				  k->origin);
	r = read_between(k, "__start_orc_unwind_ip", "__stop_orc_unwind_ip",
			 4 * (size_t)MS_ORC_MAX_ENTRIES, &ips, &ips_len,
			 &ips_addr, err);
	if (!r)
		r = read_between(k, "__start_orc_unwind", "__stop_orc_unwind",
				 MS_ORC_ENTRY_SIZE * (size_t)MS_ORC_MAX_ENTRIES,
				 &ents, &ents_len, &a, err);
	/* 6.4 and later: the format's hash between these (b9f174c811e3). */
	if (!r && read_between(k, "__start_orc_header", "__stop_orc_header",
			       64, &hdr, &hdr_len, &a, err) == -ENOENT)
		hdr = NULL;
	if (!r)
		r = ms_orc_version(hdr, hdr_len, k->release, k->origin, &ver,
				   err);
	if (!r)
		r = ms_orc_from_tables(ips, ips_len, ips_addr, ents, ents_len,
				       ver, k->origin, ret, err);
	free(ips);
	free(ents);
	free(hdr);
	return r;
}
