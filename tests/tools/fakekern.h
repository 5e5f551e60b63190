/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fakekern.h: a fake kernel for the module walk (lib/kmem.c), shared by
 * tests/tools/kmemwalk.c and fuzz/fuzz_kmem.c.
 *
 * - BTF made with libbpf's writer, holding the types and fields that
 *   lib/kbtf.c looks up, at the offsets of Debian's 6.1 x86-64 kernel, or
 *   with 6.14's section attributes (no struct module_sect_attr, no
 *   nsections: attrs[] is struct bin_attribute[], the address in private,
 *   the count the NULL-terminated grp.bin_attrs).
 * - Kernel memory to match: an arena at FK_BASE that starts with the
 *   `modules` list head, then struct modules with section and note
 *   attributes, mod_kallsyms and __ksymtab (PREL32); init_uts_ns apart
 *   at FK_UTS.
 * - A memory source over the arena (struct fk_view) and a struct kern
 *   whose kallsyms has `modules` and `init_uts_ns`.
 * - What faketask.h and the test helpers share: BTF's base types and
 *   its parse back, a table of modes by name, a seed written out.
 *
 * Everything is static inline: each program uses a different part.
 */
#ifndef MODSECT_FAKEKERN_H
#define MODSECT_FAKEKERN_H

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "kernel/kmem-int.h"

#define FK_BASE 0xffffffffc1000000ull /* the arena; `modules` at its start */
#define FK_UTS 0xffffffff82a13000ull /* init_uts_ns */
#define FK_ARENA_MAX (64u << 20)
#define FK_ORIGIN "fakekern"

/* pahole of Debian's 6.1.0 x86-64 vmlinux; the same in both layouts */
#define FK_MOD_SIZE 896
#define FK_MOD_STATE 0
#define FK_MOD_LIST 8
#define FK_MOD_NAME 24
#define FK_MODULE_NAME_LEN 56
#define FK_MOD_SRCVERSION 192
#define FK_MOD_SYMS 208
#define FK_MOD_NUM_SYMS 224
#define FK_MOD_NUM_GPL_SYMS 276 /* modsect never reads gpl_syms */
#define FK_MOD_GPL_SYMS 280
#define FK_MOD_KALLSYMS 544
#define FK_MOD_SECT_ATTRS 584
#define FK_MOD_NOTES_ATTRS 592
#define FK_BA_NAME 0 /* bin_attribute: attr.name, attr.mode, size, private */
#define FK_BA_MODE 8
#define FK_BA_LEN 16
#define FK_BA_PRIVATE 24
#define FK_NAS_SIZE 16 /* module_notes_attrs: dir, notes, attrs[] */
#define FK_NAS_NOTES 8
#define FK_NAS_ATTRS 16
#define FK_MK_SIZE 32 /* mod_kallsyms: symtab, num_symtab, strtab, typetab */
#define FK_MK_SYMTAB 0
#define FK_MK_NUM_SYMTAB 8
#define FK_MK_STRTAB 16
#define FK_MK_TYPETAB 24
#define FK_KS_SIZE 12 /* kernel_symbol: value_, name_, namespace_offset */
#define FK_SAS_NSECTIONS 40 /* 6.1 only */
#define FK_UTS_SIZE 432
#define FK_UTS_LEN 65 /* __NEW_UTS_LEN + 1 */
#define FK_UTS_RELEASE 130
#define FK_UTS_MACHINE 260
#define FK_RELEASE "6.1.0-fake"
#define FK_MACHINE "x86_64"

/* What differs between 6.1 and 6.14. */
struct fk_layout {
	const char *name;
	bool v614;
	size_t grp_size, grp_bin_attrs; /* struct attribute_group */
	size_t ba_size; /* struct bin_attribute */
	size_t sas_size, sas_attrs; /* struct module_sect_attrs */
	size_t sa_size, sa_address; /* one element of sect_attrs->attrs[] */
};

static const struct fk_layout fk_layout_61 = {
	.name = "6.1", .grp_size = 40, .grp_bin_attrs = 32, .ba_size = 64,
	.sas_size = 48, .sas_attrs = 48, .sa_size = 72, .sa_address = 64,
};

/* d8959b947a8d: the address moved to bin_attribute.private */
static const struct fk_layout fk_layout_614 = {
	.name = "6.14", .v614 = true, .grp_size = 48, .grp_bin_attrs = 40,
	.ba_size = 88, .sas_size = 48, .sas_attrs = 48, .sa_size = 88,
	.sa_address = FK_BA_PRIVATE,
};

/* ---- BTF ---- */

struct fk_field {
	const char *name; /* NULL: an anonymous member */
	int type;
	size_t off;
};

#define FK_FIELDS(...)                                  \
	(const struct fk_field[]){ __VA_ARGS__ },       \
		sizeof((const struct fk_field[]){ __VA_ARGS__ }) / \
			sizeof(struct fk_field)

/* The first error of a chain of btf__add_*() sticks in *err. */
static inline int fkb(int *err, int id)
{
	if (id < 0 && !*err)
		*err = id;
	return id;
}

static inline int fkb_composite(struct btf *b, int *err, bool is_union,
				const char *name, size_t size,
				const struct fk_field *f, size_t n)
{
	int id = fkb(err, is_union ? btf__add_union(b, name, (__u32)size) :
				     btf__add_struct(b, name, (__u32)size));

	for (size_t i = 0; id >= 0 && i < n; i++)
		fkb(err, btf__add_field(b, f[i].name, f[i].type,
					(__u32)(f[i].off * 8), 0));
	return id;
}

static inline int fkb_enum(struct btf *b, int *err)
{
	static const char *const v[] = { "MODULE_STATE_LIVE",
					 "MODULE_STATE_COMING",
					 "MODULE_STATE_GOING",
					 "MODULE_STATE_UNFORMED" };
	int id = fkb(err, btf__add_enum(b, "module_state", 4));

	for (size_t i = 0; id >= 0 && i < 4; i++)
		fkb(err, btf__add_enum_value(b, v[i], (__s64)i));
	return id;
}

/*
 * struct attribute_group, the section attributes (their id is returned)
 * and the note attributes (in *nas).
 */
static inline int fkb_sect(struct btf *b, int *err, const struct fk_layout *ly,
			   int ulong, int uint, int voidp, int charp, int size_t_,
			   int umode, int *nas)
{
	int attr, ba, bapp, grp, elems, sas;

	attr = fkb_composite(b, err, false, "attribute", 16,
			     FK_FIELDS({ "name", charp, FK_BA_NAME },
				       { "mode", umode, FK_BA_MODE }));
	ba = fkb_composite(b, err, false, "bin_attribute", ly->ba_size,
			   FK_FIELDS({ "attr", attr, 0 },
				     { "size", size_t_, FK_BA_LEN },
				     { "private", voidp, FK_BA_PRIVATE }));
	bapp = fkb(err, btf__add_ptr(b, fkb(err, btf__add_ptr(b, ba))));
	if (ly->v614) {
		/* 6.14 is mid-way through the const conversion: a union */
		int un = fkb_composite(b, err, true, NULL, 8,
				       FK_FIELDS({ "bin_attrs", bapp, 0 },
						 { "bin_attrs_new", bapp, 0 }));

		grp = fkb_composite(b, err, false, "attribute_group", 48,
				    FK_FIELDS({ "name", charp, 0 },
					      { "is_visible", voidp, 8 },
					      { "is_bin_visible", voidp, 16 },
					      { "bin_size", voidp, 24 },
					      { "attrs", voidp, 32 },
					      { NULL, un, 40 }));
		elems = fkb(err, btf__add_array(b, uint, ba, 0));
		sas = fkb_composite(b, err, false, "module_sect_attrs",
				    ly->sas_size,
				    FK_FIELDS({ "grp", grp, 0 },
					      { "attrs", elems, ly->sas_attrs }));
	} else {
		int sa;

		grp = fkb_composite(b, err, false, "attribute_group", 40,
				    FK_FIELDS({ "name", charp, 0 },
					      { "is_visible", voidp, 8 },
					      { "is_bin_visible", voidp, 16 },
					      { "attrs", voidp, 24 },
					      { "bin_attrs", bapp, 32 }));
		sa = fkb_composite(b, err, false, "module_sect_attr", 72,
				   FK_FIELDS({ "battr", ba, 0 },
					     { "address", ulong, 64 }));
		elems = fkb(err, btf__add_array(b, uint, sa, 0));
		sas = fkb_composite(b, err, false, "module_sect_attrs",
				    ly->sas_size,
				    FK_FIELDS({ "grp", grp, 0 },
					      { "nsections", uint,
						FK_SAS_NSECTIONS },
					      { "attrs", elems, ly->sas_attrs }));
	}
	elems = fkb(err, btf__add_array(b, uint, ba, 0));
	*nas = fkb_composite(b, err, false, "module_notes_attrs", FK_NAS_SIZE,
			     FK_FIELDS({ "dir", voidp, 0 },
				       { "notes", uint, FK_NAS_NOTES },
				       { "attrs", elems, FK_NAS_ATTRS }));
	return sas;
}

static inline int fkb_uts(struct btf *b, int *err, int chr, int uint,
			  int voidp)
{
	static const char *const f[] = { "sysname", "nodename", "release",
					 "version", "machine", "domainname" };
	int c65 = fkb(err, btf__add_array(b, uint, chr, FK_UTS_LEN));
	int id = fkb(err, btf__add_struct(b, "new_utsname", 6 * FK_UTS_LEN));

	for (size_t i = 0; id >= 0 && i < 6; i++)
		fkb(err, btf__add_field(b, f[i], c65,
					(__u32)(i * FK_UTS_LEN * 8), 0));
	return fkb_composite(b, err, false, "uts_namespace", FK_UTS_SIZE,
			     FK_FIELDS({ "name", id, 0 },
				       { "user_ns", voidp, 392 },
				       { "ucounts", voidp, 400 }));
}

/* The types every fake kernel's BTF has (faketask.h's too). */
struct fkb_types {
	int sint, uint, chr, ulong, voidp, lh;
};

static inline void fkb_base(struct btf *b, int *err, struct fkb_types *t)
{
	int lhp;

	t->sint = fkb(err, btf__add_int(b, "int", 4, BTF_INT_SIGNED));
	t->uint = fkb(err, btf__add_int(b, "unsigned int", 4, 0));
	t->chr = fkb(err, btf__add_int(b, "char", 1, BTF_INT_CHAR));
	t->ulong = fkb(err, btf__add_int(b, "long unsigned int", 8, 0));
	t->voidp = fkb(err, btf__add_ptr(b, 0));
	/* list_head points at itself: its pointer type comes first */
	lhp = fkb(err, btf__add_ptr(b, (int)btf__type_cnt(b) + 1));
	t->lh = fkb_composite(b, err, false, "list_head", 16,
			      FK_FIELDS({ "next", lhp, 0 }, { "prev", lhp, 8 }));
}

/*
 * b written and parsed back (btf__new() checks it as it checks a real
 * kernel's), b freed: the BTF, or NULL with errno (also after err).
 */
static inline struct btf *fkb_parse(struct btf *b, int err)
{
	struct btf *parsed = NULL;
	const void *raw;
	__u32 len;

	raw = err ? NULL : btf__raw_data(b, &len);
	if (raw)
		parsed = btf__new(raw, len);
	btf__free(b);
	if (!parsed && !errno)
		errno = EINVAL;
	return parsed;
}

/* The fake kernel's BTF, or NULL with errno. */
static inline struct btf *fk_btf(const struct fk_layout *ly)
{
	struct btf *b = btf__new_empty();
	struct fkb_types t;
	int err = 0, u16, size_t_, umode, charp;
	int state, sasp, nas, ks, ksp, mk, name;

	if (!b)
		return NULL;
	fkb_base(b, &err, &t);
	u16 = fkb(&err, btf__add_int(b, "short unsigned int", 2, 0));
	size_t_ = fkb(&err, btf__add_typedef(b, "size_t", t.ulong));
	umode = fkb(&err, btf__add_typedef(b, "umode_t", u16));
	charp = fkb(&err, btf__add_ptr(b, t.chr));
	state = fkb_enum(b, &err);
	sasp = fkb(&err, btf__add_ptr(b, fkb_sect(b, &err, ly, t.ulong, t.uint,
						  t.voidp, charp, size_t_,
						  umode, &nas)));
	ks = fkb_composite(b, &err, false, "kernel_symbol", FK_KS_SIZE,
			   FK_FIELDS({ "value_offset", t.sint, 0 },
				     { "name_offset", t.sint, 4 },
				     { "namespace_offset", t.sint, 8 }));
	ksp = fkb(&err, btf__add_ptr(b, ks));
	mk = fkb_composite(b, &err, false, "mod_kallsyms", FK_MK_SIZE,
			   FK_FIELDS({ "symtab", t.voidp, FK_MK_SYMTAB },
				     { "num_symtab", t.uint, FK_MK_NUM_SYMTAB },
				     { "strtab", charp, FK_MK_STRTAB },
				     { "typetab", charp, FK_MK_TYPETAB }));
	name = fkb(&err, btf__add_array(b, t.uint, t.chr, FK_MODULE_NAME_LEN));
	fkb_composite(b, &err, false, "module", FK_MOD_SIZE,
		      FK_FIELDS({ "state", state, FK_MOD_STATE },
				{ "list", t.lh, FK_MOD_LIST },
				{ "name", name, FK_MOD_NAME },
				{ "srcversion", charp, FK_MOD_SRCVERSION },
				{ "syms", ksp, FK_MOD_SYMS },
				{ "num_syms", t.uint, FK_MOD_NUM_SYMS },
				{ "num_gpl_syms", t.uint, FK_MOD_NUM_GPL_SYMS },
				{ "gpl_syms", ksp, FK_MOD_GPL_SYMS },
				{ "kallsyms", fkb(&err, btf__add_ptr(b, mk)),
				  FK_MOD_KALLSYMS },
				{ "sect_attrs", sasp, FK_MOD_SECT_ATTRS },
				{ "notes_attrs", fkb(&err, btf__add_ptr(b, nas)),
				  FK_MOD_NOTES_ATTRS }));
	fkb_uts(b, &err, t.chr, t.uint, t.voidp);
	return fkb_parse(b, err);
}

/* ---- kernel memory ---- */

enum { FK_LIVE, FK_COMING, FK_GOING, FK_UNFORMED };

struct fk {
	const struct fk_layout *ly;
	unsigned char *a; /* the arena, at FK_BASE */
	size_t len, cap;
	uint64_t tail; /* list_head of the last module, or the head */
	unsigned char uts[FK_UTS_SIZE];
	bool nomem;
};

/* len zeroed bytes of the arena; 0 (and fk->nomem) when full. */
static inline uint64_t fk_alloc(struct fk *fk, size_t len, size_t align)
{
	size_t off = (fk->len + align - 1) & ~(align - 1), cap = fk->cap;
	unsigned char *n;

	if (fk->nomem || off + len > FK_ARENA_MAX) {
		fk->nomem = true;
		return 0;
	}
	if (off + len > cap) {
		while (cap < off + len)
			cap = cap ? 2 * cap : 4096; /* whole pages: fk_view() */
		n = realloc(fk->a, cap);
		if (!n) {
			fk->nomem = true;
			return 0;
		}
		memset(n + fk->cap, 0, cap - fk->cap);
		fk->a = n;
		fk->cap = cap;
	}
	fk->len = off + len;
	return FK_BASE + off;
}

/* Writes into the arena; a write outside it (after fk->nomem) is dropped. */
static inline void fk_wbytes(struct fk *fk, uint64_t at, const void *p,
			     size_t n)
{
	if (at >= FK_BASE && at - FK_BASE <= fk->len &&
	    n <= fk->len - (at - FK_BASE))
		memcpy(fk->a + (at - FK_BASE), p, n);
}

/* Little-endian, n bytes of v. */
static inline void fk_wint(struct fk *fk, uint64_t at, uint64_t v, size_t n)
{
	unsigned char b[8];

	for (size_t i = 0; i < n; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	fk_wbytes(fk, at, b, n);
}

static inline void fk_w64(struct fk *fk, uint64_t at, uint64_t v)
{
	fk_wint(fk, at, v, 8);
}

static inline void fk_w32(struct fk *fk, uint64_t at, uint64_t v)
{
	fk_wint(fk, at, v, 4);
}

static inline uint64_t fk_r64(const struct fk *fk, uint64_t at)
{
	uint64_t v = 0;

	for (size_t i = 0; i < 8 && at - FK_BASE + i < fk->len; i++)
		v |= (uint64_t)fk->a[at - FK_BASE + i] << (8 * i);
	return v;
}

/* A NUL-terminated copy of s (kstrdup). */
static inline uint64_t fk_str(struct fk *fk, const char *s)
{
	uint64_t at = fk_alloc(fk, strlen(s) + 1, 1);

	fk_wbytes(fk, at, s, strlen(s) + 1);
	return at;
}

static inline void fk_uts_init(unsigned char *uts)
{
	memset(uts, 0, FK_UTS_SIZE);
	memcpy(uts, "Linux", 5);
	memcpy(uts + FK_UTS_LEN, "fakehost", 8);
	memcpy(uts + FK_UTS_RELEASE, FK_RELEASE, strlen(FK_RELEASE));
	memcpy(uts + 3 * FK_UTS_LEN, "#1 SMP", 6);
	memcpy(uts + FK_UTS_MACHINE, FK_MACHINE, strlen(FK_MACHINE));
}

/* An empty module list: head.next = head.prev = &head, at FK_BASE. */
static inline void fk_init(struct fk *fk, const struct fk_layout *ly)
{
	memset(fk, 0, sizeof(*fk));
	fk->ly = ly;
	fk->tail = fk_alloc(fk, 16, 64);
	fk_w64(fk, fk->tail, fk->tail);
	fk_w64(fk, fk->tail + 8, fk->tail);
	fk_uts_init(fk->uts);
}

static inline void fk_free(struct fk *fk)
{
	free(fk->a);
	fk->a = NULL;
}

struct fk_sec {
	const char *name;
	uint64_t addr;
};

struct fk_sym {
	const char *name; /* "": st_name 0 */
	uint64_t value;
	char type; /* typetab: upper-case for a global, as elf_type() */
};

struct fk_export {
	const char *name;
	uint64_t value;
	bool gpl; /* in gpl_syms, not syms */
};

struct fk_modspec {
	const char *name; /* the first 56 bytes go into name[] */
	int state;
	const char *srcversion; /* NULL: none */
	const struct fk_sec *secs; /* none: sect_attrs NULL */
	size_t nsecs;
	const unsigned char *build_id; /* 20 bytes; NULL: notes_attrs NULL */
	const struct fk_sym *syms; /* after the null symbol */
	size_t nsyms;
	const struct fk_export *exports;
	size_t nexports;
};

/* Where a module's parts are, for the tests that break them. */
struct fk_modaddr {
	uint64_t mod, sas, bin_attrs, nas, mk, symtab;
};

/* section attribute i of sect_attrs at sas */
static inline uint64_t fk_sattr(const struct fk *fk, uint64_t sas, size_t i)
{
	return sas + fk->ly->sas_attrs + i * fk->ly->sa_size;
}

/* kernel/module/sysfs.c: add_sect_attrs() */
static inline void fk_sections(struct fk *fk, const struct fk_modspec *s,
			       struct fk_modaddr *ma)
{
	const struct fk_layout *ly = fk->ly;
	uint64_t sas = fk_alloc(fk, ly->sas_size + s->nsecs * ly->sa_size, 8);
	uint64_t ptrs = fk_alloc(fk, (s->nsecs + 1) * 8, 8);

	fk_w64(fk, sas, fk_str(fk, "sections"));
	fk_w64(fk, sas + ly->grp_bin_attrs, ptrs);
	if (!ly->v614)
		fk_w32(fk, sas + FK_SAS_NSECTIONS, s->nsecs);
	for (size_t i = 0; i < s->nsecs; i++) {
		uint64_t a = fk_sattr(fk, sas, i);

		fk_w64(fk, a + FK_BA_NAME, fk_str(fk, s->secs[i].name));
		fk_wint(fk, a + FK_BA_MODE, 0400, 2);
		fk_w64(fk, a + FK_BA_LEN, 3 * 8);
		fk_w64(fk, a + ly->sa_address, s->secs[i].addr);
		fk_w64(fk, ptrs + 8 * i, a);
	}
	fk_w64(fk, ma->mod + FK_MOD_SECT_ATTRS, sas);
	ma->sas = sas;
	ma->bin_attrs = ptrs;
}

/* An ELF note in the arena; its size in *len. */
static inline uint64_t fk_note(struct fk *fk, const char *name, uint32_t type,
			       const void *desc, size_t dlen, size_t *len)
{
	size_t nlen = strlen(name) + 1, noff = sizeof(Elf64_Nhdr);
	size_t doff = noff + ((nlen + 3) & ~(size_t)3);
	uint64_t at;

	*len = doff + ((dlen + 3) & ~(size_t)3);
	at = fk_alloc(fk, *len, 4);
	fk_w32(fk, at, nlen);
	fk_w32(fk, at + 4, dlen);
	fk_w32(fk, at + 8, type);
	fk_wbytes(fk, at + noff, name, nlen);
	fk_wbytes(fk, at + doff, desc, dlen);
	return at;
}

/* add_notes_attrs(): .note.Linux, then .note.gnu.build-id */
static inline void fk_notes(struct fk *fk, const struct fk_modspec *s,
			    struct fk_modaddr *ma)
{
	size_t bs = fk->ly->ba_size, len[2];
	uint64_t nas = fk_alloc(fk, FK_NAS_SIZE + 2 * bs, 8), note[2];
	const char *name[2] = { ".note.Linux", ".note.gnu.build-id" };

	note[0] = fk_note(fk, "Linux", 0x100, "fake", 5, &len[0]);
	note[1] = fk_note(fk, "GNU", NT_GNU_BUILD_ID, s->build_id, 20, &len[1]);
	fk_w32(fk, nas + FK_NAS_NOTES, 2);
	for (size_t i = 0; i < 2; i++) {
		uint64_t a = nas + FK_NAS_ATTRS + i * bs;

		fk_w64(fk, a + FK_BA_NAME, fk_str(fk, name[i]));
		fk_wint(fk, a + FK_BA_MODE, 0444, 2);
		fk_w64(fk, a + FK_BA_LEN, len[i]);
		fk_w64(fk, a + FK_BA_PRIVATE, note[i]);
	}
	fk_w64(fk, ma->mod + FK_MOD_NOTES_ATTRS, nas);
	ma->nas = nas;
}

/* mod->kallsyms: Elf64_Sym[], strtab and typetab, the null symbol first */
static inline void fk_kallsyms(struct fk *fk, const struct fk_modspec *s,
			       struct fk_modaddr *ma)
{
	size_t n = s->nsyms + 1, slen = 1;
	uint64_t symtab, strtab, typetab, mk;

	for (size_t i = 0; i < s->nsyms; i++)
		slen += strlen(s->syms[i].name) + 1;
	symtab = fk_alloc(fk, n * sizeof(Elf64_Sym), 8);
	strtab = fk_alloc(fk, slen, 1);
	typetab = fk_alloc(fk, n, 1);
	mk = fk_alloc(fk, FK_MK_SIZE, 8);
	fk_wbytes(fk, typetab, "U", 1);
	slen = 1;
	for (size_t i = 0; i < s->nsyms; i++) {
		const struct fk_sym *y = &s->syms[i];
		uint64_t e = symtab + (i + 1) * sizeof(Elf64_Sym);
		size_t l = strlen(y->name);

		fk_w32(fk, e + offsetof(Elf64_Sym, st_name), l ? slen : 0);
		fk_wint(fk, e + offsetof(Elf64_Sym, st_info),
			ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), 1);
		fk_wint(fk, e + offsetof(Elf64_Sym, st_shndx), 1, 2);
		fk_w64(fk, e + offsetof(Elf64_Sym, st_value), y->value);
		fk_wbytes(fk, strtab + slen, y->name, l + 1);
		slen += l ? l + 1 : 0;
		fk_wbytes(fk, typetab + i + 1, &y->type, 1);
	}
	fk_w64(fk, mk + FK_MK_SYMTAB, symtab);
	fk_w32(fk, mk + FK_MK_NUM_SYMTAB, n);
	fk_w64(fk, mk + FK_MK_STRTAB, strtab);
	fk_w64(fk, mk + FK_MK_TYPETAB, typetab);
	fk_w64(fk, ma->mod + FK_MOD_KALLSYMS, mk);
	ma->mk = mk;
	ma->symtab = symtab;
}

/* __ksymtab or __ksymtab_gpl: PREL32 entries, offsets from each field */
static inline void fk_ksymtab(struct fk *fk, const struct fk_modspec *s,
			      uint64_t mod, bool gpl)
{
	size_t n = 0, j = 0;
	uint64_t tab;

	for (size_t i = 0; i < s->nexports; i++)
		n += s->exports[i].gpl == gpl;
	if (!n)
		return;
	tab = fk_alloc(fk, n * FK_KS_SIZE, 4);
	for (size_t i = 0; i < s->nexports; i++) {
		uint64_t e = tab + j * FK_KS_SIZE;

		if (s->exports[i].gpl != gpl)
			continue;
		fk_w32(fk, e, s->exports[i].value - e);
		fk_w32(fk, e + 4, fk_str(fk, s->exports[i].name) - (e + 4));
		j++;
	}
	fk_w64(fk, mod + (gpl ? FK_MOD_GPL_SYMS : FK_MOD_SYMS), tab);
	fk_w32(fk, mod + (gpl ? FK_MOD_NUM_GPL_SYMS : FK_MOD_NUM_SYMS), n);
}

/* A struct module as load_module() leaves it, at the end of the list. */
static inline void fk_add_module(struct fk *fk, const struct fk_modspec *s,
				 struct fk_modaddr *ret)
{
	struct fk_modaddr ma = { fk_alloc(fk, FK_MOD_SIZE, 64) };
	size_t nlen = strlen(s->name);

	fk_w32(fk, ma.mod + FK_MOD_STATE, (uint64_t)s->state);
	fk_wbytes(fk, ma.mod + FK_MOD_NAME, s->name,
		  nlen < FK_MODULE_NAME_LEN ? nlen : FK_MODULE_NAME_LEN);
	if (s->srcversion)
		fk_w64(fk, ma.mod + FK_MOD_SRCVERSION, fk_str(fk, s->srcversion));
	if (s->nsecs)
		fk_sections(fk, s, &ma);
	if (s->build_id)
		fk_notes(fk, s, &ma);
	fk_kallsyms(fk, s, &ma);
	fk_ksymtab(fk, s, ma.mod, false);
	fk_ksymtab(fk, s, ma.mod, true);
	/* list_add_tail(&mod->list, &modules) */
	fk_w64(fk, ma.mod + FK_MOD_LIST, FK_BASE);
	fk_w64(fk, ma.mod + FK_MOD_LIST + 8, fk->tail);
	fk_w64(fk, fk->tail, ma.mod + FK_MOD_LIST);
	fk_w64(fk, FK_BASE + 8, ma.mod + FK_MOD_LIST);
	fk->tail = ma.mod + FK_MOD_LIST;
	if (ret)
		*ret = ma;
}

/* ---- the memory source and struct kern ---- */

/*
 * What the fake kernel's memory is: the arena and init_uts_ns. Memory is
 * mapped by pages, and lib/mem.c reads strings in page-bounded pieces
 * that may go past their NUL: len must be a multiple of FK_PAGE.
 */
#define FK_PAGE 4096

struct fk_view {
	const unsigned char *arena;
	size_t len;
	const unsigned char *uts; /* FK_UTS_SIZE bytes */
};

/* The arena as mapped: up to the end of its last page (cap is pages). */
static inline struct fk_view fk_view(const struct fk *fk)
{
	size_t len = (fk->len + FK_PAGE - 1) & ~(size_t)(FK_PAGE - 1);

	return (struct fk_view){ fk->a, len, fk->uts };
}

static inline bool fk_in(uint64_t base, size_t size, uint64_t addr, size_t len)
{
	return addr >= base && addr - base <= size && len <= size - (addr - base);
}

static inline int fk_mem_read(struct ms_mem *m, uint64_t addr, void *buf,
			      size_t len, struct ms_err *err)
{
	const struct fk_view *v = m->priv;

	if (fk_in(FK_BASE, v->len, addr, len))
		memcpy(buf, v->arena + (addr - FK_BASE), len);
	else if (fk_in(FK_UTS, FK_UTS_SIZE, addr, len))
		memcpy(buf, v->uts + (addr - FK_UTS), len);
	else
		return ms_err_set(err, EFAULT, "not mapped");
	return 0;
}

static const struct ms_mem_ops fk_mem_ops = { .read = fk_mem_read };

/* v must outlive the source. */
static inline int fk_mem_open(const struct fk_view *v, struct ms_mem **ret,
			      struct ms_err *err)
{
	return ms_mem_new(&fk_mem_ops, (void *)v, FK_ORIGIN, ret, err);
}

/* A kern as kfind.c would set it up for x86-64 without KASLR. */
static inline void fk_kern_init(struct kern *k, struct ms_mem *mem,
				struct btf *btf)
{
	static char uts[] = "init_uts_ns", mods[] = "modules";
	static struct ms_ksym syms[] = { { uts, FK_UTS, 'D' },
					 { mods, FK_BASE, 'd' } };
	static const struct ms_ksymtab tab = { syms, 2, 0, 0 };

	*k = (struct kern){
		.mem = mem,
		.origin = mem->origin,
		.ksyms = &tab,
		.btf = btf,
		.ptr_size = 8,
		.elf_machine = EM_X86_64,
	};
}

/* What kern_fill_map() allocated in k (the BTF is the caller's). */
static inline void fk_kern_clear(struct kern *k)
{
	free(k->release);
	free(k->machine);
	free(k->build_id);
	k->release = k->machine = k->build_id = NULL;
}

/* ---- the test helpers' modes and seeds ---- */

/*
 * An arena's n bytes at p into path, a fuzzer's seed: the exit status,
 * 1 said on stderr as "PROG: ...".
 */
static inline int fk_dump(const void *p, size_t n, const char *path,
			  const char *prog)
{
	FILE *f = fopen(path, "wb");
	bool ok = f && fwrite(p, 1, n, f) == n;

	if (f && fclose(f))
		ok = false;
	if (!ok)
		fprintf(stderr, "%s: cannot write %s\n", prog, path);
	return !ok;
}


/*
 * The mode arg (NULL: none given) names, from a table of n modes of size
 * bytes each, each starting with its name (kmemwalk's, taskwalk's); or
 * NULL, *rc the exit status, after the names (list: --list) or the usage
 * line.
 */
static inline const void *fk_mode(const void *tab, size_t n, size_t size,
				  bool list, const char *arg, const char *usage,
				  int *rc)
{
	for (size_t i = 0; i < n; i++) {
		const void *e = (const char *)tab + i * size;
		const char *name = *(const char *const *)e;

		if (list)
			puts(name);
		else if (arg && !strcmp(name, arg))
			return e;
	}
	if (!list)
		fprintf(stderr, "usage: %s\n", usage);
	*rc = list ? 0 : 2;
	return NULL;
}

#endif
