// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel images: what the kernel the user booted says about itself,
 * without a debug build. The image (kunpack.c) gives a vmlinux ELF,
 * stripped (no .symtab, but .rodata, .notes, .BTF and program headers),
 * or a raw arm64 Image (kraw.c); from it: the GNU build-id and where its
 * bytes are linked, the linux_banner string and its address, BTF, and
 * kallsyms decoded from .rodata (ksymtab.c), all at link addresses.
 *
 * One copy of the kernel is kept: the decompressed buffer, or the file
 * itself mapped copy-on-write (libelf may convert in place).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sha2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kimage-int.h"

static int map_file(const char *path, uint8_t **ret, size_t *len_ret,
		    struct ms_err *err)
{
	struct stat st;
	void *p;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return ms_err_errno(err, errno, "%s", path);
	if (fstat(fd, &st) < 0) {
		int e = errno;

		close(fd);
		return ms_err_errno(err, e, "%s", path);
	}
	if (!S_ISREG(st.st_mode) || st.st_size < 64) {
		close(fd);
		return ms_err_set(err, EINVAL, "%s: %s", path,
				  S_ISREG(st.st_mode) ?
					  "too small for a kernel image" :
					  "not a regular file");
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE,
		 fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return ms_err_errno(err, errno, "%s: mmap", path);
	*ret = p;
	*len_ret = (size_t)st.st_size;
	return 0;
}

static const char *section_name(Elf *elf, size_t shstrndx, const GElf_Shdr *sh)
{
	const char *n = elf_strptr(elf, shstrndx, sh->sh_name);

	return n ? n : "";
}

/* Section data inside our buffer (libelf gives pointers into it). */
static const uint8_t *section_bytes(struct ms_kimage *k, const GElf_Shdr *sh)
{
	if (sh->sh_type == SHT_NOBITS || sh->sh_offset > k->size ||
	    sh->sh_size > k->size - sh->sh_offset)
		return NULL;
	return k->data + sh->sh_offset;
}

static int elf_segments(struct ms_kimage *k, struct ms_err *err)
{
	size_t n;

	if (elf_getphdrnum(k->elf, &n))
		return ms_err_set(err, EINVAL, "%s: libelf: %s", k->path,
				  elf_errmsg(-1));
	k->start = UINT64_MAX;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		/*
		 * x86_64 links .data..percpu at 0 (a PT_LOAD at vaddr 0):
		 * not where the image is.
		 */
		if (!gelf_getphdr(k->elf, (int)i, &ph) ||
		    ph.p_type != PT_LOAD || ph.p_vaddr == 0)
			continue;
		if (ph.p_vaddr < k->start)
			k->start = ph.p_vaddr;
		if (ph.p_vaddr + ph.p_memsz > k->end)
			k->end = ph.p_vaddr + ph.p_memsz;
		if (ph.p_offset > k->size ||
		    ph.p_filesz > k->size - ph.p_offset)
			return ms_err_set(
				err, EINVAL,
				"%s: a PT_LOAD segment (offset 0x%" PRIx64
				", %" PRIu64
				" bytes) is past the end of the ELF (%zu bytes)",
				k->path, ph.p_offset, ph.p_filesz, k->size);
		if (kimage_add_seg(k, ph.p_vaddr, ph.p_filesz, ph.p_offset))
			return ms_err_set(err, ENOMEM, "out of memory");
	}
	if (k->start == UINT64_MAX)
		k->start = 0;
	return 0;
}

/*
 * A kernel linked -pie with --no-apply-dynamic-relocs (arm64) relocates
 * itself at boot: kallsyms_relative_base reads 0 and its value is the
 * addend of the dynamic relocation at its place (see kraw.c).
 */
static void unapplied_relbase(struct ms_kimage *k, uint64_t place)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(k->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Rela r;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA ||
		    !(d = elf_getdata(scn, NULL)) || !sh.sh_entsize)
			continue;
		for (int i = 0; (size_t)i < sh.sh_size / sh.sh_entsize; i++)
			if (gelf_getrela(d, i, &r) && r.r_offset == place) {
				ms_ksymtab_relocate(k->ksyms,
						    (uint64_t)r.r_addend);
				return;
			}
	}
}

/*
 * A debug vmlinux has _text and _end in .symtab: exact where PT_LOAD is
 * not (x86_64's .init.scratch is past _end, arm64's _end is aligned).
 */
static void symtab_range(struct ms_kimage *k, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	uint64_t text = 0, end = 0;
	GElf_Sym sym;

	for (int i = 0;
	     d && sh->sh_entsize && (size_t)i < sh->sh_size / sh->sh_entsize;
	     i++) {
		const char *n;

		if (!gelf_getsym(d, i, &sym) ||
		    !(n = elf_strptr(k->elf, sh->sh_link, sym.st_name)))
			continue;
		if (!strcmp(n, "_text"))
			text = sym.st_value;
		else if (!strcmp(n, "_end"))
			end = sym.st_value;
	}
	if (text && text < end)
		k->start = text, k->end = end;
}

static int elf_load(struct ms_kimage *k, struct ms_err *err)
{
	struct ms_ksymtab_info info;
	const uint8_t *rodata = NULL;
	uint64_t rodata_addr = 0;
	size_t rodata_len = 0, shstrndx;
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;
	int r;

	elf_version(EV_CURRENT);
	k->elf = elf_memory((char *)k->data, k->size);
	if (!k->elf || !gelf_getehdr(k->elf, &eh))
		return ms_err_set(err, EINVAL, "%s: libelf: %s", k->path,
				  elf_errmsg(-1));
	k->machine = eh.e_machine;
	k->elfclass = eh.e_ident[EI_CLASS];
	k->big_endian = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		return ms_err_set(
			err, EINVAL,
			"%s: ELF type %u is not a linked kernel (a module or object file?)",
			k->path, eh.e_type);
	if ((r = elf_segments(k, err)))
		return r;
	if (elf_getshdrstrndx(k->elf, &shstrndx))
		return ms_err_set(err, EINVAL, "%s: libelf: %s", k->path,
				  elf_errmsg(-1));
	while ((scn = elf_nextscn(k->elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		const uint8_t *p;

		if (!gelf_getshdr(scn, &sh) || !(p = section_bytes(k, &sh)))
			continue;
		name = section_name(k->elf, shstrndx, &sh);
		if (sh.sh_type == SHT_NOTE && (sh.sh_flags & SHF_ALLOC) &&
		    !k->build_id[0])
			kimage_note_build_id(k, p, sh.sh_size, sh.sh_addr);
		else if (!strcmp(name, ".BTF"))
			k->btf = p, k->btf_len = sh.sh_size;
		else if (!strcmp(name, ".rodata"))
			rodata = p, rodata_len = sh.sh_size,
			rodata_addr = sh.sh_addr;
		else if (sh.sh_type == SHT_SYMTAB)
			symtab_range(k, scn, &sh);
	}
	if (!rodata) {
		k->ksyms_r = ms_err_set(
			&k->ksyms_err, ENOENT,
			"%s: no .rodata section to find kallsyms in", k->path);
		return 0;
	}
	kimage_pick_banner(k, rodata, rodata_len, rodata_addr);
	/* every scripts/kallsyms since 2.6 writes its tables to .rodata */
	k->ksyms_r = ms_ksymtab_find_info(rodata, rodata_len, rodata_addr,
					  k->elfclass == ELFCLASS32 ? 4 : 8,
					  k->big_endian, &k->ksyms, &info,
					  &k->ksyms_err);
	if (k->ksyms_r)
		ms_err_prefix(&k->ksyms_err, "%s: .rodata", k->path);
	else if (info.mode == MS_KSYM_RELATIVE && info.relbase == 0)
		unapplied_relbase(k, rodata_addr + info.relbase_off);
	return 0;
}

void ms_kimage_free(struct ms_kimage *k)
{
	if (!k)
		return;
	ms_ksymtab_free(k->ksyms);
	if (k->elf)
		elf_end(k->elf);
	if (k->data_owned)
		free(k->data);
	if (k->map)
		munmap(k->map, k->map_len);
	free(k->segs);
	free(k->path);
	free(k);
}

int ms_kimage_open(const char *path, struct ms_kimage **ret, struct ms_err *err)
{
	struct ms_kimage *k = calloc(1, sizeof(*k));
	uint8_t *out;
	size_t olen;
	uint64_t a, b;
	int r;

	*ret = NULL;
	if (!k || !(k->path = strdup(path))) {
		free(k);
		return ms_err_set(err, ENOMEM, "out of memory");
	}
	r = map_file(path, &k->map, &k->map_len, err);
	if (!r)
		r = ms_kunpack(k->map, k->map_len, path, &out, &olen, k->kind,
			       sizeof(k->kind), err);
	if (r)
		goto fail;
	if (out) {
		/* the compressed file is not needed any more */
		munmap(k->map, k->map_len);
		k->map = NULL;
		k->data = out;
		k->data_owned = true;
	} else {
		k->data = k->map;
	}
	k->size = olen;
	r = memcmp(k->data, "\177ELF", 4) ? kimage_raw_load(k, err) :
					    elf_load(k, err);
	if (r)
		goto fail;
	/* _text .. _end as kallsyms has them: PT_LOAD may go past _end */
	if (k->ksyms && !ms_ksymtab_lookup(k->ksyms, "_text", &a) &&
	    !ms_ksymtab_lookup(k->ksyms, "_end", &b) && a < b)
		k->start = a, k->end = b;
	*ret = k;
	return 0;
fail:
	ms_kimage_free(k);
	return r;
}

const char *ms_kimage_path(const struct ms_kimage *k)
{
	return k->path;
}

const char *ms_kimage_kind(const struct ms_kimage *k)
{
	return k->kind;
}

int ms_kimage_elf_machine(const struct ms_kimage *k)
{
	return k->machine;
}

int ms_kimage_elf_class(const struct ms_kimage *k)
{
	return k->elfclass;
}

const char *ms_kimage_build_id(const struct ms_kimage *k)
{
	return k->build_id[0] ? k->build_id : NULL;
}

uint64_t ms_kimage_build_id_addr(const struct ms_kimage *k)
{
	return k->build_id[0] ? k->build_id_addr : 0;
}

const char *ms_kimage_banner(const struct ms_kimage *k)
{
	return k->banner;
}

uint64_t ms_kimage_banner_addr(const struct ms_kimage *k)
{
	return k->banner ? k->banner_addr : 0;
}

const void *ms_kimage_btf(const struct ms_kimage *k, size_t *len_ret)
{
	*len_ret = k->btf ? k->btf_len : 0;
	return k->btf;
}

int ms_kimage_ksymtab(struct ms_kimage *k, const struct ms_ksymtab **ret,
		      struct ms_err *err)
{
	*ret = k->ksyms;
	if (k->ksyms)
		return 0;
	*err = k->ksyms_err;
	return k->ksyms_r;
}

int ms_kimage_bytes(const struct ms_kimage *k, uint64_t addr, size_t len,
		    const void **ret, struct ms_err *err)
{
	for (size_t i = 0; i < k->nsegs; i++) {
		const struct kimage_seg *s = &k->segs[i];

		if (addr >= s->addr && addr - s->addr <= s->size &&
		    len <= s->size - (addr - s->addr)) {
			*ret = k->data + s->off + (addr - s->addr);
			return 0;
		}
	}
	return ms_err_set(err, ENOENT,
			  "%s: 0x%" PRIx64 " (%zu bytes) is not in the image's loaded data",
			  k->path, addr, len);
}

void ms_kimage_range(const struct ms_kimage *k, uint64_t *start, uint64_t *end)
{
	*start = k->start;
	*end = k->end;
}

int ms_kimage_section(const struct ms_kimage *k, const char *name,
		      uint64_t *addr_ret, const void **data_ret,
		      size_t *len_ret)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (!k->elf || elf_getshdrstrndx(k->elf, &shstrndx))
		return -ENOENT;
	while ((scn = elf_nextscn(k->elf, scn))) {
		GElf_Shdr sh;
		const uint8_t *p;

		if (!gelf_getshdr(scn, &sh) ||
		    strcmp(section_name(k->elf, shstrndx, &sh), name) ||
		    !(p = section_bytes((struct ms_kimage *)k, &sh)))
			continue;
		*addr_ret = sh.sh_addr;
		*data_ret = p;
		*len_ret = sh.sh_size;
		return 0;
	}
	return -ENOENT;
}

/*
 * The decompressed kernel is kept in the cache under the SHA-256 of the
 * image file, with its kind in the name ("<sha>.bzImage+xz"): decompressing
 * a 6.1 bzImage+xz takes a second, reading the copy a tenth of that, and
 * `modsect follow` opens the image at every module load.
 */
static int cached_name(const struct ms_ctx *ctx, const char *path,
		       char **dir_ret, char *hex, struct ms_err *err)
{
	uint8_t *p;
	size_t len;
	int r = map_file(path, &p, &len, err);

	if (r)
		return r;
	SHA256Data(p, len, hex);
	munmap(p, len);
	return ms_cache_subdir(ctx, "kernels", dir_ret, err);
}

/* The cached copy's path and kind, if there is one. */
static char *find_cached(const char *dir, const char *hex, const char **kind)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char *path = NULL;
	size_t n = strlen(hex);

	while (d && !path && (de = readdir(d)))
		if (!strncmp(de->d_name, hex, n) && de->d_name[n] == '.' &&
		    asprintf(&path, "%s/%s", dir, de->d_name) >= 0)
			*kind = strrchr(path, '/') + 1 + n + 1;
	if (d)
		closedir(d);
	return path;
}

static void store_cached(const struct ms_kimage *k, const char *dir,
			 const char *hex)
{
	struct ms_err ignored;
	char *path;

	if (asprintf(&path, "%s/%s.%s", dir, hex, k->kind) < 0)
		return;
	/* A cache that cannot be written costs time, not the answer. */
	if (!strchr(k->kind, '/'))
		ms_write_out(path, k->data, k->size, &ignored);
	free(path);
}

int ms_kimage_open_cached(const struct ms_ctx *ctx, const char *path,
			  struct ms_kimage **ret, struct ms_err *err)
{
	char hex[SHA256_DIGEST_STRING_LENGTH], *dir = NULL, *cached = NULL;
	const char *kind = NULL;
	struct ms_err ignored;
	int r;

	if (cached_name(ctx, path, &dir, hex, &ignored))
		return ms_kimage_open(path, ret, err);
	cached = find_cached(dir, hex, &kind);
	if (cached && !ms_kimage_open(cached, ret, &ignored)) {
		char *p = strdup(path);

		if (p) {
			free((*ret)->path);
			(*ret)->path = p;
			snprintf((*ret)->kind, sizeof((*ret)->kind), "%s", kind);
		}
		free(cached);
		free(dir);
		return 0;
	}
	r = ms_kimage_open(path, ret, err);
	if (!r && (*ret)->data_owned)
		store_cached(*ret, dir, hex);
	free(cached);
	free(dir);
	return r;
}
