// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What BTF says beyond types: functions (FUNC, placed at their symbol's
 * address), variables (VAR in a DATASEC: the per-cpu ones in today's
 * kernels, pahole's global_var being off), declaration tags; and for a
 * module's split BTF, the base types its own refer to.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "btfdw-int.h"

/* The base types the unit used: named aggregates declared, the rest copied. */
void conv_base(struct conv *c)
{
	while (c->nqueue) {
		uint32_t id = c->queue[--c->nqueue];
		const struct btf_type *t = btf__type_by_id(c->btf, id);
		const char *s = btf__name_by_offset(c->btf, t->name_off);
		bool decl = (btf_is_composite(t) || btf_is_any_enum(t) ||
			     btf_is_fwd(t)) &&
			    s && *s;

		conv_type(c, id, decl);
	}
}

/* The symbols called name: [*first, *first + count). */
static size_t find_syms(const struct ms_tsym *s, size_t n, const char *name,
			size_t *first)
{
	size_t lo = 0, hi = n, k;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(s[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = lo; k < n && !strcmp(s[k].name, name); k++)
		;
	*first = lo;
	return k - lo;
}

struct fn {
	const char *name;
	uint32_t id, proto;
};

static int cmp_fn(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;
	int r = strcmp(x->name, y->name);

	return r ? r : (x->proto > y->proto) - (x->proto < y->proto);
}

static void subprogram(struct conv *c, const struct fn *f,
		       const struct ms_tsym *s)
{
	const struct btf_type *p = btf__type_by_id(c->btf, f->proto);
	uint32_t ret = conv_skip_tags(c, p->type);

	ms_bytes_uleb(&c->info, ret ? A_SUBPROG : A_SUBPROG_VOID);
	conv_strp(c, f->name);
	if (ret)
		conv_ref(c, ret);
	ms_bytes_uint(&c->info, s->addr, c->in->addr_size);
	ms_bytes_uleb(&c->info, s->size);
	conv_params(c, p, true);
	conv_decl_tags(c, f->id);
	ms_bytes_put8(&c->info, 0);
	c->rng[c->nrng++] = (struct range){ s->addr, s->addr + s->size };
	c->out->nfuncs++;
}

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return (x->lo > y->lo) - (x->lo < y->lo);
}

/* .debug_ranges: the functions' ranges merged, relative to base 0. */
static void write_ranges(struct conv *c)
{
	size_t n = 0;

	qsort(c->rng, c->nrng, sizeof(*c->rng), cmp_range);
	for (size_t i = 0; i < c->nrng; i++) {
		if (n && c->rng[i].lo <= c->rng[n - 1].hi) {
			if (c->rng[i].hi > c->rng[n - 1].hi)
				c->rng[n - 1].hi = c->rng[i].hi;
			continue;
		}
		c->rng[n++] = c->rng[i];
	}
	for (size_t i = 0; i < n; i++) {
		ms_bytes_uint(&c->ranges, c->rng[i].lo, c->in->addr_size);
		ms_bytes_uint(&c->ranges, c->rng[i].hi, c->in->addr_size);
	}
	ms_bytes_uint(&c->ranges, 0, c->in->addr_size);
	ms_bytes_uint(&c->ranges, 0, c->in->addr_size);
}

/*
 * Each FUNC whose name has one prototype in the BTF and one text symbol
 * becomes a subprogram there; a static function of another file with
 * the name could have another prototype.
 */
void conv_functions(struct conv *c)
{
	struct fn *f = malloc((c->n - c->start + 1) * sizeof(*f));
	size_t n = 0;

	c->rng = malloc((c->in->nfuncs + 1) * sizeof(*c->rng));
	if (!f || !c->rng) {
		c->info.oom = true;
		free(f);
		return;
	}
	for (uint32_t id = c->start; id < c->n; id++) {
		const struct btf_type *t = btf__type_by_id(c->btf, id), *p;
		const char *name = btf__name_by_offset(c->btf, t->name_off);

		/* libbpf checks neither names nor what a FUNC points to */
		if (!btf_is_func(t) || !name || !*name ||
		    !(p = btf__type_by_id(c->btf, t->type)) ||
		    !btf_is_func_proto(p))
			continue;
		f[n++] = (struct fn){ name, id, t->type };
	}
	qsort(f, n, sizeof(*f), cmp_fn);
	for (size_t i = 0, j; i < n; i = j) {
		size_t first, nsym;
		bool same = true;

		for (j = i + 1; j < n && !strcmp(f[j].name, f[i].name); j++)
			same &= f[j].proto == f[i].proto;
		nsym = find_syms(c->in->funcs, c->in->nfuncs, f[i].name,
				 &first);
		if (!same || nsym > 1)
			c->out->nambiguous++;
		else if (nsym == 1 && c->in->funcs[first].size)
			subprogram(c, &f[i], &c->in->funcs[first]);
	}
	free(f);
	if (c->in->nfuncs)
		write_ranges(c);
}

static void variable(struct conv *c, const struct btf_type *v, bool percpu,
		     uint64_t addr)
{
	struct ms_bytes *b = &c->info;
	int as = c->in->addr_size;
	uint8_t uc[MS_LEB_MAX];
	size_t nuc;

	ms_bytes_uleb(b, A_VAR);
	conv_strp(c, btf__name_by_offset(c->btf, v->name_off));
	conv_ref(c, conv_skip_tags(c, v->type));
	if (!percpu) {
		ms_bytes_uleb(b, 1 + (uint64_t)as);
		ms_bytes_put8(b, DW_OP_addr);
		ms_bytes_uint(b, addr, as);
		c->out->nvars++;
		return;
	}
	nuc = ms_uleb(uc, addr);
	/* CPU 0's copy: &var + __per_cpu_offset[0] */
	ms_bytes_uleb(b, 1 + (uint64_t)as + 1 + 1 + nuc);
	ms_bytes_put8(b, DW_OP_addr);
	ms_bytes_uint(b, c->in->percpu_offsets, as);
	ms_bytes_put8(b, DW_OP_deref);
	ms_bytes_put8(b, DW_OP_plus_uconst);
	ms_bytes_put(b, uc, nuc);
	c->out->nvars++;
}

/* The VARs of the DATASECs whose name is one data symbol's. */
void conv_variables(struct conv *c)
{
	for (uint32_t id = c->start; id < c->n; id++) {
		const struct btf_type *t = btf__type_by_id(c->btf, id);
		const struct btf_var_secinfo *vs;
		const char *sec;
		bool percpu;

		if (!btf_is_datasec(t))
			continue;
		sec = btf__name_by_offset(c->btf, t->name_off);
		percpu = sec && !strcmp(sec, ".data..percpu");
		if (percpu && !c->in->percpu_offsets)
			continue;
		vs = btf_var_secinfos(t);
		for (uint32_t i = 0; i < btf_vlen(t); i++, vs++) {
			const struct btf_type *v =
				btf__type_by_id(c->btf, vs->type);
			const char *vn;
			size_t first, nsym;

			if (!v || !btf_is_var(v) ||
			    !(vn = btf__name_by_offset(c->btf, v->name_off)))
				continue;
			nsym = find_syms(c->in->vars, c->in->nvars, vn, &first);
			if (nsym > 1)
				c->out->nambiguous++;
			else if (nsym == 1)
				variable(c, v, percpu, c->in->vars[first].addr);
		}
	}
}

void conv_free(struct conv *c)
{
	free(c->tags);
	free(c->queue);
	free(c->rng);
}
