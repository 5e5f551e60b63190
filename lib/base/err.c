// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base.h"

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

enum ms_ekind ms_ekind_of_errno(int code)
{
	switch (code) {
	case ENOENT:
		return MS_E_NOTFOUND;
	case EIO:
	case ETIMEDOUT:
	case ECONNRESET:
	case ECONNREFUSED:
	case EPIPE:
	case ENOSPC:
	case EDQUOT:
		return MS_E_IO;
	case ENOMEM:
		return MS_E_RESOURCE;
	case EBADMSG:
	case EINVAL:
	case ERANGE:
	case EOVERFLOW:
	case EILSEQ:
		return MS_E_INPUT;
	default:
		return MS_E_REFUSED;
	}
}

enum ms_ekind ms_err_kind_of(const struct ms_err *err, int r)
{
	if (err->kind != MS_E_UNSET)
		return err->kind;
	return ms_ekind_of_errno(r < 0 ? -r : r);
}

int ms_err_rekind(struct ms_err *err, enum ms_ekind kind)
{
	err->kind = kind;
	return -err->code;
}

static void vset(struct ms_err *err, enum ms_ekind kind, int code,
		 const char *fmt, va_list ap)
{
	err->code = code;
	err->kind = kind;
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
}

int ms_err_kind(struct ms_err *err, enum ms_ekind kind, int code,
		const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(err, kind, code, fmt, ap);
	va_end(ap);
	return -code;
}

int ms_err_set(struct ms_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(err, ms_ekind_of_errno(code), code, fmt, ap);
	va_end(ap);
	return -code;
}

int ms_err_errno(struct ms_err *err, int code, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vset(err, ms_ekind_of_errno(code), code, fmt, ap);
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
