// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The GDB remote serial protocol at the packet level: see rsp.h. Every
 * input here comes from the stub and is untrusted: every length is
 * bounded by the caller's buffer, nothing is NUL-terminated.
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target.h"
#include "rsp.h"

enum { RX_IDLE, RX_DATA, RX_SUM1, RX_SUM2 };

uint8_t rsp_checksum(const void *p, size_t n)
{
	const unsigned char *c = p;
	unsigned int sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += c[i];
	return (uint8_t)sum;
}

size_t rsp_frame(const char *payload, size_t n, char *out)
{
	static const char hex[] = "0123456789abcdef";
	uint8_t sum = rsp_checksum(payload, n);

	out[0] = '$';
	memcpy(out + 1, payload, n);
	out[n + 1] = '#';
	out[n + 2] = hex[sum >> 4];
	out[n + 3] = hex[sum & 15];
	return n + 4;
}

int rsp_hex_le(const char *hex, size_t n, uint64_t *ret)
{
	uint8_t b[8];
	uint64_t v = 0;

	if (n == 0 || n % 2 || n > 16 || ms_hex_decode(hex, n, b))
		return -EBADMSG;
	for (size_t i = n / 2; i-- > 0;)
		v = v << 8 | b[i];
	*ret = v;
	return 0;
}

void rsp_rx_init(struct rsp_rx *rx)
{
	rx->state = RX_IDLE;
	rx->len = 0;
	rx->sum = rx->want = 0;
	rx->bad_digit = false;
}

enum rsp_rx_event rsp_rx_feed(struct rsp_rx *rx, const void *in, size_t n,
			      size_t *used)
{
	const unsigned char *p = in;
	size_t i = 0;

	while (i < n) {
		unsigned char c = p[i];
		int h;

		switch (rx->state) {
		case RX_IDLE:
			i++;
			if (c == '$') {
				rx->state = RX_DATA;
				rx->len = 0;
				rx->sum = 0;
			} else if (c == '+' || c == '-') {
				*used = i;
				return c == '+' ? RSP_RX_ACK : RSP_RX_NAK;
			}
			break;
		case RX_DATA: {
			/* the hot loop: a whole reply's data in one pass */
			const unsigned char *q = p + i;
			size_t k = 0, room = RSP_MAX_PACKET - rx->len;
			unsigned int sum = rx->sum;

			while (k < n - i && q[k] != '#' && q[k] != '$') {
				if (k == room) {
					rx->state = RX_IDLE;
					*used = i + k;
					return RSP_RX_TOOLONG;
				}
				sum += q[k++];
			}
			memcpy(rx->buf + rx->len, q, k);
			rx->len += k;
			rx->sum = (uint8_t)sum;
			i += k;
			if (i < n) {
				/* '#', or a '$' in the middle: start over */
				if (p[i] == '#')
					rx->state = RX_SUM1;
				rx->len = p[i] == '#' ? rx->len : 0;
				rx->sum = p[i] == '#' ? rx->sum : 0;
				i++;
			}
			break;
		}
		case RX_SUM1:
			i++;
			h = ms_hexval(c);
			rx->want = (uint8_t)(h < 0 ? 0 : h << 4);
			rx->bad_digit = h < 0;
			rx->state = RX_SUM2;
			break;
		default: /* RX_SUM2 */
			i++;
			h = ms_hexval(c);
			rx->state = RX_IDLE;
			*used = i;
			if (rx->bad_digit || h < 0 ||
			    (uint8_t)(rx->want | h) != rx->sum)
				return RSP_RX_BADSUM;
			return RSP_RX_PACKET;
		}
	}
	*used = i;
	return RSP_RX_MORE;
}

int rsp_rle_expand(const char *in, size_t n, char *out, size_t cap,
		   size_t *len_ret)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)in[i];
		int rep;

		if (c != '*') {
			if (o == cap)
				return -EMSGSIZE;
			out[o++] = (char)c;
			continue;
		}
		if (o == 0 || i + 1 == n)
			return -EBADMSG;
		/* gdb's manual: the count is the printable char N, N - 29 */
		c = (unsigned char)in[++i];
		rep = c - 29;
		if (c > 126 || rep < 1 || c == '#' || c == '$')
			return -EBADMSG;
		if ((size_t)rep > cap - o)
			return -EMSGSIZE;
		memset(out + o, out[o - 1], (size_t)rep);
		o += (size_t)rep;
	}
	*len_ret = o;
	return 0;
}

int rsp_unescape(char *p, size_t n, size_t *len_ret)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		if (p[i] != '}') {
			p[o++] = p[i];
			continue;
		}
		if (++i == n)
			return -EBADMSG;
		p[o++] = (char)(p[i] ^ 0x20);
	}
	*len_ret = o;
	return 0;
}

static bool hex2(const char *p, size_t n, int *v)
{
	int hi, lo;

	if (n < 2)
		return false;
	hi = ms_hexval((unsigned char)p[0]);
	lo = ms_hexval((unsigned char)p[1]);
	if (hi < 0 || lo < 0)
		return false;
	*v = hi << 4 | lo;
	return true;
}

static bool all_hex(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ms_hexval((unsigned char)p[i]) < 0)
			return false;
	return true;
}

void rsp_classify(const char *p, size_t n, struct rsp_reply *r)
{
	int v;

	*r = (struct rsp_reply){ RSP_DATA, -1, p, n };
	if (n == 0) {
		r->kind = RSP_EMPTY;
		return;
	}
	if (n == 2 && p[0] == 'O' && p[1] == 'K') {
		r->kind = RSP_OK;
		return;
	}
	switch (p[0]) {
	case 'E':
		/* "Exx", or gdb's newer "E.message" */
		if (n == 3 && hex2(p + 1, 2, &v)) {
			*r = (struct rsp_reply){ RSP_ERROR, v, p + 1, 2 };
		} else if (n >= 2 && p[1] == '.') {
			*r = (struct rsp_reply){ RSP_ERROR, -1, p + 2, n - 2 };
		}
		return;
	case 'S':
		if (n == 3 && hex2(p + 1, 2, &v))
			*r = (struct rsp_reply){ RSP_STOP, v, p + 3, 0 };
		return;
	case 'T':
		if (hex2(p + 1, n - 1, &v))
			*r = (struct rsp_reply){ RSP_STOP, v, p + 3, n - 3 };
		return;
	case 'W':
	case 'X':
		/* "W00" or "W00;process:pid" */
		if (hex2(p + 1, n - 1, &v) && (n == 3 || p[3] == ';'))
			*r = (struct rsp_reply){ RSP_EXITED, v, p, n };
		return;
	case 'O':
		if (n % 2 && all_hex(p + 1, n - 1))
			*r = (struct rsp_reply){ RSP_OUTPUT, -1, p + 1, n - 1 };
		return;
	}
}

const char *rsp_kind_name(enum rsp_kind k)
{
	switch (k) {
	case RSP_EMPTY:
		return "an empty reply";
	case RSP_OK:
		return "OK";
	case RSP_ERROR:
		return "an error";
	case RSP_STOP:
		return "a stop reply";
	case RSP_EXITED:
		return "an exit reply";
	case RSP_OUTPUT:
		return "console output";
	case RSP_DATA:
		return "data";
	}
	return "?";
}

/* Is the ';'-separated item at p (n bytes) equal to s? */
static bool item_is(const char *p, size_t n, const char *s)
{
	return strlen(s) == n && !memcmp(p, s, n);
}

void rsp_parse_supported(const char *p, size_t n, struct rsp_features *f)
{
	*f = (struct rsp_features){ 0 };
	for (size_t i = 0; i < n;) {
		const char *e = memchr(p + i, ';', n - i);
		size_t k = e ? (size_t)(e - (p + i)) : n - i;
		const char *it = p + i;
		uint64_t v;

		if (k > 11 && !memcmp(it, "PacketSize=", 11)) {
			if (!ms_hex_u64(it + 11, k - 11, &v) &&
			    v >= RSP_MIN_PACKET)
				f->packet_size = v > RSP_MAX_PACKET ?
							 RSP_MAX_PACKET :
							 (size_t)v;
		} else if (item_is(it, k, "QStartNoAckMode+")) {
			f->noack = true;
		} else if (item_is(it, k, "qXfer:features:read+")) {
			f->xfer_features = true;
		}
		i += k + 1;
	}
}

static const char *memmem_n(const char *h, size_t n, const char *needle)
{
	return memmem(h, n, needle, strlen(needle));
}

void rsp_parse_arch(const char *xml, size_t n, struct rsp_arch *a)
{
	/*
	 * gdb's numbering (features/i386/64bit-core.xml, 32bit-core.xml,
	 * aarch64-core.xml, arm/arm-core.xml, s390x-core64.xml; QEMU's
	 * gdb-xml copies): rip follows the 16
	 * general registers, eip the 8, pc follows x0..x30 and sp.
	 */
	static const struct {
		const char *name;
		struct rsp_arch a;
	} tab[] = {
		{ "i386:x86-64", { EM_X86_64, ELFCLASS64, 16, 8 } },
		{ "i386", { EM_386, ELFCLASS32, 8, 4 } },
		{ "aarch64", { EM_AARCH64, ELFCLASS64, 32, 8 } },
		/* arm-core.xml: r0..r12, sp, lr, then pc */
		{ "arm", { EM_ARM, ELFCLASS32, 15, 4 } },
		/*
		 * s390x-core64.xml: pswm, then pswa (the pc); big endian,
		 * as QEMU's gdbstub sends s390x registers.
		 */
		{ "s390:64-bit", { EM_S390, ELFCLASS64, 1, 8, true } },
	};
	const char *s = memmem_n(xml, n, "<architecture>"), *e;
	size_t k;

	*a = (struct rsp_arch){ 0 };
	if (!s)
		return;
	s += strlen("<architecture>");
	e = memmem_n(s, n - (size_t)(s - xml), "</architecture>");
	if (!e)
		return;
	k = (size_t)(e - s);
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (item_is(s, k, tab[i].name))
			*a = tab[i].a;
}

int rsp_stop_reg(const char *fields, size_t n, unsigned int regno,
		 uint64_t *ret)
{
	for (size_t i = 0; i < n;) {
		const char *f = fields + i;
		const char *e = memchr(f, ';', n - i);
		size_t k = e ? (size_t)(e - f) : n - i;
		const char *colon = memchr(f, ':', k);
		uint64_t r;

		i += k + 1;
		if (!colon)
			continue;
		/* "thread:", "watch:"... have non-hex names and are skipped */
		if (ms_hex_u64(f, (size_t)(colon - f), &r) || r != regno)
			continue;
		return rsp_hex_le(colon + 1, k - (size_t)(colon - f) - 1, ret);
	}
	return -ENOENT;
}

int rsp_stop_pid(const char *fields, size_t n, uint64_t *ret)
{
	static const char key[] = "thread:p";
	const size_t klen = sizeof(key) - 1;

	for (size_t i = 0; i < n;) {
		const char *f = fields + i;
		const char *e = memchr(f, ';', n - i);
		size_t k = e ? (size_t)(e - f) : n - i;
		const char *dot;

		i += k + 1;
		if (k <= klen || memcmp(f, key, klen))
			continue;
		dot = memchr(f + klen, '.', k - klen);
		k = dot ? (size_t)(dot - f) : k;
		return ms_hex_u64(f + klen, k - klen, ret);
	}
	return -ENOENT;
}

int rsp_thread_id(const char *id, size_t n, uint64_t *ret)
{
	const char *dot = memchr(id, '.', n);

	if (dot) {
		n -= (size_t)(dot + 1 - id);
		id = dot + 1;
	} else if (n && id[0] == 'p') {
		id++;
		n--;
	}
	return n && n <= 16 ? ms_hex_u64(id, n, ret) : -EBADMSG;
}

/* ---- the spec and the line ---- */

int rsp_parse_hostport(const char *spec, char *host, size_t hsize, char port[6],
		       struct ms_err *err)
{
	const char *colon, *h = spec;
	size_t hlen;
	char *end;
	unsigned long p;

	if (spec[0] == '[') {
		const char *rb = strchr(spec, ']');

		if (!rb || rb[1] != ':')
			return ms_err_set(err, EINVAL,
					  "remote %s: not [IPV6]:PORT", spec);
		h = spec + 1;
		hlen = (size_t)(rb - h);
		colon = rb + 1;
	} else {
		colon = strrchr(spec, ':');
		if (!colon)
			return ms_err_set(
				err, EINVAL,
				"remote %s: not HOST:PORT, [IPV6]:PORT or a tty path (/dev/..., ./...)",
				spec);
		hlen = (size_t)(colon - spec);
	}
	if (hlen >= hsize)
		return ms_err_set(err, EINVAL, "remote %s: host name too long",
				  spec);
	memcpy(host, h, hlen);
	host[hlen] = '\0';
	if (!hlen)
		snprintf(host, hsize, "127.0.0.1");
	errno = 0;
	p = strtoul(colon + 1, &end, 10);
	if (colon[1] < '0' || colon[1] > '9' || *end || errno)
		return ms_err_set(err, EINVAL,
				  "remote %s: port '%s' is not a number", spec,
				  colon + 1);
	if (p < 1 || p > 65535)
		return ms_err_set(
			err, EINVAL,
			"remote %s: port %s is out of range (1-65535)", spec,
			colon + 1);
	snprintf(port, 6, "%lu", p);
	return 0;
}

int rsp_baud_speed(unsigned int baud, speed_t *ret)
{
	static const struct {
		unsigned int baud;
		speed_t speed;
	} tab[] = {
		{ 9600, B9600 },       { 19200, B19200 },
		{ 38400, B38400 },     { 57600, B57600 },
		{ 115200, B115200 },   { 230400, B230400 },
		{ 460800, B460800 },   { 500000, B500000 },
		{ 921600, B921600 },   { 1000000, B1000000 },
		{ 1500000, B1500000 }, { 2000000, B2000000 },
		{ 3000000, B3000000 }, { 4000000, B4000000 },
	};

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (tab[i].baud == baud) {
			*ret = tab[i].speed;
			return 0;
		}
	return -EINVAL;
}
