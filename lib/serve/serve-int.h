/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal to lib/serve: the server's state, shared by the conversation
 * (serve.c) and the run control of a live target (srvlive.c).
 */
#ifndef MODSECT_SERVE_INT_H
#define MODSECT_SERVE_INT_H

#include "serve.h"
#include "target/rsp.h"

/* What we tell the debugger: replies to 'm' of up to PACKET / 2 bytes. */
#define PACKET 0x4000u
#define REPLY_MAX (2 * PACKET + 64)

struct thread {
	struct ms_task t;
	struct ms_regs regs;
	char why[256]; /* no registers: why, else "" */
};

struct srv {
	struct ms_kernel *k;
	const struct ms_serve_opts *o;
	int machine;
	struct thread *th;
	size_t nth;
	size_t cur; /* the general thread, an index of th */
	size_t info_next; /* qsThreadInfo's position */
	char *threads_xml;
	size_t threads_len;
	bool noack, done;
	bool live; /* a --remote target: it runs */
	bool answered; /* a reply was sent */
	size_t in_pos, in_len;
	unsigned char in[16384];
	struct rsp_rx rx;
	size_t len;
	char reply[REPLY_MAX];
	char frame[2 * REPLY_MAX + 8];
};

/* srvio.c: the connection, bottom of the folder */
int srv_send_all(struct srv *s, const void *p, size_t n, struct ms_err *err);
int srv_send_reply(struct srv *s, struct ms_err *err);
void srv_reply(struct srv *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The next packet into s->rx.buf; 1 when the debugger closed. */
int srv_next_packet(struct srv *s, struct ms_err *err);

/* srvthreads.c */
/* "state S, CPU n, running, no registers: why" */
void srv_extra_info(const struct thread *th, char *out, size_t size);
/*
 * The tasks and their registers, again after the target ran; the current
 * thread the task running on cpu (-1: the CPU that panicked, else 0).
 */
int srv_load_threads(struct srv *s, int cpu, struct ms_err *err);

/*
 * srvlive.c (above srvio.c and srvthreads.c; serve.c is above all): a packet of run control or writes for a live target (1 if
 * it is none), its reply in s; a resume waits for the stop, passing the
 * debugger's Ctrl-C on.
 */
int srv_live(struct srv *s, const char *p, struct ms_err *err);

#endif
