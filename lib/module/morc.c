// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A module's ORC tables at the addresses its sections have in the map.
 * In the .ko file each .orc_unwind_ip slot is an R_X86_64_PC32
 * relocation against a text section; the kernel applies it at load
 * (apply_relocate_add) and reads ip = slot + value = S + A, so here
 * ip = the map's address of S's section + st_value + r_addend. Entries
 * in sections the kernel did not keep (a live module's .init.text) are
 * left out, and every entry ends with its section.
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "modfile-int.h"

/*
 * Where the entries go: the map's addresses (ms_layout_orc), or section
 * offsets tagged with the section's index (ms_modfile_orc_sections).
 */
struct place {
	const struct ms_layout *l; /* NULL: tagged offsets in file */
	const struct ms_modfile *file;
};

/* The map's address of the file's section at ELF index shndx. */
static bool section_addr(const struct place *p, size_t shndx, uint64_t *ret)
{
	const struct ms_modfile *f = p->file;
	const struct ms_layout *l = p->l;

	if (!l) {
		*ret = MS_ORC_SECTION(shndx, 0);
		return shndx && shndx < MS_ORC_SECTION_MAX;
	}
	for (size_t i = 0; i < f->nsecs; i++) {
		if (f->scn_index[i] != shndx)
			continue;
		for (size_t k = 0; k < l->nsecs; k++)
			if (l->secs[k].place == MS_PLACE_LOADED &&
			    !strcmp(l->secs[k].name, f->secs[i].name)) {
				*ret = l->secs[k].addr;
				return true;
			}
		return false;
	}
	return false;
}

struct orcsecs {
	Elf_Data *ip, *ent, *hdr, *rela, *sym;
	size_t ip_ndx;
};

static int find_sections(const struct ms_modfile *f, struct orcsecs *s)
{
	for (size_t i = 0; i < f->nsecs; i++) {
		Elf_Scn *scn = elf_getscn(f->elf, f->scn_index[i]);
		const char *n = f->secs[i].name;
		Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;

		if (!d)
			continue;
		if (!strcmp(n, ".orc_unwind_ip"))
			s->ip = d, s->ip_ndx = f->scn_index[i];
		else if (!strcmp(n, ".orc_unwind"))
			s->ent = d;
		else if (!strcmp(n, ".orc_header"))
			s->hdr = d;
		else if (f->secs[i].type == SHT_SYMTAB)
			s->sym = d;
	}
	for (size_t i = 0; s->ip && i < f->nsecs; i++) {
		Elf_Scn *scn = elf_getscn(f->elf, f->scn_index[i]);
		GElf_Shdr sh;

		if (f->secs[i].type == SHT_RELA && scn &&
		    gelf_getshdr(scn, &sh) && sh.sh_info == s->ip_ndx)
			s->rela = elf_getdata(scn, NULL);
	}
	return s->ip && s->ent && s->rela && s->sym ? 0 : -ENOENT;
}

/* ips[i] for each relocated slot; the rest stay ~0 (left out). */
static int resolve(const struct place *p, const struct orcsecs *s,
		   uint64_t *ips, size_t n, struct ms_err *err)
{
	size_t nrela = s->rela->d_size / sizeof(Elf64_Rela);
	size_t nsyms = s->sym->d_size / sizeof(Elf64_Sym);

	for (size_t i = 0; i < n; i++)
		ips[i] = UINT64_MAX;
	for (size_t k = 0; k < nrela; k++) {
		GElf_Rela r;
		GElf_Sym sym;
		uint64_t base;
		size_t sidx;

		if (!gelf_getrela(s->rela, (int)k, &r))
			break;
		sidx = GELF_R_SYM(r.r_info);
		if (GELF_R_TYPE(r.r_info) != R_X86_64_PC32 ||
		    r.r_offset % 4 || r.r_offset / 4 >= n || sidx >= nsyms ||
		    !gelf_getsym(s->sym, (int)sidx, &sym))
			return ms_err_kind(
				err, MS_E_INPUT, EBADMSG,
				"%s: relocation %zu of .orc_unwind_ip is not a PC32 one into the table",
				p->file->path, k);
		if (section_addr(p, sym.st_shndx, &base))
			ips[r.r_offset / 4] =
				base + sym.st_value + (uint64_t)r.r_addend;
	}
	return 0;
}

/* The executable sections where p puts them: [lo, hi) each. */
static size_t exec_ranges(const struct place *p, uint64_t *lo, uint64_t *hi)
{
	const struct ms_layout *l = p->l;
	const struct ms_modfile *f = p->file;
	size_t n = 0;

	if (!l) {
		for (size_t i = 0; i < f->nsecs; i++)
			if ((f->secs[i].flags & SHF_EXECINSTR) &&
			    (f->secs[i].flags & SHF_ALLOC) &&
			    section_addr(p, f->scn_index[i], &lo[n])) {
				hi[n] = lo[n] + f->secs[i].size;
				n++;
			}
		return n;
	}
	for (size_t k = 0; k < l->nsecs; k++)
		if (l->secs[k].place == MS_PLACE_LOADED &&
		    (l->secs[k].flags & SHF_EXECINSTR)) {
			lo[n] = l->secs[k].addr;
			hi[n++] = l->secs[k].addr + l->secs[k].size;
		}
	return n;
}

/* Each entry ends where its executable section does. */
static int clip(const struct place *p, struct ms_orc *o, struct ms_err *err)
{
	size_t max = (p->l ? p->l->nsecs : p->file->nsecs) + 1;
	uint64_t *lo = calloc(max, sizeof(*lo));
	uint64_t *hi = calloc(max, sizeof(*hi));

	if (!lo || !hi) {
		free(lo);
		free(hi);
		return ms_err_errno(err, ENOMEM, "ORC");
	}
	ms_orc_clip(o, lo, hi, exec_ranges(p, lo, hi));
	free(lo);
	free(hi);
	return 0;
}

static int place_orc(const struct place *p, const char *release,
		     struct ms_orc **ret, struct ms_err *err)
{
	const struct ms_modfile *f = p->file;
	struct orcsecs s = { 0 };
	uint64_t *ips;
	size_t n;
	int ver, r;
	GElf_Ehdr eh;

	if (!gelf_getehdr(f->elf, &eh) || eh.e_machine != EM_X86_64 ||
	    f->elfclass != ELFCLASS64)
		return ms_err_set(err, ENOENT,
				  "%s: no ORC tables: only x86-64 has them",
				  f->path);
	if (find_sections(f, &s))
		return ms_err_set(err, ENOENT,
				  "%s: no .orc_unwind sections (a kernel without CONFIG_UNWINDER_ORC)",
				  f->path);
	n = s.ip->d_size / 4;
	if (s.ip->d_size % 4 || s.ent->d_size != n * MS_ORC_ENTRY_SIZE)
		return ms_err_kind(
			err, MS_E_INPUT, EBADMSG,
			"%s: .orc_unwind_ip (%zu bytes) and .orc_unwind (%zu) do not agree",
			f->path, s.ip->d_size, s.ent->d_size);
	r = ms_orc_version(s.hdr ? s.hdr->d_buf : NULL,
			   s.hdr ? s.hdr->d_size : 0, release, f->path, &ver,
			   err);
	if (r)
		return r;
	if (n > MS_ORC_MAX_ENTRIES)
		return ms_err_kind(err, MS_E_INPUT, E2BIG,
				   "%s: %zu ORC entries", f->path, n);
	ips = malloc((n ? n : 1) * sizeof(*ips));
	if (!ips)
		return ms_err_errno(err, ENOMEM, "ORC");
	r = resolve(p, &s, ips, n, err);
	if (!r)
		r = ms_orc_from_ips(ips, s.ent->d_buf, n, ver, f->path, ret,
				    err);
	free(ips);
	if (!r && (r = clip(p, *ret, err))) {
		ms_orc_free(*ret);
		*ret = NULL;
	}
	return r;
}

int ms_layout_orc(const struct ms_layout *l, const char *release,
		  struct ms_orc **ret, struct ms_err *err)
{
	return place_orc(&(struct place){ l, l->file }, release, ret, err);
}

int ms_modfile_orc_sections(const struct ms_modfile *f, const char *release,
			    struct ms_orc **ret, struct ms_err *err)
{
	return place_orc(&(struct place){ NULL, f }, release, ret, err);
}
