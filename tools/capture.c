// SPDX-License-Identifier: GPL-2.0-or-later
/* modsect capture: the live map, written for another machine to read. */
#include "cli.h"

int do_capture(struct opts *o)
{
	struct ms_err err = { 0 };
	struct ms_ctx *ctx = NULL;
	struct ms_map *map = NULL;
	struct ms_buf b = { 0 };
	int r = setup_ctx(o, &ctx, &err);

	if (!r)
		r = load_map(ctx, o, NULL, &map, &err);
	if (!r)
		r = ms_buf_open(&b, &err);
	if (!r)
		r = ms_capture_write(b.f, map, &err);
	if (!r)
		r = write_buf(o, &b, &err);
	ms_buf_free(&b);
	ms_map_free(map);
	ms_ctx_free(ctx);
	return r ? report(&err, r) : EXIT_OK;
}
