// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel's ORC tables (arch/x86/include/asm/orc_types.h), read from
 * bytes nobody vouches for: sizes checked against each other, every entry
 * checked against what arch/x86/kernel/unwind_orc.c accepts, the result
 * sorted and at one entry per address.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unwind.h"

/*
 * Known .orc_header hashes: scripts/orc_hash.sh (the SHA-1 of orc_types.h's
 * ORC_REG_* and ORC_TYPE_* lines and struct orc_entry; drgn's
 * libdrgn/orc_info.c lists the same). 7.1's (1735858caa4b, "objtool/x86:
 * Reorder ORC register numbering") stands until the header changes again.
 */
static const uint8_t hash_7_1[MS_ORC_HEADER_SIZE] = {
	0x13, 0x7c, 0x36, 0xad, 0x76, 0x27, 0xc4, 0xdd, 0x55, 0x93,
	0x21, 0x76, 0xbb, 0x0e, 0xcd, 0xbd, 0x50, 0x41, 0xfc, 0x82,
};
static const uint8_t hash_6_4[MS_ORC_HEADER_SIZE] = {
	0xfe, 0x5d, 0x32, 0xbf, 0x58, 0x1b, 0xd6, 0x3b, 0x2c, 0xa9,
	0xa5, 0xc6, 0x5b, 0xa5, 0xa6, 0x25, 0xea, 0xb3, 0xfe, 0x24,
};
static const uint8_t hash_6_3[MS_ORC_HEADER_SIZE] = {
	0xdb, 0x84, 0xae, 0xd4, 0x10, 0x3b, 0x31, 0xdd, 0x51, 0xe0,
	0x17, 0xf8, 0xf7, 0x97, 0x83, 0xca, 0x98, 0x5c, 0x2c, 0x51,
};

/*
 * RHEL 9 backported 6.4's format (fb799447ae29) but not the .orc_header
 * that names it (b9f174c811e3), from 5.14.0-517.el9 (RHEL 9.6) on: its
 * SRPM's orc_types.h hashes as 6.4's (drgn issue #578). drgn's
 * 8660ee186377 ("libdrgn: orc_info: work around ORC backports in RHEL
 * 9.6") tells them by ".el9" and the build number, as here; 9.5's
 * 5.14.0-503 is still the first format.
 */
static bool rhel9_v3(const char *release)
{
	const char *dash = strchr(release, '-');

	return strstr(release, ".el9") && dash &&
	       strtoul(dash + 1, NULL, 10) >= 517;
}

static int from_release(const char *release, const char *where, int *ret,
			struct ms_err *err)
{
	unsigned int major = 0, minor = 0;

	if (!release || sscanf(release, "%u.%u", &major, &minor) != 2)
		return ms_err_kind(
			err, MS_E_INPUT, EINVAL,
			"%s: ORC tables without an .orc_header, and the kernel release is %s: their format cannot be told",
			where, release ? release : "unknown");
	if (major == 5 && minor == 14 && rhel9_v3(release)) {
		*ret = MS_ORC_V3;
		return 0;
	}
	if (major > 7 || (major == 7 && minor >= 1))
		/* 7.1 renumbered the registers; only its hash can say so. */
		return ms_err_kind(
			err, MS_E_REFUSED, ENOTSUP,
			"%s: ORC tables of Linux %u.%u without an .orc_header: modsect knows their format only by its hash",
			where, major, minor);
	*ret = major > 6 || (major == 6 && minor >= 4) ? MS_ORC_V3 :
	       major == 6 && minor == 3		    ? MS_ORC_V2 :
							      MS_ORC_V1;
	return 0;
}

int ms_orc_version(const void *hdr, size_t hdr_len, const char *release,
		   const char *where, int *ret, struct ms_err *err)
{
	static const struct {
		const uint8_t *hash;
		int version;
	} known[] = {
		{ hash_7_1, MS_ORC_V4 },
		{ hash_6_4, MS_ORC_V3 },
		{ hash_6_3, MS_ORC_V2 },
	};
	char hex[2 * MS_ORC_HEADER_SIZE + 1];

	if (!hdr)
		return from_release(release, where, ret, err);
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (hdr_len == MS_ORC_HEADER_SIZE &&
		    !memcmp(hdr, known[i].hash, hdr_len)) {
			*ret = known[i].version;
			return 0;
		}
	ms_hex_encode(hdr, hdr_len < MS_ORC_HEADER_SIZE ? hdr_len :
							   MS_ORC_HEADER_SIZE,
		      hex);
	return ms_err_kind(
		err, MS_E_REFUSED, ENOTSUP,
		"%s: .orc_header %s (%zu bytes) is not a format modsect knows (6.3's, 6.4's or 7.1's): not guessing at its entries",
		where, hex, hdr_len);
}

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

/* Type and signal from the flags of each format, in 6.4's numbering. */
static bool decode_type(uint16_t f, int version, struct ms_orc_entry *e)
{
	unsigned int t;
	bool end;

	if (version >= MS_ORC_V3) {
		t = f >> 8 & 7;
		e->signal = f >> 11 & 1;
		e->type = (uint8_t)t;
		return t <= MS_ORC_REGS_PARTIAL;
	}
	/* Before 6.4: no sp_reg means the end (end bit) or nothing known. */
	t = f >> 8 & 3;
	end = version == MS_ORC_V2 ? f >> 11 & 1 : f >> 10 & 1;
	e->signal = version == MS_ORC_V2 ? f >> 10 & 1 : t != 0;
	if (e->sp_reg == MS_ORC_REG_UNDEFINED) {
		e->type = end ? MS_ORC_END_OF_STACK : MS_ORC_UNDEFINED;
		e->signal = false;
		return true;
	}
	e->type = (uint8_t)(MS_ORC_CALL + t);
	return t <= 2;
}

/*
 * 7.1's register numbers (1735858caa4b) in 6.4's; 11 to 15 name nothing
 * in either and stay as they are, to be refused.
 */
static uint8_t reg_from_7_1(unsigned int r)
{
	static const uint8_t m[] = {
		[0] = MS_ORC_REG_UNDEFINED,    [1] = MS_ORC_REG_AX,
		[2] = MS_ORC_REG_DX,	       [3] = MS_ORC_REG_SP,
		[4] = MS_ORC_REG_BP,	       [5] = MS_ORC_REG_DI,
		[6] = MS_ORC_REG_R10,	       [7] = MS_ORC_REG_R13,
		[8] = MS_ORC_REG_PREV_SP,      [9] = MS_ORC_REG_SP_INDIRECT,
		[10] = MS_ORC_REG_BP_INDIRECT,
	};

	return r < sizeof(m) ? m[r] : (uint8_t)r;
}

/*
 * What unwind_next_frame() takes as a base for SP and for BP (7.1's AX
 * too: rax, DWARF register 0 in cfi.c, like DX and DI from full regs).
 */
static bool regs_ok(const struct ms_orc_entry *e)
{
	switch (e->sp_reg) {
	case MS_ORC_REG_SP:
	case MS_ORC_REG_BP:
	case MS_ORC_REG_SP_INDIRECT:
	case MS_ORC_REG_BP_INDIRECT:
	case MS_ORC_REG_R10:
	case MS_ORC_REG_R13:
	case MS_ORC_REG_DI:
	case MS_ORC_REG_DX:
	case MS_ORC_REG_AX:
		break;
	default:
		return false;
	}
	return e->bp_reg == MS_ORC_REG_UNDEFINED ||
	       e->bp_reg == MS_ORC_REG_PREV_SP || e->bp_reg == MS_ORC_REG_BP;
}

/* One raw entry; false if the kernel would refuse it. */
static bool decode(const uint8_t *p, int version, struct ms_orc_entry *e)
{
	uint16_t f = le16(p + 4);
	bool ok;

	e->sp_offset = (int16_t)le16(p);
	e->bp_offset = (int16_t)le16(p + 2);
	e->sp_reg = f & 0xf;
	e->bp_reg = f >> 4 & 0xf;
	if (version == MS_ORC_V4) {
		e->sp_reg = reg_from_7_1(e->sp_reg);
		e->bp_reg = reg_from_7_1(e->bp_reg);
	}
	ok = decode_type(f, version, e);
	if (ok && e->type >= MS_ORC_CALL)
		ok = regs_ok(e);
	if (!ok) {
		e->type = MS_ORC_UNDEFINED;
		e->signal = false;
	}
	return ok;
}

/* Sorted by address; of entries at one address, the first real one. */
static int sort_unique(struct ms_orc *o, struct ms_err *err)
{
	size_t w = 0;

	if (o->n > 1 && !ms_sorted(o->e, o->n, sizeof(*o->e), ms_cmp_u64)) {
		void *tmp = malloc(o->n * sizeof(*o->e));

		if (!tmp)
			return ms_err_errno(err, ENOMEM, "ORC");
		ms_radix_sort(o->e, tmp, o->n, sizeof(*o->e));
		free(tmp);
	}
	for (size_t i = 0; i < o->n; i++) {
		if (w && o->e[w - 1].ip == o->e[i].ip) {
			if (o->e[w - 1].type == MS_ORC_UNDEFINED)
				o->e[w - 1] = o->e[i];
			continue;
		}
		o->e[w++] = o->e[i];
	}
	o->n = w;
	for (size_t i = 0; i < o->n; i++)
		o->e[i].end = i + 1 < o->n ? o->e[i + 1].ip : o->e[i].ip + 1;
	return 0;
}

int ms_orc_from_ips(const uint64_t *ip, const void *entries, size_t n,
		    int version, const char *where, struct ms_orc **ret,
		    struct ms_err *err)
{
	const uint8_t *raw = entries;
	struct ms_orc *o;
	int r;

	if (version < MS_ORC_V1 || version > MS_ORC_V4)
		return ms_err_set(err, EINVAL, "%s: ORC format %d", where,
				  version);
	if (n > MS_ORC_MAX_ENTRIES)
		return ms_err_kind(err, MS_E_INPUT, E2BIG,
				   "%s: %zu ORC entries, more than the %u any kernel has",
				   where, n, MS_ORC_MAX_ENTRIES);
	o = calloc(1, sizeof(*o));
	if (!o || !(o->e = calloc(n ? n : 1, sizeof(*o->e)))) {
		free(o);
		return ms_err_errno(err, ENOMEM, "%s: ORC", where);
	}
	o->version = version;
	for (size_t i = 0; i < n; i++) {
		struct ms_orc_entry *e = &o->e[o->n];

		if (ip[i] == UINT64_MAX)
			continue;
		e->ip = ip[i];
		o->nbad += !decode(raw + i * MS_ORC_ENTRY_SIZE, version, e);
		o->n++;
	}
	r = sort_unique(o, err);
	if (r) {
		ms_orc_free(o);
		return r;
	}
	*ret = o;
	return 0;
}

int ms_orc_from_tables(const void *ips, size_t ips_len, uint64_t ip_base,
		       const void *entries, size_t entries_len, int version,
		       const char *where, struct ms_orc **ret,
		       struct ms_err *err)
{
	const uint8_t *p = ips;
	size_t n = ips_len / 4;
	uint64_t *ip;
	int r;

	if (ips_len % 4 || entries_len % MS_ORC_ENTRY_SIZE ||
	    entries_len / MS_ORC_ENTRY_SIZE != n)
		return ms_err_kind(
			err, MS_E_INPUT, EBADMSG,
			"%s: ORC tables of %zu bytes of addresses and %zu bytes of entries do not agree (4 and %d bytes each)",
			where, ips_len, entries_len, MS_ORC_ENTRY_SIZE);
	if (n > MS_ORC_MAX_ENTRIES)
		return ms_err_kind(err, MS_E_INPUT, E2BIG,
				   "%s: %zu ORC entries, more than the %u any kernel has",
				   where, n, MS_ORC_MAX_ENTRIES);
	ip = malloc((n ? n : 1) * sizeof(*ip));
	if (!ip)
		return ms_err_errno(err, ENOMEM, "%s: ORC", where);
	for (size_t i = 0; i < n; i++) {
		int32_t off = (int32_t)((uint32_t)p[4 * i] |
					(uint32_t)p[4 * i + 1] << 8 |
					(uint32_t)p[4 * i + 2] << 16 |
					(uint32_t)p[4 * i + 3] << 24);

		/* As orc_ip(): the entry's own address plus its offset. */
		ip[i] = ip_base + 4 * (uint64_t)i + (uint64_t)(int64_t)off;
		if (ip[i] == UINT64_MAX)
			ip[i]--;
	}
	r = ms_orc_from_ips(ip, entries, n, version, where, ret, err);
	free(ip);
	return r;
}

void ms_orc_clip(struct ms_orc *orc, const uint64_t *lo, const uint64_t *hi,
		 size_t nranges)
{
	size_t w = 0;

	for (size_t i = 0; i < orc->n; i++) {
		struct ms_orc_entry e = orc->e[i];
		size_t k;

		for (k = 0; k < nranges; k++)
			if (e.ip >= lo[k] && e.ip < hi[k])
				break;
		if (k == nranges)
			continue;
		if (e.end > hi[k] || e.end <= e.ip)
			e.end = hi[k];
		orc->e[w++] = e;
	}
	orc->n = w;
}

void ms_orc_move(struct ms_orc *orc, int64_t delta)
{
	for (size_t i = 0; i < orc->n; i++) {
		orc->e[i].ip += (uint64_t)delta;
		orc->e[i].end += (uint64_t)delta;
	}
}

const struct ms_orc_entry *ms_orc_find(const struct ms_orc *orc, uint64_t ip)
{
	size_t i = MS_UPPER_BOUND(orc->e, orc->n, ip, ip);

	if (!i || ip >= orc->e[i - 1].end)
		return NULL;
	return &orc->e[i - 1];
}

void ms_orc_free(struct ms_orc *orc)
{
	if (!orc)
		return;
	free(orc->e);
	free(orc);
}
