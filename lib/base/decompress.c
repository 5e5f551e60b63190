// SPDX-License-Identifier: GPL-2.0-or-later
/* Compressed modules (.ko.gz, .ko.xz, .ko.zst), recognized by magic. */
#include <errno.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "base.h"

/* No module comes near this; it bounds a decompression bomb. */
#define MAX_OUT ((size_t)1 << 30)

struct growbuf {
	unsigned char *p;
	size_t len, cap;
};

static int grow(struct growbuf *g)
{
	size_t ncap = g->cap ? 2 * g->cap : 1 << 20;
	unsigned char *n;

	if (g->cap >= MAX_OUT)
		return -EFBIG;
	n = realloc(g->p, ncap);
	if (!n)
		return -ENOMEM;
	g->p = n;
	g->cap = ncap;
	return 0;
}

static int gunzip(const void *buf, size_t len, struct growbuf *g,
		  struct ms_err *err)
{
	z_stream s = { 0 };
	int zr = Z_OK, r = 0;

	if (inflateInit2(&s, 16 + MAX_WBITS) != Z_OK)
		return ms_err_set(err, ENOMEM, "gzip: cannot initialize");
	s.next_in = (Bytef *)buf;
	s.avail_in = (uInt)len;
	while (zr != Z_STREAM_END) {
		if (g->len == g->cap && (r = grow(g)))
			break;
		s.next_out = g->p + g->len;
		s.avail_out = (uInt)(g->cap - g->len);
		zr = inflate(&s, Z_NO_FLUSH);
		g->len = g->cap - s.avail_out;
		if (zr == Z_BUF_ERROR && s.avail_in == 0) {
			r = ms_err_set(err, EINVAL, "gzip data is truncated");
			break;
		}
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) {
			r = ms_err_set(err, EINVAL, "gzip data is corrupt: %s",
				       s.msg ? s.msg : "error");
			break;
		}
	}
	inflateEnd(&s);
	return r;
}

static int unxz(const void *buf, size_t len, struct growbuf *g,
		struct ms_err *err)
{
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_ret lr = LZMA_OK;
	int r = 0;

	if (lzma_stream_decoder(&s, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
		return ms_err_set(err, ENOMEM, "xz: cannot initialize");
	s.next_in = buf;
	s.avail_in = len;
	while (lr != LZMA_STREAM_END) {
		if (g->len == g->cap && (r = grow(g)))
			break;
		s.next_out = g->p + g->len;
		s.avail_out = g->cap - g->len;
		lr = lzma_code(&s, s.avail_in ? LZMA_RUN : LZMA_FINISH);
		g->len = g->cap - s.avail_out;
		if (lr != LZMA_OK && lr != LZMA_STREAM_END) {
			r = ms_err_set(err, EINVAL, "xz data is %s",
				       lr == LZMA_BUF_ERROR ? "truncated" :
							      "corrupt");
			break;
		}
	}
	lzma_end(&s);
	return r;
}

static int unzstd(const void *buf, size_t len, struct growbuf *g,
		  struct ms_err *err)
{
	ZSTD_DStream *s = ZSTD_createDStream();
	ZSTD_inBuffer in = { buf, len, 0 };
	size_t zr = 1;
	int r = 0;

	if (!s)
		return ms_err_set(err, ENOMEM, "zstd: cannot initialize");
	while (zr != 0) {
		ZSTD_outBuffer out;

		if (g->len == g->cap && (r = grow(g)))
			break;
		out = (ZSTD_outBuffer){ g->p, g->cap, g->len };
		zr = ZSTD_decompressStream(s, &out, &in);
		g->len = out.pos;
		if (ZSTD_isError(zr)) {
			r = ms_err_set(err, EINVAL, "zstd data is corrupt: %s",
				       ZSTD_getErrorName(zr));
			break;
		}
		if (zr != 0 && in.pos == in.size && out.pos < out.size) {
			r = ms_err_set(err, EINVAL, "zstd data is truncated");
			break;
		}
	}
	ZSTD_freeDStream(s);
	return r;
}

int ms_decompress(const void *buf, size_t len, void **out_ret,
		  size_t *outlen_ret, const char **kind_ret, struct ms_err *err)
{
	static const unsigned char gz[] = { 0x1f, 0x8b };
	static const unsigned char xz[] = { 0xfd, '7', 'z', 'X', 'Z', 0 };
	static const unsigned char zst[] = { 0x28, 0xb5, 0x2f, 0xfd };
	struct growbuf g = { 0 };
	int r;

	*kind_ret = NULL;
	if (len >= sizeof(gz) && memcmp(buf, gz, sizeof(gz)) == 0) {
		*kind_ret = "gzip";
		r = gunzip(buf, len, &g, err);
	} else if (len >= sizeof(xz) && memcmp(buf, xz, sizeof(xz)) == 0) {
		*kind_ret = "xz";
		r = unxz(buf, len, &g, err);
	} else if (len >= sizeof(zst) && memcmp(buf, zst, sizeof(zst)) == 0) {
		*kind_ret = "zstd";
		r = unzstd(buf, len, &g, err);
	} else {
		return 0;
	}
	if (r == -EFBIG || r == -ENOMEM)
		ms_err_set(err, -r,
			   "%s data decompresses to more than %zu bytes",
			   *kind_ret, MAX_OUT);
	if (r) {
		free(g.p);
		return r;
	}
	*out_ret = g.p;
	*outlen_ret = g.len;
	return 0;
}
