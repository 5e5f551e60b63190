// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Bytes modsect writes: a growing buffer in one byte order whose first
 * failed write is remembered (the DWARF, CFI and ELF writers check once,
 * at the end, instead of after every byte), LEB128, and a string table
 * that keeps each string once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"

/* Room for n more bytes, or oom set (and kept: every later write fails). */
static bool room(struct ms_bytes *b, size_t n)
{
	size_t need, cap;
	uint8_t *p;

	if (b->oom)
		return false;
	if (n <= b->cap - b->len)
		return true;
	if (n > SIZE_MAX / 2 - b->len || (b->max && b->len + n > b->max)) {
		b->oom = true;
		return false;
	}
	need = b->len + n;
	for (cap = b->cap ? b->cap : 4096; cap < need; cap *= 2)
		;
	if (b->max && cap > b->max)
		cap = b->max;
	p = realloc(b->buf, cap);
	if (!p) {
		b->oom = true;
		return false;
	}
	b->buf = p;
	b->cap = cap;
	return true;
}

void ms_bytes_put(struct ms_bytes *b, const void *p, size_t n)
{
	if (n && room(b, n)) {
		memcpy(b->buf + b->len, p, n);
		b->len += n;
	}
}

void ms_bytes_put8(struct ms_bytes *b, uint8_t v)
{
	if (room(b, 1))
		b->buf[b->len++] = v;
}

void ms_bytes_patch(struct ms_bytes *b, size_t pos, uint64_t v, int size)
{
	if (b->oom)
		return;
	/* Over bytes not written yet is the writer's bug: fail it all. */
	if (size < 1 || size > 8 || pos > b->len ||
	    (size_t)size > b->len - pos) {
		b->oom = true;
		return;
	}
	for (int i = 0; i < size; i++) {
		int shift = 8 * (b->big_endian ? size - 1 - i : i);

		b->buf[pos + (size_t)i] = (uint8_t)(v >> shift);
	}
}

void ms_bytes_uint(struct ms_bytes *b, uint64_t v, int size)
{
	if (size < 1 || size > 8) {
		b->oom = true;
		return;
	}
	if (room(b, (size_t)size)) {
		b->len += (size_t)size;
		ms_bytes_patch(b, b->len - (size_t)size, v, size);
	}
}

void ms_bytes_put16(struct ms_bytes *b, uint16_t v)
{
	ms_bytes_uint(b, v, 2);
}

void ms_bytes_put32(struct ms_bytes *b, uint32_t v)
{
	ms_bytes_uint(b, v, 4);
}

void ms_bytes_put64(struct ms_bytes *b, uint64_t v)
{
	ms_bytes_uint(b, v, 8);
}

size_t ms_uleb(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	do {
		p[n] = v & 0x7f;
		v >>= 7;
		p[n++] |= v ? 0x80 : 0;
	} while (v);
	return n;
}

size_t ms_sleb(uint8_t *p, int64_t v)
{
	size_t n = 0;
	bool more;

	do {
		uint8_t byte = (uint8_t)(v & 0x7f);

		/* v >> 7 rounded toward minus infinity, whatever >> does */
		v = v < 0 ? ~(~v >> 7) : v >> 7;
		more = !((v == 0 && !(byte & 0x40)) ||
			 (v == -1 && (byte & 0x40)));
		p[n++] = byte | (more ? 0x80 : 0);
	} while (more);
	return n;
}

void ms_bytes_uleb(struct ms_bytes *b, uint64_t v)
{
	uint8_t tmp[MS_LEB_MAX];

	ms_bytes_put(b, tmp, ms_uleb(tmp, v));
}

void ms_bytes_sleb(struct ms_bytes *b, int64_t v)
{
	uint8_t tmp[MS_LEB_MAX];

	ms_bytes_put(b, tmp, ms_sleb(tmp, v));
}

void ms_bytes_free(struct ms_bytes *b)
{
	free(b->buf);
	memset(b, 0, sizeof(*b));
}

/* FNV-1a */
static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static bool rehash(struct ms_strtab *t)
{
	size_t n = t->nslot ? t->nslot * 2 : 64;
	uint32_t *slot;

	if (n > SIZE_MAX / sizeof(*slot) || !(slot = calloc(n, sizeof(*slot))))
		return false;
	for (size_t i = 0; i < t->nslot; i++) {
		size_t j;

		if (!t->slot[i])
			continue;
		j = hash((char *)t->b.buf + t->slot[i] - 1) & (n - 1);
		while (slot[j])
			j = (j + 1) & (n - 1);
		slot[j] = t->slot[i];
	}
	free(t->slot);
	t->slot = slot;
	t->nslot = n;
	return true;
}

/* The table's first byte: offset 0 is the empty string, as ELF wants. */
static bool start(struct ms_strtab *t)
{
	if (!t->b.len)
		ms_bytes_put8(&t->b, 0);
	return !t->b.oom;
}

int ms_strtab_add(struct ms_strtab *t, const char *s, uint32_t *off_ret)
{
	size_t j, len = strlen(s) + 1;

	*off_ret = 0;
	if (!start(t))
		return -ENOMEM;
	if (!*s)
		return 0;
	if ((t->nused + 1) * 2 > t->nslot && !rehash(t)) {
		t->b.oom = true;
		return -ENOMEM;
	}
	j = hash(s) & (t->nslot - 1);
	for (; t->slot[j]; j = (j + 1) & (t->nslot - 1))
		if (!strcmp((char *)t->b.buf + t->slot[j] - 1, s)) {
			*off_ret = t->slot[j] - 1;
			return 0;
		}
	/* Offsets are 32-bit: sh_name, st_name, DW_FORM_strp in DWARF32. */
	if (len > UINT32_MAX - 1 - t->b.len) {
		t->b.oom = true;
		return -ENOMEM;
	}
	ms_bytes_put(&t->b, s, len);
	if (t->b.oom)
		return -ENOMEM;
	t->slot[j] = (uint32_t)(t->b.len - len) + 1;
	t->nused++;
	*off_ret = t->slot[j] - 1;
	return 0;
}

void ms_strtab_free(struct ms_strtab *t)
{
	ms_bytes_free(&t->b);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}
