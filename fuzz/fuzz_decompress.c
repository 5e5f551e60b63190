// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target: ms_decompress (gzip, xz, zstd by magic). */
#include <stdlib.h>

#include "modsect.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct ms_err err = { 0 };
	const char *kind;
	void *out = NULL;
	size_t outlen = 0;

	if (ms_decompress(data, size, &out, &outlen, &kind, &err) == 0) {
		if (kind && outlen && !out)
			abort();
		free(out);
	} else if (!err.msg[0]) {
		abort();
	}
	return 0;
}
