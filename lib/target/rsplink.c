// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The link to a GDB remote stub (see rsplink.h): connecting over TCP, a
 * tty or a socket given by the caller, and the exchange of a request and
 * its reply as gdb's remote.c does it: getpkt() sends '-' for a packet
 * with a bad checksum and gives up after MAX_TRIES (3); putpkt() sends
 * the packet again on '-'.
 *
 * A timeout, a closed connection or a stream that cannot be trusted any
 * more is an I/O failure (MS_E_IO): the target stopped answering or went
 * away, and nothing read after it would be an answer.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "rsplink.h"

#define DEFAULT_BAUD 115200u
/* gdb's getpkt gives up after MAX_TRIES (3) bad packets; so do we. */
#define MAX_TRIES 3
/* Stop replies or console output nobody asked for, per request. */
#define MAX_UNSOLICITED 16

uint64_t remote_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

const char *remote_fmt_ms(uint64_t ms, char *buf, size_t size)
{
	if (ms % 1000 == 0)
		snprintf(buf, size, "%" PRIu64 " s", ms / 1000);
	else if (ms < 10000)
		snprintf(buf, size, "%" PRIu64 " ms", ms);
	else
		snprintf(buf, size, "%.1f s", (double)ms / 1000);
	return buf;
}

/* A request as messages name it. */
static const char *req_name(const char *req)
{
	return req[0] == 0x03 ? "Ctrl-C" : req;
}

int remote_fatal(struct remote *s, struct ms_err *err, int code,
		 const char *fmt, ...)
{
	va_list ap;

	s->broken = true;
	err->code = code;
	err->kind = MS_E_IO;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -code;
}

/* Waits for fd to be ready for events until deadline; -ETIMEDOUT. */
static int wait_fd(struct remote *s, short events, uint64_t deadline)
{
	for (;;) {
		struct pollfd p = { .fd = s->fd, .events = events };
		uint64_t now = remote_now_ms();
		int r;

		if (now >= deadline)
			return -ETIMEDOUT;
		r = poll(&p, 1, (int)(deadline - now));
		if (r > 0)
			return 0;
		if (r == 0)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -errno;
	}
}

static int io_write(struct remote *s, const void *buf, size_t n,
		    uint64_t deadline, struct ms_err *err)
{
	const char *p = buf;

	while (n) {
		/* MSG_NOSIGNAL: a dead peer is EPIPE here, not SIGPIPE */
		ssize_t w = s->is_socket ? send(s->fd, p, n, MSG_NOSIGNAL) :
					   write(s->fd, p, n);
		int r;

		if (w > 0) {
			p += w;
			n -= (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno != EAGAIN)
			return remote_fatal(s, err, errno, "writing to %s: %s",
					    s->origin, strerror(errno));
		r = wait_fd(s, POLLOUT, deadline);
		if (r == -ETIMEDOUT)
			return remote_fatal(
				s, err, ETIMEDOUT,
				"writing to %s: blocked (flow control?)",
				s->origin);
		if (r)
			return remote_fatal(s, err, -r, "%s: poll: %s",
					    s->origin, strerror(-r));
	}
	return 0;
}

/*
 * The stub is gone (QEMU killed, kgdb's line hung up): say when, so that
 * a run that ends here is not taken for a slow target.
 */
static int closed(struct remote *s, struct ms_err *err)
{
	char t[32];

	return remote_fatal(
		s, err, ECONNRESET,
		"%s closed the connection (the target went away, %s into the session)",
		s->origin,
		remote_fmt_ms(remote_now_ms() - s->start_ms, t, sizeof(t)));
}

/* Reads what has arrived; -ETIMEDOUT (no message) at the deadline. */
static int io_fill(struct remote *s, uint64_t deadline, struct ms_err *err)
{
	for (;;) {
		ssize_t n = read(s->fd, s->in, sizeof(s->in));
		int r;

		if (n > 0) {
			s->in_pos = 0;
			s->in_len = (size_t)n;
			return 0;
		}
		/* a tty whose other side is gone reads EIO */
		if (n == 0 || (n < 0 && (errno == EIO || errno == ECONNRESET)))
			return closed(s, err);
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return remote_fatal(s, err, errno,
					    "reading from %s: %s", s->origin,
					    strerror(errno));
		r = wait_fd(s, POLLIN, deadline);
		if (r == -ETIMEDOUT)
			return r;
		if (r)
			return remote_fatal(s, err, -r, "%s: poll: %s",
					    s->origin, strerror(-r));
	}
}

int remote_next_event(struct remote *s, uint64_t deadline, struct ms_err *err)
{
	for (;;) {
		if (s->in_pos < s->in_len) {
			size_t used;
			enum rsp_rx_event ev =
				rsp_rx_feed(&s->rx, s->in + s->in_pos,
					    s->in_len - s->in_pos, &used);

			s->in_pos += used;
			if (ev != RSP_RX_MORE)
				return (int)ev;
		}
		int r = io_fill(s, deadline, err);

		if (r)
			return r;
	}
}

int remote_send(struct remote *s, const char *req, uint64_t deadline,
		struct ms_err *err)
{
	char small[128], *pkt = small;
	size_t n = strlen(req);
	int r;

	/* An interrupt is the raw byte, not a packet; so is an ack. */
	if (req[0] == 0x03 || (req[0] == '+' && !req[1]))
		return io_write(s, req, 1, deadline, err);
	/* Long ones are what `serve --remote` passes on (M, X). */
	if (n + 4 > sizeof(small) && !(pkt = malloc(n + 4)))
		return ms_err_errno(err, ENOMEM, "%s", s->origin);
	r = io_write(s, pkt, rsp_frame(req, n, pkt), deadline, err);
	if (pkt != small)
		free(pkt);
	return r;
}

static void remember_stop(struct remote *s, const struct rsp_reply *rep)
{
	s->have_stop = rep->len <= sizeof(s->stop);
	if (s->have_stop) {
		memcpy(s->stop, rep->data, rep->len);
		s->stop_len = rep->len;
	}
}

/* Handles one received packet; 1 if it is the reply, 0 to wait on. */
static int got_packet(struct remote *s, const char *req, unsigned int flags,
		      int *unsolicited, struct rsp_reply *rep,
		      struct ms_err *err)
{
	if (!s->noack &&
	    io_write(s, "+", 1, remote_now_ms() + s->timeout_ms, err))
		return -err->code;
	if (rsp_rle_expand(s->rx.buf, s->rx.len, s->reply, sizeof(s->reply),
			   &s->reply_len))
		return ms_err_set(
			err, EBADMSG,
			"malformed reply from %s to %s: bad run-length encoding",
			s->origin, req_name(req));
	rsp_classify(s->reply, s->reply_len, rep);
	if (rep->kind == RSP_EXITED)
		return remote_fatal(s, err, ESRCH,
				    "%s: the target exited (%.*s)", s->origin,
				    (int)rep->len, rep->data);
	if (rep->kind == RSP_STOP)
		remember_stop(s, rep);
	/*
	 * QEMU's stop reply on connect, a late answer to '?', console
	 * output: none of them answers a request that is not '?'.
	 */
	if (rep->kind == RSP_OUTPUT ||
	    (rep->kind == RSP_STOP && !(flags & T_STOP))) {
		if (++*unsolicited > MAX_UNSOLICITED)
			return remote_fatal(
				s, err, EPROTO,
				"%s sent over %d unrequested stop replies or output packets while %s waited for its reply",
				s->origin, MAX_UNSOLICITED, req_name(req));
		return 0;
	}
	return 1;
}

int remote_transact(struct remote *s, const char *req, unsigned int wait_ms,
		    unsigned int flags, struct rsp_reply *rep,
		    struct ms_err *err)
{
	uint64_t deadline = remote_now_ms() + wait_ms;
	int naks = 0, bad = 0, unsolicited = 0, r;
	char t[32];

	if (s->broken)
		return ms_err_set(err, EPIPE,
				  "%s: the connection failed earlier",
				  s->origin);
	s->m->nrequests++;
	r = remote_send(s, req, deadline, err);
	while (!r) {
		r = remote_next_event(s, deadline, err);
		switch (r) {
		case RSP_RX_ACK:
			r = 0;
			break;
		case RSP_RX_NAK:
			/* the stub got our packet garbled: send it again */
			r = 0;
			if (s->noack)
				break;
			if (++naks > MAX_TRIES)
				return remote_fatal(
					s, err, EPROTO,
					"%s refused %s %d times (bad checksum: line noise?)",
					s->origin, req_name(req), naks);
			r = remote_send(s, req, deadline, err);
			break;
		case RSP_RX_BADSUM:
			if (++bad > MAX_TRIES)
				return remote_fatal(
					s, err, EPROTO,
					"%s sent %d replies with bad checksums to %s",
					s->origin, bad, req_name(req));
			/*
			 * Ask again: '-' makes a stub in ack mode send it
			 * again; without acks, every request modsect sends
			 * can just be repeated. (A garbled OK to
			 * QStartNoAckMode is lost: the stub has switched and
			 * ignores the '-'; that needs a corrupting "reliable"
			 * transport, and ends in a timeout.)
			 */
			r = s->noack ? remote_send(s, req, deadline, err) :
				       io_write(s, "-", 1, deadline, err);
			break;
		case RSP_RX_TOOLONG:
			return remote_fatal(
				s, err, EMSGSIZE,
				"reply from %s to %s is longer than %zu bytes (no '#')",
				s->origin, req_name(req), RSP_MAX_PACKET);
		case RSP_RX_PACKET:
			r = got_packet(s, req, flags, &unsolicited, rep, err);
			if (r == 1)
				return 0;
			break;
		case -ETIMEDOUT: {
			char since[32];

			ms_err_kind(err, MS_E_IO, ETIMEDOUT,
				    "%s stopped answering: no reply within %s to %s (%s into the session)",
				    s->origin,
				    remote_fmt_ms(wait_ms, t, sizeof(t)),
				    req_name(req),
				    remote_fmt_ms(remote_now_ms() - s->start_ms,
						  since, sizeof(since)));
			s->broken = !(flags & T_SOFT);
			return -ETIMEDOUT;
		}
		default:
			break; /* an error, message set */
		}
	}
	return r;
}

/* ---- connecting ---- */

static int connect_tcp(struct remote *s, const char *host, const char *port,
		       struct ms_err *err)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV };
	struct addrinfo *res, *ai;
	int e = 0, r = getaddrinfo(host, port, &hints, &res);
	char t[32];

	if (r)
		return ms_err_set(err, r == EAI_SYSTEM ? errno : EHOSTUNREACH,
				  "%s: %s", s->origin,
				  r == EAI_SYSTEM ? strerror(errno) :
						    gai_strerror(r));
	for (ai = res; ai; ai = ai->ai_next) {
		socklen_t len = sizeof(e);
		int one = 1;

		s->fd = socket(ai->ai_family,
			       ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
			       ai->ai_protocol);
		if (s->fd < 0) {
			e = errno;
			continue;
		}
		/* small requests, one at a time: no Nagle delays */
		setsockopt(s->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (connect(s->fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		e = errno;
		if (e == EINPROGRESS) {
			r = wait_fd(s, POLLOUT,
				    remote_now_ms() + s->timeout_ms);
			e = r ? -r : 0;
			if (!r &&
			    getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &e, &len))
				e = errno;
			if (!e)
				break;
		}
		close(s->fd);
		s->fd = -1;
	}
	freeaddrinfo(res);
	if (s->fd >= 0)
		return 0;
	if (e == ETIMEDOUT)
		return ms_err_set(err, e, "%s: connect: no answer within %s",
				  s->origin,
				  remote_fmt_ms(s->timeout_ms, t, sizeof(t)));
	return ms_err_errno(err, e ? e : ECONNREFUSED, "%s: connect",
			    s->origin);
}

static int open_tty(struct remote *s, const char *path, unsigned int baud,
		    struct ms_err *err)
{
	struct termios t;
	speed_t speed;

	if (rsp_baud_speed(baud, &speed))
		return ms_err_set(
			err, EINVAL,
			"%s: baud rate %u is not supported (9600, 19200, 38400, 57600, 115200, 230400, 460800, 500000, 921600, 1000000, 1500000, 2000000, 3000000, 4000000)",
			s->origin, baud);
	s->fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (s->fd < 0)
		return ms_err_errno(err, errno, "%s", s->origin);
	if (tcgetattr(s->fd, &s->saved_tty))
		return ms_err_errno(err, errno, "%s: not a tty", s->origin);
	s->restore_tty = true;
	/* raw 8N1, no flow control: the protocol is its own framing */
	t = s->saved_tty;
	cfmakeraw(&t);
	t.c_cflag &= ~(tcflag_t)(CSIZE | PARENB | CSTOPB | CRTSCTS);
	t.c_cflag |= CS8 | CLOCAL | CREAD;
	/*
	 * VMIN 1: with O_NONBLOCK, no data is EAGAIN and 0 is a hangup
	 * (with VMIN 0, n_tty returns 0 for no data as well).
	 */
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	if (cfsetispeed(&t, speed) || cfsetospeed(&t, speed) ||
	    tcsetattr(s->fd, TCSANOW, &t))
		return ms_err_errno(err, errno, "%s: setting %u baud 8N1",
				    s->origin, baud);
	/* whatever the line held before is no reply to us */
	tcflush(s->fd, TCIOFLUSH);
	return 0;
}

/*
 * fd:N, a stream socket the caller opened (and owns until now): the gdb
 * command in share/gdb/modsect.py passes one end of a socketpair whose
 * other end it serves from gdb's own connection, as a stub would.
 */
static int open_fd(struct remote *s, const char *num, struct ms_err *err)
{
	int type = 0, fl;
	socklen_t len = sizeof(type);
	char *end;
	long v;

	errno = 0;
	v = strtol(num, &end, 10);
	if (errno || end == num || *end || v < 0 || v > 65535)
		return ms_err_set(err, EINVAL,
				  "remote fd:%s: not a file descriptor number",
				  MS_ESC(num));
	if (getsockopt((int)v, SOL_SOCKET, SO_TYPE, &type, &len) ||
	    type != SOCK_STREAM)
		return ms_err_set(err, ENOTSOCK,
				  "%s: not an open stream socket", s->origin);
	fl = fcntl((int)v, F_GETFL);
	if (fl < 0 || fcntl((int)v, F_SETFL, fl | O_NONBLOCK) ||
	    fcntl((int)v, F_SETFD, FD_CLOEXEC))
		return ms_err_errno(err, errno, "%s", s->origin);
	s->fd = (int)v;
	s->is_socket = true;
	return 0;
}

int remote_open_link(struct remote *s, const char *spec,
		     const struct ms_remote_opts *o, struct ms_err *err)
{
	char host[256], port[6];
	int r;

	s->start_ms = remote_now_ms();
	if (!strncmp(spec, "fd:", 3)) {
		snprintf(s->origin, sizeof(s->origin), "remote %.20s", spec);
		return open_fd(s, spec + 3, err);
	}
	if (spec[0] == '/' || !strncmp(spec, "./", 2)) {
		if (strlen(spec) > 200)
			return ms_err_set(err, ENAMETOOLONG,
					  "remote: tty path too long");
		snprintf(s->origin, sizeof(s->origin), "remote %s", spec);
		return open_tty(s, spec, o->baud ? o->baud : DEFAULT_BAUD, err);
	}
	r = rsp_parse_hostport(spec, host, sizeof(host), port, err);
	if (r)
		return r;
	snprintf(s->origin, sizeof(s->origin),
		 strchr(host, ':') ? "remote [%s]:%s" : "remote %s:%s", host,
		 port);
	s->is_socket = true;
	return connect_tcp(s, host, port, err);
}

void remote_free(struct remote *s)
{
	if (!s)
		return;
	if (s->restore_tty)
		tcsetattr(s->fd, TCSANOW, &s->saved_tty);
	if (s->fd >= 0)
		close(s->fd);
	free(s);
}
