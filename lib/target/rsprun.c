// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Running a live stub for `modsect serve --remote`: the stub's threads as
 * CPUs (QEMU's gdbstub gives one a vCPU, in order: gdbstub/gdbstub.c
 * gdb_first_attached_cpu, cpu_index + 1), their registers, and what a
 * debugger's run control needs passed on: a request and its reply, a
 * resume whose stop reply comes later, Ctrl-C. The exchange is rsplink.c's;
 * memory read while the target runs is never cached across a resume.
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rsplink.h"

#define THREADS_MS 2000u

/* "1,2" or "p1.1,p1.2": each id's thread part, into s->threads. */
static void parse_threads(struct remote *s, const char *p, size_t n)
{
	size_t i = 0;

	while (i < n && s->nthreads < sizeof(s->threads) / sizeof(s->threads[0])) {
		const char *comma = memchr(p + i, ',', n - i);
		size_t j = comma ? (size_t)(comma - p) : n;
		uint64_t v;

		if (!rsp_thread_id(p + i, j - i, &v))
			s->threads[s->nthreads++] = v;
		i = j + 1;
	}
}

static void read_threads(struct remote *s)
{
	struct rsp_reply rep;
	struct ms_err e = { 0 };
	const char *req = "qfThreadInfo";

	s->have_threads = true;
	s->nthreads = 0;
	for (int i = 0; i < 64; i++, req = "qsThreadInfo") {
		if (remote_transact(s, req, THREADS_MS, T_SOFT, &rep, &e) ||
		    rep.kind != RSP_DATA || rep.len < 1 || rep.data[0] != 'm')
			break;
		parse_threads(s, rep.data + 1, rep.len - 1);
	}
}

unsigned int remote_ncpus(struct ms_mem *m)
{
	struct remote *s = m->priv;

	if (!s->have_threads)
		read_threads(s);
	return s->nthreads;
}

/* x86-64: the 24 registers of gdb's core feature, QEMU's 'g' order. */
int remote_cpu_regs(struct ms_mem *m, unsigned int cpu, struct ms_regs *regs,
		    struct ms_err *err)
{
	struct remote *s = m->priv;
	struct rsp_reply rep;
	char req[40];
	size_t off = 0;
	int r;

	if (m->elf_machine != 0 && m->elf_machine != EM_X86_64)
		return ms_err_set(err, ENOTSUP,
				  "%s: CPU registers are read for x86-64 only",
				  s->origin);
	if (cpu >= remote_ncpus(m))
		return ms_err_set(err, ENOENT, "%s has no thread for CPU %u",
				  s->origin, cpu);
	snprintf(req, sizeof(req), "Hg%" PRIx64, s->threads[cpu]);
	r = remote_transact(s, req, s->timeout_ms, 0, &rep, err);
	if (!r && rep.kind != RSP_OK)
		return ms_err_set(err, EPROTO, "%s refused %s", s->origin, req);
	if (!r)
		r = remote_transact(s, "g", s->timeout_ms, 0, &rep, err);
	if (r)
		return r;
	for (unsigned int i = 0; i < MS_X86_64_NREGS; i++) {
		size_t size = i < MS_X86_64_EFLAGS ? 8 : 4;
		uint64_t v;

		if (rep.kind != RSP_DATA || off + 2 * size > rep.len)
			break;
		if (!rsp_hex_le(rep.data + off, 2 * size, &v))
			ms_regs_set(regs, i, v);
		off += 2 * size;
	}
	if (!(regs->valid & (1u << MS_X86_64_RIP)))
		return ms_err_set(err, EPROTO, "%s: no rip in the 'g' reply of CPU %u",
				  s->origin, cpu);
	return 0;
}

int ms_remote_fd(const struct ms_mem *m)
{
	return m->ops->ncpus == remote_ncpus ?
		       ((const struct remote *)m->priv)->fd :
		       -1;
}

int ms_remote_pass(struct ms_mem *m, const char *req, char *reply,
		   size_t cap, size_t *len, struct ms_err *err)
{
	struct remote *s = m->priv;
	struct rsp_reply rep;
	int r = remote_transact(s, req, s->timeout_ms, 0, &rep, err);

	ms_mem_invalidate(m); /* a write may change what was read */
	if (r)
		return r;
	*len = rep.len < cap ? rep.len : cap;
	memcpy(reply, rep.data, *len);
	return 0;
}

int ms_remote_resume(struct ms_mem *m, const char *req, struct ms_err *err)
{
	struct remote *s = m->priv;

	ms_mem_invalidate(m);
	s->have_stop = false;
	s->m->nrequests++;
	return remote_send(s, req, remote_now_ms() + s->timeout_ms, err);
}

int ms_remote_wait(struct ms_mem *m, unsigned int wait_ms, char *reply,
		   size_t cap, size_t *len, struct ms_err *err)
{
	struct remote *s = m->priv;
	uint64_t deadline = remote_now_ms() + wait_ms;

	for (;;) {
		int ev = remote_next_event(s, deadline, err);

		if (ev == -ETIMEDOUT)
			return 1;
		if (ev < 0)
			return ev;
		if (ev == RSP_RX_TOOLONG)
			return remote_fatal(s, err, EMSGSIZE,
					    "%s sent a packet over %zu bytes",
					    s->origin, RSP_MAX_PACKET);
		if (ev != RSP_RX_PACKET)
			continue;
		if (!s->noack &&
		    remote_send(s, "+", remote_now_ms() + s->timeout_ms, err))
			return -err->code;
		if (rsp_rle_expand(s->rx.buf, s->rx.len, reply, cap, len))
			return remote_fatal(s, err, EBADMSG,
					    "%s sent a malformed packet",
					    s->origin);
		s->have_threads = false; /* CPUs may come and go */
		return 0;
	}
}

int ms_remote_cpu_of(struct ms_mem *m, uint64_t tid)
{
	struct remote *s = m->priv;
	unsigned int n = remote_ncpus(m);

	for (unsigned int i = 0; i < n; i++)
		if (s->threads[i] == tid)
			return (int)i;
	return -1;
}
