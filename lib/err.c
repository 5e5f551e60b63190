// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "modsect.h"

const char *ms_esc(const char *s, char *buf, size_t size)
{
	size_t o = 0;

	for (; *s && o + 5 < size; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c >= 0x7f || c == '\\')
			o += (size_t)snprintf(buf + o, size - o, "\\x%02x", c);
		else
			buf[o++] = (char)c;
	}
	buf[o] = '\0';
	return buf;
}

int ms_err_set(struct ms_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -code;
}

int ms_err_errno(struct ms_err *err, int code, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	n = strlen(err->msg);
	snprintf(err->msg + n, sizeof(err->msg) - n, ": %s", strerror(code));
	return -code;
}

int ms_err_prefix(struct ms_err *err, const char *fmt, ...)
{
	char old[sizeof(err->msg)];
	va_list ap;
	size_t n;

	memcpy(old, err->msg, sizeof(old));
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	n = strlen(err->msg);
	snprintf(err->msg + n, sizeof(err->msg) - n, ": %s", old);
	return -err->code;
}
