// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the GDB remote protocol's packet layer (lib/target/rsp.c),
 * what a stub's bytes go through. The input is fed to the receiver in
 * pieces (the first byte picks their size, as reads split a stream);
 * every packet is run-length expanded, classified, and parsed as a
 * qSupported reply, a target description, a stop reply, hex and binary
 * data. Invariants: no event consumes more than it was given, a packet
 * and its expansion stay within RSP_MAX_PACKET, a reply's data lies in
 * the packet, and any payload framed by rsp_frame comes back as the same
 * packet (and as a bad checksum when the checksum is changed).
 */
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "target/rsp.h"

static void decode(const char *raw, size_t n, char *out)
{
	struct rsp_features f;
	struct rsp_reply r;
	struct rsp_arch a;
	uint8_t bytes[64];
	uint64_t v;
	size_t len, unescaped;

	if (n > RSP_MAX_PACKET)
		abort();
	if (rsp_rle_expand(raw, n, out, RSP_MAX_PACKET, &len))
		return;
	/* a run ("c*N", 2 bytes after c) is at least 1 byte: never < half */
	if (len > RSP_MAX_PACKET || 2 * len < n)
		abort();
	rsp_classify(out, len, &r);
	if (r.data < out || r.data + r.len > out + len)
		abort();
	if (r.kind == RSP_EMPTY && len)
		abort();
	if (r.kind == RSP_STOP) {
		(void)rsp_stop_reg(r.data, r.len, 16, &v);
		(void)rsp_stop_reg(r.data, r.len, 8, &v);
		(void)rsp_stop_pid(r.data, r.len, &v);
		(void)rsp_thread_id(r.data, r.len, &v);
	}
	(void)rsp_kind_name(r.kind);
	rsp_parse_supported(out, len, &f);
	if (f.packet_size &&
	    (f.packet_size < RSP_MIN_PACKET || f.packet_size > RSP_MAX_PACKET))
		abort();
	rsp_parse_arch(out, len, &a);
	if (a.elf_machine && (a.pc_size != 4 && a.pc_size != 8))
		abort();
	(void)ms_hex_decode(out,
			     len < 2 * sizeof(bytes) ? len & ~(size_t)1 :
						       2 * sizeof(bytes),
			     bytes);
	(void)rsp_hex_le(out, len < 16 ? len : 16, &v);
	(void)ms_hex_u64(out, len < 16 ? len : 16, &v);
	if (rsp_unescape(out, len, &unescaped) == 0 && unescaped > len)
		abort();
}

/* A payload without '$' and '#' must come back exactly. */
static void round_trip(const uint8_t *data, size_t size, struct rsp_rx *rx)
{
	char payload[1024], framed[sizeof(payload) + 4];
	size_t n = 0, len, used;

	for (size_t i = 0; i < size && n < sizeof(payload); i++)
		if (data[i] != '$' && data[i] != '#')
			payload[n++] = (char)data[i];
	len = rsp_frame(payload, n, framed);
	rsp_rx_init(rx);
	if (rsp_rx_feed(rx, framed, len, &used) != RSP_RX_PACKET ||
	    used != len || rx->len != n || memcmp(rx->buf, payload, n))
		abort();
	framed[len - 1] = framed[len - 1] == '0' ? '1' : '0';
	rsp_rx_init(rx);
	if (rsp_rx_feed(rx, framed, len, &used) != RSP_RX_BADSUM)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rsp_rx *rx = malloc(sizeof(*rx));
	char *out = malloc(RSP_MAX_PACKET);
	size_t step, off = 1;

	if (!rx || !out || size == 0)
		goto done;
	step = (size_t)data[0] + 1;
	rsp_rx_init(rx);
	while (off < size) {
		size_t n = size - off < step ? size - off : step, used = 0;
		enum rsp_rx_event ev = rsp_rx_feed(rx, data + off, n, &used);

		if (used > n || (ev != RSP_RX_MORE && used == 0) ||
		    (ev == RSP_RX_MORE && used != n))
			abort();
		if (rx->len > RSP_MAX_PACKET)
			abort();
		if (ev == RSP_RX_PACKET)
			decode(rx->buf, rx->len, out);
		off += used;
	}
	round_trip(data, size, rx);
done:
	free(rx);
	free(out);
	return 0;
}
