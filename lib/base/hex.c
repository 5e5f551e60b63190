// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Hexadecimal, the one place: build-ids as the kernel prints them, the
 * GDB remote protocol's payloads, capture and memory-image fields.
 */
#include <errno.h>
#include <stdlib.h>

#include "base.h"

int ms_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int ms_hex_decode(const char *hex, size_t n, uint8_t *out)
{
	if (n % 2)
		return -EBADMSG;
	for (size_t i = 0; i < n; i += 2) {
		int hi = ms_hexval((unsigned char)hex[i]);
		int lo = ms_hexval((unsigned char)hex[i + 1]);

		if (hi < 0 || lo < 0)
			return -EBADMSG;
		out[i / 2] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

int ms_hex_u64(const char *s, size_t n, uint64_t *ret)
{
	uint64_t v = 0;

	if (n == 0 || n > 16)
		return -EBADMSG;
	for (size_t i = 0; i < n; i++) {
		int h = ms_hexval((unsigned char)s[i]);

		if (h < 0)
			return -EBADMSG;
		v = v << 4 | (uint64_t)h;
	}
	*ret = v;
	return 0;
}

char *ms_hex_encode(const void *buf, size_t n, char *out)
{
	static const char digit[] = "0123456789abcdef";
	const unsigned char *p = buf;

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digit[p[i] >> 4];
		out[2 * i + 1] = digit[p[i] & 15];
	}
	out[2 * n] = '\0';
	return out;
}

char *ms_hex_dup(const void *buf, size_t n)
{
	char *s = malloc(2 * n + 1);

	return s ? ms_hex_encode(buf, n, s) : NULL;
}
