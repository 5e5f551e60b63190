// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel memory over the GDB remote serial protocol: QEMU's gdbstub,
 * kgdb, or any gdbserver-like stub, on TCP or a tty. Packets are built
 * and parsed by rsp.c; this file owns the connection and the session:
 * stopping the target, the handshake, one request in flight at a time,
 * and detaching at the end.
 *
 * What QEMU does (its gdbstub, 7.2 and later: gdbstub/gdbstub.c and
 * gdbstub/softmmu.c, later system.c):
 * - gdb_chr_event(CHR_EVENT_OPENED) calls vm_stop(RUN_STATE_PAUSED) when
 *   a client connects, and gdb_vm_state_change() then sends an
 *   unsolicited stop reply "T02thread:01;" before any request.
 * - qSupported answers "PacketSize=1000" (MAX_PACKET_LENGTH 4096) and
 *   ";qXfer:features:read+" when the CPU has a target description; 'm'
 *   with a length over MAX_PACKET_LENGTH / 2 is refused with E22, and an
 *   unreadable address gives E14. 'p' works only after target.xml was
 *   read (gdb_has_xml).
 * - 'D' (handle_detach) marks the process detached and, with none left
 *   attached, calls gdb_continue(): the VM runs again. In multiprocess
 *   mode it wants "D;PID" and answers plain "D" with E22; that mode is
 *   sticky (see remote_close). A connection that
 *   just closes does nothing (gdb_chr_event ignores CHR_EVENT_CLOSED): the
 *   VM stays paused until a client continues or detaches. So close
 *   detaches; a modsect killed by SIGINT (left to its default action:
 *   there is no signal handler and no global state here) leaves QEMU's
 *   guest paused, as gdb's "disconnect" does; attach and detach again
 *   (or "cont") to resume it.
 *
 * gdb's remote.c is the model for the rest: getpkt() sends '-' for a
 * packet with a bad checksum and gives up after MAX_TRIES (3); putpkt()
 * sends the packet again on '-'; remote_read_bytes_1() asks for at most
 * PacketSize / 2 bytes per 'm', as the reply is two hex digits a byte.
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

#include "target.h"
#include "rsp.h"

#define DEFAULT_TIMEOUT_MS 5000u
#define DEFAULT_BAUD 115200u
/* gdb's getpkt gives up after MAX_TRIES (3) bad packets; so do we. */
#define MAX_TRIES 3
/* Stop replies or console output nobody asked for, per request. */
#define MAX_UNSOLICITED 16
/* '?' of a stopped target answers at once; a running one never does. */
#define STOP_QUERY_MS 1000u
#define DETACH_MS 2000u
#define XML_MAX ((size_t)64 * 1024)

struct remote {
	int fd;
	bool is_socket, broken, noack;
	bool restore_tty;
	struct termios saved_tty;
	unsigned int timeout_ms;
	size_t packet_size, max_read;
	struct rsp_arch arch;
	struct ms_mem *m; /* owner of this; for the request counter */
	char origin[300];
	/* the fields of the last 'T' stop reply, for the pc */
	bool have_stop;
	size_t stop_len;
	char stop[512];
	/* input buffered so that a reply costs a few reads, not one a byte */
	size_t in_pos, in_len;
	unsigned char in[16384];
	struct rsp_rx rx;
	size_t reply_len;
	char reply[RSP_MAX_PACKET];
};

/* transact() flags */
#define T_STOP 1u /* the request is answered by a stop reply */
#define T_SOFT 2u /* a timeout is an answer too: the session stays usable */

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static const char *fmt_ms(unsigned int ms, char *buf, size_t size)
{
	if (ms % 1000 == 0)
		snprintf(buf, size, "%u s", ms / 1000);
	else
		snprintf(buf, size, "%u ms", ms);
	return buf;
}

/* A request as messages name it. */
static const char *req_name(const char *req)
{
	return req[0] == 0x03 ? "Ctrl-C" : req;
}

/* An error after which the byte stream cannot be trusted any more. */
static int fatal(struct remote *s, struct ms_err *err, int code,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int fatal(struct remote *s, struct ms_err *err, int code,
		 const char *fmt, ...)
{
	va_list ap;

	s->broken = true;
	err->code = code;
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
		uint64_t now = now_ms();
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
			return fatal(s, err, errno, "writing to %s: %s",
				     s->origin, strerror(errno));
		r = wait_fd(s, POLLOUT, deadline);
		if (r == -ETIMEDOUT)
			return fatal(s, err, ETIMEDOUT,
				     "writing to %s: blocked (flow control?)",
				     s->origin);
		if (r)
			return fatal(s, err, -r, "%s: poll: %s", s->origin,
				     strerror(-r));
	}
	return 0;
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
			return fatal(s, err, ECONNRESET,
				     "%s closed the connection", s->origin);
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return fatal(s, err, errno, "reading from %s: %s",
				     s->origin, strerror(errno));
		r = wait_fd(s, POLLIN, deadline);
		if (r == -ETIMEDOUT)
			return r;
		if (r)
			return fatal(s, err, -r, "%s: poll: %s", s->origin,
				     strerror(-r));
	}
}

static int next_event(struct remote *s, uint64_t deadline, struct ms_err *err)
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

static int send_req(struct remote *s, const char *req, uint64_t deadline,
		    struct ms_err *err)
{
	char pkt[128];
	size_t n = strlen(req);

	if (req[0] == 0x03) /* an interrupt is the raw byte, not a packet */
		return io_write(s, req, 1, deadline, err);
	return io_write(s, pkt, rsp_frame(req, n, pkt), deadline, err);
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
	if (!s->noack && io_write(s, "+", 1, now_ms() + s->timeout_ms, err))
		return -err->code;
	if (rsp_rle_expand(s->rx.buf, s->rx.len, s->reply, sizeof(s->reply),
			   &s->reply_len))
		return ms_err_set(
			err, EBADMSG,
			"malformed reply from %s to %s: bad run-length encoding",
			s->origin, req_name(req));
	rsp_classify(s->reply, s->reply_len, rep);
	if (rep->kind == RSP_EXITED)
		return fatal(s, err, ESRCH, "%s: the target exited (%.*s)",
			     s->origin, (int)rep->len, rep->data);
	if (rep->kind == RSP_STOP)
		remember_stop(s, rep);
	/*
	 * QEMU's stop reply on connect, a late answer to '?', console
	 * output: none of them answers a request that is not '?'.
	 */
	if (rep->kind == RSP_OUTPUT ||
	    (rep->kind == RSP_STOP && !(flags & T_STOP))) {
		if (++*unsolicited > MAX_UNSOLICITED)
			return fatal(
				s, err, EPROTO,
				"%s sent over %d unrequested stop replies or output packets while %s waited for its reply",
				s->origin, MAX_UNSOLICITED, req_name(req));
		return 0;
	}
	return 1;
}

/*
 * One round trip: sends req, waits for its reply, classified in *rep
 * (pointing into s->reply). wait_ms bounds the whole exchange,
 * retransmissions included.
 */
static int transact(struct remote *s, const char *req, unsigned int wait_ms,
		    unsigned int flags, struct rsp_reply *rep,
		    struct ms_err *err)
{
	uint64_t deadline = now_ms() + wait_ms;
	int naks = 0, bad = 0, unsolicited = 0, r;
	char t[32];

	if (s->broken)
		return ms_err_set(err, EPIPE,
				  "%s: the connection failed earlier",
				  s->origin);
	s->m->nrequests++;
	r = send_req(s, req, deadline, err);
	while (!r) {
		r = next_event(s, deadline, err);
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
				return fatal(
					s, err, EPROTO,
					"%s refused %s %d times (bad checksum: line noise?)",
					s->origin, req_name(req), naks);
			r = send_req(s, req, deadline, err);
			break;
		case RSP_RX_BADSUM:
			if (++bad > MAX_TRIES)
				return fatal(
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
			r = s->noack ? send_req(s, req, deadline, err) :
				       io_write(s, "-", 1, deadline, err);
			break;
		case RSP_RX_TOOLONG:
			return fatal(
				s, err, EMSGSIZE,
				"reply from %s to %s is longer than %zu bytes (no '#')",
				s->origin, req_name(req), RSP_MAX_PACKET);
		case RSP_RX_PACKET:
			r = got_packet(s, req, flags, &unsolicited, rep, err);
			if (r == 1)
				return 0;
			break;
		case -ETIMEDOUT:
			err->code = ETIMEDOUT;
			snprintf(err->msg, sizeof(err->msg),
				 "no reply from %s within %s to %s", s->origin,
				 fmt_ms(wait_ms, t, sizeof(t)), req_name(req));
			s->broken = !(flags & T_SOFT);
			return -ETIMEDOUT;
		default:
			break; /* an error, message set */
		}
	}
	return r;
}

/* ---- the memory source ---- */

/* Reads one chunk; *got is what the stub gave (it may give less). */
static int read_chunk(struct remote *s, uint64_t addr, uint8_t *out, size_t n,
		      size_t *got, struct ms_err *err)
{
	struct rsp_reply rep;
	char req[48];
	int r;

	snprintf(req, sizeof(req), "m%" PRIx64 ",%zx", addr, n);
	r = transact(s, req, s->timeout_ms, 0, &rep, err);
	if (r)
		return r;
	if (rep.kind == RSP_ERROR)
		return ms_err_set(err, EFAULT,
				  "stub error E%s%.*s: memory at 0x%" PRIx64
				  " is not readable",
				  rep.code < 0 ? "." : "", (int)rep.len,
				  rep.data, addr);
	if (rep.kind != RSP_DATA)
		return ms_err_set(err, EPROTO, "%s answered %s with %s",
				  s->origin, req, rsp_kind_name(rep.kind));
	/* The manual lets a stub give fewer bytes than asked, never more. */
	if (rep.len % 2 || rep.len > 2 * n)
		return ms_err_set(
			err, EBADMSG,
			"malformed reply from %s to %s: %zu hex digits for %zu bytes",
			s->origin, req, rep.len, n);
	if (ms_hex_decode(rep.data, rep.len, out))
		return ms_err_set(err, EBADMSG,
				  "malformed reply from %s to %s: not hex",
				  s->origin, req);
	*got = rep.len / 2;
	return 0;
}

static int remote_read(struct ms_mem *m, uint64_t addr, void *buf, size_t len,
		       struct ms_err *err)
{
	struct remote *s = m->priv;
	uint8_t *out = buf;

	while (len) {
		size_t n = len < s->max_read ? len : s->max_read, got = 0;
		uint64_t page_end = (addr | 4095) + 1;
		int r = read_chunk(s, addr, out, n, &got, err);

		/*
		 * A stub fails the whole request if any page is unmapped:
		 * ask again up to the page end, so the message names the
		 * first unreadable page, not where the chunk began.
		 */
		if (r == -EFAULT && page_end && page_end - addr < n)
			r = read_chunk(s, addr, out, (size_t)(page_end - addr),
				       &got, err);
		if (r)
			return r;
		if (got == 0)
			return ms_err_set(err, EPROTO,
					  "%s gave no bytes for m%" PRIx64
					  ",%zx",
					  s->origin, addr, n);
		out += got;
		addr += got;
		len -= got;
	}
	return 0;
}

static int remote_pc(struct ms_mem *m, uint64_t *pc, struct ms_err *err)
{
	struct remote *s = m->priv;
	const struct rsp_arch *a = &s->arch;
	struct rsp_reply rep;
	char req[16];
	int r;

	if (!a->elf_machine)
		return ms_err_set(
			err, ENOTSUP,
			"%s: no pc: the architecture is unknown (no target description)",
			s->origin);
	snprintf(req, sizeof(req), "p%x", a->pc_regno);
	r = transact(s, req, s->timeout_ms, 0, &rep, err);
	if (r)
		return r;
	if (rep.kind == RSP_DATA && rep.len == 2 * (size_t)a->pc_size &&
	    !rsp_hex_le(rep.data, rep.len, pc))
		return 0;
	/*
	 * No 'p' (empty, an error, or "xx..": unavailable): the registers
	 * of the stop reply, then 'g'.
	 */
	if (s->have_stop &&
	    !rsp_stop_reg(s->stop, s->stop_len, a->pc_regno, pc))
		return 0;
	r = transact(s, "g", s->timeout_ms, 0, &rep, err);
	if (r)
		return r;
	if (rep.kind == RSP_DATA &&
	    rep.len >= 2 * (size_t)a->pc_size * (a->pc_regno + 1) &&
	    !rsp_hex_le(rep.data + 2 * (size_t)a->pc_size * a->pc_regno,
			2 * (size_t)a->pc_size, pc))
		return 0;
	return ms_err_set(
		err, ENOTSUP,
		"%s gives no pc (register %u): neither 'p', the stop reply nor 'g' has it",
		s->origin, a->pc_regno);
}

static void remote_free(struct remote *s)
{
	if (!s)
		return;
	if (s->restore_tty)
		tcsetattr(s->fd, TCSANOW, &s->saved_tty);
	if (s->fd >= 0)
		close(s->fd);
	free(s);
}

static void remote_close(struct ms_mem *m)
{
	struct remote *s = m->priv;
	struct ms_err err;
	struct rsp_reply rep;

	/* Detach, so QEMU runs the guest again (see the top of the file). */
	if (s->fd >= 0 && !s->broken &&
	    !transact(s, "D", DETACH_MS, T_SOFT, &rep, &err) &&
	    rep.kind == RSP_ERROR) {
		/*
		 * QEMU in multiprocess mode wants "D;PID" (E22 otherwise),
		 * and it stays in that mode once any client announced
		 * multiprocess+ (handle_query_supported sets
		 * gdbserver_state.multiprocess, nothing clears it): after
		 * one gdb session, plain "D" fails and the guest stays
		 * paused. The pid is the stop reply's, else QEMU's first
		 * process, 1.
		 */
		uint64_t pid = 1;
		char req[32];

		if (s->have_stop)
			(void)rsp_stop_pid(s->stop, s->stop_len, &pid);
		snprintf(req, sizeof(req), "D;%" PRIx64, pid);
		(void)transact(s, req, DETACH_MS, T_SOFT, &rep, &err);
	}
	remote_free(s);
}

static const struct ms_mem_ops remote_ops = {
	.read = remote_read,
	.pc = remote_pc,
	.close = remote_close,
};

/* ---- the handshake ---- */

/*
 * Gets the target stopped: '?' first; a target that does not answer it
 * (kgdb while the kernel runs, a stub in non-stop mode saying "OK") gets
 * one Ctrl-C. QEMU's stop reply on connect answers '?' as well as the
 * real answer does; the later one is skipped as unrequested.
 */
static int stop_target(struct remote *s, struct ms_err *err)
{
	unsigned int q = s->timeout_ms < STOP_QUERY_MS ? s->timeout_ms :
							 STOP_QUERY_MS;
	struct rsp_reply rep;
	char t[32];
	int r = transact(s, "?", q, T_STOP | T_SOFT, &rep, err);

	if (!r && rep.kind == RSP_STOP)
		return 0;
	if (r && r != -ETIMEDOUT)
		return r;
	r = transact(s, "\x03", s->timeout_ms, T_STOP, &rep, err);
	if (r == -ETIMEDOUT)
		return ms_err_set(
			err, ETIMEDOUT,
			"%s does not stop: no stop reply within %s of '?' and then Ctrl-C",
			s->origin, fmt_ms(q + s->timeout_ms, t, sizeof(t)));
	if (!r && rep.kind != RSP_STOP)
		return fatal(s, err, EPROTO,
			     "%s answered Ctrl-C with %s, not a stop reply",
			     s->origin, rsp_kind_name(rep.kind));
	return r;
}

/* target.xml, for the architecture; none (or a refusal) is no error. */
static int read_target_xml(struct remote *s, struct ms_err *err)
{
	char *xml = malloc(XML_MAX);
	size_t have = 0;
	int r = 0;

	if (!xml)
		return ms_err_errno(err, ENOMEM, "%s", s->origin);
	while (have < XML_MAX) {
		struct rsp_reply rep;
		char req[64];
		size_t n;

		snprintf(req, sizeof(req),
			 "qXfer:features:read:target.xml:%zx,%zx", have,
			 s->max_read);
		r = transact(s, req, s->timeout_ms, 0, &rep, err);
		if (r || rep.kind != RSP_DATA)
			break;
		if (rep.data[0] != 'm' && rep.data[0] != 'l')
			break;
		/* binary data: '}' escapes */
		if (rsp_unescape(s->reply + 1, s->reply_len - 1, &n) ||
		    n > XML_MAX - have)
			break;
		memcpy(xml + have, s->reply + 1, n);
		have += n;
		if (rep.data[0] == 'l' || n == 0)
			break;
	}
	if (!r)
		rsp_parse_arch(xml, have, &s->arch);
	free(xml);
	return r;
}

static int handshake(struct remote *s, struct ms_err *err)
{
	struct rsp_features f = { 0 };
	struct rsp_reply rep;
	int r = stop_target(s, err);

	if (!r)
		r = transact(s, "qSupported", s->timeout_ms, 0, &rep, err);
	if (r)
		return r;
	if (rep.kind == RSP_DATA)
		rsp_parse_supported(rep.data, rep.len, &f);
	s->packet_size = f.packet_size ? f.packet_size : RSP_DEFAULT_PACKET;
	s->max_read = s->packet_size / 2;
	if (s->max_read > RSP_MAX_READ)
		s->max_read = RSP_MAX_READ;
	if (f.noack) {
		/* the OK itself still comes in ack mode, and is acked */
		r = transact(s, "QStartNoAckMode", s->timeout_ms, 0, &rep, err);
		if (r)
			return r;
		s->noack = rep.kind == RSP_OK;
	}
	if (f.xfer_features)
		r = read_target_xml(s, err);
	s->m->elf_machine = s->arch.elf_machine;
	s->m->elf_class = s->arch.elf_class;
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
			r = wait_fd(s, POLLOUT, now_ms() + s->timeout_ms);
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
				  fmt_ms(s->timeout_ms, t, sizeof(t)));
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

static int open_transport(struct remote *s, const char *spec,
			  const struct ms_remote_opts *o, struct ms_err *err)
{
	char host[256], port[6];
	int r;

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

int ms_remote_open(const char *spec, const struct ms_remote_opts *o,
		   struct ms_mem **ret, struct ms_err *err)
{
	static const struct ms_remote_opts defaults = { 0 };
	struct remote *s = calloc(1, sizeof(*s));
	struct ms_mem *m;
	int r;

	if (!s)
		return ms_err_errno(err, ENOMEM, "remote %s", spec);
	if (!o)
		o = &defaults;
	s->fd = -1;
	s->timeout_ms = o->timeout_ms ? o->timeout_ms : DEFAULT_TIMEOUT_MS;
	rsp_rx_init(&s->rx);
	r = open_transport(s, spec, o, err);
	if (!r)
		r = ms_mem_new(&remote_ops, s, s->origin, &m, err);
	if (r) {
		remote_free(s);
		return r;
	}
	s->m = m;
	r = handshake(s, err);
	if (r) {
		ms_mem_free(m); /* detaches if the stub still talks */
		return r;
	}
	*ret = m;
	return 0;
}
