// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An ELF file of the core kernel's symbols at their runtime addresses,
 * from kallsyms, for debuggers that have no vmlinux: KASLR moves the
 * kernel every boot, so System.map is wrong, but kallsyms is right.
 *
 * Symbols are grouped into sections by address: a run of text symbols is
 * an SHF_EXECINSTR section, a run of data symbols a writable one, so that
 * gdb calls functions functions and objects objects. Sections are NOBITS:
 * the bytes are the target's, read through the debugger. A symbol's size
 * is the distance to the next symbol, as the kernel counts it.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"

/* A gap larger than this between symbols starts a new section. */
#define MAX_GAP (UINT64_C(16) << 20)

enum kind { K_TEXT, K_RODATA, K_DATA, K_BSS, K_ABS };

static enum kind kind_of(char t)
{
	if (ms_ksym_is_text(t))
		return K_TEXT;
	switch (t) {
	case 'r':
	case 'R':
		return K_RODATA;
	case 'b':
	case 'B':
		return K_BSS;
	case 'a':
	case 'A':
		return K_ABS;
	default:
		return K_DATA; /* d, D, v, V (weak objects), ... */
	}
}

struct ksec {
	enum kind kind;
	uint64_t lo, hi;
	size_t first, n; /* symbols, in the map's sorted order */
	uint32_t name; /* offset in .shstrtab */
};

/* Runs of one kind without large gaps; absolute symbols stay apart. */
static int group(const struct ms_map *map, struct ksec **ret, size_t *n_ret)
{
	struct ksec *secs = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < map->ncore; i++) {
		const struct ms_ksym *k = &map->core[i];
		enum kind kd = kind_of(k->type);
		struct ksec *last = n ? &secs[n - 1] : NULL;

		if (kd == K_ABS)
			continue;
		if (last && last->kind == kd && k->addr - last->hi <= MAX_GAP &&
		    last->first + last->n == i) {
			last->hi = k->addr;
			last->n++;
			continue;
		}
		if (n == cap) {
			struct ksec *ns;

			cap = cap ? 2 * cap : 64;
			ns = realloc(secs, cap * sizeof(*ns));
			if (!ns) {
				free(secs);
				return -ENOMEM;
			}
			secs = ns;
		}
		secs[n] = (struct ksec){ .kind = kd,
					 .lo = k->addr,
					 .hi = k->addr,
					 .first = i,
					 .n = 1 };
		n++;
	}
	*ret = secs;
	*n_ret = n;
	return 0;
}

struct out {
	Elf *elf;
	int cls;
	struct ksec *secs;
	size_t nsecs;
	struct ms_strtab shstr, str;
	void *syms; /* Elf32_Sym or Elf64_Sym */
	size_t nsyms;
	void *cfi; /* .debug_frame from the map's ORC tables, if any */
	size_t cfi_len;
	struct ms_dwarf types; /* .debug_info from the map's BTF, if any */
	struct ms_dbgsec dbg[5]; /* the debug sections, in their order */
	size_t ndbg;
};

static Elf_Scn *new_section(struct out *o, size_t name, GElf_Word type,
			    GElf_Xword flags, uint64_t addr, uint64_t size,
			    void *buf, size_t len, Elf_Type dtype)
{
	Elf_Scn *scn = elf_newscn(o->elf);
	GElf_Shdr sh;
	Elf_Data *d;

	if (!scn || !gelf_getshdr(scn, &sh))
		return NULL;
	sh.sh_name = (GElf_Word)name;
	sh.sh_type = type;
	sh.sh_flags = flags;
	sh.sh_addr = addr;
	sh.sh_size = size;
	sh.sh_addralign = 1;
	/* libelf sizes sections by their data, NOBITS ones too (no bytes). */
	d = elf_newdata(scn);
	if (!d)
		return NULL;
	d->d_buf = buf;
	d->d_size = buf ? len : size;
	d->d_type = dtype;
	d->d_align = dtype == ELF_T_SYM ? 8 : 1;
	return gelf_update_shdr(scn, &sh) ? scn : NULL;
}

static void put_sym(struct out *o, const GElf_Sym *g)
{
	if (o->cls == ELFCLASS64) {
		Elf64_Sym *e = (Elf64_Sym *)o->syms + o->nsyms;

		e->st_name = g->st_name;
		e->st_info = g->st_info;
		e->st_shndx = g->st_shndx;
		e->st_value = g->st_value;
		e->st_size = g->st_size;
	} else {
		Elf32_Sym *e = (Elf32_Sym *)o->syms + o->nsyms;

		e->st_name = g->st_name;
		e->st_info = g->st_info;
		e->st_shndx = g->st_shndx;
		e->st_value = (Elf32_Addr)g->st_value;
		e->st_size = (Elf32_Word)g->st_size;
	}
	o->nsyms++;
}

/* Every core symbol: in its section, or absolute (per-cpu offsets). */
static int add_symbols(struct out *o, const struct ms_map *map)
{
	size_t symsz = o->cls == ELFCLASS64 ? sizeof(Elf64_Sym) :
					      sizeof(Elf32_Sym);
	size_t s = 0;

	o->syms = calloc(map->ncore + 1, symsz);
	if (!o->syms)
		return -ENOMEM;
	o->nsyms = 1; /* the null symbol */
	for (size_t i = 0; i < map->ncore; i++) {
		const struct ms_ksym *k = &map->core[i];
		bool abs = kind_of(k->type) == K_ABS;
		GElf_Sym g = { .st_value = k->addr };

		if (ms_strtab_add(&o->str, k->name, &g.st_name))
			return -ENOMEM;
		while (!abs && s < o->nsecs &&
		       i >= o->secs[s].first + o->secs[s].n)
			s++;
		g.st_info = GELF_ST_INFO(
			k->type >= 'A' && k->type <= 'Z' ? STB_GLOBAL :
							   STB_LOCAL,
			abs			   ? STT_NOTYPE :
			kind_of(k->type) == K_TEXT ? STT_FUNC :
						     STT_OBJECT);
		g.st_shndx = abs ? SHN_ABS : (GElf_Section)(s + 1);
		g.st_size = abs ? 0 : ms_map_core_size(map, i);
		put_sym(o, &g);
	}
	return 0;
}

/*
 * ELF wants local symbols before global ones, and sh_info to name the
 * first global; a stable partition keeps each group in address order.
 */
static size_t locals_first(struct out *o)
{
	size_t symsz = o->cls == ELFCLASS64 ? sizeof(Elf64_Sym) :
					      sizeof(Elf32_Sym);
	char *tmp = malloc(o->nsyms * symsz), *src = o->syms;
	size_t at = 1, nlocal = 1;

	if (!tmp)
		return 0;
	memcpy(tmp, src, symsz);
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 1; i < o->nsyms; i++) {
			unsigned char info =
				o->cls == ELFCLASS64 ?
					((Elf64_Sym *)src)[i].st_info :
					((Elf32_Sym *)src)[i].st_info;

			if ((GELF_ST_BIND(info) == STB_LOCAL) == (pass == 0))
				memcpy(tmp + at++ * symsz, src + i * symsz,
				       symsz);
		}
		if (pass == 0)
			nlocal = at;
	}
	free(o->syms);
	o->syms = tmp;
	return nlocal;
}

/* The NOBITS sections the symbols are in, at their addresses. */
static bool add_symbol_sections(struct out *o, const struct ms_map *map)
{
	for (size_t i = 0; i < o->nsecs; i++) {
		const struct ksec *s = &o->secs[i];
		GElf_Xword fl = SHF_ALLOC;
		uint64_t end = s->hi + ms_map_core_size(map, s->first + s->n - 1);
		uint64_t size;

		/* Up to the next section at the most, and one byte at least. */
		if (i + 1 < o->nsecs && end > o->secs[i + 1].lo)
			end = o->secs[i + 1].lo;
		size = end > s->lo ? end - s->lo : 1;

		if (s->kind == K_TEXT)
			fl |= SHF_EXECINSTR;
		if (s->kind == K_DATA || s->kind == K_BSS)
			fl |= SHF_WRITE;
		/* The last symbol gets at least one byte. */
		if (!new_section(o, s->name, SHT_NOBITS, fl, s->lo,
				 size ? size : 1, NULL, 0, ELF_T_BYTE))
			return false;
	}
	return true;
}

static int write_elf(struct out *o, const struct ms_map *map, int em, int data,
		     struct ms_err *err)
{
	static const char *const names[] = { ".text", ".rodata", ".data",
					     ".bss" };
	size_t symsz = o->cls == ELFCLASS64 ? sizeof(Elf64_Sym) :
					      sizeof(Elf32_Sym);
	uint32_t strtab_name, symtab_name, shstrtab_name, dbg_name[5];
	size_t first_global;
	GElf_Ehdr eh;
	Elf_Scn *symscn, *strscn, *shscn;
	GElf_Shdr sh;

	if (!gelf_newehdr(o->elf, o->cls) || !gelf_getehdr(o->elf, &eh))
		return ms_err_set(err, EIO, "libelf: %s", elf_errmsg(-1));
	eh.e_ident[EI_DATA] = (unsigned char)data;
	eh.e_type = ET_EXEC;
	eh.e_machine = (GElf_Half)em;
	eh.e_version = EV_CURRENT;
	if (!gelf_update_ehdr(o->elf, &eh))
		return ms_err_set(err, EIO, "libelf: %s", elf_errmsg(-1));
	for (size_t i = 0; i < o->nsecs; i++) {
		char name[32];

		/* .text, .text.1, ... in address order */
		snprintf(name, sizeof(name), "%s", names[o->secs[i].kind]);
		for (size_t j = 0, k = 0; j < i; j++)
			if (o->secs[j].kind == o->secs[i].kind)
				snprintf(name, sizeof(name), "%s.%zu",
					 names[o->secs[i].kind], ++k);
		ms_strtab_add(&o->shstr, name, &o->secs[i].name);
	}
	/* A failed add fails every one after it: checked once, below. */
	for (size_t i = 0; i < o->ndbg; i++)
		ms_strtab_add(&o->shstr, o->dbg[i].name, &dbg_name[i]);
	ms_strtab_add(&o->shstr, ".symtab", &symtab_name);
	ms_strtab_add(&o->shstr, ".strtab", &strtab_name);
	ms_strtab_add(&o->shstr, ".shstrtab", &shstrtab_name);
	if (add_symbols(o, map) < 0 || o->shstr.b.oom ||
	    !(first_global = locals_first(o)))
		return ms_err_errno(err, ENOMEM, "kallsyms ELF");
	if (!add_symbol_sections(o, map))
		return ms_err_set(err, EIO, "libelf: %s", elf_errmsg(-1));
	for (size_t i = 0; i < o->ndbg; i++)
		if (!new_section(o, dbg_name[i], SHT_PROGBITS, 0, 0,
				 o->dbg[i].len, (void *)o->dbg[i].buf,
				 o->dbg[i].len, ELF_T_BYTE))
			return ms_err_set(err, EIO, "libelf: %s",
					  elf_errmsg(-1));
	symscn = new_section(o, symtab_name, SHT_SYMTAB, 0, 0, 0, o->syms,
			     o->nsyms * symsz, ELF_T_SYM);
	strscn = new_section(o, strtab_name, SHT_STRTAB, 0, 0, 0, o->str.b.buf,
			     o->str.b.len, ELF_T_BYTE);
	shscn = new_section(o, shstrtab_name, SHT_STRTAB, 0, 0, 0,
			    o->shstr.b.buf, o->shstr.b.len, ELF_T_BYTE);
	if (!symscn || !strscn || !shscn || !gelf_getshdr(symscn, &sh))
		return ms_err_set(err, EIO, "libelf: %s", elf_errmsg(-1));
	sh.sh_link = (GElf_Word)elf_ndxscn(strscn);
	sh.sh_info = (GElf_Word)first_global;
	sh.sh_entsize = symsz;
	sh.sh_addralign = 8;
	if (!gelf_update_shdr(symscn, &sh) || !gelf_getehdr(o->elf, &eh))
		return ms_err_set(err, EIO, "libelf: %s", elf_errmsg(-1));
	if (elf_ndxscn(shscn) >= SHN_LORESERVE)
		return ms_err_set(err, E2BIG,
				  "kallsyms ELF: too many sections");
	eh.e_shstrndx = (GElf_Half)elf_ndxscn(shscn);
	if (!gelf_update_ehdr(o->elf, &eh) ||
	    elf_update(o->elf, ELF_C_WRITE) < 0)
		return ms_err_set(err, EIO, "libelf: %s", elf_errmsg(-1));
	return 0;
}

/* The CFI of the map's ORC, an FDE per function (text symbol). */
static int make_cfi(struct out *o, const struct ms_map *map,
		    unsigned int flags, struct ms_err *err)
{
	uint64_t *fs = malloc((map->ncore + 1) * sizeof(*fs));
	size_t n = 0;
	int r;

	if (!fs)
		return ms_err_errno(err, ENOMEM, "unwind tables");
	for (size_t i = 0; i < map->ncore; i++)
		if (kind_of(map->core[i].type) == K_TEXT &&
		    (!n || fs[n - 1] != map->core[i].addr))
			fs[n++] = map->core[i].addr;
	r = ms_orc_to_debug_frame(map->core_orc, MS_CFI_USER_END | flags, fs, n,
				  &o->cfi, &o->cfi_len, NULL, err);
	free(fs);
	return r;
}

static void add_dbg(struct out *o)
{
	const struct ms_dwarf *t = &o->types;

	if (o->cfi)
		o->dbg[o->ndbg++] =
			(struct ms_dbgsec){ ".debug_frame", o->cfi, o->cfi_len };
	if (!t->info)
		return;
	o->dbg[o->ndbg++] =
		(struct ms_dbgsec){ ".debug_info", t->info, t->info_len };
	o->dbg[o->ndbg++] =
		(struct ms_dbgsec){ ".debug_abbrev", t->abbrev, t->abbrev_len };
	o->dbg[o->ndbg++] =
		(struct ms_dbgsec){ ".debug_str", t->str, t->str_len };
	if (t->ranges)
		o->dbg[o->ndbg++] = (struct ms_dbgsec){ ".debug_ranges",
							t->ranges,
							t->ranges_len };
}

int ms_kallsyms_elf(const struct ms_map *map, int fd, struct ms_err *err)
{
	return ms_kallsyms_elf_for(map, false, fd, err);
}

int ms_kallsyms_elf_for(const struct ms_map *map, bool lldb, int fd,
			struct ms_err *err)
{
	struct out o = { 0 };
	int em, data, r;

	if (!map->ncore)
		return ms_err_set(
			err, ENOENT,
			"%s has no core kernel symbols; capture with --kallsyms, or run live as root",
			map->origin);
	for (size_t i = 0, nz = 0; i < map->ncore; i++) {
		nz += map->core[i].addr != 0;
		if (i + 1 == map->ncore && nz == 0)
			return ms_err_set(
				err, EPERM,
				"%s: every kallsyms address is zero: the kernel hides them (kernel.kptr_restrict); run as root",
				map->origin);
	}
	if (ms_machine_elf(map->machine ? map->machine : "x86_64", &em, &o.cls,
			   &data) < 0)
		return ms_err_set(err, ENOTSUP,
				  "%s: machine %s is not supported",
				  map->origin, map->machine);
	r = group(map, &o.secs, &o.nsecs);
	if (r)
		return ms_err_errno(err, -r, "kallsyms ELF");
	/* The unwind tables ride along: gdb and lldb read them from here. */
	if (map->core_orc && em == EM_X86_64)
		r = make_cfi(&o, map, lldb ? MS_CFI_LLDB : 0, err);
	else if (map->core_a64 && em == EM_AARCH64)
		r = ms_a64_to_debug_frame(map->core_a64, lldb ? MS_CFI_LLDB : 0,
					  &o.cfi, &o.cfi_len, err);
	else if (map->core_x86 && em == EM_386)
		r = ms_x86_to_debug_frame(map->core_x86, lldb ? MS_CFI_LLDB : 0,
					  &o.cfi, &o.cfi_len, err);
	/* And the types, from BTF. */
	if (!r && map->core_btf)
		r = ms_map_types(map, o.cls == ELFCLASS64 ? 8 : 4,
				 data == ELFDATA2MSB, &o.types, err);
	if (r) {
		free(o.secs);
		free(o.cfi);
		return r;
	}
	add_dbg(&o);
	elf_version(EV_CURRENT);
	o.elf = elf_begin(fd, ELF_C_WRITE, NULL);
	r = o.elf ? write_elf(&o, map, em, data, err) :
		    ms_err_set(err, EIO, "libelf: %s", elf_errmsg(-1));
	elf_end(o.elf);
	free(o.secs);
	free(o.syms);
	ms_strtab_free(&o.str);
	ms_strtab_free(&o.shstr);
	free(o.cfi);
	ms_dwarf_free(&o.types);
	return r;
}

/*
 * The build-id note of any ELF file, as hex in *ret (NULL if none): the
 * notes as in the file, in its byte order (EI_DATA). 0 or -ENOMEM.
 */
static int elf_build_id(Elf *elf, char **ret)
{
	const char *id = elf_getident(elf, NULL);
	Elf_Scn *scn = NULL;
	int r = 0;

	*ret = NULL;
	while (!r && !*ret && id && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOTE &&
		    (d = elf_rawdata(scn, NULL)) && d->d_buf)
			r = ms_notes_build_id(d->d_buf, d->d_size,
					      id[EI_DATA] == ELFDATA2MSB, ret);
	}
	return r;
}

/* The value of a symbol in the file's .symtab. */
static bool elf_symbol(Elf *elf, const char *want, uint64_t *ret)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 1; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (gelf_getsym(d, (int)i, &sym) &&
			    (n = elf_strptr(elf, sh.sh_link, sym.st_name)) &&
			    !strcmp(n, want)) {
				*ret = sym.st_value;
				return true;
			}
		}
	}
	return false;
}

int ms_vmlinux_offset(const char *path, const struct ms_map *map, bool force,
		      int64_t *offset_ret, char **note_ret, struct ms_err *err)
{
	static const char *const anchors[] = { "_stext", "_text",
					       "startup_64" };
	char *bid = NULL, why[512] = "";
	uint64_t link = 0, run = 0;
	const char *anchor = NULL;
	GElf_Ehdr eh;
	Elf *elf;
	int fd, r = 0;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ms_err_errno(err, errno, "--vmlinux %s", path);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || !gelf_getehdr(elf, &eh) ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)) {
		r = ms_err_set(
			err, EINVAL,
			"--vmlinux %s: not a kernel image (an ELF executable)",
			path);
		goto out;
	}
	if (elf_build_id(elf, &bid)) {
		r = ms_err_errno(err, ENOMEM, "--vmlinux %s", path);
		goto out;
	}
	for (size_t i = 0; !anchor && i < 3; i++)
		if (elf_symbol(elf, anchors[i], &link) &&
		    ms_map_core_symbol(map, anchors[i], &run))
			anchor = anchors[i];
	if (!anchor) {
		r = ms_err_set(
			err, ENOENT,
			"--vmlinux %s: no _stext in both it and the kallsyms of %s, so the KASLR offset is unknown; capture with --kallsyms",
			path, map->origin);
		goto out;
	}
	if (map->kernel_build_id && bid && strcmp(map->kernel_build_id, bid))
		snprintf(
			why, sizeof(why),
			"build-id of the running kernel is %s but %s has %s: it is not the running kernel",
			map->kernel_build_id, path, bid);
	if (why[0] && !force) {
		r = ms_err_set(err, EBADMSG,
			       "%s; give the right vmlinux, or --force", why);
		goto out;
	}
	*offset_ret = (int64_t)(run - link);
	if (asprintf(note_ret, "%s%s", why[0] ? "NOT VERIFIED, forced: " : "",
		     why[0] ? why :
		     map->kernel_build_id && bid ?
			      "verified: build-id matches the running kernel" :
			      "unverified: no build-id to compare") < 0)
		r = ms_err_errno(err, ENOMEM, "vmlinux");
out:
	free(bid);
	elf_end(elf);
	close(fd);
	return r;
}
