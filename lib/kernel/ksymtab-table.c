// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The decoded kallsyms table (ksymtab.c finds it): every name expanded
 * into one pool, a hash index for lookups by name.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ksymtab.h"

/*
 * Expanded length with the type: KSYM_NAME_LEN is 512 since v6.1
 * ("kallsyms: increase maximum kernel symbol length to 512"); twice that
 * for slack.
 */
#define MAX_NAME 1024

/* A table with its private parts: what ms_ksymtab_free frees. */
struct ksymtab_priv {
	struct ms_ksymtab t; /* first: ms_ksymtab_free casts back */
	char *pool; /* every name, NUL-terminated */
	uint32_t *hash; /* index + 1 of the first symbol of each name */
	size_t hmask;
};

/*
 * Expands every name into one pool, the first character the type (as
 * kallsyms_get_symbol_type() reads it); -EINVAL for a name too short or
 * too long. The finder walked the names, so the lengths are in bounds.
 */
static int expand_all(const struct ksym_found *k, struct ksymtab_priv *kp)
{
	size_t total = 0, off, pos = 0;

	for (int pass = 0; pass < 2; pass++) {
		off = 0;
		for (uint32_t i = 0; i < k->n; i++) {
			size_t l = k->names[off], h = 1, n = 0;

			if (l & 0x80) {
				l = (l & 0x7f) | (size_t)k->names[off + 1] << 7;
				h = 2;
			}
			for (size_t j = 0; j < l; j++) {
				uint8_t tok = k->names[off + h + j];

				if (pass)
					memcpy(kp->pool + pos + n, k->tok[tok],
					       k->toklen[tok]);
				n += k->toklen[tok];
			}
			if (n < 2 || n > MAX_NAME)
				return -EINVAL;
			if (pass) {
				struct ms_ksym *s = &kp->t.syms[i];

				kp->pool[pos + n] = '\0';
				s->type = kp->pool[pos];
				s->name = kp->pool + pos + 1;
				s->addr = k->addrs[i];
				pos += n + 1;
			} else {
				total += n + 1;
			}
			off += h + l;
		}
		if (!pass && !(kp->pool = malloc(total)))
			return -ENOMEM;
	}
	return 0;
}

static uint64_t hash_name(const char *s)
{
	uint64_t h = 0xcbf29ce484222325u; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3u;
	return h;
}

/* Open addressing, the first symbol of a name kept. */
static int build_hash(struct ksymtab_priv *kp)
{
	size_t size = 16;

	while (size < 2 * kp->t.nsyms)
		size <<= 1;
	if (!(kp->hash = calloc(size, sizeof(*kp->hash))))
		return -ENOMEM;
	kp->hmask = size - 1;
	for (size_t i = 0; i < kp->t.nsyms; i++) {
		const char *n = kp->t.syms[i].name;
		size_t h = hash_name(n) & kp->hmask;

		while (kp->hash[h] &&
		       strcmp(kp->t.syms[kp->hash[h] - 1].name, n))
			h = (h + 1) & kp->hmask;
		if (!kp->hash[h])
			kp->hash[h] = (uint32_t)i + 1;
	}
	return 0;
}

int ksymtab_build(const struct ksym_found *k, struct ms_ksymtab **ret)
{
	struct ksymtab_priv *kp = calloc(1, sizeof(*kp));
	int r;

	if (!kp || !(kp->t.syms = calloc(k->n, sizeof(*kp->t.syms)))) {
		free(kp);
		return -ENOMEM;
	}
	kp->t.nsyms = k->n;
	kp->t.names_off = k->names_off;
	kp->t.token_table_off = k->token_table_off;
	if ((r = expand_all(k, kp)) || (r = build_hash(kp))) {
		ms_ksymtab_free(&kp->t);
		return r;
	}
	*ret = &kp->t;
	return 0;
}

void ms_ksymtab_relocate(struct ms_ksymtab *t, uint64_t delta)
{
	for (size_t i = 0; i < t->nsyms; i++)
		t->syms[i].addr += delta;
}

void ms_ksymtab_free(struct ms_ksymtab *t)
{
	struct ksymtab_priv *kp = (struct ksymtab_priv *)t;

	if (!t)
		return;
	free(kp->pool);
	free(kp->hash);
	free(t->syms);
	free(kp);
}

int ms_ksymtab_lookup(const struct ms_ksymtab *t, const char *name,
		      uint64_t *addr_ret)
{
	const struct ksymtab_priv *kp = (const struct ksymtab_priv *)t;
	size_t h = hash_name(name) & kp->hmask;

	for (; kp->hash[h]; h = (h + 1) & kp->hmask) {
		const struct ms_ksym *s = &t->syms[kp->hash[h] - 1];

		if (!strcmp(s->name, name)) {
			*addr_ret = s->addr;
			return 0;
		}
	}
	return -ENOENT;
}
