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
 * gdb's remote.c is the model: remote_read_bytes_1() asks for at most
 * PacketSize / 2 bytes per 'm', as the reply is two hex digits a byte.
 * The link itself (connection, acks, retransmission) is rsplink.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rsplink.h"

#define DEFAULT_TIMEOUT_MS 5000u
/* '?' of a stopped target answers at once; a running one never does. */
#define STOP_QUERY_MS 1000u
#define DETACH_MS 2000u
#define XML_MAX ((size_t)64 * 1024)

/* ---- the memory source ---- */

/* Reads one chunk; *got is what the stub gave (it may give less). */
static int read_chunk(struct remote *s, uint64_t addr, uint8_t *out, size_t n,
		      size_t *got, struct ms_err *err)
{
	struct rsp_reply rep;
	char req[48];
	int r;

	snprintf(req, sizeof(req), "m%" PRIx64 ",%zx", addr, n);
	r = remote_transact(s, req, s->timeout_ms, 0, &rep, err);
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

/* A register read as little endian, in the target's byte order. */
static uint64_t reg_order(const struct rsp_arch *a, uint64_t v)
{
	return a->big_endian ? __builtin_bswap64(v) >> (64 - 8 * a->pc_size) :
			       v;
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
	r = remote_transact(s, req, s->timeout_ms, 0, &rep, err);
	if (r)
		return r;
	if (rep.kind == RSP_DATA && rep.len == 2 * (size_t)a->pc_size &&
	    !rsp_hex_le(rep.data, rep.len, pc)) {
		*pc = reg_order(a, *pc);
		return 0;
	}
	/*
	 * No 'p' (empty, an error, or "xx..": unavailable): the registers
	 * of the stop reply, then 'g'.
	 */
	if (s->have_stop &&
	    !rsp_stop_reg(s->stop, s->stop_len, a->pc_regno, pc)) {
		*pc = reg_order(a, *pc);
		return 0;
	}
	r = remote_transact(s, "g", s->timeout_ms, 0, &rep, err);
	if (r)
		return r;
	if (rep.kind == RSP_DATA &&
	    rep.len >= 2 * (size_t)a->pc_size * (a->pc_regno + 1) &&
	    !rsp_hex_le(rep.data + 2 * (size_t)a->pc_size * a->pc_regno,
			2 * (size_t)a->pc_size, pc)) {
		*pc = reg_order(a, *pc);
		return 0;
	}
	return ms_err_set(
		err, ENOTSUP,
		"%s gives no pc (register %u): neither 'p', the stop reply nor 'g' has it",
		s->origin, a->pc_regno);
}

static void remote_close(struct ms_mem *m)
{
	struct remote *s = m->priv;
	struct ms_err err;
	struct rsp_reply rep;

	/* Detach, so QEMU runs the guest again (see the top of the file). */
	if (s->fd >= 0 && !s->broken &&
	    !remote_transact(s, "D", DETACH_MS, T_SOFT, &rep, &err) &&
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
		(void)remote_transact(s, req, DETACH_MS, T_SOFT, &rep, &err);
	}
	remote_free(s);
}

static const struct ms_mem_ops remote_ops = {
	.read = remote_read,
	.pc = remote_pc,
	.ncpus = remote_ncpus,
	.cpu_regs = remote_cpu_regs,
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
	int r = remote_transact(s, "?", q, T_STOP | T_SOFT, &rep, err);

	if (!r && rep.kind == RSP_STOP)
		return 0;
	if (r && r != -ETIMEDOUT)
		return r;
	r = remote_transact(s, "\x03", s->timeout_ms, T_STOP, &rep, err);
	if (r == -ETIMEDOUT)
		return ms_err_set(
			err, ETIMEDOUT,
			"%s does not stop: no stop reply within %s of '?' and then Ctrl-C",
			s->origin,
			remote_fmt_ms(q + s->timeout_ms, t, sizeof(t)));
	if (!r && rep.kind != RSP_STOP)
		return remote_fatal(
			s, err, EPROTO,
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
		r = remote_transact(s, req, s->timeout_ms, 0, &rep, err);
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
		r = remote_transact(s, "qSupported", s->timeout_ms, 0, &rep,
				    err);
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
		r = remote_transact(s, "QStartNoAckMode", s->timeout_ms, 0,
				    &rep, err);
		if (r)
			return r;
		s->noack = rep.kind == RSP_OK;
	}
	if (f.xfer_features)
		r = read_target_xml(s, err);
	s->m->elf_machine = s->arch.elf_machine;
	s->m->elf_class = s->arch.elf_class;
	s->m->big_endian = s->arch.big_endian;
	return r;
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
	r = remote_open_link(s, spec, o, err);
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
