// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The running kernel in memory: where KASLR put it, whether the image the
 * user gave is that build, its kallsyms and BTF; then the module walk
 * (kmem.c) gives the map.
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "kmem-int.h"

/* How far the kernel image is read from memory when there is no image. */
#define KFIND_MAX_IMAGE (96u << 20)
#define KFIND_CHUNK (2u << 20)

/*
 * Where KASLR may put the kernel: x86-64 moves the image in the 1 GiB
 * kernel text mapping (KERNEL_IMAGE_SIZE with RANDOMIZE_BASE) by
 * multiples of CONFIG_PHYSICAL_ALIGN (2 MiB on Debian); the mapping
 * below _text is removed by cleanup_highmap(), so probing finds _text.
 * i386 runs its image inside the direct map of low memory (PAGE_OFFSET,
 * 0xc0000000 with VMSPLIT_3G, up), where everything below _text is
 * mapped too: there the search starts a little below a stopped CPU's pc
 * (direct_map). arm64 puts the image anywhere in the vmalloc area
 * (arch/arm64/kernel/kaslr.c; 48-bit VA: from _PAGE_END(48),
 * 0xffff800000000000), 2 MiB aligned (MIN_KIMG_ALIGN), with nothing
 * mapped just below it: found from the pc as on x86-64, but the window
 * is far too large to probe without one.
 */
struct karch {
	int machine;
	uint64_t window_start, window_end, align;
	bool direct_map;
};

static const struct karch karchs[] = {
	{ EM_X86_64, 0xffffffff80000000ull, 0xffffffffc0000000ull, 2u << 20,
	  false },
	{ EM_386, 0xc0000000ull, 0xf8000000ull, 2u << 20, true },
	{ EM_AARCH64, 0xffff800000000000ull, 0xfffffc0000000000ull, 2u << 20,
	  false },
};

/* Probing every slot of the window one read each: x86's 512 or 448. */
#define KFIND_MAX_PROBES 4096u
/* i386: how far below the pc the image's start is looked for. */
#define KFIND_DIRECT_BELOW (16u << 20)

static const struct karch *karch(int machine)
{
	for (size_t i = 0; i < sizeof(karchs) / sizeof(karchs[0]); i++)
		if (karchs[i].machine == machine)
			return &karchs[i];
	return NULL;
}

/*
 * KASLR moves everything from _text on, also what lies past _end
 * (__init_scratch_end); absolute per-cpu symbols (KALLSYMS_ABSOLUTE_PERCPU)
 * are offsets below it and stay.
 */
uint64_t kern_moved(const struct kern *k, uint64_t a)
{
	return k->offset && a >= k->link_start ? a + (uint64_t)k->offset : a;
}

/*
 * By name, in a linear scan: a handful of lookups per run, and it works
 * on any table (the image's, memory's, or a test's).
 */
int kern_sym(const struct kern *k, const char *name, uint64_t *ret,
	     struct ms_err *err)
{
	const struct ms_ksym *s = NULL;

	for (size_t i = 0; k->ksyms && i < k->ksyms->nsyms && !s; i++)
		if (!strcmp(k->ksyms->syms[i].name, name))
			s = &k->ksyms->syms[i];
	if (!s)
		return ms_err_set(err, ENOENT,
				  "the kernel's kallsyms has no symbol %s (kernel %s)",
				  name, k->release ? k->release : "unknown");
	*ret = kern_moved(k, s->addr);
	return 0;
}

static bool read_ok(struct kern *k, uint64_t addr, void *buf, size_t len)
{
	struct ms_err e = { 0 };

	return ms_mem_read(k->mem, addr, buf, len, "probe", &e) == 0;
}

/* KASLR from the dump's VMCOREINFO (KERNELOFFSET=hex, x86 and arm64). */
static bool offset_from_vmcoreinfo(struct kern *k)
{
	char *v = ms_mem_vmcoreinfo_get(k->mem, "KERNELOFFSET"), *end;
	uint64_t off;
	bool ok;

	if (!v)
		return false;
	off = strtoull(v, &end, 16);
	ok = end != v && !*end;
	free(v);
	if (ok)
		k->offset = (int64_t)off;
	return ok;
}

/* Does memory hold the image's linux_banner at its place moved by off? */
static bool banner_at(struct kern *k, int64_t off)
{
	const char *b = ms_kimage_banner(k->img);
	size_t len = strlen(b) + 1;
	char *buf = malloc(len);
	bool ok;

	if (!buf)
		return false;
	ok = read_ok(k, ms_kimage_banner_addr(k->img) + (uint64_t)off, buf,
		     len) &&
	     !memcmp(buf, b, len);
	free(buf);
	return ok;
}

/*
 * Over the link there is no VMCOREINFO: try every KASLR offset the
 * architecture allows, those that put a stopped CPU's pc inside the
 * image first (usually one or a few reads), until the image's banner is
 * where it should be.
 */
static int offset_from_banner(struct kern *k, struct ms_err *err)
{
	const struct karch *a = karch(ms_kimage_elf_machine(k->img));
	struct ms_err e = { 0 };
	uint64_t pc = 0;
	bool have_pc;

	if (banner_at(k, 0))
		return 0;
	if (!a)
		return ms_err_set(err, ENOTSUP,
				  "%s: the kernel image's banner is not at its link address and modsect knows no KASLR range for this architecture",
				  k->origin);
	have_pc = k->mem->ops->pc && !k->mem->ops->pc(k->mem, &pc, &e);
	for (int pass = have_pc ? 0 : 1; pass < 2; pass++) {
		for (uint64_t off = 0; k->link_start + off < a->window_end;
		     off += a->align) {
			bool inside = pc >= k->link_start + off &&
				      pc < k->link_end + off;

			if ((pass == 0) != inside)
				continue;
			if (banner_at(k, (int64_t)off)) {
				k->offset = (int64_t)off;
				return 0;
			}
		}
	}
	return ms_err_set(err, ESRCH,
			  "%s: the kernel image %s is not the running kernel: its banner (%.*s) is nowhere KASLR could have put it",
			  k->origin, ms_kimage_path(k->img),
			  (int)strcspn(ms_kimage_banner(k->img), "\n"),
			  ms_kimage_banner(k->img));
}

/* The image's build-id note, read where it sits in memory. */
static int check_build_id(struct kern *k, bool force, struct ms_err *err)
{
	const char *want = ms_kimage_build_id(k->img);
	char *vmci = ms_mem_vmcoreinfo_get(k->mem, "BUILD-ID");
	unsigned char buf[64];
	size_t n = want ? strlen(want) / 2 : 0;
	int r = 0;

	if (want && n <= sizeof(buf) &&
	    read_ok(k, ms_kimage_build_id_addr(k->img) + (uint64_t)k->offset,
		    buf, n))
		k->build_id = ms_hex_dup(buf, n);
	/* VMCOREINFO's BUILD-ID (0935288c6e00, 5.9) is the kernel's word. */
	if (vmci && (!k->build_id || strcmp(vmci, k->build_id))) {
		free(k->build_id);
		k->build_id = vmci;
		vmci = NULL;
	}
	free(vmci);
	if (want && k->build_id && strcmp(want, k->build_id) && !force)
		r = ms_err_set(err, EBADMSG,
			       "the kernel image %s has build-id %s but the running kernel (%s) has build-id %s; give the image it booted, or --force",
			       ms_kimage_path(k->img), want, k->origin,
			       k->build_id);
	return r;
}

static int from_image(struct kern *k, const char *path, bool force,
		      struct ms_err *err)
{
	const void *btf;
	size_t len;
	int r = ms_kimage_open(path, &k->img, err);

	if (r)
		return r;
	k->elf_machine = ms_kimage_elf_machine(k->img);
	k->ptr_size = ms_kimage_elf_class(k->img) == ELFCLASS32 ? 4 : 8;
	ms_kimage_range(k->img, &k->link_start, &k->link_end);
	if (k->mem->elf_machine && k->mem->elf_machine != k->elf_machine)
		return ms_err_set(err, EINVAL,
				  "the kernel image %s is for ELF machine %d, %s is machine %d",
				  path, k->elf_machine, k->origin,
				  k->mem->elf_machine);
	if (!ms_kimage_banner(k->img))
		return ms_err_set(err, EINVAL,
				  "the kernel image %s has no linux_banner", path);
	if (!offset_from_vmcoreinfo(k) || !banner_at(k, k->offset)) {
		r = offset_from_banner(k, err);
		if (r)
			return r;
	}
	/* For kernels whose kallsyms has no init_uts_ns (see kdata.c). */
	if (kdata_banner_release((const unsigned char *)ms_kimage_banner(k->img),
				 strlen(ms_kimage_banner(k->img)),
				 &k->banner_release) == -ENOMEM)
		return ms_err_errno(err, ENOMEM, "banner");
	r = check_build_id(k, force, err);
	if (!r)
		r = ms_kimage_ksymtab(k->img, &k->ksyms, err);
	if (r)
		return r;
	btf = ms_kimage_btf(k->img, &len);
	if (!btf)
		return ms_err_set(err, ENOTSUP,
				  "the kernel image %s has no BTF (CONFIG_DEBUG_INFO_BTF); modsect needs it for struct module",
				  path);
	k->btf = btf__new(btf, (uint32_t)len);
	if (!k->btf)
		return ms_err_set(err, EINVAL,
				  "the kernel image %s: its BTF does not parse",
				  path);
	return 0;
}

/* ---- no image: everything from memory ---- */

/*
 * _text: x86-64 maps nothing below it in the kernel text window
 * (cleanup_highmap()), so the lowest mapped slot at or below a stopped
 * CPU's pc is _text; without a pc in the window, the first mapped slot.
 */
static int find_text(struct kern *k, const struct karch *a, uint64_t *ret,
		     struct ms_err *err)
{
	struct ms_err e = { 0 };
	uint64_t pc = 0, s;
	unsigned char c;
	char *v = ms_mem_vmcoreinfo_get(k->mem, "SYMBOL(_stext)");

	if (v) {
		/* _stext itself: arm64 maps nothing from _text to it. */
		pc = strtoull(v, NULL, 16);
		free(v);
		if (pc >= a->window_start && pc < a->window_end &&
		    read_ok(k, pc, &c, 1)) {
			*ret = pc;
			return 0;
		}
	} else if (k->mem->ops->pc && !k->mem->ops->pc(k->mem, &pc, &e)) {
		/* a pc in a module or user space says nothing */
	}
	if (pc >= a->window_start && pc < a->window_end && a->direct_map) {
		s = pc & ~(a->align - 1);
		s -= s - a->window_start < KFIND_DIRECT_BELOW ?
			     s - a->window_start :
			     KFIND_DIRECT_BELOW;
		*ret = s;
		return 0;
	}
	if (pc >= a->window_start && pc < a->window_end) {
		s = pc & ~(a->align - 1);
		while (s - a->align >= a->window_start &&
		       read_ok(k, s - a->align, &c, 1))
			s -= a->align;
		if (read_ok(k, s, &c, 1)) {
			*ret = s;
			return 0;
		}
		/* arm64: the slot's start (_text) unmapped; the pc's page is. */
		s = pc & ~(uint64_t)4095;
		if (read_ok(k, s, &c, 1)) {
			*ret = s;
			return 0;
		}
	}
	if ((a->window_end - a->window_start) / a->align > KFIND_MAX_PROBES)
		return ms_err_set(err, ESRCH,
				  "%s: no CPU is stopped in the kernel, and the kernel may be anywhere in 0x%" PRIx64 "-0x%" PRIx64 "; stop the target in the kernel or give --kernel-image",
				  k->origin, a->window_start, a->window_end);
	for (s = a->window_start; s < a->window_end; s += a->align)
		if (read_ok(k, s, &c, 1)) {
			*ret = s;
			return 0;
		}
	return ms_err_set(err, ESRCH,
			  "%s: nothing is mapped where the kernel should be (0x%" PRIx64 "-0x%" PRIx64 "); give --kernel-image",
			  k->origin, a->window_start, a->window_end);
}

struct blob {
	unsigned char *data;
	size_t len;
	uint64_t base;
};

/* The image from _text until memory ends or the tables are found. */
static int read_image(struct kern *k, uint64_t text, struct blob *b,
		      struct ms_err *err)
{
	int r = -ENOENT;

	b->base = text;
	b->len = 0;
	b->data = NULL;
	while (b->len < KFIND_MAX_IMAGE) {
		unsigned char *n = realloc(b->data, b->len + KFIND_CHUNK);

		if (!n)
			return ms_err_errno(err, ENOMEM, "kernel image");
		b->data = n;
		if (!b->len) {
			/* Nothing read at all: say why, not "no tables". */
			r = ms_mem_read(k->mem, text, n, KFIND_CHUNK,
					"the kernel image", err);
			if (r)
				return r;
		} else if (!read_ok(k, text + b->len, n + b->len,
				    KFIND_CHUNK)) {
			break;
		}
		b->len += KFIND_CHUNK;
		ms_ksymtab_free(k->own_ksyms);
		k->own_ksyms = NULL;
		r = ms_ksymtab_find(b->data, b->len, b->base, k->ptr_size,
				    k->big_endian, &k->own_ksyms, err);
		if (!r)
			break;
	}
	if (r)
		return ms_err_set(err, ESRCH,
				  "%s: no kallsyms tables in the %zu bytes of kernel memory from 0x%" PRIx64 "; give --kernel-image",
				  k->origin, b->len, text);
	k->ksyms = k->own_ksyms;
	return 0;
}

static int sym_range(struct kern *k, const char *start, const char *stop,
		     uint64_t *a, size_t *len, size_t max, struct ms_err *err)
{
	uint64_t b;
	int r = kern_sym(k, start, a, err);

	if (!r)
		r = kern_sym(k, stop, &b, err);
	if (!r && (b < *a || b - *a > max))
		r = ms_err_set(err, EBADMSG,
			       "%s: %s..%s is not a plausible range (0x%" PRIx64 "-0x%" PRIx64 ")",
			       k->origin, start, stop, *a, b);
	if (!r)
		*len = (size_t)(b - *a);
	return r;
}

/*
 * The BTF between __start_BTF and __stop_BTF; found by its header from
 * after on where kallsyms has no data symbols (kdata.c).
 */
static int memory_btf(struct kern *k, uint64_t after, struct ms_err *err)
{
	uint64_t at;
	size_t len;
	int r = sym_range(k, "__start_BTF", "__stop_BTF", &at, &len,
			  64u << 20, err);

	if (r == -ENOENT)
		return kdata_find_btf(k, after, err);
	if (!r && !len)
		r = ms_err_set(err, ENOTSUP,
			       "%s: the running kernel has no BTF (CONFIG_DEBUG_INFO_BTF); modsect needs it for struct module",
			       k->origin);
	if (!r && !(k->btf_data = malloc(len + 1)))
		r = ms_err_errno(err, ENOMEM, "BTF");
	if (!r)
		r = ms_mem_read(k->mem, at, k->btf_data, len, "the kernel's BTF",
				err);
	if (!r)
		k->btf_addr = at;
	if (!r && !(k->btf = btf__new(k->btf_data, (uint32_t)len)))
		r = ms_err_set(err, EBADMSG,
			       "%s: the kernel's BTF at 0x%" PRIx64 " does not parse",
			       k->origin, at);
	return r;
}

static int from_memory(struct kern *k, struct ms_err *err)
{
	const struct karch *a;
	struct blob b = { 0 };
	uint64_t text, at;
	size_t len;
	int r;

	k->elf_machine = k->mem->elf_machine;
	k->ptr_size = k->mem->elf_class == ELFCLASS32 ? 4 : 8;
	a = karch(k->elf_machine);
	if (!a)
		return ms_err_set(err, ENOTSUP,
				  "%s: unknown architecture (ELF machine %d); give --kernel-image",
				  k->origin, k->elf_machine);
	r = find_text(k, a, &text, err);
	if (!r)
		r = read_image(k, text, &b, err);
	/* For kernels whose kallsyms has no init_uts_ns (see kdata.c). */
	if (!r && kdata_banner_release(b.data, b.len, &k->banner_release) ==
			  -ENOMEM)
		r = ms_err_errno(err, ENOMEM, "banner");
	/* The BTF comes after the kallsyms tables, in the last chunk read. */
	at = b.len > KFIND_CHUNK ? b.base + b.len - KFIND_CHUNK : b.base;
	free(b.data);
	if (r)
		return r;
	k->link_start = 0;
	k->link_end = 0;
	k->offset = 0;
	r = memory_btf(k, at, err);
	if (!r && !sym_range(k, "__start_notes", "__stop_notes", &at, &len,
			     1u << 16, err) &&
	    len) {
		unsigned char *notes = malloc(len);

		if (notes && !ms_mem_read(k->mem, at, notes, len, "kernel notes",
					  err))
			k->build_id = ms_notes_build_id(notes, len);
		free(notes);
	}
	/* No __start_notes in a kallsyms of text only (kdata.c). */
	if (!r)
		kdata_notes_build_id(k);
	return r;
}

/* ---- the map ---- */

static int read_uts(struct kern *k, const struct klayout *l,
		    struct ms_err *err)
{
	unsigned char buf[65];
	uint64_t uts;
	int r = kern_sym(k, "init_uts_ns", &uts, err);
	char **dst[] = { &k->release, &k->machine };
	const struct kfield *f[] = { &l->uts_release, &l->uts_machine };

	/* No data symbols (kdata.c): the banner's release, the ELF machine. */
	if (r == -ENOENT && k->banner_release) {
		const char *m = ms_machine_name(k->elf_machine,
						k->ptr_size == 4 ? ELFCLASS32 :
								   ELFCLASS64);

		free(k->release);
		free(k->machine);
		k->release = strdup(k->banner_release);
		k->machine = strdup(m);
		return k->release && k->machine ?
			       0 :
			       ms_err_errno(err, ENOMEM, "uts");
	}

	for (int i = 0; !r && i < 2; i++) {
		size_t n = f[i]->size < sizeof(buf) ? f[i]->size : sizeof(buf);

		r = ms_mem_read(k->mem, uts + f[i]->off, buf, n,
				"init_uts_ns", err);
		if (!r && !memchr(buf, '\0', n))
			r = ms_err_set(err, EBADMSG,
				       "%s: init_uts_ns at 0x%" PRIx64 " holds no string",
				       k->origin, uts);
		if (!r) {
			free(*dst[i]);
			if (!(*dst[i] = strdup((char *)buf)))
				r = ms_err_errno(err, ENOMEM, "uts");
		}
	}
	return r;
}

static void kern_clear(struct kern *k)
{
	ms_kimage_free(k->img);
	ms_ksymtab_free(k->own_ksyms);
	btf__free(k->btf);
	free(k->btf_data);
	free(k->release);
	free(k->machine);
	free(k->banner_release);
	free(k->build_id);
}

static int add_core(struct ms_map *map, const struct kern *k)
{
	for (size_t i = 0; i < k->ksyms->nsyms; i++) {
		const struct ms_ksym *s = &k->ksyms->syms[i];
		uint64_t a = kern_moved(k, s->addr);

		if (ms_map_add_core(map, s->name, a, s->type))
			return -ENOMEM;
	}
	return 0;
}

/* sysfs lists only modules with sections/: the map has the same ones. */
static void drop_sectionless(struct ms_map *map)
{
	size_t o = 0;

	for (size_t i = 0; i < map->nmodules; i++) {
		if (map->modules[i].nsections)
			map->modules[o++] = map->modules[i];
		else
			ms_module_clear(&map->modules[i]);
	}
	map->nmodules = o;
}

int kern_fill_map(struct kern *k, const char *only_module, unsigned int flags,
		  struct ms_map *map, struct ms_err *err)
{
	struct klayout l;
	int r;

	/* The release is only for messages until init_uts_ns is read. */
	r = klayout_from_btf(k->btf, NULL, &l, err);
	if (!r)
		r = read_uts(k, &l, err);
	if (!r)
		r = kmem_read_modules(k, &l, only_module, map, err);
	if (!r && (flags & MS_READ_CORE) && add_core(map, k))
		r = ms_err_errno(err, ENOMEM, "core symbols");
	if (r)
		return r;
	drop_sectionless(map);
	if (!(map->origin = strdup(k->origin)) ||
	    !(map->release = strdup(k->release)) ||
	    !(map->machine = strdup(k->machine)) ||
	    (k->build_id && !(map->kernel_build_id = strdup(k->build_id))))
		return ms_err_errno(err, ENOMEM, "map");
	return ms_map_finish(map, err);
}

int ms_map_read_memory(const struct ms_mem_src *src, const char *only_module,
		       unsigned int flags, struct ms_map **ret,
		       struct ms_err *err)
{
	struct kern k = { .mem = src->mem,
			  .origin = src->mem->origin,
			  .only_at = src->module_at };
	struct ms_map *map = calloc(1, sizeof(*map));
	int r;

	if (!map)
		return ms_err_errno(err, ENOMEM, "map");
	if (src->kernel_image)
		r = from_image(&k, src->kernel_image, src->force, err);
	else
		r = from_memory(&k, err);
	if (!r)
		r = kern_fill_map(&k, only_module, flags, map, err);
	kern_clear(&k);
	if (r) {
		ms_map_free(map);
		return r;
	}
	*ret = map;
	return 0;
}
