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
	bool direct_map;
	uint64_t window_start, window_end, align;
};

static const struct karch karchs[] = {
	{ EM_X86_64, false, 0xffffffff80000000ull, 0xffffffffc0000000ull,
	  2u << 20 },
	{ EM_386, true, 0xc0000000ull, 0xf8000000ull, 2u << 20 },
	{ EM_AARCH64, false, 0xffff800000000000ull, 0xfffffc0000000000ull,
	  2u << 20 },
	/*
	 * 32-bit ARM: like i386, the image in the direct map of low memory
	 * from PAGE_OFFSET (0xc0000000 with VMSPLIT_3G, Debian's armmp), at
	 * TEXT_OFFSET 0x8000 (arch/arm/Makefile); no KASLR.
	 */
	{ EM_ARM, true, 0xc0000000ull, 0xf0000000ull, 2u << 20 },
	/*
	 * s390x (6.1): the kernel runs at its physical address, identity
	 * mapped from 0 (arch/s390/boot: KASLR picks where in memory), so
	 * like i386 it is found a little below a stopped CPU's pc.
	 */
	{ EM_S390, true, 0, 0x80000000ull, 1u << 20 },
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

/* KASLR from the dump's VMCOREINFO (KERNELOFFSET=hex, x86 and arm64). */
static bool offset_from_vmcoreinfo(struct kern *k)
{
	struct ms_err e = { 0 };
	uint64_t off;
	char *v, *end;
	bool ok;

	if (ms_mem_vmcoreinfo_get(k->mem, "KERNELOFFSET", &v, &e))
		return false;
	off = strtoull(v, &end, 16);
	ok = end != v && !*end;
	free(v);
	if (ok)
		k->offset = (int64_t)off;
	return ok;
}

/*
 * Does memory hold the image's linux_banner at its place moved by off?
 * 1 if so, 0 if not (or not readable), or an I/O failure.
 */
static int banner_at(struct kern *k, int64_t off, struct ms_err *err)
{
	const char *b = ms_kimage_banner(k->img);
	size_t len = strlen(b) + 1;
	char *buf = malloc(len);
	int r;

	if (!buf)
		return ms_err_errno(err, ENOMEM, "banner");
	r = kern_probe(k, ms_kimage_banner_addr(k->img) + (uint64_t)off, buf,
		       len, "linux_banner", err);
	if (!r)
		r = !memcmp(buf, b, len);
	else if (r > 0)
		r = 0;
	free(buf);
	return r;
}

/*
 * A stopped CPU's pc, a hint where the kernel is: 1 with *pc, 0 if the
 * source has none, or an I/O failure (the target stopped answering).
 */
static int stopped_pc(struct kern *k, uint64_t *pc, struct ms_err *err)
{
	struct ms_err e = { 0 };
	int r;

	*pc = 0;
	if (!k->mem->ops->pc)
		return 0;
	r = k->mem->ops->pc(k->mem, pc, &e);
	if (!r)
		return 1;
	*pc = 0;
	if (!ms_mem_io_failure(&e, r))
		return 0;
	*err = e;
	return r;
}

/*
 * Over the link there is no VMCOREINFO: try every KASLR offset the
 * architecture allows, those that put a stopped CPU's pc inside the
 * image first (usually one or a few reads), until the image's banner is
 * where it should be. An I/O failure ends the search: a target that
 * stopped answering says nothing about the image.
 */
static int offset_from_banner(struct kern *k, struct ms_err *err)
{
	const struct karch *a = karch(ms_kimage_elf_machine(k->img));
	uint64_t pc;
	int r = banner_at(k, 0, err), have_pc;

	if (r)
		return r < 0 ? r : 0;
	if (!a)
		return ms_err_set(err, ENOTSUP,
				  "%s: the kernel image's banner is not at its link address and modsect knows no KASLR range for this architecture",
				  k->origin);
	have_pc = stopped_pc(k, &pc, err);
	if (have_pc < 0)
		return have_pc;
	for (int pass = have_pc ? 0 : 1; pass < 2; pass++) {
		for (uint64_t off = 0; k->link_start + off < a->window_end;
		     off += a->align) {
			bool inside = pc >= k->link_start + off &&
				      pc < k->link_end + off;

			if ((pass == 0) != inside)
				continue;
			r = banner_at(k, (int64_t)off, err);
			if (r < 0)
				return r;
			if (r) {
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
	struct ms_err e = { 0 };
	unsigned char buf[64];
	size_t n = want ? strlen(want) / 2 : 0;
	char *vmci = NULL;
	int r = 0;

	if (want && n <= sizeof(buf))
		r = kern_probe(k,
			       ms_kimage_build_id_addr(k->img) +
				       (uint64_t)k->offset,
			       buf, n, "the kernel's build-id", err);
	if (r < 0)
		return r;
	if (want && n <= sizeof(buf) && !r)
		k->build_id = ms_hex_dup(buf, n);
	r = ms_mem_vmcoreinfo_get(k->mem, "BUILD-ID", &vmci, &e);
	if (r == -ENOMEM)
		return ms_err_errno(err, ENOMEM, "VMCOREINFO");
	/* VMCOREINFO's BUILD-ID (0935288c6e00, 5.9) is the kernel's word. */
	if (vmci && (!k->build_id || strcmp(vmci, k->build_id))) {
		free(k->build_id);
		k->build_id = vmci;
		vmci = NULL;
	}
	free(vmci);
	if (want && k->build_id && strcmp(want, k->build_id) && !force)
		return ms_err_set(err, EBADMSG,
				  "the kernel image %s has build-id %s but the running kernel (%s) has build-id %s; give the image it booted, or --force",
				  ms_kimage_path(k->img), want, k->origin,
				  k->build_id);
	return 0;
}

/* k->offset from VMCOREINFO if the banner confirms it, else searched. */
static int find_offset(struct kern *k, struct ms_err *err)
{
	int r;

	if (!offset_from_vmcoreinfo(k))
		return offset_from_banner(k, err);
	r = banner_at(k, k->offset, err);
	if (r < 0)
		return r;
	return r ? 0 : offset_from_banner(k, err);
}

int kfind_from_image(struct kern *k, const char *path, bool force,
		     struct ms_err *err)
{
	const void *btf;
	size_t len;
	int r = k->ctx ? ms_kimage_open_cached(k->ctx, path, &k->img, err) :
			 ms_kimage_open(path, &k->img, err);

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
	r = find_offset(k, err);
	if (r)
		return r;
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
	/* No BTF: the walk's layouts come from DWARF (kdwarf.c). */
	if (!btf &&
	    asprintf(&k->why_no_btf,
		     "the kernel image %s has no BTF (CONFIG_DEBUG_INFO_BTF)",
		     path) < 0)
		return ms_err_errno(err, ENOMEM, "BTF");
	if (!btf)
		return 0;
	k->btf = btf__new(btf, (uint32_t)len);
	if (!k->btf)
		return ms_err_set(err, EINVAL,
				  "the kernel image %s: its BTF does not parse",
				  path);
	return 0;
}

/* ---- no image: everything from memory ---- */

/* 1 if a byte at addr reads, 0 if not, or an I/O failure. */
static int mapped(struct kern *k, uint64_t addr, struct ms_err *err)
{
	unsigned char c;
	int r = kern_probe(k, addr, &c, 1, "probe", err);

	return r < 0 ? r : !r;
}

/*
 * Where _text is, as VMCOREINFO says (1: *pc is _stext and mapped:
 * arm64 maps nothing from _text to it), or a hint in *pc: _stext not
 * mapped, or a stopped CPU's pc (in a module or user space it says
 * nothing); 0 with *pc 0 for none.
 */
static int text_hint(struct kern *k, const struct karch *a, uint64_t *pc,
		     struct ms_err *err)
{
	struct ms_err e = { 0 };
	char *v;
	int r = ms_mem_vmcoreinfo_get(k->mem, "SYMBOL(_stext)", &v, &e);

	*pc = 0;
	if (r == -ENOMEM)
		return ms_err_errno(err, ENOMEM, "VMCOREINFO");
	if (r) {
		r = stopped_pc(k, pc, err);
		return r < 0 ? r : 0;
	}
	*pc = strtoull(v, NULL, 16);
	free(v);
	if (*pc < a->window_start || *pc >= a->window_end)
		return 0;
	return mapped(k, *pc, err);
}

/*
 * _text at or below a pc in the window: x86-64 maps nothing below it in
 * the kernel text window (cleanup_highmap()), so it is the lowest mapped
 * slot; i386 maps everything (direct_map): a little below the pc. 1 with
 * *ret, 0 if nothing there is mapped, or an I/O failure.
 */
static int text_below(struct kern *k, const struct karch *a, uint64_t pc,
		      uint64_t *ret, struct ms_err *err)
{
	uint64_t s = pc & ~(a->align - 1);
	int r = 1;

	if (a->direct_map) {
		s -= s - a->window_start < KFIND_DIRECT_BELOW ?
			     s - a->window_start :
			     KFIND_DIRECT_BELOW;
		*ret = s;
		return 1;
	}
	while (s - a->align >= a->window_start &&
	       (r = mapped(k, s - a->align, err)) > 0)
		s -= a->align;
	if (r >= 0)
		r = mapped(k, s, err);
	/* arm64: the slot's start (_text) unmapped; the pc's page is. */
	if (!r) {
		s = pc & ~(uint64_t)4095;
		r = mapped(k, s, err);
	}
	if (r > 0)
		*ret = s;
	return r;
}

/*
 * _text: from VMCOREINFO, below a stopped CPU's pc, or without a pc in
 * the window the first mapped slot.
 */
static int find_text(struct kern *k, const struct karch *a, uint64_t *ret,
		     struct ms_err *err)
{
	uint64_t pc, s;
	int r = text_hint(k, a, &pc, err);

	if (r > 0)
		*ret = pc;
	if (!r && pc >= a->window_start && pc < a->window_end)
		r = text_below(k, a, pc, ret, err);
	if (r)
		return r < 0 ? r : 0;
	if ((a->window_end - a->window_start) / a->align > KFIND_MAX_PROBES)
		return ms_err_set(err, ESRCH,
				  "%s: no CPU is stopped in the kernel, and the kernel may be anywhere in 0x%" PRIx64 "-0x%" PRIx64 "; stop the target in the kernel or give --kernel-image",
				  k->origin, a->window_start, a->window_end);
	for (s = a->window_start; s < a->window_end; s += a->align) {
		r = mapped(k, s, err);
		if (r > 0)
			*ret = s;
		if (r)
			return r < 0 ? r : 0;
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

/*
 * The image from _text until memory ends or the tables are found; an
 * I/O failure ends it with its own message, not "no tables".
 */
static int read_image(struct kern *k, uint64_t text, struct blob *b,
		      struct ms_err *err)
{
	int r = -ENOENT, p;

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
		} else {
			p = kern_probe(k, text + b->len, n + b->len,
				       KFIND_CHUNK, "the kernel image", err);
			if (p < 0)
				return p;
			if (p)
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
			       "%s: the running kernel has no BTF (CONFIG_DEBUG_INFO_BTF)",
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

/*
 * The build-id from the notes between __start_notes and __stop_notes,
 * if kallsyms has them; only an I/O failure is an error.
 */
static int memory_notes(struct kern *k, struct ms_err *err)
{
	struct ms_err e = { 0 };
	unsigned char *notes;
	uint64_t at;
	size_t len;
	int r;

	if (sym_range(k, "__start_notes", "__stop_notes", &at, &len, 1u << 16,
		      &e) ||
	    !len)
		return 0;
	notes = malloc(len);
	if (!notes)
		return ms_err_errno(err, ENOMEM, "kernel notes");
	r = kern_probe(k, at, notes, len, "kernel notes", err);
	if (!r && ms_notes_build_id(notes, len, k->big_endian, &k->build_id))
		r = ms_err_errno(err, ENOMEM, "kernel notes");
	free(notes);
	return r < 0 ? r : 0;
}

int kfind_from_memory(struct kern *k, struct ms_err *err)
{
	const struct karch *a;
	struct blob b = { 0 };
	uint64_t text = 0, at;
	int r;

	k->elf_machine = k->mem->elf_machine;
	k->ptr_size = k->mem->elf_class == ELFCLASS32 ? 4 : 8;
	k->big_endian = k->mem->big_endian;
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
	/* No BTF: the walk's layouts come from DWARF (kdwarf.c). */
	if (r == -ENOTSUP)
		r = (k->why_no_btf = strdup(err->msg)) ?
			    0 :
			    ms_err_errno(err, ENOMEM, "BTF");
	if (!r)
		r = memory_notes(k, err);
	/* No __start_notes in a kallsyms of text only (kdata.c). */
	if (!r)
		r = kdata_notes_build_id(k, err);
	return r;
}
