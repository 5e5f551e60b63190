// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A GDB remote stub on a kernel that does not run: every task a thread
 * (see serve.h). The conversation follows gdb's manual ("Remote
 * Protocol"): packets are acknowledged until QStartNoAckMode, a thread
 * id is the task's pid in hex (the idle tasks: MS_IDLE_TID + CPU), the
 * general thread ('Hg') is the one 'g', 'p' and the stop reply speak of.
 * The target is read-only and never runs: writes, continue and step are
 * refused with a message the debugger shows ("Remote failure reply").
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "serve-int.h"

/* ---- replies ---- */

/* "offset,length" of a qXfer read from text: 'm'/'l' and the part. */
static void xfer(struct srv *s, const char *args, const char *text,
		 size_t len)
{
	const char *comma = strchr(args, ',');
	uint64_t off, n;

	if (!comma || ms_hex_u64(args, (size_t)(comma - args), &off) ||
	    ms_hex_u64(comma + 1, strlen(comma + 1), &n))
		return srv_reply(s, "E00");
	if (off >= len)
		return srv_reply(s, "l");
	if (n > PACKET - 16)
		n = PACKET - 16;
	if (n > len - off)
		n = len - off;
	s->reply[0] = off + n < len ? 'm' : 'l';
	memcpy(s->reply + 1, text + off, n);
	s->len = 1 + n;
}

/* Thread index of a hex thread id; 0 and -1 (any, all): the current. */
static int find_thread(struct srv *s, const char *hex, size_t *ret)
{
	uint64_t tid;

	if (!strcmp(hex, "0") || !strcmp(hex, "-1")) {
		*ret = s->cur;
		return 0;
	}
	if (ms_hex_u64(hex, strlen(hex), &tid))
		return -EINVAL;
	for (size_t i = 0; i < s->nth; i++)
		if (s->th[i].t.tid == tid) {
			*ret = i;
			return 0;
		}
	return -ENOENT;
}

/*
 * 'm': what can be read, or E14; a source that failed (a stub that
 * stopped answering, a dump cut short) ends the conversation with its
 * error, never with replies made up.
 */
static int read_mem(struct srv *s, const char *args, struct ms_err *err)
{
	const char *comma = strchr(args, ',');
	uint64_t addr, n;
	unsigned char buf[PACKET / 2];
	size_t got = 0;
	struct ms_err e = { 0 };
	int r = 0;

	if (!comma || ms_hex_u64(args, (size_t)(comma - args), &addr) ||
	    ms_hex_u64(comma + 1, strlen(comma + 1), &n)) {
		srv_reply(s, "E00");
		return 0;
	}
	if (n > sizeof(buf))
		n = sizeof(buf);
	/*
	 * Page by page, so a read across into a page the dump lacks gives
	 * the bytes before it (the manual lets a stub give fewer).
	 */
	while (got < n) {
		uint64_t a = addr + got;
		size_t chunk = 4096 - (size_t)(a & 4095);

		if (chunk > n - got)
			chunk = (size_t)(n - got);
		r = ms_mem_read(ms_kernel_mem(s->k), a, buf + got, chunk,
				"memory", &e);
		if (r && ms_mem_io_failure(&e, r)) {
			*err = e;
			return r;
		}
		if (r)
			break;
		got += chunk;
	}
	if (!got && n) {
		srv_reply(s, "E14");
		return 0;
	}
	ms_hex_encode(buf, got, s->reply);
	s->len = 2 * got;
	return 0;
}

static void thread_info(struct srv *s, bool first)
{
	size_t o = 0;

	if (first)
		s->info_next = 0;
	if (s->info_next >= s->nth)
		return srv_reply(s, "l");
	s->reply[o++] = 'm';
	while (s->info_next < s->nth && o < PACKET - 32)
		o += (size_t)snprintf(s->reply + o, 32, "%s%x", o > 1 ? "," : "",
				      s->th[s->info_next++].t.tid);
	s->len = o;
}

static void extra_info_reply(struct srv *s, const char *hex)
{
	char text[600];
	size_t i;

	if (find_thread(s, hex, &i))
		return srv_reply(s, "E01");
	srv_extra_info(&s->th[i], text, sizeof(text));
	ms_hex_encode(text, strlen(text), s->reply);
	s->len = 2 * strlen(text);
}

static void stop_reply(struct srv *s, size_t i)
{
	char name[64];

	/* lldb reads the thread's name from the stop reply. */
	ms_hex_encode(s->th[i].t.comm, strlen(s->th[i].t.comm), name);
	srv_reply(s, "T05thread:%x;hexname:%s;", s->th[i].t.tid, name);
}

static void regs_reply(struct srv *s, int regno)
{
	int n = ms_serve_regs_hex(s->machine, &s->th[s->cur].regs, regno,
				  s->reply);

	if (n < 0)
		return srv_reply(s, "E00");
	s->len = (size_t)n;
}

static void refuse(struct srv *s, const char *what)
{
	srv_reply(s, "E.modsect serve: %s is not running (%s): %s is refused",
	      s->o->what, "a dump or /proc/kcore, read-only", what);
}

static void query(struct srv *s, const char *p)
{
	if (!strncmp(p, "qSupported", 10))
		return srv_reply(s,
			     "PacketSize=%x;QStartNoAckMode+;qXfer:features:read+;qXfer:threads:read+",
			     PACKET);
	if (!strcmp(p, "QStartNoAckMode")) {
		srv_reply(s, "OK");
		s->noack = true;
		return;
	}
	if (!strncmp(p, "qXfer:features:read:target.xml:", 31)) {
		const char *x = ms_serve_target_xml(s->machine);

		return xfer(s, p + 31, x, strlen(x));
	}
	if (!strncmp(p, "qXfer:threads:read::", 20))
		return xfer(s, p + 20, s->threads_xml, s->threads_len);
	if (!strcmp(p, "qfThreadInfo") || !strcmp(p, "qsThreadInfo"))
		return thread_info(s, p[1] == 'f');
	if (!strncmp(p, "qThreadExtraInfo,", 17))
		return extra_info_reply(s, p + 17);
	if (!strcmp(p, "qC"))
		return srv_reply(s, "QC%x", s->th[s->cur].t.tid);
	if (!strcmp(p, "qAttached"))
		return srv_reply(s, "1");
	if (!strncmp(p, "qSymbol", 7))
		return srv_reply(s, "OK");
	if (!strncmp(p, "qThreadStopInfo", 15)) {
		size_t i;

		if (find_thread(s, p + 15, &i))
			return srv_reply(s, "E01");
		return stop_reply(s, i);
	}
	srv_reply(s, "%s", "");
}

static void set_thread(struct srv *s, const char *p)
{
	size_t i;

	if (find_thread(s, p + 1, &i))
		return srv_reply(s, "E01");
	if (p[0] == 'g')
		s->cur = i;
	srv_reply(s, "OK");
}

static void answer(struct srv *s, const char *p)
{
	size_t i;

	switch (p[0]) {
	case '?':
		return stop_reply(s, s->cur);
	case 'H':
		return set_thread(s, p + 1);
	case 'T':
		return find_thread(s, p + 1, &i) ? srv_reply(s, "E01") :
						   srv_reply(s, "OK");
	case 'g':
		return regs_reply(s, -1);
	case 'p': {
		uint64_t n;

		if (ms_hex_u64(p + 1, strlen(p + 1), &n) || n > 1024)
			return srv_reply(s, "E00");
		return regs_reply(s, (int)n);
	}
	case 'M':
	case 'X':
	case 'G':
	case 'P':
	case 'Z':
		return refuse(s, "writing");
	case 'c':
	case 's':
	case 'C':
	case 'S':
		return refuse(s, "running");
	case 'D':
		s->done = true;
		return srv_reply(s, "OK");
	case 'k':
		s->done = true;
		return;
	case 'v':
		if (!strncmp(p, "vCont;", 6))
			return refuse(s, "running");
		if (!strncmp(p, "vKill", 5)) {
			s->done = true;
			return srv_reply(s, "OK");
		}
		return srv_reply(s, "%s", "");
	case 'q':
	case 'Q':
		return query(s, p);
	default:
		return srv_reply(s, "%s", "");
	}
}

static int handle(struct srv *s, const char *p, struct ms_err *err)
{
	int r;

	s->len = 0;
	if (s->live && (r = srv_live(s, p, err)) <= 0)
		return r;
	if (p[0] == 'm')
		return read_mem(s, p + 1, err);
	answer(s, p);
	return 0;
}

static void print_stats(const struct srv *s, const char *when)
{
	const struct ms_mem *m = ms_kernel_mem(s->k);

	if (s->o->stats)
		fprintf(s->o->stats,
			"modsect: serve: %s: %zu threads, %llu memory requests, %llu bytes\n",
			when, s->nth, (unsigned long long)m->nrequests,
			(unsigned long long)m->nbytes);
}

int ms_serve(struct ms_kernel *k, const struct ms_serve_opts *o,
	     struct ms_err *err)
{
	struct srv *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return ms_err_errno(err, ENOMEM, "serve");
	s->k = k;
	s->o = o;
	s->machine = ms_kernel_elf_machine(k);
	s->live = ms_remote_fd(ms_kernel_mem(k)) >= 0;
	if (!ms_serve_target_xml(s->machine)) {
		free(s);
		return ms_err_set(err, ENOTSUP,
				  "%s: serving threads is done for x86-64 kernels only",
				  o->what);
	}
	rsp_rx_init(&s->rx);
	r = srv_load_threads(s, -1, err);
	print_stats(s, "threads read");
	while (!r && !s->done) {
		r = srv_next_packet(s, err);
		if (r == 1) {
			r = 0;
			break;
		}
		if (r)
			break;
		if (o->trace)
			fprintf(o->trace, "-> %s\n", s->rx.buf);
		r = handle(s, s->rx.buf, err);
		if (!r && (s->len || s->rx.buf[0] != 'k'))
			r = srv_send_reply(s, err);
	}
	print_stats(s, "served");
	free(s->th);
	free(s->threads_xml);
	free(s);
	return r;
}
