// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bytes: base/'s bytes (lib/base/bytes.c, notes.c) as text, for
 * t-bytes.sh to compare with what DWARF and ELF say they must be.
 *
 *   bytes leb      LEB128 of values at the edges of each byte count
 *   bytes buf      a buffer in each byte order; its failures, kept
 *   bytes strtab   a string table: offsets, each string once, failure
 *   bytes notes    notes in each byte order, malformed ones, build-ids
 *
 * Exit 0 with the text on stdout; 2 for a usage error.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modsect.h"

static void hex(const char *label, const uint8_t *p, size_t n)
{
	printf("%s", label);
	for (size_t i = 0; i < n; i++)
		printf(" %02x", p[i]);
	printf("\n");
}

static void leb(void)
{
	static const uint64_t u[] = { 0,	  1,	     2,		63,
				      64,	  127,	     128,	129,
				      12857,	  16383,     16384,	624485,
				      UINT32_MAX, INT64_MAX, UINT64_MAX };
	static const int64_t s[] = { 0,	       1,     -1,    2,	      -2,
				     63,       64,    -64,   -65,     127,
				     -127,     128,   -128,  129,     -129,
				     8191,     -8192, -8193, -123456, INT64_MAX,
				     INT64_MIN };
	uint8_t b[MS_LEB_MAX];
	char label[64];
	size_t n;

	for (size_t i = 0; i < sizeof(u) / sizeof(*u); i++) {
		snprintf(label, sizeof(label), "uleb %" PRIu64, u[i]);
		n = ms_uleb(b, u[i]);
		hex(label, b, n);
	}
	for (size_t i = 0; i < sizeof(s) / sizeof(*s); i++) {
		snprintf(label, sizeof(label), "sleb %" PRId64, s[i]);
		n = ms_sleb(b, s[i]);
		hex(label, b, n);
	}
}

static void words(struct ms_bytes *b)
{
	ms_bytes_put8(b, 0x01);
	ms_bytes_put16(b, 0x0203);
	ms_bytes_put32(b, 0x04050607);
	ms_bytes_put64(b, 0x08090a0b0c0d0e0f);
	ms_bytes_uint(b, 0x112233, 3);
	ms_bytes_patch(b, 1, 0xbeef, 2); /* over the put16 */
	ms_bytes_uleb(b, 300);
	ms_bytes_sleb(b, -300);
	ms_bytes_put(b, "ab", 2);
	ms_bytes_put(b, NULL, 0);
}

static void state(const char *label, const struct ms_bytes *b)
{
	printf("%s: len %zu oom %d\n", label, b->len, b->oom);
}

static void buf(void)
{
	struct ms_bytes le = { 0 }, be = { .big_endian = true };
	struct ms_bytes lim = { .max = 8 }, bad = { 0 };
	size_t sum = 0;

	words(&le);
	words(&be);
	hex("little", le.buf, le.len);
	hex("big", be.buf, be.len);
	state("little", &le);
	ms_bytes_free(&le);
	ms_bytes_free(&be);

	ms_bytes_put64(&lim, UINT64_MAX);
	state("max 8, 8 written", &lim);
	ms_bytes_put8(&lim, 1);
	state("then 1 more", &lim);
	ms_bytes_put(&lim, "", 0);
	ms_bytes_patch(&lim, 0, 0, 1);
	state("then nothing, a patch", &lim);
	ms_bytes_free(&lim);

	ms_bytes_put32(&bad, 0);
	ms_bytes_patch(&bad, 2, 0, 4);
	state("a patch past the end", &bad);
	ms_bytes_put8(&bad, 0);
	state("then a byte", &bad);
	ms_bytes_free(&bad);
	ms_bytes_uint(&bad, 0, 9);
	state("a word of 9 bytes", &bad);
	ms_bytes_free(&bad);

	/* Growth: a megabyte, a byte at a time, every byte where it was put. */
	for (size_t i = 0; i < (1u << 20); i++)
		ms_bytes_put8(&bad, (uint8_t)(i * 7));
	for (size_t i = 0; i < bad.len; i++)
		sum += bad.buf[i] == (uint8_t)(i * 7);
	printf("grown: len %zu right %zu oom %d\n", bad.len, sum, bad.oom);
	ms_bytes_free(&bad);
}

static void table(const struct ms_strtab *t)
{
	printf("table (%zu):", t->b.len);
	for (size_t i = 0; i < t->b.len; i++)
		printf(t->b.buf[i] ? "%c" : "\\0", t->b.buf[i]);
	printf("\n");
}

static void add(struct ms_strtab *t, const char *s)
{
	uint32_t off = 12345;
	int r = ms_strtab_add(t, s, &off);

	printf("add \"%s\": %d offset %" PRIu32 " oom %d\n", s, r, off,
	       t->b.oom);
}

static void strtab(void)
{
	static const char *const s[] = { "", "abc", "de", "abc", "", "c", "de" };
	struct ms_strtab t = { 0 }, lim = { .b.max = 16 };
	size_t same = 0, n = 20000;
	uint32_t *off = calloc(n, sizeof(*off)), o;
	char name[32];

	for (size_t i = 0; i < sizeof(s) / sizeof(*s); i++)
		add(&t, s[i]);
	table(&t);
	ms_strtab_free(&t);

	/* Many strings (the hash grows), each added again at its offset. */
	for (size_t i = 0; off && i < n; i++) {
		snprintf(name, sizeof(name), "sym_%zu", i);
		ms_strtab_add(&t, name, &off[i]);
	}
	for (size_t i = 0; off && i < n; i++) {
		snprintf(name, sizeof(name), "sym_%zu", i);
		same += !ms_strtab_add(&t, name, &o) && o == off[i] &&
			!strcmp((char *)t.b.buf + o, name);
	}
	printf("%zu strings: %zu found again at their offsets, len %zu oom %d\n",
	       n, same, t.b.len, t.b.oom);
	ms_strtab_free(&t);
	free(off);

	/* Out of room: the add fails, and every add after it. */
	add(&lim, "0123456789");
	add(&lim, "abcdef");
	add(&lim, "x");
	add(&lim, "0123456789");
	add(&lim, "");
	ms_strtab_free(&lim);
}

/* Notes as a writer would lay them out, in the given byte order. */
static size_t note(uint8_t *p, bool be, uint32_t namesz, uint32_t descsz,
		   uint32_t type, const char *name, const void *desc)
{
	uint32_t w[3] = { namesz, descsz, type };
	size_t n = 12;

	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 4; j++)
			p[4 * i + j] = (uint8_t)(w[i] >> 8 * (be ? 3 - j : j));
	memcpy(p + n, name, namesz);
	n += (namesz + 3) & ~3u;
	memcpy(p + n, desc, descsz);
	return n + ((descsz + 3) & ~3u);
}

static void walk(const char *label, const void *p, size_t len, bool be)
{
	struct ms_notes it;
	struct ms_note n;
	char *bid = NULL;
	int r;

	printf("%s:", label);
	ms_notes_init(&it, p, len, be);
	while ((r = ms_notes_next(&it, &n)) > 0)
		printf(" [type %" PRIu32 " name %.*s namesz %" PRIu32
		       " descsz %" PRIu32 " at %zu%s]",
		       n.type, (int)(n.namesz ? n.namesz - 1 : 0), n.name,
		       n.namesz, n.descsz, n.desc_off,
		       ms_note_is_build_id(&n) ? " build-id" : "");
	printf(" %s", r ? "EBADMSG" : "end");
	r = ms_notes_next(&it, &n);
	printf(" then %d;", r);
	r = ms_notes_build_id(p, len, be, &bid);
	printf(" build-id %s (%d)\n", bid ? bid : "none", r);
	free(bid);
}

/* Two notes, "Linux" (namesz 6, padded) and the build-id, each order. */
static size_t two(uint8_t *p, bool be)
{
	static const uint8_t id[20] = { 0xde, 0xad, 0xbe, 0xef, 1,  2, 3,
					4,    5,    6,	  7,	8,  9, 10,
					11,   12,   13,	  14,	15, 16 };
	size_t n = note(p, be, 6, 4, 1, "Linux", "\1\2\3\4");

	return n + note(p + n, be, 4, sizeof(id), 3, "GNU", id);
}

static void hostile(uint8_t *p)
{
	static const uint8_t z[80];
	uint8_t d[8] = { 1, 2, 3 };
	size_t n;

	n = note(p, false, 4, 0, 3, "GNU", d);
	walk("descsz 0", p, n, false);
	n = note(p, false, 4, 65, 3, "GNU", z);
	walk("descsz 65", p, n, false);
	n = note(p, false, 4, 64, 3, "GNU", z);
	walk("descsz 64", p, n, false);
	n = note(p, false, 3, 4, 3, "GNU", d);
	walk("name GNU without its NUL", p, n, false);
	n = note(p, false, 4, 4, 4, "GNU", d);
	walk("type 4", p, n, false);
	n = note(p, false, 4, 3, 3, "GNU", d);
	walk("descsz 3, its padding cut off", p, n - 1, false);
	walk("descsz 3, the buffer 2 past it", p, n + 2, false);
	n = note(p, false, 4, 4, 3, "GNU", d);
	p[0] = p[1] = p[2] = p[3] = 0xff;
	walk("namesz 0xffffffff", p, n, false);
	p[0] = 0xfd;
	walk("namesz 0xfffffffd (padded, 2^32)", p, n, false);
	p[0] = 4, p[1] = p[2] = p[3] = 0;
	p[4] = p[5] = p[6] = p[7] = 0xff;
	walk("descsz 0xffffffff", p, n, false);
	p[4] = 0xfd;
	walk("descsz 0xfffffffd", p, n, false);
}

static void notes(void)
{
	uint8_t p[512] = { 0 }, q[512], *odd = q + 1;
	size_t n = two(p, false);

	walk("little", p, n, false);
	walk("little read as big", p, n, true);
	for (size_t cut = 0; cut < n; cut++) {
		char label[48];

		if (cut % 4 && cut != n - 1)
			continue;
		snprintf(label, sizeof(label), "little cut to %zu", cut);
		walk(label, p, cut, false);
	}
	memcpy(odd, p, n);
	walk("little at an odd address", odd, n, false);
	n = two(p, true);
	walk("big", p, n, true);
	walk("big read as little", p, n, false);
	walk("big cut by 1", p, n - 1, true);
	walk("big, 3 stray bytes after", p, n + 3, true);
	memset(p, 0, sizeof(p));
	hostile(p);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} cmds[] = { { "leb", leb },
		     { "buf", buf },
		     { "strtab", strtab },
		     { "notes", notes } };

	for (size_t i = 0; argc == 2 && i < sizeof(cmds) / sizeof(*cmds); i++)
		if (!strcmp(argv[1], cmds[i].name)) {
			cmds[i].fn();
			return fflush(stdout) ? 1 : 0;
		}
	fprintf(stderr, "usage: bytes leb|buf|strtab|notes\n");
	return 2;
}
