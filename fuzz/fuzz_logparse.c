// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: frames in kernel log lines (ms_log_frame), iterated
 * over each line as tools/decode.c does. Every frame found must lie in
 * the line, after where the search started, and make progress.
 */
#include <stdlib.h>
#include <string.h>

#include "modsect.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *text = malloc(size + 1), *line, *next;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (line = text; line; line = next) {
		struct ms_logframe f;
		size_t len, from = 0;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		len = strlen(line);
		while (ms_log_frame(line, from, &f) == 1) {
			if (f.start < from || f.end <= f.start || f.end > len ||
			    memchr(f.symbol, '\0', sizeof(f.symbol)) == NULL ||
			    memchr(f.module, '\0', sizeof(f.module)) == NULL)
				abort();
			from = f.end;
		}
	}
	free(text);
	return 0;
}
