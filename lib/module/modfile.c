// SPDX-License-Identifier: GPL-2.0-or-later
/* A module file: its sections, build-id and .modinfo, read with libelf. */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "modfile-int.h"

#define MAX_MODULE (1u << 30)


struct ms_modfile *ms_modfile_ref(struct ms_modfile *f)
{
	f->refs++;
	return f;
}

void ms_modfile_free(struct ms_modfile *f)
{
	if (!f || --f->refs > 0)
		return;
	elf_end(f->elf);
	free(f->path);
	free(f->debugger_path);
	free(f->lldb_path);
	if (f->mapped)
		munmap(f->image, f->size);
	else
		free(f->image);
	free(f->secs);
	free(f->scn_index);
	free(f->build_id);
	free(f->srcversion);
	free(f->modname);
	free(f);
}

static int elf_error(struct ms_err *err, const char *path, const char *what)
{
	return ms_err_set(err, EINVAL, "%s: %s: %s", path, what,
			  elf_errmsg(-1));
}

/*
 * The notes' bytes as in the file, in its byte order (EI_DATA): an
 * s390x or big-endian powerpc module's on any host.
 */
static int read_build_id(struct ms_modfile *f, Elf_Scn *scn)
{
	Elf_Data *d = elf_rawdata(scn, NULL);
	const char *id = elf_getident(f->elf, NULL);
	char *bid = NULL;
	int r;

	if (!d || !d->d_buf || !id)
		return 0;
	r = ms_notes_build_id(d->d_buf, d->d_size, id[EI_DATA] == ELFDATA2MSB,
			      &bid);
	if (bid) {
		free(f->build_id);
		f->build_id = bid;
	}
	return r;
}

/* .modinfo is a run of NUL-terminated "key=value" strings. */
static int read_modinfo(struct ms_modfile *f, Elf_Scn *scn)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	const char *p, *end;

	if (!d || !d->d_buf)
		return 0;
	p = d->d_buf;
	end = p + d->d_size;
	while (p < end) {
		const char *z = memchr(p, '\0', (size_t)(end - p));
		size_t len = z ? (size_t)(z - p) : (size_t)(end - p);
		char **slot = NULL;

		if (len > 10 && strncmp(p, "srcversion=", 11) == 0)
			slot = &f->srcversion, p += 11, len -= 11;
		else if (len > 5 && strncmp(p, "name=", 5) == 0)
			slot = &f->modname, p += 5, len -= 5;
		if (slot && !*slot && !(*slot = strndup(p, len)))
			return -ENOMEM;
		p += len + 1;
	}
	return 0;
}

static int read_sections(struct ms_modfile *f, struct ms_err *err)
{
	size_t shstrndx, n, i = 0;
	Elf_Scn *scn = NULL;
	int r;

	if (elf_getshdrstrndx(f->elf, &shstrndx) < 0 ||
	    elf_getshdrnum(f->elf, &n) < 0)
		return elf_error(err, f->path, "bad section headers");
	f->secs = calloc(n ? n : 1, sizeof(*f->secs));
	f->scn_index = calloc(n ? n : 1, sizeof(*f->scn_index));
	if (!f->secs || !f->scn_index)
		return ms_err_errno(err, ENOMEM, "%s", f->path);
	while ((scn = elf_nextscn(f->elf, scn)) && i < n) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			return elf_error(err, f->path, "bad section header");
		name = elf_strptr(f->elf, shstrndx, sh.sh_name);
		if (!name)
			return elf_error(err, f->path, "bad section name");
		if (sh.sh_type != SHT_NOBITS && sh.sh_size > 0 &&
		    (sh.sh_offset > f->size ||
		     sh.sh_size > f->size - sh.sh_offset))
			return ms_err_set(
				err, EINVAL,
				"%s: section %s lies past the end of the file",
				f->path, name);
		f->secs[i] = (struct ms_filesec){ .name = name,
						  .flags = sh.sh_flags,
						  .size = sh.sh_size,
						  .align = sh.sh_addralign,
						  .offset = sh.sh_offset,
						  .type = sh.sh_type };
		f->scn_index[i] = elf_ndxscn(scn);
		i++;
		r = 0;
		if (sh.sh_type == SHT_NOTE &&
		    strcmp(name, ".note.gnu.build-id") == 0)
			r = read_build_id(f, scn);
		else if (strcmp(name, ".modinfo") == 0)
			r = read_modinfo(f, scn);
		if (r)
			return ms_err_errno(err, -r, "%s", f->path);
	}
	f->nsecs = i;
	return 0;
}

struct extent {
	uint64_t off, size;
	const char *name;
};

static int cmp_extent(const void *a, const void *b)
{
	const struct extent *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/*
 * No linker writes sections over each other or over the headers; a file
 * that does was made to show one thing to one reader and another to the
 * next (a build-id note over .text), so it is refused, not interpreted.
 */
static int check_overlap(const struct ms_modfile *f, const GElf_Ehdr *eh,
			 struct ms_err *err)
{
	struct extent *e = calloc(f->nsecs + 2, sizeof(*e));
	size_t n = 0, shnum = 0;
	int r = 0;

	if (!e)
		return ms_err_errno(err, ENOMEM, "%s", f->path);
	elf_getshdrnum(f->elf, &shnum); /* check_bounds read it before */
	e[n++] = (struct extent){ 0, eh->e_ehsize, "the ELF header" };
	e[n++] = (struct extent){ eh->e_shoff,
				  (uint64_t)eh->e_shentsize * shnum,
				  "the section headers" };
	for (size_t i = 0; i < f->nsecs; i++)
		if (f->secs[i].type != SHT_NOBITS && f->secs[i].size > 0)
			e[n++] = (struct extent){ f->secs[i].offset,
						  f->secs[i].size,
						  f->secs[i].name };
	qsort(e, n, sizeof(*e), cmp_extent);
	for (size_t i = 1; i < n && !r; i++)
		if (e[i - 1].size && e[i].off < e[i - 1].off + e[i - 1].size)
			r = ms_err_set(
				err, EINVAL,
				"%s: %s and %s overlap in the file (corrupted or crafted)",
				f->path, MS_ESC(e[i - 1].name),
				MS_ESC(e[i].name));
	free(e);
	return r;
}

/*
 * A private writable mapping: nothing is copied (debug modules run to tens
 * of megabytes), and whatever libelf might convert in place stays ours.
 */
static int map_file(const char *path, void **ret, size_t *len_ret,
		    struct ms_err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *p;

	if (fd < 0)
		return ms_err_errno(err, errno, "cannot open %s", path);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return ms_err_set(err, EINVAL, "%s: not a regular file", path);
	}
	if (st.st_size == 0 || (uint64_t)st.st_size > MAX_MODULE) {
		close(fd);
		return ms_err_set(err, EINVAL, "%s: %s", path,
				  st.st_size ? "larger than 1 GiB" :
					       "empty file");
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE,
		 fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return ms_err_errno(err, errno, "cannot map %s", path);
	*ret = p;
	*len_ret = (size_t)st.st_size;
	return 0;
}

/* libelf reads lazily: a truncated file must be refused here, not later. */
static int check_bounds(const struct ms_modfile *f, const GElf_Ehdr *eh,
			struct ms_err *err)
{
	size_t shnum;

	if (elf_getshdrnum(f->elf, &shnum) < 0)
		return elf_error(err, f->path, "bad section headers");
	if (eh->e_shoff == 0 || shnum == 0)
		return ms_err_set(err, EINVAL, "%s: no section headers",
				  f->path);
	if (eh->e_shentsize == 0 || eh->e_shoff > f->size ||
	    shnum > (f->size - eh->e_shoff) / eh->e_shentsize)
		return ms_err_set(
			err, EINVAL,
			"%s: section headers lie past the end of the file (truncated?)",
			f->path);
	return 0;
}

static int open_image(const struct ms_ctx *ctx, struct ms_modfile *f,
		      struct ms_err *err)
{
	GElf_Ehdr eh;
	void *raw = NULL, *out;
	size_t rawlen = 0, outlen;
	int r = map_file(f->path, &raw, &rawlen, err);

	if (r)
		return r;
	r = ms_decompress(raw, rawlen, &out, &outlen, &f->compression, err);
	if (r) {
		munmap(raw, rawlen);
		return ms_err_prefix(err, "%s", f->path);
	}
	if (f->compression) {
		munmap(raw, rawlen);
		f->image = out;
		f->size = outlen;
	} else {
		f->image = raw;
		f->size = rawlen;
		f->mapped = true;
	}
	elf_version(EV_CURRENT);
	f->elf = elf_memory(f->image, f->size);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF)
		return ms_err_set(err, EINVAL, "%s: not an ELF file%s", f->path,
				  f->compression ? " (after decompression)" :
						   "");
	if (!gelf_getehdr(f->elf, &eh))
		return elf_error(err, f->path, "bad ELF header");
	if (eh.e_type != ET_REL)
		return ms_err_set(
			err, EINVAL,
			"%s: not a kernel module (ELF type %u, a module is relocatable, type 1)",
			f->path, eh.e_type);
	f->elfclass = gelf_getclass(f->elf);
	r = check_bounds(f, &eh, err);
	if (r)
		return r;
	r = read_sections(f, err);
	if (!r)
		r = check_overlap(f, &eh, err);
	if (r)
		return r;
	return modcopy_setup(ctx, f, &eh, err);
}

int ms_modfile_open(const struct ms_ctx *ctx, const char *path,
		    struct ms_modfile **ret, struct ms_err *err)
{
	struct ms_modfile *f = calloc(1, sizeof(*f));
	int r;

	if (f)
		f->refs = 1;
	if (!f || !(f->path = strdup(path))) {
		free(f);
		return ms_err_errno(err, ENOMEM, "%s", path);
	}
	r = open_image(ctx, f, err);
	if (r) {
		ms_modfile_free(f);
		return r;
	}
	*ret = f;
	return 0;
}

void ms_modfile_machine(const struct ms_modfile *f, int *em, int *cls,
			int *data)
{
	GElf_Ehdr eh;
	bool ok = gelf_getehdr(f->elf, &eh) != NULL;

	*em = ok ? eh.e_machine : EM_NONE;
	*cls = f->elfclass;
	*data = ok ? eh.e_ident[EI_DATA] : ELFDATANONE;
}

int ms_modfile_check_machine(const struct ms_modfile *f, const char *machine,
			     struct ms_err *err)
{
	const struct ms_arch *a = machine ? ms_arch_of_machine(machine) : NULL;
	int em, cls, data;
	char buf[96];

	if (!a)
		return 0; /* nothing to compare against */
	ms_modfile_machine(f, &em, &cls, &data);
	if (em != a->em || cls != a->cls || data != a->data)
		return ms_err_set(
			err, EBADMSG,
			"%s is for %s%s, but the kernel is %s: it is not a module of this kernel",
			f->path, ms_elf_machine_str(em, cls, buf, sizeof(buf)),
			em == a->em && cls == a->cls ?
				(data == ELFDATA2MSB ? ", big-endian" :
						       ", little-endian") :
				"",
			machine);
	return 0;
}

const char *ms_modfile_path(const struct ms_modfile *f)
{
	return f->path;
}

const char *ms_modfile_lldb_path(const struct ms_modfile *f)
{
	return f->lldb_path;
}

bool ms_modfile_dwarf_hidden(const struct ms_modfile *f)
{
	return f->dwarf_hidden;
}

const char *ms_modfile_debugger_path(const struct ms_modfile *f)
{
	return f->debugger_path;
}

const char *ms_modfile_compression(const struct ms_modfile *f)
{
	return f->compression;
}

const char *ms_modfile_build_id(const struct ms_modfile *f)
{
	return f->build_id;
}

const char *ms_modfile_srcversion(const struct ms_modfile *f)
{
	return f->srcversion;
}

const char *ms_modfile_modname(const struct ms_modfile *f)
{
	return f->modname;
}

int ms_modfile_elfclass(const struct ms_modfile *f)
{
	return f->elfclass;
}

bool ms_modfile_has_dwarf(const struct ms_modfile *f)
{
	const struct ms_filesec *s =
		ms_modfile_section_by_name(f, ".debug_info");

	/* objcopy --only-keep-debug and strip leave NOBITS or nothing. */
	return s && s->type != SHT_NOBITS && s->size > 0;
}

size_t ms_modfile_section_count(const struct ms_modfile *f)
{
	return f->nsecs;
}

const struct ms_filesec *ms_modfile_section(const struct ms_modfile *f,
					    size_t i)
{
	return i < f->nsecs ? &f->secs[i] : NULL;
}

static ssize_t section_index(const struct ms_modfile *f, const char *name)
{
	for (size_t i = 0; i < f->nsecs; i++)
		if (strcmp(f->secs[i].name, name) == 0)
			return (ssize_t)i;
	return -1;
}

const struct ms_filesec *ms_modfile_section_by_name(const struct ms_modfile *f,
						    const char *name)
{
	ssize_t i = section_index(f, name);

	return i < 0 ? NULL : &f->secs[i];
}

int ms_modfile_foreach_symbol(const struct ms_modfile *f, const char *secname,
			      int (*fn)(const char *name, uint64_t value,
					void *arg),
			      void *arg)
{
	ssize_t want = section_index(f, secname);
	Elf_Scn *scn = NULL;

	if (want < 0)
		return -ENOENT;
	while ((scn = elf_nextscn(f->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    sh.sh_entsize == 0 || !(d = elf_getdata(scn, NULL)))
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 1; i < n; i++) {
			GElf_Sym sym;
			const char *name;
			int r;

			if (!gelf_getsym(d, (int)i, &sym) ||
			    sym.st_shndx != f->scn_index[want] ||
			    sym.st_name == 0 ||
			    GELF_ST_TYPE(sym.st_info) == STT_SECTION)
				continue;
			name = elf_strptr(f->elf, sh.sh_link, sym.st_name);
			if (name && *name && (r = fn(name, sym.st_value, arg)))
				return r;
		}
	}
	return 0;
}

struct find_sym {
	const char *name;
	uint64_t value;
	bool found;
};

static int match_sym(const char *name, uint64_t value, void *arg)
{
	struct find_sym *fs = arg;

	if (strcmp(name, fs->name))
		return 0;
	fs->value = value;
	fs->found = true;
	return 1;
}

int ms_modfile_symbol_in(const struct ms_modfile *f, const char *secname,
			 const char *symname, uint64_t *value_ret)
{
	struct find_sym fs = { .name = symname };
	int r = ms_modfile_foreach_symbol(f, secname, match_sym, &fs);

	if (r < 0)
		return r;
	if (!fs.found)
		return -ENOENT;
	*value_ret = fs.value;
	return 0;
}

int ms_modfile_btf(const struct ms_modfile *f, const void **data_ret,
		   size_t *len_ret)
{
	ssize_t i = section_index(f, ".BTF");
	Elf_Scn *scn;
	Elf_Data *d;

	if (i < 0 || f->secs[i].type == SHT_NOBITS)
		return -ENOENT;
	scn = elf_getscn(f->elf, f->scn_index[i]);
	d = scn ? elf_rawdata(scn, NULL) : NULL;
	if (!d || !d->d_buf || !d->d_size)
		return -ENOENT;
	*data_ret = d->d_buf;
	*len_ret = d->d_size;
	return 0;
}
