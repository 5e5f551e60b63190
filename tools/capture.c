// SPDX-License-Identifier: GPL-2.0-or-later
/* modsect capture: the live map, written for another machine to read. */
#include <errno.h>

#include "cli.h"

int do_capture(struct run *run)
{
	struct ms_buf b = { 0 };
	int r = ms_buf_open(&b, &run->err);

	/* Asked for: its absence is an error, not a capture without it. */
	if (!r && run->o->btf && !run->map->core_btf)
		r = ms_err_set(&run->err, ENOENT, "no BTF to capture: %s",
			       run->map->why_no_btf ? run->map->why_no_btf :
						      "unknown");

	if (!r)
		r = ms_capture_write(b.f, run->map, &run->err);
	if (!r)
		r = write_buf(run->o, &b, &run->err);
	ms_buf_free(&b);
	return r;
}
