// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * modsect decode: kernel log text with every module frame annotated, each
 * report on its own (lib/emit/reports.c). Here: the map the options name,
 * the host's machine and release, and the exit status.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "cli.h"

/* A line longer than this passes through in pieces (printk's are < 1 KiB). */
#define PIECE_MAX (64u << 10)

/*
 * The map a source option names decodes every report, and one that
 * cannot be read is an error. Without one, the live map decodes the
 * reports of this machine, if there is one to read.
 */
static int base_map(struct run *run, bool named)
{
	if (read_map(run->ctx, run->o, NULL, 0, &run->map, &run->err) == 0)
		return 0;
	run->map = NULL;
	return named ? -run->err.code : 0;
}

int do_decode(struct run *run)
{
	const struct opts *o = run->o;
	struct ms_err *err = &run->err;
	bool named = o->capture || o->remote || o->vmcore;
	struct ms_stream_opts so = { .d = { .layout_flags = layout_flags(o),
					    .no_index = o->no_index,
					    .note = warn_note },
				     .map_for_all = named };
	struct ms_stream_res res = { 0 };
	struct ms_lines *in = NULL;
	struct ms_out *out = NULL;
	struct utsname u;
	int r = base_map(run, named);

	so.map = run->map;
	if (uname(&u) == 0) {
		so.host_machine = u.machine;
		/* --root stands for another system, whose release is unknown. */
		so.host_release = o->root ? NULL : u.release;
	}
	if (!r)
		r = ms_lines_open(o->nargs ? o->args[0] : "-", PIECE_MAX, &in,
				  err);
	if (!r)
		r = ms_out_open(o->output, &out, err);
	if (!r)
		r = ms_decode_stream(run->ctx, in, ms_out_file(out), &so, &res,
				     err);
	if (!r)
		r = ms_out_commit(out, err);
	else if (out)
		ms_out_abort(out);
	if (!r)
		warn_index(res.index_rc, &res.index_err);
	ms_lines_free(in);
	if (r)
		return r;
	/* Frames left as they are, for a reason a warning gave. */
	return res.unannotated ? EXIT_NOTFOUND : EXIT_OK;
}
