/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A GDB remote stub over a kernel that is not running (serve.c): a
 * vmcore or /proc/kcore, read through lib/kernel with every task of the
 * kernel a thread, so that gdb's `info threads`, `thread apply all bt`
 * and lldb's `bt all` work on a dump as on any target. The packets are
 * gdb's manual's ("Remote Protocol"); the thread model is kgdb's
 * (kernel/debug/gdbstub.c: a task per thread, its pid the thread id).
 */
#ifndef MODSECT_SERVE_H
#define MODSECT_SERVE_H

#include "kernel/kernel.h"

struct ms_serve_opts {
	int in_fd, out_fd; /* the debugger's connection (may be one socket) */
	/* What the target is, for messages: "vmcore FILE" (read-only). */
	const char *what;
	/* Each packet in and out on this stream (NULL: none), for tests. */
	FILE *trace;
	/*
	 * Memory requests and bytes on this stream (NULL: none), for
	 * bench/: once the threads are read, and at the end.
	 */
	FILE *stats;
};

/*
 * Answers one debugger until it detaches, kills or closes the
 * connection. The thread list is read once, before the first request:
 * the target does not run. Returns 0 at the end of the conversation, or
 * an error that ended it (the connection failed, the tasks could not be
 * read).
 */
int ms_serve(struct ms_kernel *k, const struct ms_serve_opts *o,
	     struct ms_err *err);

/* ---- the listening socket (srvlisten.c) ---- */

/*
 * A TCP socket listening on spec, HOST:PORT (":PORT" is 127.0.0.1),
 * [IPV6]:PORT; *where_ret says the address in words ("127.0.0.1:1234",
 * the port the system chose for port 0).
 */
int ms_serve_listen(const char *spec, int *fd_ret, char *where, size_t size,
		    struct ms_err *err);
/* The first connection on the listening socket fd. */
int ms_serve_accept(int fd, int *conn_ret, struct ms_err *err);

/* ---- registers and the target description (srvregs.c) ---- */

/*
 * target.xml for the kernel's architecture: NULL if it has none (then
 * serving is refused).
 */
const char *ms_serve_target_xml(int elf_machine);
/*
 * The 'g' reply for regs, in the description's order, unknown registers
 * as 'x' digits (gdb shows <unavailable>); out has room for
 * MS_SERVE_G_MAX bytes. With regno >= 0, that register alone ('p').
 * Returns the length, or -ENOENT for a register number it does not have.
 */
#define MS_SERVE_G_MAX 2048
int ms_serve_regs_hex(int elf_machine, const struct ms_regs *regs, int regno,
		      char *out);

#endif
