// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kmemwalk: walks the module list of a fake kernel (fakekern.h) with
 * kern_fill_map(), for tests/t-kmem.sh.
 *
 *   kmemwalk [--core] [--module NAME] [--dwarf FILE] MODE
 *   kmemwalk --dump-seed FILE MODE     the arena's bytes, for fuzz_kmem
 *   kmemwalk --list
 *
 * Prints the map as a capture (format 1); an error goes to stderr as
 * "kmemwalk: MESSAGE" with exit 1; usage errors exit 2.
 */
#include <getopt.h>

#include "fakekern.h"

#define UNMAPPED 0xffffffffc7000000ull /* nothing is mapped here */

/* Addresses the module code would have; never read. */
#define NET 0xffffffffc0200000ull
#define DRV 0xffffffffc0300000ull
#define NON 0xffffffffc0400000ull

static const unsigned char net_id[20] = { 1,  2,  3,  4,  5,  6,  7,
					  8,  9,  10, 11, 12, 13, 14,
					  15, 16, 17, 18, 19, 20 };
static const unsigned char drv_id[20] = { 0xa0, 0xa1, 0xa2, 0xa3, 0xa4,
					  0xa5, 0xa6, 0xa7, 0xa8, 0xa9,
					  0xaa, 0xab, 0xac, 0xad, 0xae,
					  0xaf, 0xb0, 0xb1, 0xb2, 0xb3 };

static const struct fk_sec net_secs[] = {
	{ ".note.gnu.build-id", NET + 0x2100 },
	{ ".text", NET },
	{ ".init.text", NET + 0x10000 },
	{ ".rodata", NET + 0x2000 },
	{ ".data", NET + 0x3000 },
	{ ".gnu.linkonce.this_module", NET + 0x3100 },
	{ ".bss", NET + 0x3400 },
	{ ".symtab", NET + 0x20000 },
	{ ".strtab", NET + 0x21000 },
};

/*
 * While coming, kallsyms is the whole symbol table, .init symbols too.
 * The alias shares fake_net_xmit's value but is not the exported name;
 * fake_net_stats is exported with another value: neither is upper-case.
 */
static const struct fk_sym net_syms[] = {
	{ "fake_net_xmit", NET + 0x10, 'T' },
	{ "fake_net_xmit_alias", NET + 0x10, 'T' },
	{ "fake_net_rx", NET + 0x100, 't' },
	{ "", NET + 0x180, 't' },
	{ "fake_net_init", NET + 0x10000, 't' },
	{ "fake_net_stats", NET + 0x3010, 'D' },
	{ "fake_net_count", NET + 0x3400, 'b' },
};

static const struct fk_export net_exports[] = {
	{ "fake_net_stats", NET + 0x3020 },
	{ "fake_net_xmit", NET + 0x10 },
};

static const struct fk_sec drv_secs[] = {
	{ ".text", DRV },
	{ ".exit.text", DRV + 0x1000 },
	{ ".data", DRV + 0x2000 },
	{ ".init.text", DRV + 0x8000 },
};

/* is_exported() looks in mod->syms only: GPL-only exports are lower-case */
static const struct fk_sym drv_syms[] = {
	{ "fakedrv_probe", DRV + 0x20, 'T' },
	{ "fakedrv_helper", DRV + 0x40, 't' },
	{ "fakedrv_table", DRV + 0x2000, 'd' },
};

static const struct fk_export drv_exports[] = {
	{ "fakedrv_probe", DRV + 0x20, true },
	{ "fakedrv_table", DRV + 0x2000 },
};

static const struct fk_sec non_secs[] = {
	{ ".text", NON },
	{ ".bss", NON + 0x1000 },
};

static const struct fk_sym non_syms[] = {
	{ "fake_nonotes_go", NON + 0x8, 'T' },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct fk_modspec good_mods[3] = {
	{ "fake_net", FK_COMING, "0123456789ABCDEF0123456", net_secs,
	  N(net_secs), net_id, net_syms, N(net_syms), net_exports,
	  N(net_exports) },
	{ "fakedrv", FK_LIVE, "FEDCBA9876543210FEDCBA9", drv_secs, N(drv_secs),
	  drv_id, drv_syms, N(drv_syms), drv_exports, N(drv_exports) },
	{ "fake_nonotes", FK_GOING, NULL, non_secs, N(non_secs), NULL, non_syms,
	  N(non_syms), NULL, 0 },
};

/* The three modules above; ma (may be NULL) gets where they are. */
static void good(struct fk *fk, struct fk_modaddr *ma)
{
	for (size_t i = 0; i < 3; i++)
		fk_add_module(fk, &good_mods[i], ma ? &ma[i] : NULL);
}

static void m_good(struct fk *fk)
{
	good(fk, NULL);
}

static void m_empty(struct fk *fk)
{
	(void)fk;
}

/* Not in sysfs or kallsyms yet, and half set up: never read. */
static void m_unformed(struct fk *fk)
{
	static const struct fk_modspec s = { "fake_unformed", FK_UNFORMED,
					     NULL, net_secs, 1 };
	struct fk_modaddr ma;

	good(fk, NULL);
	fk_add_module(fk, &s, &ma);
	fk_w64(fk, ma.mod + FK_MOD_SECT_ATTRS, UNMAPPED);
	fk_w64(fk, ma.mod + FK_MOD_KALLSYMS, UNMAPPED);
	memset(fk->a + (ma.mod + FK_MOD_NAME - FK_BASE), ' ',
	       FK_MODULE_NAME_LEN);
}

/* mod_sysfs_setup() failed to add sections/: sysfs does not list it */
static void m_nosects(struct fk *fk)
{
	static const struct fk_modspec s = { "fake_nosects", FK_LIVE, "X" };

	good(fk, NULL);
	fk_add_module(fk, &s, NULL);
}

static void m_cycle(struct fk *fk)
{
	struct fk_modaddr ma[3];

	good(fk, ma);
	fk_w64(fk, ma[2].mod + FK_MOD_LIST, ma[1].mod + FK_MOD_LIST);
}

static void m_list_unmapped(struct fk *fk)
{
	struct fk_modaddr ma[3];

	good(fk, ma);
	fk_w64(fk, ma[1].mod + FK_MOD_LIST, UNMAPPED);
}

static void m_list_null(struct fk *fk)
{
	struct fk_modaddr ma[3];

	good(fk, ma);
	fk_w64(fk, ma[1].mod + FK_MOD_LIST, 0);
}

static void m_nsections(struct fk *fk)
{
	struct fk_modaddr ma[3];

	good(fk, ma);
	fk_w32(fk, ma[0].sas + FK_SAS_NSECTIONS, 1000000);
}

static void m_sas_unmapped(struct fk *fk)
{
	struct fk_modaddr ma[3];

	good(fk, ma);
	fk_w64(fk, ma[0].mod + FK_MOD_SECT_ATTRS, UNMAPPED);
}

static void m_num_symtab(struct fk *fk)
{
	struct fk_modaddr ma[3];

	good(fk, ma);
	fk_w32(fk, ma[0].mk + FK_MK_NUM_SYMTAB, 0xfffffff0);
}

static void m_kallsyms_unmapped(struct fk *fk)
{
	struct fk_modaddr ma[3];

	good(fk, ma);
	fk_w64(fk, ma[1].mod + FK_MOD_KALLSYMS, UNMAPPED);
}

/* 2048 bytes of 'A' and no NUL */
static void m_secname_unterminated(struct fk *fk)
{
	struct fk_modaddr ma[3];
	uint64_t s;

	good(fk, ma);
	s = fk_alloc(fk, 2048, 1);
	if (s)
		memset(fk->a + (s - FK_BASE), 'A', 2048);
	fk_w64(fk, fk_sattr(fk, ma[0].sas, 0) + FK_BA_NAME, s);
}

static void m_secname_unmapped(struct fk *fk)
{
	struct fk_modaddr ma[3];

	good(fk, ma);
	fk_w64(fk, fk_sattr(fk, ma[0].sas, 1) + FK_BA_NAME, UNMAPPED);
}

static void m_modname_space(struct fk *fk)
{
	struct fk_modaddr ma[3];

	good(fk, ma);
	fk_wbytes(fk, ma[1].mod + FK_MOD_NAME, "fake drv", 8);
}

static void m_modname_unterminated(struct fk *fk)
{
	struct fk_modaddr ma[3];

	good(fk, ma);
	memset(fk->a + (ma[1].mod + FK_MOD_NAME - FK_BASE), 'x',
	       FK_MODULE_NAME_LEN);
}

/* the build-id note's bin_attribute says 100000 bytes */
static void m_note_size(struct fk *fk)
{
	struct fk_modaddr ma[3];

	good(fk, ma);
	fk_w64(fk, ma[0].nas + FK_NAS_ATTRS + fk->ly->ba_size + FK_BA_LEN,
	       100000);
}

static void m_notes_count(struct fk *fk)
{
	struct fk_modaddr ma[3];

	good(fk, ma);
	fk_w32(fk, ma[0].nas + FK_NAS_NOTES, 1000);
}

/* st_name of fake_net_xmit 8 MiB into the string table, past the arena */
static void m_strtab_past(struct fk *fk)
{
	struct fk_modaddr ma[3];

	good(fk, ma);
	fk_w32(fk, ma[0].symtab + sizeof(Elf64_Sym), 8u << 20);
}

static void m_strtab_huge(struct fk *fk)
{
	struct fk_modaddr ma[3];

	good(fk, ma);
	fk_w32(fk, ma[0].symtab + sizeof(Elf64_Sym), 0xfffffff0);
}

/* a name sysfs would take, and the capture reader refuses */
static void m_modname_dotdot(struct fk *fk)
{
	struct fk_modaddr ma[3];

	good(fk, ma);
	fk_wbytes(fk, ma[1].mod + FK_MOD_NAME, "..", 3);
}

static void m_dup_module(struct fk *fk)
{
	good(fk, NULL);
	fk_add_module(fk, &good_mods[0], NULL);
}

static void m_dup_section(struct fk *fk)
{
	struct fk_modaddr ma[3];

	good(fk, ma);
	fk_w64(fk, fk_sattr(fk, ma[0].sas, 1) + FK_BA_NAME,
	       fk_r64(fk, fk_sattr(fk, ma[0].sas, 0) + FK_BA_NAME));
}

/* a newline would end the srcversion line of a capture */
static void m_srcversion_newline(struct fk *fk)
{
	struct fk_modaddr ma[3];

	good(fk, ma);
	fk_w64(fk, ma[0].mod + FK_MOD_SRCVERSION,
	       fk_str(fk, "X\nmodule evil live"));
}

/* typetab holds a byte that is no symbol type */
static void m_ksym_type(struct fk *fk)
{
	struct fk_modaddr ma[3];

	good(fk, ma);
	fk_wbytes(fk, fk_r64(fk, ma[0].mk + FK_MK_TYPETAB) + 1, "\n", 1);
}

/*
 * n list entries m00000...: every tenth formed, with good_mods[2]'s
 * sections, the others UNFORMED (read, counted, skipped). All formed,
 * the map's realloc() by one module would make this quadratic.
 */
static void many(struct fk *fk, size_t n)
{
	struct fk_modaddr first;
	char name[16];

	for (size_t i = 0; i < n && !fk->nomem; i++) {
		struct fk_modspec s = { name, i % 10 ? FK_UNFORMED : FK_LIVE };

		if (i == 0) {
			s.secs = non_secs;
			s.nsecs = N(non_secs);
		}
		snprintf(name, sizeof(name), "m%05zu", i);
		fk_add_module(fk, &s, i ? NULL : &first);
		fk_w64(fk, fk->tail - FK_MOD_LIST + FK_MOD_SECT_ATTRS,
		       first.sas);
	}
}

static void m_many(struct fk *fk)
{
	many(fk, KMEM_MAX_MODULES);
}

static void m_bound(struct fk *fk)
{
	many(fk, KMEM_MAX_MODULES + 1);
}

/*
 * 1000 symbols and as many exports as the walk takes (KMEM_MAX_SYMTAB),
 * all at one value and no name in common: finding out that none is
 * exported must not take 1000 * 2^20 reads.
 */
static void m_export_dups(struct fk *fk)
{
	enum { nsym = 1000, nexp = KMEM_MAX_SYMTAB };
	struct fk_sym *sy = calloc(nsym, sizeof(*sy));
	struct fk_export *ex = calloc(nexp, sizeof(*ex));
	struct fk_modspec s = { "fake_dups", FK_LIVE, NULL, non_secs,
				N(non_secs), NULL, sy, nsym, ex, nexp };

	if (!sy || !ex) {
		fk->nomem = true;
	} else {
		for (size_t i = 0; i < nsym; i++)
			sy[i] = (struct fk_sym){ "sym", NON, 't' };
		for (size_t i = 0; i < nexp; i++)
			ex[i] = (struct fk_export){ "exp", NON };
		fk_add_module(fk, &s, NULL);
	}
	free(sy);
	free(ex);
}

/* 6.14: grp.bin_attrs is never NULL-terminated */
static void m_614_count(struct fk *fk)
{
	struct fk_modaddr ma[3];
	uint64_t p;

	good(fk, ma);
	p = fk_alloc(fk, 8 * (KMEM_MAX_SECTIONS + 100), 8);
	for (size_t i = 0; p && i < KMEM_MAX_SECTIONS + 100; i++)
		fk_w64(fk, p + 8 * i, fk_sattr(fk, ma[0].sas, 0));
	fk_w64(fk, ma[0].sas + fk->ly->grp_bin_attrs, p);
}

static void m_614_unmapped(struct fk *fk)
{
	struct fk_modaddr ma[3];

	good(fk, ma);
	fk_w64(fk, ma[0].sas + fk->ly->grp_bin_attrs, UNMAPPED);
}

static const struct mode {
	const char *name;
	const struct fk_layout *ly;
	void (*build)(struct fk *fk);
} modes[] = {
	{ "good", &fk_layout_61, m_good },
	{ "layout614", &fk_layout_614, m_good },
	{ "empty", &fk_layout_61, m_empty },
	{ "unformed", &fk_layout_61, m_unformed },
	{ "nosects", &fk_layout_61, m_nosects },
	{ "many", &fk_layout_61, m_many },
	{ "cycle", &fk_layout_61, m_cycle },
	{ "list-unmapped", &fk_layout_61, m_list_unmapped },
	{ "list-null", &fk_layout_61, m_list_null },
	{ "bound", &fk_layout_61, m_bound },
	{ "nsections", &fk_layout_61, m_nsections },
	{ "sas-unmapped", &fk_layout_61, m_sas_unmapped },
	{ "num-symtab", &fk_layout_61, m_num_symtab },
	{ "kallsyms-unmapped", &fk_layout_61, m_kallsyms_unmapped },
	{ "secname-unterminated", &fk_layout_61, m_secname_unterminated },
	{ "secname-unmapped", &fk_layout_61, m_secname_unmapped },
	{ "modname-space", &fk_layout_61, m_modname_space },
	{ "modname-unterminated", &fk_layout_61, m_modname_unterminated },
	{ "note-size", &fk_layout_61, m_note_size },
	{ "notes-count", &fk_layout_61, m_notes_count },
	{ "strtab-past", &fk_layout_61, m_strtab_past },
	{ "strtab-huge", &fk_layout_61, m_strtab_huge },
	{ "export-dups", &fk_layout_61, m_export_dups },
	{ "modname-dotdot", &fk_layout_61, m_modname_dotdot },
	{ "dup-module", &fk_layout_61, m_dup_module },
	{ "dup-section", &fk_layout_61, m_dup_section },
	{ "srcversion-newline", &fk_layout_61, m_srcversion_newline },
	{ "ksym-type", &fk_layout_61, m_ksym_type },
	{ "layout614-count", &fk_layout_614, m_614_count },
	{ "layout614-unmapped", &fk_layout_614, m_614_unmapped },
};

static int dump(const struct fk *fk, const char *path)
{
	struct fk_view v = fk_view(fk);

	return fk_dump(v.arena, v.len, path, "kmemwalk");
}

static void note(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "kmemwalk: note: %s\n", msg);
}

/*
 * dwarf: the layouts from that file's DWARF (kdwarf.c) and not from BTF,
 * the release the banner's (FK_RELEASE, or 6.14's with its layout).
 */
static int walk(const struct fk *fk, const char *only, uint64_t only_at,
		unsigned int flags, const char *dwarf)
{
	struct fk_view v = fk_view(fk);
	struct btf *btf = dwarf ? btf__new_empty() : fk_btf(fk->ly);
	struct ms_map *map = calloc(1, sizeof(*map));
	struct ms_err err = { 0 };
	struct ms_mem *mem = NULL;
	struct kern k;
	int r;

	if (!btf || !map) {
		fprintf(stderr, "kmemwalk: cannot make the fake BTF: %s\n",
			strerror(errno));
		btf__free(btf);
		free(map);
		return 1;
	}
	r = fk_mem_open(&v, &mem, &err);
	if (!r) {
		fk_kern_init(&k, mem, dwarf ? NULL : btf);
		k.only_at = only_at;
		k.layout_path = dwarf;
		k.note = note;
		if (dwarf &&
		    !(k.banner_release = strdup(fk->ly->v614 ? "6.14.0-fake" :
							       FK_RELEASE)))
			r = -ENOMEM;
		else
			r = kern_fill_map(&k, only, flags, map, &err);
		fk_kern_clear(&k);
		free(k.banner_release);
		free(k.why_no_btf);
		free(k.own_origin);
		kdwarf_free(k.dw);
	}
	if (!r)
		r = ms_capture_write(stdout, map, &err);
	if (r)
		fprintf(stderr, "kmemwalk: %s\n",
			err.msg[0] ? err.msg : strerror(-r));
	ms_map_free(map);
	ms_mem_free(mem);
	btf__free(btf);
	return r ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "core", no_argument, 0, 'c' },
		{ "module", required_argument, 0, 'm' },
		{ "dump-seed", required_argument, 0, 'd' },
		{ "list", no_argument, 0, 'l' },
		{ "module-at", required_argument, 0, 'a' },
		{ "module-nth", required_argument, 0, 'n' },
		{ "dwarf", required_argument, 0, 'w' },
		{ 0 },
	};
	const char *only = NULL, *seed = NULL, *dwarf = NULL;
	const struct mode *mode = NULL;
	bool list = false;
	unsigned int flags = 0;
	uint64_t only_at = 0;
	long nth = -1;
	struct fk fk;
	int c, rc;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'c': flags |= MS_READ_CORE; break;
		case 'm': only = optarg; break;
		case 'd': seed = optarg; break;
		case 'a': only_at = strtoull(optarg, NULL, 16); break;
		case 'n': nth = strtol(optarg, NULL, 10); break;
		case 'l': list = true; break;
		case 'w': dwarf = optarg; break;
		default: return 2;
		}
	}
	mode = fk_mode(modes, N(modes), sizeof(*modes), list,
		       optind + 1 == argc ? argv[optind] : NULL,
		       "kmemwalk [--core] [--module NAME] [--module-at ADDR|--module-nth N] [--dwarf FILE] [--dump-seed FILE] MODE (--list for the modes)",
		       &rc);
	if (!mode)
		return rc;
	fk_init(&fk, mode->ly);
	mode->build(&fk);
	if (fk.nomem) {
		fprintf(stderr, "kmemwalk: the fake kernel does not fit in memory\n");
		rc = 1;
	} else {
		/* --module-nth N: the Nth struct module on the list (from 0) */
		for (uint64_t node = fk_r64(&fk, FK_BASE); nth >= 0 && node != FK_BASE;
		     node = fk_r64(&fk, node), nth--)
			if (!nth)
				only_at = node - FK_MOD_LIST;
		rc = seed ? dump(&fk, seed) :
			    walk(&fk, only, only_at, flags, dwarf);
	}
	fk_free(&fk);
	return rc;
}
