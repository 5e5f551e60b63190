// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel's compressed symbol table (kallsyms), found in a blob of
 * kernel read-only data with no symbol saying where it is, and decoded.
 *
 * scripts/kallsyms writes these tables into .rodata, each label aligned
 * to the pointer size (ALGN; 4 in the 2026 "kallsyms: Get rid of
 * kallsyms relative base" proposal):
 *
 *   kallsyms_num_syms     u32
 *   kallsyms_names        per symbol: a length (one byte, or two as
 *                         ULEB128 when the first has its high bit set:
 *                         73bbb94466fd "kallsyms: support "big" kernel
 *                         symbols", v6.1), then that many token numbers;
 *                         the first character of the expansion is the
 *                         type /proc/kallsyms prints
 *   kallsyms_markers      u32: offset in kallsyms_names of every 256th
 *   kallsyms_seqs_of_names  3 bytes a symbol (60443c88f3a8, v6.2; also
 *                         in Debian's 6.1.y), ignored here
 *   kallsyms_token_table  256 NUL-terminated tokens
 *   kallsyms_token_index  256 u16: offset of each token in the table
 *   kallsyms_offsets      s32 a symbol (CONFIG_KALLSYMS_BASE_RELATIVE)
 *                         or kallsyms_addresses, a pointer a symbol
 *   kallsyms_relative_base  pointer
 *
 * The order changed: up to v6.3 the addresses came first (offsets,
 * relative_base, num_syms, names, markers, [seqs], token_table,
 * token_index); 404bad70fcf7 "scripts/kallsyms: change the output
 * order" (v6.4) moved them after the token index (num_syms, names,
 * markers, token_table, token_index, offsets, relative_base, seqs).
 * Absolute kallsyms_addresses went away in 64e166099b69 "kallsyms: get
 * rid of code for absolute kallsyms" (v6.11), the negative "absolute
 * per-cpu" offsets of x86_64 in 01157ddc58dc "kallsyms: Remove
 * KALLSYMS_ABSOLUTE_PERCPU" (v6.15). So nothing here assumes an order:
 * the token index is found by its own shape, the token table in front of
 * it, kallsyms_names by a num_syms whose walk through the names ends at
 * markers that agree with it, and the addresses where either layout puts
 * them, kept only if they are sorted as kallsyms sorts them.
 *
 * Names are kept as stored, which is what /proc/kallsyms prints
 * (get_ksymbol_core() expands them unchanged; cleanup_symbol_name(), for
 * Clang LTO's ".llvm." suffixes, only applies to lookups by name).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ksymtab.h"

/* Far above any kernel (Debian 6.1 amd64: 94,266); bounds what we allocate. */
#define MAX_SYMS 10000000u
/*
 * Up to 256 symbols have one marker, 0, which zeros anywhere match: such
 * a small table can appear by chance. No kernel has so few (tinyconfig
 * has thousands), so the smallest table taken has two markers.
 */
#define MIN_SYMS 257u
/* A token is at most a whole symbol name (KSYM_NAME_LEN, 512 since v6.1). */
#define MAX_TOKEN 512

struct blob {
	const uint8_t *p;
	size_t len;
	uint64_t base;
	unsigned int ptr;
	bool be;
};

struct tokens {
	size_t table_off, index_off;
	const char *s[256];
	uint16_t len[256];
};

/* One candidate for num_syms + names + markers. */
struct names {
	size_t num_off, off, end, markers_off, markers_end;
	uint32_t n;
	unsigned int align;
};

struct finder {
	struct blob b;
	struct tokens tk;
	uint32_t *scratch; /* marker offsets seen during a walk */
	size_t nscratch;
	uint64_t *addrs; /* N addresses of the last find_addrs */
	size_t naddrs;
	uint64_t budget; /* work left, see ms_ksymtab_find_info */
};

static uint64_t get(const struct blob *b, size_t off, unsigned int size)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < size; i++) {
		unsigned int k = b->be ? i : size - 1 - i;

		v = v << 8 | b->p[off + k];
	}
	return v;
}

static bool fits(const struct blob *b, size_t off, size_t n)
{
	return off <= b->len && n <= b->len - off;
}

/* Offsets are aligned as the addresses they stand for. */
static bool aligned(const struct blob *b, size_t off, unsigned int a)
{
	return (b->base + off) % a == 0;
}

static size_t align_up(const struct blob *b, size_t off, unsigned int a)
{
	return off + (size_t)((a - (b->base + off) % a) % a);
}

static bool printable(uint8_t c)
{
	return c > 0x20 && c < 0x7f;
}

/* What nm prints and scripts/kallsyms keeps (it drops U, N and most A). */
static bool type_char(char c)
{
	return c && strchr("AaBbCcDdGgIiRrSsTtuVvWw", c);
}

/*
 * The token index at off: 0, then 255 increasing offsets, each token at
 * least one character and its NUL. Then the table that ends (with at most
 * 7 bytes of zero padding) right in front of it: every token printable
 * and ending where the next begins.
 */
static bool tokens_at(const struct blob *b, size_t off, struct tokens *tk)
{
	uint16_t idx[256];
	size_t e, s, t, z;

	if (!fits(b, off, 512))
		return false;
	for (int i = 0; i < 256; i++) {
		idx[i] = (uint16_t)get(b, off + 2 * (size_t)i, 2);
		if (i == 0 ? idx[0] != 0 :
			     idx[i] < idx[i - 1] + 2 ||
				     idx[i] > idx[i - 1] + MAX_TOKEN)
			return false;
	}
	/* e: just past the table's last NUL (at most 7 padding zeros) */
	for (z = 0; z < off && z < 9 && b->p[off - z - 1] == 0; z++)
		;
	if (z == 0 || z > 8 || z == off)
		return false;
	e = off - z + 1;
	for (s = e - 1; s > 0 && b->p[s - 1] != 0 && e - s <= MAX_TOKEN; s--)
		;
	if (s < idx[255] || s == e - 1)
		return false;
	t = s - idx[255];
	for (int i = 0; i < 256; i++) {
		size_t a = t + idx[i],
		       nul = i < 255 ? t + idx[i + 1] - 1 : e - 1;

		if (b->p[nul] != 0)
			return false;
		for (size_t k = a; k < nul; k++)
			if (!printable(b->p[k]))
				return false;
		tk->s[i] = (const char *)b->p + a;
		tk->len[i] = (uint16_t)(nul - a);
	}
	tk->table_off = t;
	tk->index_off = off;
	return true;
}

/* Quick test before tokens_at: the first three entries. */
static bool index_start(const struct blob *b, size_t off)
{
	uint64_t a, c;

	if (b->p[off] || b->p[off + 1])
		return false;
	a = get(b, off + 2, 2);
	c = get(b, off + 4, 2);
	return a >= 2 && a <= MAX_TOKEN && c >= a + 2 && c <= a + MAX_TOKEN;
}

static int grow_scratch(struct finder *f, size_t n)
{
	uint32_t *p;

	if (n <= f->nscratch)
		return 0;
	p = realloc(f->scratch, n * sizeof(*p));
	if (!p)
		return -ENOMEM;
	f->scratch = p;
	f->nscratch = n;
	return 0;
}

/*
 * Walks n names from off, none past limit, each starting with a type
 * letter, and checks the markers after them (u32, or pointer-sized in
 * older kernels) give the offset of every 256th. 1 if they do, 0 if not,
 * -E2BIG when the budget of steps is spent.
 */
static int walk_names(struct finder *f, struct names *c, size_t limit)
{
	const struct blob *b = &f->b;
	size_t off = c->off, nm = (c->n + 255) / 256;
	unsigned int esz[2] = { 4, b->ptr };

	if (grow_scratch(f, nm))
		return -ENOMEM;
	for (uint32_t i = 0; i < c->n; i++) {
		size_t l, h = 1;

		if (f->budget-- == 0)
			return -E2BIG;
		if (off >= limit)
			return 0;
		if ((i & 255) == 0)
			f->scratch[i >> 8] = (uint32_t)(off - c->off);
		l = b->p[off];
		if (l & 0x80) {
			if (off + 1 >= limit || b->p[off + 1] & 0x80)
				return 0;
			l = (l & 0x7f) | (size_t)b->p[off + 1] << 7;
			h = 2;
		}
		if (l == 0 || l > limit - off - h ||
		    !type_char(f->tk.s[b->p[off + h]][0]))
			return 0;
		off += h + l;
	}
	c->end = off;
	c->markers_off = align_up(b, off, c->align);
	for (int k = 0; k < (b->ptr == 4 ? 1 : 2); k++) {
		size_t m = c->markers_off, j;

		if (!fits(b, m, nm * esz[k]) || m + nm * esz[k] > limit)
			continue;
		for (j = 0; j < nm; j++)
			if (get(b, m + j * esz[k], esz[k]) != f->scratch[j])
				break;
		if (j == nm) {
			c->markers_end = m + nm * esz[k];
			return 1;
		}
	}
	return 0;
}

static int grow_addrs(struct finder *f, size_t n)
{
	uint64_t *a;

	if (n <= f->naddrs)
		return 0;
	a = realloc(f->addrs, n * sizeof(*a));
	if (!a)
		return -ENOMEM;
	f->addrs = a;
	f->naddrs = n;
	return 0;
}

/* kallsyms sorts by address: a wrong guess (or zeros) is unsorted or flat. */
static bool sorted(const uint64_t *a, size_t n)
{
	bool up = false;

	for (size_t i = 1; i < n; i++) {
		if (a[i] < a[i - 1])
			return false;
		up |= a[i] > a[i - 1];
	}
	return n < 2 || up;
}

struct addr_try {
	enum ms_ksym_addressing mode;
	size_t off, relbase_off;
	uint64_t relbase;
};

/* Decodes the addresses of try t into f->addrs: are they sorted? */
static bool decode_addrs(struct finder *f, const struct addr_try *t, uint32_t n)
{
	const struct blob *b = &f->b;
	unsigned int esz = t->mode == MS_KSYM_ABSOLUTE ? b->ptr : 4;

	bool neg = false;

	if (!fits(b, t->off, (size_t)n * esz))
		return false;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t v = get(b, t->off + (size_t)i * esz, esz);
		int32_t s = (int32_t)(uint32_t)v;

		switch (t->mode) {
		case MS_KSYM_ABSOLUTE:
			f->addrs[i] = v;
			break;
		case MS_KSYM_RELATIVE:
			f->addrs[i] = t->relbase + (uint32_t)v;
			break;
		case MS_KSYM_RELATIVE_PERCPU:
			/* kernel/kallsyms.c kallsyms_sym_address(), < v6.15 */
			f->addrs[i] = s >= 0 ? (uint64_t)s :
					       t->relbase - 1 - (int64_t)s;
			break;
		case MS_KSYM_PCREL:
			f->addrs[i] = b->base + t->off + (uint64_t)i * 4 +
				      (uint64_t)(int64_t)s;
			break;
		}
		if (b->ptr == 4)
			f->addrs[i] &= UINT32_MAX;
		neg |= s < 0;
	}
	/* without negative offsets it is MS_KSYM_RELATIVE, said plainly */
	if (t->mode == MS_KSYM_RELATIVE_PERCPU && !neg)
		return false;
	return sorted(f->addrs, n);
}

/*
 * The address table of the names c: in front of num_syms (up to v6.3),
 * or after the token index (v6.4 on); the first kind that decodes to
 * sorted addresses wins. Place-relative comes last: any sorted offsets
 * also read as sorted place-relative ones, not the other way round (an
 * alias's place-relative offset is 4 less than the one before).
 */
static int find_addrs(struct finder *f, const struct names *c,
		      struct ms_ksymtab_info *info)
{
	const struct blob *b = &f->b;
	unsigned int a = c->align, p = b->ptr;
	size_t x = align_up(b, f->tk.index_off + 512, a);
	struct addr_try tries[8];
	size_t nt = 0;
	int r;

	if ((r = grow_addrs(f, c->n)))
		return r;
	/* before num_syms: offsets, then relative_base right before it */
	if (c->num_off >= p + (size_t)4 * c->n) {
		size_t rb = c->num_off - p, o = rb - (size_t)4 * c->n;

		o -= (size_t)((b->base + o) % a);
		tries[nt++] =
			(struct addr_try){ MS_KSYM_RELATIVE_PERCPU, o, rb };
		tries[nt++] = (struct addr_try){ MS_KSYM_RELATIVE, o, rb };
	}
	if (c->num_off >= (size_t)p * c->n)
		tries[nt++] = (struct addr_try){ MS_KSYM_ABSOLUTE,
						 c->num_off - (size_t)p * c->n,
						 SIZE_MAX };
	/* after the token index: offsets, then relative_base */
	tries[nt++] = (struct addr_try){ MS_KSYM_RELATIVE_PERCPU, x,
					 align_up(b, x + (size_t)4 * c->n, a) };
	tries[nt++] = (struct addr_try){ MS_KSYM_RELATIVE, x,
					 align_up(b, x + (size_t)4 * c->n, a) };
	tries[nt++] = (struct addr_try){ MS_KSYM_ABSOLUTE, x, SIZE_MAX };
	tries[nt++] = (struct addr_try){ MS_KSYM_PCREL, x, SIZE_MAX };

	for (size_t i = 0; i < nt; i++) {
		struct addr_try t = tries[i];

		if (t.relbase_off != SIZE_MAX) {
			if (!fits(b, t.relbase_off, p) ||
			    !aligned(b, t.relbase_off, p < a ? p : a))
				continue;
			t.relbase = get(b, t.relbase_off, p);
		}
		if (!decode_addrs(f, &t, c->n))
			continue;
		info->mode = t.mode;
		info->addrs_off = t.off;
		info->relbase_off = t.relbase_off;
		info->relbase = t.relbase_off == SIZE_MAX ? 0 : t.relbase;
		return 1;
	}
	return 0;
}

/*
 * For the token table in f->tk: every num_syms candidate in [lo, hi)
 * whose names walk (not past limit) to agreeing markers and that has
 * addresses. The most symbols win.
 */
static int scan_names(struct finder *f, size_t lo, size_t hi, size_t limit,
		      struct names *best)
{
	const struct blob *b = &f->b;
	unsigned int aligns[2] = { 4, b->ptr };

	for (size_t q = align_up(b, lo, 4); q + 4 <= hi; q += 4) {
		uint64_t n = get(b, q, 4);

		if (f->budget-- == 0)
			return -E2BIG;

		if (n < MIN_SYMS || n > MAX_SYMS || n <= best->n ||
		    n > (limit - q) / 2)
			continue;
		for (int k = 0; k < (b->ptr == 8 ? 2 : 1); k++) {
			struct ms_ksymtab_info ci;
			struct names c = { .num_off = q,
					   .n = (uint32_t)n,
					   .align = aligns[k] };
			int r;

			if (!aligned(b, q, c.align))
				continue;
			c.off = align_up(b, q + 4, c.align);
			r = walk_names(f, &c, limit);
			if (r > 0)
				r = find_addrs(f, &c, &ci);
			if (r < 0)
				return r;
			if (r > 0) {
				*best = c;
				break;
			}
		}
	}
	return 0;
}

/* Tries the token table in f->tk; 1 with *ret set, 0 if nothing fits. */
static int try_tokens(struct finder *f, struct ms_ksymtab **ret,
		      struct ms_ksymtab_info *info)
{
	const struct blob *b = &f->b;
	struct names best = { 0 };
	struct ms_ksymtab_info bi = { 0 };
	int r;

	/* names are before the token table in every layout known; or after */
	r = scan_names(f, 0, f->tk.table_off, f->tk.table_off, &best);
	if (!r)
		r = scan_names(f, f->tk.index_off + 512, b->len, b->len, &best);
	if (r < 0)
		return r;
	if (best.n == 0)
		return 0;
	/* later candidates overwrote f->addrs: decode the best's again */
	if ((r = find_addrs(f, &best, &bi)) < 0)
		return r;
	r = ksymtab_build(&(struct ksym_found){ f->b.p + best.off, best.n,
						f->tk.s, f->tk.len, f->addrs,
						best.off, f->tk.table_off },
			  ret);
	if (r)
		return r == -EINVAL ? 0 : r;
	bi.align = best.align;
	bi.num_syms_off = best.num_off;
	bi.names_off = best.off;
	bi.markers_off = best.markers_off;
	bi.token_table_off = f->tk.table_off;
	bi.token_index_off = f->tk.index_off;
	if (info)
		*info = bi;
	return 1;
}

int ms_ksymtab_find_info(const void *buf, size_t len, uint64_t base,
			 int ptr_size, bool big_endian, struct ms_ksymtab **ret,
			 struct ms_ksymtab_info *info, struct ms_err *err)
{
	struct finder f = { .b = { buf, len, base, (unsigned int)ptr_size,
				   big_endian } };
	size_t ntok = 0;
	int r = 0;

	*ret = NULL;
	if (ptr_size != 4 && ptr_size != 8)
		return ms_err_set(err, EINVAL, "kallsyms: pointer size %d",
				  ptr_size);
	/*
	 * Work is bounded whatever the blob: a step for each num_syms
	 * candidate and each name walked, 256 for each token index checked.
	 * A kernel needs one scan and one walk; hostile memory full of
	 * would-be tables runs out.
	 */
	f.budget = 8 * (uint64_t)len + (1u << 20);
	for (size_t off = align_up(&f.b, 0, 4); off + 512 <= len; off += 4) {
		if (!index_start(&f.b, off))
			continue;
		if (f.budget < 256) {
			r = -E2BIG;
			break;
		}
		f.budget -= 256;
		if (!tokens_at(&f.b, off, &f.tk))
			continue;
		ntok++;
		r = try_tokens(&f, ret, info);
		if (r)
			break;
	}
	free(f.scratch);
	free(f.addrs);
	if (r == 1)
		return 0;
	if (r == -ENOMEM)
		return ms_err_set(err, ENOMEM, "kallsyms: out of memory");
	if (r == -E2BIG)
		return ms_err_set(
			err, E2BIG,
			"no kallsyms tables found in %zu bytes at 0x%" PRIx64
			": too many would-be tables to try",
			len, base);
	if (ntok == 0)
		return ms_err_set(
			err, ENOENT,
			"no kallsyms tables found in %zu bytes at 0x%" PRIx64
			": no token table",
			len, base);
	return ms_err_set(
		err, ENOENT,
		"no kallsyms tables found in %zu bytes at 0x%" PRIx64
		": %zu token table%s, but no symbol names, markers and addresses that agree",
		len, base, ntok, ntok == 1 ? "" : "s");
}

int ms_ksymtab_find(const void *buf, size_t len, uint64_t base, int ptr_size,
		    bool big_endian, struct ms_ksymtab **ret,
		    struct ms_err *err)
{
	return ms_ksymtab_find_info(buf, len, base, ptr_size, big_endian, ret,
				    NULL, err);
}
