// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "modsect.h"

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
