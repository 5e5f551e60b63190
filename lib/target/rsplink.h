/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The link to a GDB remote stub (rsplink.c): the connection (TCP, a tty,
 * a socket passed in) and the exchange of one request and its reply,
 * with acks, retransmission and deadlines. gdbremote.c builds the session
 * and the memory source on it. Internal to lib/target.
 */
#ifndef MODSECT_RSPLINK_H
#define MODSECT_RSPLINK_H

#include <stdbool.h>
#include <stdint.h>
#include <termios.h>

#include "rsp.h"
#include "target.h"

struct remote {
	int fd;
	bool is_socket, broken, noack;
	bool restore_tty;
	struct termios saved_tty;
	unsigned int timeout_ms;
	uint64_t start_ms; /* when the link was opened, for messages */
	size_t packet_size, max_read;
	struct rsp_arch arch;
	struct ms_mem *m; /* owner of this; for the request counter */
	char origin[300];
	/* the stub's threads (one a CPU for QEMU), read when first asked */
	bool have_threads;
	unsigned int nthreads;
	uint64_t threads[256];
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

/* remote_transact() flags */
#define T_STOP 1u /* the request is answered by a stop reply */
#define T_SOFT 2u /* a timeout is an answer too: the session stays usable */

uint64_t remote_now_ms(void);
/* "5 s" or "500 ms" */
const char *remote_fmt_ms(uint64_t ms, char *buf, size_t size);

/*
 * An error after which the byte stream cannot be trusted any more: the
 * link is marked broken and the error is an I/O failure (MS_E_IO), so
 * code scanning memory stops at it instead of reading on into errors.
 */
int remote_fatal(struct remote *s, struct ms_err *err, int code,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/*
 * One round trip: sends req, waits for its reply, classified in *rep
 * (pointing into s->reply). wait_ms bounds the whole exchange,
 * retransmissions included. A timeout is -ETIMEDOUT, an I/O failure;
 * with T_SOFT the link stays usable after it.
 */
int remote_transact(struct remote *s, const char *req, unsigned int wait_ms,
		    unsigned int flags, struct rsp_reply *rep,
		    struct ms_err *err);

/*
 * The parts of an exchange, for what runs the target (rsprun.c): sends
 * one request (or the raw Ctrl-C byte); the next receiver event
 * (enum rsp_rx_event) or an error, -ETIMEDOUT at the deadline.
 */
int remote_send(struct remote *s, const char *req, uint64_t deadline,
		struct ms_err *err);
int remote_next_event(struct remote *s, uint64_t deadline, struct ms_err *err);

/* A CPU's registers and the number of CPUs, as the stub's threads. */
unsigned int remote_ncpus(struct ms_mem *m);
int remote_cpu_regs(struct ms_mem *m, unsigned int cpu, struct ms_regs *regs,
		    struct ms_err *err);

/*
 * Opens the link of spec (see ms_remote_open) into s, whose timeout_ms
 * is set; sets s->origin.
 */
int remote_open_link(struct remote *s, const char *spec,
		     const struct ms_remote_opts *o, struct ms_err *err);
/* Restores the tty, closes the descriptor, frees s; NULL is a no-op. */
void remote_free(struct remote *s);

#endif
