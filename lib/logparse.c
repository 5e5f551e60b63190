// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Frames in kernel log text: "func+0x1a/0x60 [mod]" (what %pS prints in
 * oopses, WARNs, KASAN, lockdep and hung-task reports) and raw
 * "[<ffffffffc0a14000>]" addresses. A frame is a return address (its
 * line is the one of the call, so it is looked up at address - 1) unless
 * the line reports where execution is: RIP/PC, or a WARNING/BUG "at".
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "modsect.h"

static bool symchar(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$';
}

static bool modchar(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-';
}

/* "0x" hex digits at p; returns the end or NULL. */
static const char *hex(const char *p, uint64_t *v)
{
	const char *s = p;
	char *end;

	if (p[0] != '0' || p[1] != 'x' || !isxdigit((unsigned char)p[2]))
		return NULL;
	s = p + 2;
	*v = strtoull(s, &end, 16);
	return end - s > 16 ? NULL : end;
}

/* The kernel's markers of "this is where it happened". */
static bool exact_line(const char *line)
{
	return strstr(line, "RIP: ") || strstr(line, "EIP: ") ||
	       strstr(line, "PC is at ") || strstr(line, " pc : ") ||
	       strstr(line, "WARNING: ") || strstr(line, "BUG: ") ||
	       strstr(line, "kernel BUG at ");
}

/* "sym+0xoff/0xsize" with an optional " [mod]" at p, which starts a word. */
static bool symbolic(const char *line, const char *p, struct ms_logframe *f)
{
	const char *q = p, *end;
	uint64_t size;

	while (symchar(*q))
		q++;
	if (q == p || *q != '+' || (size_t)(q - p) >= sizeof(f->symbol))
		return false;
	end = hex(q + 1, &f->offset);
	if (!end || *end != '/' || !(end = hex(end + 1, &size)))
		return false;
	memcpy(f->symbol, p, (size_t)(q - p));
	f->symbol[q - p] = '\0';
	f->module[0] = '\0';
	if (end[0] == ' ' && end[1] == '[') {
		const char *m = end + 2, *me = m;

		while (modchar(*me))
			me++;
		if (me > m && *me == ']' &&
		    (size_t)(me - m) < sizeof(f->module)) {
			memcpy(f->module, m, (size_t)(me - m));
			f->module[me - m] = '\0';
			end = me + 1;
		}
	}
	f->kind = MS_LOGFRAME_SYMBOL;
	f->start = (size_t)(p - line);
	f->end = (size_t)(end - line);
	return true;
}

/* "[<ffffffffc0a14000>]" */
static bool raw(const char *line, const char *p, struct ms_logframe *f)
{
	const char *q = p + 2;
	char *end;

	if (p[0] != '[' || p[1] != '<' || !isxdigit((unsigned char)*q))
		return false;
	f->address = strtoull(q, &end, 16);
	if (end - q < 8 || end - q > 16 || end[0] != '>' || end[1] != ']')
		return false;
	f->kind = MS_LOGFRAME_ADDRESS;
	f->start = (size_t)(p - line);
	f->end = (size_t)(end + 2 - line);
	return true;
}

int ms_log_frame(const char *line, size_t from, struct ms_logframe *f)
{
	size_t len = strlen(line);

	memset(f, 0, sizeof(*f));
	for (size_t i = from; i < len; i++) {
		const char *p = line + i;
		bool word = i == 0 || !symchar(line[i - 1]);

		if (!word)
			continue;
		if (raw(line, p, f) || (symchar(*p) && symbolic(line, p, f))) {
			f->exact = exact_line(line);
			return 1;
		}
	}
	return 0;
}
