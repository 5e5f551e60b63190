// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The server's side of the connection: packets in (acknowledged until
 * QStartNoAckMode), replies out, framed and with '$', '#', '}' and '*'
 * escaped as the manual's binary data ("Overview": escaping).
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "serve-int.h"

int srv_send_all(struct srv *s, const void *p, size_t n, struct ms_err *err)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(s->o->out_fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return ms_err_kind(err, MS_E_IO, w < 0 ? errno : EPIPE,
					   "writing to the debugger");
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/* s->reply[0..s->len) framed, with '$', '#', '}' and '*' escaped. */
int srv_send_reply(struct srv *s, struct ms_err *err)
{
	size_t o = 0;
	uint8_t sum = 0;

	s->frame[o++] = '$';
	for (size_t i = 0; i < s->len; i++) {
		char c = s->reply[i];

		if (c == '$' || c == '#' || c == '}' || c == '*') {
			s->frame[o++] = '}';
			sum += '}';
			c ^= 0x20;
		}
		s->frame[o++] = c;
		sum += (uint8_t)c;
	}
	o += (size_t)snprintf(s->frame + o, 4, "#%02x", sum);
	if (s->o->trace)
		fprintf(s->o->trace, "<- %.*s\n", (int)(s->len > 200 ? 200 : s->len),
			s->reply);
	s->answered = true;
	return srv_send_all(s, s->frame, o, err);
}

/*
 * The next packet into s->rx.buf; 1 when the debugger closed the
 * connection.
 */
/*
 * gdb sends a packet again when no ack comes within its remotetimeout
 * (2 s by default). Before serve answers its first packet it reads the
 * tasks (seconds on a slow stub, a large kernel or a sanitizer build),
 * and copies of that first packet queue up: they are one request, and
 * answering each would leave every later reply one behind. So before the
 * first reply, copies of the packet just read that are already waiting
 * are dropped. Later, the same packet twice is two requests
 * (qsThreadInfo).
 */
static void skip_copies(struct srv *s)
{
	struct rsp_rx *rx;

	if (s->answered || s->noack || !(rx = malloc(sizeof(*rx))))
		return;
	for (;;) {
		struct pollfd pf = { .fd = s->o->in_fd, .events = POLLIN };
		enum rsp_rx_event ev;
		size_t used;

		if (s->in_pos == s->in_len) {
			ssize_t n;

			if (poll(&pf, 1, 0) <= 0 ||
			    (n = read(s->o->in_fd, s->in, sizeof(s->in))) <= 0)
				break;
			s->in_pos = 0;
			s->in_len = (size_t)n;
		}
		rsp_rx_init(rx);
		ev = rsp_rx_feed(rx, s->in + s->in_pos, s->in_len - s->in_pos,
				 &used);
		if (ev == RSP_RX_ACK || ev == RSP_RX_NAK ||
		    (ev == RSP_RX_PACKET && rx->len == s->rx.len &&
		     !memcmp(rx->buf, s->rx.buf, rx->len))) {
			s->in_pos += used;
			continue;
		}
		break;
	}
	free(rx);
}

int srv_next_packet(struct srv *s, struct ms_err *err)
{
	for (;;) {
		size_t used;
		enum rsp_rx_event ev;

		if (s->in_pos == s->in_len) {
			ssize_t n = read(s->o->in_fd, s->in, sizeof(s->in));

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				return ms_err_kind(err, MS_E_IO, errno,
						   "reading from the debugger");
			if (n == 0)
				return 1;
			s->in_pos = 0;
			s->in_len = (size_t)n;
		}
		ev = rsp_rx_feed(&s->rx, s->in + s->in_pos, s->in_len - s->in_pos,
				 &used);
		s->in_pos += used;
		/* A packet that fills rx.buf leaves no room for its NUL. */
		if (ev == RSP_RX_PACKET && s->rx.len >= sizeof(s->rx.buf))
			ev = RSP_RX_TOOLONG;
		if (ev == RSP_RX_PACKET) {
			s->rx.buf[s->rx.len] = '\0';
			skip_copies(s);
			return s->noack ? 0 : srv_send_all(s, "+", 1, err);
		}
		if ((ev == RSP_RX_BADSUM || ev == RSP_RX_TOOLONG) && !s->noack) {
			int r = srv_send_all(s, "-", 1, err);

			if (r)
				return r;
		}
	}
}

void srv_reply(struct srv *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(s->reply, sizeof(s->reply), fmt, ap);
	va_end(ap);
	s->len = n < 0 ? 0 : (size_t)n >= sizeof(s->reply) ? sizeof(s->reply) - 1 : (size_t)n;
}
