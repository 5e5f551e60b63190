// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * modsect serve: a GDB remote stub on a vmcore or /proc/kcore, every
 * task of the kernel a thread. On stdin and stdout (gdb's
 * `target remote | modsect serve --vmcore FILE`), or on a TCP address
 * (--listen) for gdb's `target remote` and lldb's `gdb-remote`.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"

static int serve_on(struct run *run, struct ms_kernel *k, const char *what)
{
	struct ms_serve_opts so = { .in_fd = 0, .out_fd = 1, .what = what };
	char where[300];
	int lfd = -1, conn = -1, r = 0;

	if (getenv("MODSECT_SERVE_TRACE"))
		so.trace = stderr;
	if (getenv("MODSECT_MEM_STATS"))
		so.stats = stderr;
	if (run->o->listen) {
		r = ms_serve_listen(run->o->listen, &lfd, where, sizeof(where),
				    &run->err);
		if (r)
			return r;
		fprintf(stderr, "modsect: serving %s on %s\n", what, where);
		r = ms_serve_accept(lfd, &conn, &run->err);
		close(lfd);
		so.in_fd = so.out_fd = conn;
	}
	if (!r)
		r = ms_serve(k, &so, &run->err);
	if (conn >= 0)
		close(conn);
	return r;
}

int do_serve(struct run *run)
{
	const struct opts *o = run->o;
	struct ms_source src = { .vmcore = o->vmcore,
				 .remote = o->remote,
				 .baud = o->baud,
				 .timeout_ms = o->timeout_ms,
				 .kernel_image = o->kernel_image,
				 .force = o->force };
	struct ms_mem *mem = NULL;
	struct ms_kernel *k = NULL;
	char what[4200];
	int r = ms_source_kernel(run->ctx, &src, o->kcore, &mem, &k, &run->err);
	snprintf(what, sizeof(what), "%s %s",
		 o->vmcore ? "vmcore" : o->remote ? "remote" : "kcore",
		 o->vmcore ? o->vmcore : o->remote ? o->remote : "/proc/kcore");
	if (!r)
		r = serve_on(run, k, what);
	ms_kernel_free(k);
	ms_mem_free(mem);
	return r;
}
