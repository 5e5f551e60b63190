// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "answer.h"

static void fail(struct ms_obuf *b, int error)
{
	if (!b->failed)
		b->error = error;
	b->failed = true;
}

void ms_ob_flush(struct ms_obuf *b)
{
	if (b->sink && b->len && !b->failed &&
	    fwrite(b->data, 1, b->len, b->sink) != b->len)
		fail(b, errno ? errno : EIO);
	if (b->sink)
		b->len = 0;
}

/* All of iov[0, n) to fd, however little each writev takes. */
static int writev_all(int fd, struct iovec *iov, size_t n)
{
	while (n) {
		ssize_t w = writev(fd, iov, n < IOV_MAX ? (int)n : IOV_MAX);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		for (; n && (size_t)w >= iov->iov_len; iov++, n--)
			w -= (ssize_t)iov->iov_len;
		if (n) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

void ms_ob_gather(struct ms_obuf *b, struct iovec *iov, size_t n)
{
	int fd;

	ms_ob_flush(b);
	if (!b->sink || b->failed)
		return;
	if (fflush(b->sink) != 0) {
		fail(b, errno ? errno : EIO);
		return;
	}
	fd = fileno(b->sink);
	if (fd >= 0) {
		if (writev_all(fd, iov, n) < 0)
			fail(b, errno ? errno : EIO);
		return;
	}
	for (size_t i = 0; i < n; i++)
		ms_ob_put(b, iov[i].iov_base, iov[i].iov_len);
	ms_ob_flush(b);
}

/* The slow path of ms_ob_room: more room, or failed. */
__attribute__((noinline)) char *ms_ob_grow(struct ms_obuf *b, size_t n)
{
	size_t ncap = b->cap ? b->cap : 1u << 16;
	char *d;

	if (b->failed)
		return NULL;
	while (ncap - b->len < n)
		ncap *= 2;
	d = realloc(b->data, ncap);
	if (!d) {
		fail(b, ENOMEM);
		return NULL;
	}
	b->data = d;
	b->cap = ncap;
	return b->data + b->len;
}

static void put_hex(struct ms_obuf *b, uint64_t v, int width)
{
	char buf[20], *p = buf + sizeof(buf);

	do {
		*--p = "0123456789abcdef"[v & 0xf];
		v >>= 4;
	} while (v || buf + sizeof(buf) - p < width);
	*--p = 'x';
	*--p = '0';
	ms_ob_put(b, p, (size_t)(buf + sizeof(buf) - p));
}

static void put_u64(struct ms_obuf *b, uint64_t v)
{
	char buf[24], *p = buf + sizeof(buf);

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	ms_ob_put(b, p, (size_t)(buf + sizeof(buf) - p));
}

static void put_dec(struct ms_obuf *b, int v)
{
	if (v < 0)
		ms_ob_char(b, '-');
	put_u64(b, v < 0 ? 0u - (unsigned int)v : (unsigned int)v);
}

static void put_sym(struct ms_obuf *b, const char *name, uint64_t off,
		    uint64_t size)
{
	ms_ob_char(b, ' ');
	ms_ob_str(b, name);
	ms_ob_char(b, '+');
	put_hex(b, off, 1);
	ms_ob_char(b, '/');
	put_hex(b, size, 1);
}

/*
 * The address, and the one it was given as when that carried a PAC:
 * "0xffff80000a1b002c (PAC cleared from 0xffd080000a1b002c):". In the
 * padding after a function the symbol is the kernel's, func+0x1f4/0x200,
 * and the line says where func itself ends, lest it read as inside it.
 */
void ms_answer_text(struct ms_obuf *b, const struct ms_symres *r,
		    uint64_t given)
{
	put_hex(b, r->addr, 16);
	if (given != r->addr) {
		ms_ob_str(b, " (PAC cleared from ");
		put_hex(b, given, 16);
		ms_ob_char(b, ')');
	}
	ms_ob_char(b, ':');
	if (r->core) {
		put_sym(b, r->symbol, r->symbol_offset, r->symbol_size);
		ms_ob_str(b, " [kernel]\n");
		return;
	}
	if (!r->module) {
		ms_ob_str(b, " in no module and no kernel symbol\n");
		return;
	}
	if (r->symbol)
		put_sym(b, r->symbol, r->symbol_offset, r->symbol_size);
	ms_ob_str(b, " [");
	ms_ob_str(b, r->module);
	ms_ob_char(b, ']');
	if (r->section) {
		ms_ob_char(b, ' ');
		ms_ob_str(b, r->section);
		ms_ob_char(b, '+');
		put_hex(b, r->section_offset, 1);
	}
	if (r->past_end) {
		ms_ob_str(b, " (past the end of ");
		ms_ob_str(b, r->symbol);
		ms_ob_str(b, ", size ");
		put_hex(b, r->symbol_elf_size, 1);
		ms_ob_char(b, ')');
	}
	ms_ob_char(b, '\n');
	for (size_t i = 0; i < r->nframes; i++) {
		const struct ms_frame *f = &r->frames[i];

		ms_ob_str(b, i ? "    (inlined by) " : "    ");
		ms_ob_str(b, f->func);
		ms_ob_str(b, " at ");
		ms_ob_str(b, f->file ? f->file : "??");
		ms_ob_char(b, ':');
		put_dec(b, f->line);
		if (f->col) {
			ms_ob_char(b, ':');
			put_dec(b, f->col);
		}
		ms_ob_char(b, '\n');
	}
}

/*
 * A JSON string as json-c writes it (json_escape_str, with
 * JSON_C_TO_STRING_NOSLASHESCAPE): quote, backslash and the control
 * characters escaped, every other byte as it is.
 */
static void put_jstr(struct ms_obuf *b, const char *s)
{
	const char *run = s;

	ms_ob_char(b, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char esc[7] = { '\\', 0 };
		size_t n = 2;

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		ms_ob_put(b, run, (size_t)(s - run));
		run = s + 1;
		switch (c) {
		case '\b': esc[1] = 'b'; break;
		case '\f': esc[1] = 'f'; break;
		case '\n': esc[1] = 'n'; break;
		case '\r': esc[1] = 'r'; break;
		case '\t': esc[1] = 't'; break;
		case '"':
		case '\\': esc[1] = (char)c; break;
		default:
			esc[1] = 'u';
			esc[2] = esc[3] = '0';
			esc[4] = "0123456789abcdef"[c >> 4];
			esc[5] = "0123456789abcdef"[c & 0xf];
			n = 6;
		}
		ms_ob_put(b, esc, n);
	}
	ms_ob_put(b, run, (size_t)(s - run));
	ms_ob_char(b, '"');
}

/* ',\n' before every member but the first, the key at indent spaces. */
static void put_key(struct ms_obuf *b, bool *first, int indent, const char *key)
{
	ms_ob_str(b, *first ? "" : ",\n");
	*first = false;
	for (int i = 0; i < indent; i++)
		ms_ob_char(b, ' ');
	put_jstr(b, key);
	ms_ob_char(b, ':');
}

static void put_jstr_or_null(struct ms_obuf *b, const char *s)
{
	if (s)
		put_jstr(b, s);
	else
		ms_ob_str(b, "null");
}

/*
 * One answer as an element of the JSON array, byte for byte what
 * json-c's JSON_C_TO_STRING_PRETTY printed when it built the document:
 * written here as it goes, 100,000 answers took 2.6 s through json-c's
 * objects (their allocation and freeing), twenty times the text.
 */
void ms_answer_json(struct ms_obuf *b, const struct ms_symres *r,
		    uint64_t given)
{
	bool first = true;

	ms_ob_str(b, "  {\n");
	put_key(b, &first, 4, "address");
	ms_ob_char(b, '"');
	put_hex(b, r->addr, 16);
	ms_ob_char(b, '"');
	if (given != r->addr) {
		put_key(b, &first, 4, "address_with_pac");
		ms_ob_char(b, '"');
		put_hex(b, given, 16);
		ms_ob_char(b, '"');
	}
	put_key(b, &first, 4, "module");
	put_jstr_or_null(b, r->module ? r->module : r->core ? "kernel" : NULL);
	put_key(b, &first, 4, "section");
	put_jstr_or_null(b, r->section);
	if (r->section) {
		put_key(b, &first, 4, "section_offset");
		put_u64(b, r->section_offset);
	}
	put_key(b, &first, 4, "symbol");
	put_jstr_or_null(b, r->symbol);
	if (r->symbol) {
		put_key(b, &first, 4, "offset");
		put_u64(b, r->symbol_offset);
		put_key(b, &first, 4, "size");
		put_u64(b, r->symbol_size);
	}
	if (r->past_end) {
		put_key(b, &first, 4, "past_end");
		ms_ob_str(b, "true");
		put_key(b, &first, 4, "elf_size");
		put_u64(b, r->symbol_elf_size);
	}
	put_key(b, &first, 4, "frames");
	ms_ob_str(b, "[\n");
	for (size_t i = 0; i < r->nframes; i++) {
		const struct ms_frame *f = &r->frames[i];
		bool ffirst = true;

		ms_ob_str(b, i ? ",\n      {\n" : "      {\n");
		put_key(b, &ffirst, 8, "function");
		put_jstr(b, f->func);
		put_key(b, &ffirst, 8, "file");
		put_jstr_or_null(b, f->file);
		put_key(b, &ffirst, 8, "line");
		put_dec(b, f->line);
		put_key(b, &ffirst, 8, "column");
		put_dec(b, f->col);
		ms_ob_str(b, "\n      }");
	}
	ms_ob_str(b, r->nframes ? "\n    ]\n  }" : "    ]\n  }");
}
