/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * resolve's answers as text and as JSON (answer.c), into a buffer of its
 * own: the output of a batch of 100,000 addresses is 19 MB, and stdio's
 * printf machinery and json-c's objects were most of its time.
 */
#ifndef MODSECT_ANSWER_H
#define MODSECT_ANSWER_H

#include <stdio.h>
#include <string.h>
#include <sys/uio.h>

#include "emit.h"

/*
 * The hot path of a large batch: stdio's printf machinery was a fifth of
 * the run time, and a memory stream copies itself as it grows (a third of
 * the time for 100,000 addresses), so the text is formatted here into a
 * buffer that realloc can move without copying.
 */
struct ms_obuf {
	char *data;
	size_t len, cap;
	bool failed; /* out of memory, or the sink failed */
	int error; /* then why: ENOMEM, or the sink's errno */
	FILE *sink; /* where a full buffer goes, or NULL to keep all */
};

/* Text goes out in pieces this large: a whole run's was copied and faulted in. */
#define MS_OB_FLUSH (1u << 20)

/* Writes what is buffered to the sink, if there is one. */
void ms_ob_flush(struct ms_obuf *b);
/*
 * Writes what is buffered, then the n pieces, to the sink: gathered by
 * writev where the sink has a file descriptor, not copied together.
 */
void ms_ob_gather(struct ms_obuf *b, struct iovec *iov, size_t n);
/* The slow path of ms_ob_room: more room, or failed. */
char *ms_ob_grow(struct ms_obuf *b, size_t n);

static inline char *ms_ob_room(struct ms_obuf *b, size_t n)
{
	return b->cap - b->len >= n && !b->failed ? b->data + b->len :
						   ms_ob_grow(b, n);
}

/*
 * n bytes from s to p. An answer is a few dozen short pieces: copied
 * here as two overlapping moves of a fixed size, where a call to memcpy
 * for each was a sixth of resolving 100,000 addresses.
 */
static inline void ms_ob_copy(char *p, const char *s, size_t n)
{
	if (n >= 8 && n <= 16) {
		memcpy(p, s, 8);
		memcpy(p + n - 8, s + n - 8, 8);
	} else if (n >= 4 && n < 8) {
		memcpy(p, s, 4);
		memcpy(p + n - 4, s + n - 4, 4);
	} else if (n < 4) {
		for (size_t i = 0; i < n; i++)
			p[i] = s[i];
	} else if (n <= 32) {
		memcpy(p, s, 16);
		memcpy(p + n - 16, s + n - 16, 16);
	} else {
		memcpy(p, s, n);
	}
}

static inline void ms_ob_put(struct ms_obuf *b, const char *s, size_t n)
{
	char *p = ms_ob_room(b, n);

	if (p) {
		ms_ob_copy(p, s, n);
		b->len += n;
	}
}

static inline void ms_ob_str(struct ms_obuf *b, const char *s)
{
	ms_ob_put(b, s, strlen(s));
}

static inline void ms_ob_char(struct ms_obuf *b, char c)
{
	ms_ob_put(b, &c, 1);
}

/*
 * An address's answer: "0x...: sym+off/size [mod] sec+off" and a line
 * per frame; or one element of a JSON array, byte for byte as json-c's
 * JSON_C_TO_STRING_PRETTY printed it. given is the address as given
 * (with a PAC, on arm64).
 */
void ms_answer_text(struct ms_obuf *b, const struct ms_symres *r,
		    uint64_t given);
void ms_answer_json(struct ms_obuf *b, const struct ms_symres *r,
		    uint64_t given);

#endif
