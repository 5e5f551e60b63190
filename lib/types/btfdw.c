// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * BTF to DWARF: each BTF type becomes the DIE gcc would write for it,
 * in one compile unit, so gdb and lldb print the kernel's structs as
 * they would from its debug vmlinux. Functions with an address become
 * subprograms with their prototypes, per-cpu variables variables whose
 * location is CPU 0's copy. What BTF cannot say exactly (a name with
 * two prototypes or two addresses) is left out: no type beats a wrong
 * one.
 *
 * References are written as placeholders and patched once every DIE
 * has its offset, so the type graph's cycles (through pointers) need
 * no recursion.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "types-int.h"
#include "btfdw-int.h"

/* Patches every reference; one to a non-type is bad BTF. */
static int patch(struct conv *c, struct ms_err *err)
{
	for (size_t i = 0; i < c->nfix; i++) {
		uint32_t id = c->fix[i].id;

		if (id >= c->n || !c->off[id]) {
			const struct btf_type *t = btf__type_by_id(c->btf, id);

			return ms_err_set(
				err, EINVAL,
				"%s: BTF type %u is used as a type but is of kind %d",
				c->in->name, id, t ? (int)btf_kind(t) : -1);
		}
		ms_bytes_patch(&c->info, c->fix[i].pos, c->off[id], 4);
	}
	return 0;
}

static void cu_start(struct conv *c, bool ranges)
{
	struct ms_bytes *b = &c->info;

	ms_bytes_uint(b, 0, 4); /* unit_length, patched */
	ms_bytes_uint(b, 4, 2); /* version */
	ms_bytes_uint(b, 0, 4); /* debug_abbrev_offset */
	ms_bytes_put8(b, (unsigned int)c->in->addr_size);
	ms_bytes_uleb(b, ranges ? A_CU_RANGES : A_CU);
	conv_strp(c, "modsect, from the kernel's BTF");
	ms_bytes_uint(b, DW_LANG_C99, 2);
	conv_strp(c, c->in->name);
	if (ranges) {
		ms_bytes_uint(b, 0, c->in->addr_size);
		ms_bytes_uint(b, 0, 4);
	}
	/* The index type of every array, as clang names it. */
	c->index_type = (uint32_t)b->len;
	ms_bytes_uleb(b, A_BASE);
	conv_strp(c, "__ARRAY_SIZE_TYPE__");
	ms_bytes_uleb(b, (uint64_t)c->in->addr_size);
	ms_bytes_put8(b, DW_ATE_unsigned);
}

static int finish(struct conv *c, struct ms_dwarf *out, struct ms_err *err)
{
	int r;

	ms_bytes_put8(&c->info, 0); /* the compile unit's children end */
	if (c->info.oom || c->str.b.oom || c->ranges.oom)
		return ms_err_errno(err, ENOMEM, "%s: DWARF types",
				    c->in->name);
	if ((r = patch(c, err)))
		return r;
	ms_bytes_patch(&c->info, 0, c->info.len - 4, 4);
	dw_abbrevs(&c->abbrev);
	if (c->info.oom || c->abbrev.oom)
		return ms_err_errno(err, ENOMEM, "%s: DWARF types",
				    c->in->name);
	out->info = c->info.buf;
	out->info_len = c->info.len;
	out->abbrev = c->abbrev.buf;
	out->abbrev_len = c->abbrev.len;
	out->str = c->str.b.buf;
	out->str_len = c->str.b.len;
	out->ranges = c->ranges.buf;
	out->ranges_len = c->ranges.len;
	c->info.buf = c->abbrev.buf = c->str.b.buf = c->ranges.buf = NULL;
	return 0;
}

int ms_btf_to_dwarf(const struct ms_types_in *in, struct ms_dwarf *out,
		    struct ms_err *err)
{
	struct conv c = { .in = in, .btf = in->btf, .base = in->base };
	int r;

	memset(out, 0, sizeof(*out));
	if (in->addr_size != 4 && in->addr_size != 8)
		return ms_err_set(err, EINVAL, "%s: address size %d", in->name,
				  in->addr_size);
	c.n = btf__type_cnt(in->btf);
	c.start = in->base ? btf__type_cnt(in->base) : 1;
	if (c.n > MS_TYPES_MAX_IDS || c.start > c.n)
		return ms_err_set(err, E2BIG, "%s: %u BTF types, more than %u",
				  in->name, c.n, MS_TYPES_MAX_IDS);
	c.out = out;
	c.info.big_endian = c.abbrev.big_endian = c.ranges.big_endian =
		in->big_endian;
	c.info.max = c.abbrev.max = c.ranges.max = c.str.b.max =
		MS_TYPES_MAX_DWARF;
	c.off = calloc(c.n, sizeof(*c.off));
	c.mark = in->base ? calloc(c.n, 1) : NULL;
	r = (!c.off || (in->base && !c.mark)) ?
		    ms_err_errno(err, ENOMEM, "%s: DWARF types", in->name) :
		    conv_index(&c, err);
	if (!r) {
		cu_start(&c, in->nfuncs > 0);
		for (uint32_t id = c.start; id < c.n; id++)
			conv_type(&c, id, false);
		conv_functions(&c);
		conv_variables(&c);
		conv_base(&c);
		r = finish(&c, out, err);
	}
	conv_free(&c);
	free(c.off);
	free(c.mark);
	free(c.fix);
	free(c.info.buf);
	free(c.abbrev.buf);
	free(c.ranges.buf);
	ms_strtab_free(&c.str);
	if (r)
		ms_dwarf_free(out);
	return r;
}

void ms_dwarf_free(struct ms_dwarf *d)
{
	free(d->info);
	free(d->abbrev);
	free(d->str);
	free(d->ranges);
	memset(d, 0, sizeof(*d));
}
