// SPDX-License-Identifier: GPL-2.0-or-later
/* modsect gdb and lldb: a debugger script for one module or --all. */
#include "cli.h"

int emit_modules(struct run *run, bool lldb)
{
	struct opts *o = run->o;
	struct ms_script_opts so = {
		.lldb = lldb,
		.only = o->all ? NULL : o->args[0],
		.path = o->nargs > 1 ? o->args[1] : NULL,
		.debug_file = o->debug_file,
		.layout_flags = layout_flags(o),
		.kernel = o->kernel || o->vmlinux,
		.vmlinux = o->vmlinux,
		.force = o->force,
		.where_given = o->moddir || o->nsearch,
		.producer = "modsect " MODSECT_VERSION,
	};
	struct ms_script_result res = { 0 };
	struct ms_buf b = { 0 };
	int r = ms_buf_open(&b, &run->err);

	if (!r)
		r = ms_script_write(b.f, run->fi, run->map, &so, &res,
				    &run->err);
	for (size_t i = 0; i < res.nskipped; i++)
		warn("%s", res.skipped[i]);
	if (!r)
		r = write_buf(o, &b, &run->err);
	if (!r && so.kernel && !o->vmlinux) {
		warn_no_orc(run->map);
		warn_no_btf(run->map);
	}
	if (!r && res.nskipped)
		warn("%zu of %zu modules skipped: no file found", res.nskipped,
		     run->map->nmodules);
	ms_script_result_clear(&res);
	ms_buf_free(&b);
	return r;
}

int do_gdb(struct run *run)
{
	return emit_modules(run, false);
}

int do_lldb(struct run *run)
{
	return emit_modules(run, true);
}
