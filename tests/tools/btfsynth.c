// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btfsynth: a BTF with every kind and the edge cases of each, made with
 * libbpf's writer, for tests/t-types.sh (the C it stands for is in the
 * comments; t-types.sh compares gdb's ptype with it).
 *
 *   btfsynth OUT.btf [--split BASE.btf OUT-SPLIT.btf]
 *
 * The split BTF is a module's: its own struct using the base's types.
 */
#include <stdio.h>
#include <stdlib.h>

#include <bpf/btf.h>

static int must_at(int id, int line)
{
	if (id < 0) {
		fprintf(stderr, "btfsynth: line %d: libbpf: %d\n", line, id);
		exit(2);
	}
	return id;
}
#define must(id) must_at((id), __LINE__)

static void save(struct btf *b, const char *path)
{
	unsigned int len;
	const void *raw = btf__raw_data(b, &len);
	FILE *f = fopen(path, "w");

	if (!raw || !f || fwrite(raw, 1, len, f) != len || fclose(f)) {
		fprintf(stderr, "btfsynth: cannot write %s\n", path);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	struct btf *b = btf__new_empty();
	int i_int, i_uint, i_char, i_uchar, i_bool, i_long, i_ulong, i_dbl;
	int s_node, p_node, s_bits, u_val, e_sgn, e64, fp, proto, fn, cint;
	int tt, ptt, v, vp, arr, arr2, flex, s_anon, td, vol, cvoid, pv;
	int rst, sec, fwd_s, fwd_u, e_decl, s_empty, i128, pproto, v2;
	int ptd, pfs, pfu, ped, pbits;

	if (argc != 2 && argc != 5) {
		fprintf(stderr, "usage: btfsynth OUT.btf [--split BASE OUT]\n");
		return 2;
	}
	if (argc ==
	    5) { /* a module's: struct synth_mod { struct synth_node *n; int k; } */
		struct btf *base = btf__parse(argv[3], NULL);
		struct btf *m = base ? btf__new_empty_split(base) : NULL;
		int node, sint, sm;

		if (!m)
			return fprintf(stderr, "btfsynth: bad base\n"), 2;
		node = btf__find_by_name_kind(base, "synth_node",
					      BTF_KIND_STRUCT);
		sint = btf__find_by_name_kind(base, "int", BTF_KIND_INT);
		node = must(btf__add_ptr(m, node));
		sm = must(btf__add_struct(m, "synth_mod", 16));
		must(btf__add_field(m, "n", node, 0, 0));
		must(btf__add_field(m, "k", sint, 64, 0));
		(void)sm;
		save(m, argv[4]);
		btf__free(m);
		btf__free(base);
		btf__free(b);
		return 0;
	}
	i_int = must(btf__add_int(b, "int", 4, BTF_INT_SIGNED));
	i_uint = must(btf__add_int(b, "unsigned int", 4, 0));
	i_char = must(btf__add_int(b, "char", 1, BTF_INT_SIGNED));
	i_uchar = must(btf__add_int(b, "unsigned char", 1, 0));
	i_bool = must(btf__add_int(b, "_Bool", 1, BTF_INT_BOOL));
	i_long = must(btf__add_int(b, "long", 8, BTF_INT_SIGNED));
	i_ulong = must(btf__add_int(b, "unsigned long", 8, 0));
	i128 = must(btf__add_int(b, "__int128", 16, BTF_INT_SIGNED));
	i_dbl = must(btf__add_float(b, "double", 8));
	/* struct synth_node { struct synth_node *next; long v; }: a cycle */
	p_node = must(btf__add_ptr(b, (int)btf__type_cnt(b) + 1));
	s_node = must(btf__add_struct(b, "synth_node", 16));
	must(btf__add_field(b, "next", p_node, 0, 0));
	must(btf__add_field(b, "v", i_long, 64, 0));
	/* union synth_val { int i; double d; unsigned char b[8]; } */
	arr = must(btf__add_array(b, i_uint, i_uchar, 8));
	u_val = must(btf__add_union(b, "synth_val", 8));
	must(btf__add_field(b, "i", i_int, 0, 0));
	must(btf__add_field(b, "d", i_dbl, 0, 0));
	must(btf__add_field(b, "b", arr, 0, 0));
	/* struct { int a; int b; } (anonymous) */
	s_anon = must(btf__add_struct(b, NULL, 8));
	must(btf__add_field(b, "a", i_int, 0, 0));
	must(btf__add_field(b, "b", i_int, 32, 0));
	/* enum synth_sgn { SYNTH_NEG = -2, SYNTH_POS = 7 } */
	e_sgn = must(btf__add_enum(b, "synth_sgn", 4));
	must(btf__add_enum_value(b, "SYNTH_NEG", -2));
	must(btf__add_enum_value(b, "SYNTH_POS", 7));
	/* enum synth_big : 64 bits { SYNTH_BIG = 0xfedcba9876543210 } */
	e64 = must(btf__add_enum64(b, "synth_big", 8, false));
	must(btf__add_enum64_value(b, "SYNTH_BIG", 0xfedcba9876543210ull));
	e_decl = must(btf__add_enum(b, "synth_opaque", 4)); /* no values */
	fwd_s = must(btf__add_fwd(b, "synth_fwd", BTF_FWD_STRUCT));
	fwd_u = must(btf__add_fwd(b, "synth_fwdu", BTF_FWD_UNION));
	/* typedef void synth_void_t; const void; volatile int; restrict */
	td = must(btf__add_typedef(b, "synth_void_t", 0));
	cvoid = must(btf__add_const(b, 0));
	pv = must(btf__add_ptr(b, cvoid));
	vol = must(btf__add_volatile(b, i_int));
	rst = must(btf__add_restrict(b, pv));
	/* char __attribute__((btf_type_tag("user"))) * */
	tt = must(btf__add_type_tag(b, "user", i_char));
	ptt = must(btf__add_ptr(b, tt));
	/* int (*)(int, ...) */
	fp = must(btf__add_func_proto(b, i_int));
	must(btf__add_func_param(b, NULL, i_int));
	must(btf__add_func_param(b, NULL, 0));
	pproto = must(btf__add_ptr(b, fp));
	/* long synth_m[2][3] */
	arr2 = must(btf__add_array(
		b, i_uint, must(btf__add_array(b, i_uint, i_long, 3)), 2));
	flex = must(btf__add_array(b, i_uint, i_char, 0));
	s_empty = must(btf__add_struct(b, "synth_empty", 0));
	/*
	 * struct synth_bits {
	 *	unsigned int lo : 3, mid : 9; int neg : 4; (bitfields, kflag)
	 *	_Bool flag; struct { int a; int b; }; union synth_val val;
	 *	enum synth_sgn s; enum synth_big big; synth_void_t *vp;
	 *	volatile int vol; const void *restrict rp; char __user *up;
	 *	int (*cb)(int, ...); long m[2][3]; struct synth_fwd *f;
	 *	union synth_fwdu *fu; enum synth_opaque *eo; struct synth_empty e;
	 *	__int128 wide; char tail[];
	 * }
	 */
	/* libbpf adds fields to the type added last: pointers first */
	ptd = must(btf__add_ptr(b, td));
	pfs = must(btf__add_ptr(b, fwd_s));
	pfu = must(btf__add_ptr(b, fwd_u));
	ped = must(btf__add_ptr(b, e_decl));
	s_bits = must(btf__add_struct(b, "synth_bits", 160));
	must(btf__add_field(b, "lo", i_uint, 0, 3));
	must(btf__add_field(b, "mid", i_uint, 3, 9));
	must(btf__add_field(b, "neg", i_int, 12, 4));
	must(btf__add_field(b, "flag", i_bool, 16, 0));
	must(btf__add_field(b, NULL, s_anon, 32, 0));
	must(btf__add_field(b, "val", u_val, 64, 0));
	must(btf__add_field(b, "s", e_sgn, 128, 0));
	must(btf__add_field(b, "big", e64, 192, 0));
	must(btf__add_field(b, "vp", ptd, 256, 0));
	must(btf__add_field(b, "vol", vol, 320, 0));
	must(btf__add_field(b, "rp", rst, 384, 0));
	must(btf__add_field(b, "up", ptt, 448, 0));
	must(btf__add_field(b, "cb", pproto, 512, 0));
	must(btf__add_field(b, "m", arr2, 576, 0));
	must(btf__add_field(b, "f", pfs, 960, 0));
	must(btf__add_field(b, "fu", pfu, 1024, 0));
	must(btf__add_field(b, "eo", ped, 1088, 0));
	must(btf__add_field(b, "e", s_empty, 1152, 0));
	must(btf__add_field(b, "wide", i128, 1152, 0));
	must(btf__add_field(b, "tail", flex, 1280, 0));
	/* int synth_fn(struct synth_bits *bits, unsigned long n) */
	pbits = must(btf__add_ptr(b, s_bits));
	proto = must(btf__add_func_proto(b, i_int));
	must(btf__add_func_param(b, "bits", pbits));
	must(btf__add_func_param(b, "n", i_ulong));
	fn = must(btf__add_func(b, "synth_fn", BTF_FUNC_GLOBAL, proto));
	must(btf__add_decl_tag(b, "synth_kfunc", fn, -1));
	must(btf__add_decl_tag(b, "synth_tag", s_bits, -1));
	/* void synth_void(void): twice in kallsyms, so left out */
	must(btf__add_func(b, "synth_twice", BTF_FUNC_STATIC,
			   must(btf__add_func_proto(b, 0))));
	/* DEFINE_PER_CPU(long, synth_counter); int synth_global; */
	cint = must(btf__add_const(b, i_int));
	vp = must(btf__add_var(b, "synth_counter", BTF_VAR_GLOBAL_ALLOCATED,
			       i_long));
	v2 = must(btf__add_var(b, "synth_global", BTF_VAR_GLOBAL_ALLOCATED,
			       cint));
	sec = must(btf__add_datasec(b, ".data..percpu", 64));
	must(btf__add_datasec_var_info(b, vp, 8, 8));
	v = must(btf__add_datasec(b, ".data", 4));
	must(btf__add_datasec_var_info(b, v2, 0, 4));
	(void)sec;
	(void)s_node;
	(void)v;
	(void)i_ulong;
	save(b, argv[1]);
	btf__free(b);
	return 0;
}
