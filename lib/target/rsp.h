/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The GDB remote serial protocol at the packet level (rsp.c): framing,
 * checksums, hex, run-length decoding, reply classification and the few
 * replies modsect parses (qSupported, target.xml, stop replies). Pure
 * functions on buffers, no I/O and no allocation, so the fuzz target
 * (fuzz/fuzz_rsp.c) reaches all of it; gdbremote.c owns the transport
 * and the session. Internal to lib/.
 *
 * Protocol reference: gdb's manual, "Remote Protocol" (Overview, Packets,
 * Stop Reply Packets, General Query Packets, Packet Acknowledgment).
 */
#ifndef MODSECT_RSP_H
#define MODSECT_RSP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <termios.h>

struct ms_err;

/*
 * Largest packet accepted, raw (between '$' and '#') and after run-length
 * expansion: a stub that sends more is broken or hostile. Our largest
 * request asks for RSP_MAX_READ bytes, 2 * RSP_MAX_READ hex digits.
 */
#define RSP_MAX_PACKET ((size_t)64 * 1024)
/* Largest memory read in one 'm' request, whatever PacketSize says. */
#define RSP_MAX_READ ((size_t)16 * 1024)
/* PacketSize when qSupported gives none, and the smallest we believe. */
#define RSP_DEFAULT_PACKET 400u
#define RSP_MIN_PACKET 32u

uint8_t rsp_checksum(const void *p, size_t n);
/*
 * Writes "$payload#xx" to out, which has room for n + 4 bytes; returns
 * n + 4. The payload is sent as is: the caller's requests never hold '$',
 * '#', '}' or '*'.
 */
size_t rsp_frame(const char *payload, size_t n, char *out);

/* n hex digits (n even) into n / 2 bytes; -EBADMSG on a non-hex digit. */
/* Up to 16 hex digits as a number, big endian (addresses, sizes). */
/* n hex digits (even, at most 16) as a little-endian value (registers). */
int rsp_hex_le(const char *hex, size_t n, uint64_t *ret);

/* ---- the receiver: bytes from the stub in, events out ---- */

enum rsp_rx_event {
	RSP_RX_MORE, /* every byte consumed, nothing complete yet */
	RSP_RX_ACK, /* '+' */
	RSP_RX_NAK, /* '-': the stub wants our last packet again */
	RSP_RX_PACKET, /* a packet with a good checksum: buf, len (raw) */
	RSP_RX_BADSUM, /* a whole packet whose checksum is wrong */
	RSP_RX_TOOLONG, /* over RSP_MAX_PACKET bytes without a '#' */
};

struct rsp_rx {
	int state;
	uint8_t sum, want;
	bool bad_digit; /* the first checksum digit was not hex */
	size_t len;
	char buf[RSP_MAX_PACKET];
};

void rsp_rx_init(struct rsp_rx *rx);
/*
 * Feeds n bytes; stops after the first event and sets *used to the bytes
 * consumed (the rest must be fed again). Bytes outside a packet other
 * than '+' and '-' are ignored, as gdb does; a '$' inside a packet
 * starts it again.
 */
enum rsp_rx_event rsp_rx_feed(struct rsp_rx *rx, const void *in, size_t n,
			      size_t *used);

/* ---- decoding a packet ---- */

/*
 * Expands run-length encoding: "c*N" is c followed by N - 29 more c's
 * (N printable, not '#' or '$'). -EBADMSG for a '*' with nothing before
 * it or a bad count, -EMSGSIZE if the result would exceed cap.
 */
int rsp_rle_expand(const char *in, size_t n, char *out, size_t cap,
		   size_t *len_ret);
/* Binary data ('}' escapes c ^ 0x20), in place; -EBADMSG on a final '}'. */
int rsp_unescape(char *p, size_t n, size_t *len_ret);

enum rsp_kind {
	RSP_EMPTY, /* "": the stub does not support the request */
	RSP_OK, /* "OK" */
	RSP_ERROR, /* "Exx" (code xx) or "E.text" (code -1, text in data) */
	RSP_STOP, /* "Sxx" or "Txx..." (code = signal, data = the fields) */
	RSP_EXITED, /* "Wxx" or "Xxx": the target is gone (code) */
	RSP_OUTPUT, /* "O" + hex: console output of a running target */
	RSP_DATA, /* anything else: the reply's data */
};

struct rsp_reply {
	enum rsp_kind kind;
	int code;
	const char *data; /* points into the packet */
	size_t len;
};

/*
 * Classifies an expanded reply. Stop replies, 'O' and 'W'/'X' are
 * recognised always: none of them can be a valid reply to a request
 * modsect sends other than '?' (hex data never starts with S, T, O, W
 * or X); the session decides what they mean.
 */
void rsp_classify(const char *p, size_t n, struct rsp_reply *r);
const char *rsp_kind_name(enum rsp_kind k);

/* ---- replies the session parses ---- */

struct rsp_features {
	size_t packet_size; /* 0: not given (or unbelievable) */
	bool noack; /* QStartNoAckMode+ */
	bool xfer_features; /* qXfer:features:read+ */
};
void rsp_parse_supported(const char *p, size_t n, struct rsp_features *f);

/*
 * <architecture> of a target description: i386:x86-64, i386, aarch64,
 * arm, s390:64-bit give the ELF machine, class, the pc's register number
 * and size in gdb's numbering and the registers' byte order; anything
 * else (or no element) gives machine 0.
 */
struct rsp_arch {
	int elf_machine, elf_class;
	unsigned int pc_regno, pc_size;
	bool big_endian; /* registers' hex digits in the target's order */
};
void rsp_parse_arch(const char *xml, size_t n, struct rsp_arch *a);

/*
 * The value of register regno in a 'T' stop reply's "NN:value;" fields
 * (r->data of an RSP_STOP), little endian; -ENOENT if not there.
 */
int rsp_stop_reg(const char *fields, size_t n, unsigned int regno,
		 uint64_t *ret);

/*
 * The process id of a multiprocess thread id ("thread:pPID.TID;") in a
 * stop reply's fields; -ENOENT if there is none.
 */
int rsp_stop_pid(const char *fields, size_t n, uint64_t *ret);

/*
 * A thread id, "TID" or multiprocess "pPID.TID", as its TID (hex);
 * -EBADMSG for anything else.
 */
int rsp_thread_id(const char *id, size_t n, uint64_t *ret);

/* ---- the spec and the line ---- */

/*
 * HOST:PORT, :PORT (host 127.0.0.1), [IPV6]:PORT (host without the
 * brackets): host NUL-terminated, port the decimal 1..65535. Tty paths
 * are the caller's. Messages are "remote SPEC: why".
 */
int rsp_parse_hostport(const char *spec, char *host, size_t hsize, char port[6],
		       struct ms_err *err);
/* termios speed of a baud rate; -EINVAL for one Linux has no Bxxx for. */
int rsp_baud_speed(unsigned int baud, speed_t *ret);

#endif
