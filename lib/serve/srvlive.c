// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `modsect serve --remote`: serve between the debugger and a live stub
 * (QEMU's gdbstub). Memory and the tasks are read as on a dump; what runs
 * the target or writes to it is passed on to the stub: breakpoints
 * (Z/z), memory writes (M/X), continue and step. While the target runs,
 * the debugger's Ctrl-C is passed on too; at the stub's stop reply the
 * tasks are read again and the current thread is the task on the CPU
 * that stopped, as kgdb names it (kernel/debug/gdbstub.c: the thread of
 * a stopped CPU is its current task). QEMU steps and continues its vCPUs
 * together: one thread of the debugger stands for all of them.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "serve-int.h"

/* The thread id of a stub's stop reply ("thread:p1.2;" or "thread:2;"). */
static uint64_t stop_thread(const char *p, size_t n)
{
	const char *t = memmem(p, n, "thread:", 7), *end;
	uint64_t v;

	if (!t)
		return 0;
	t += 7;
	end = memchr(t, ';', n - (size_t)(t - p));
	if (!end)
		end = p + n;
	return rsp_thread_id(t, (size_t)(end - t), &v) ? 0 : v;
}

/* The target stopped (s->reply holds the stub's stop reply). */
static int stopped(struct srv *s, struct ms_err *err)
{
	struct ms_mem *m = ms_kernel_mem(s->k);
	char sig[3] = "05";
	int cpu = ms_remote_cpu_of(m, stop_thread(s->reply, s->len));
	int r;

	if (s->len >= 3 && (s->reply[0] == 'T' || s->reply[0] == 'S'))
		memcpy(sig, s->reply + 1, 2);
	r = srv_load_threads(s, cpu < 0 ? 0 : cpu, err);
	if (r)
		return r;
	srv_reply(s, "T%.2sthread:%x;", sig, s->th[s->cur].t.tid);
	return 0;
}

/* Bytes from the debugger while the target runs: its Ctrl-C. */
static int from_debugger(struct srv *s, bool *gone, struct ms_err *err)
{
	unsigned char buf[256];
	ssize_t n = read(s->o->in_fd, buf, sizeof(buf));

	if (n < 0 && errno == EINTR)
		return 0;
	if (n <= 0) {
		/* Gone: stop the target, and end once it has. */
		*gone = true;
		s->done = true;
		return ms_remote_resume(ms_kernel_mem(s->k), "\x03", err);
	}
	if (memchr(buf, 0x03, (size_t)n))
		return ms_remote_resume(ms_kernel_mem(s->k), "\x03", err);
	return 0;
}

/* Resumes the target; returns with the stop reply in s. */
static int resume(struct srv *s, const char *how, struct ms_err *err)
{
	struct ms_mem *m = ms_kernel_mem(s->k);
	bool gone = false;
	int r = ms_remote_resume(m, how, err);

	while (!r) {
		struct pollfd pf[2] = { { .fd = ms_remote_fd(m), .events = POLLIN },
					{ .fd = s->o->in_fd, .events = POLLIN } };

		r = ms_remote_wait(m, 0, s->reply, sizeof(s->reply) - 1, &s->len,
				   err);
		if (r < 0)
			return r;
		if (!r && s->len && s->reply[0] == 'O') {
			/* the target's console output, for the debugger */
			r = gone ? 0 : srv_send_reply(s, err);
			continue;
		}
		if (!r && s->len && (s->reply[0] == 'W' || s->reply[0] == 'X')) {
			s->done = true;
			return 0;
		}
		if (!r && s->len && (s->reply[0] == 'T' || s->reply[0] == 'S'))
			return stopped(s, err);
		r = 0;
		if (poll(pf, gone ? 1 : 2, -1) < 0 && errno != EINTR)
			return ms_err_kind(err, MS_E_IO, errno,
					   "waiting for the target");
		if (!gone && (pf[1].revents & (POLLIN | POLLHUP | POLLERR)))
			r = from_debugger(s, &gone, err);
	}
	return r;
}

int srv_live(struct srv *s, const char *p, struct ms_err *err)
{
	struct ms_mem *m = ms_kernel_mem(s->k);

	switch (p[0]) {
	case 'c':
	case 'C':
		return resume(s, "c", err);
	case 's':
	case 'S':
		return resume(s, "s", err);
	case 'Z':
	case 'z':
	case 'M':
	case 'X':
		return ms_remote_pass(m, p, s->reply, sizeof(s->reply) - 1,
				      &s->len, err);
	case 'G':
	case 'P':
		srv_reply(s, "E.modsect serve: a task's registers are not written");
		return 0;
	default:
		return 1;
	}
}
