// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The map from memory: the kernel found (kfind.c), its release from
 * init_uts_ns, the module walk (kmem.c) and the core symbols, into an
 * ordinary struct ms_map.
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "kmem-int.h"

static int read_uts(struct kern *k, const struct klayout *l, struct ms_err *err)
{
	unsigned char buf[65];
	uint64_t uts;
	int r = kern_sym(k, "init_uts_ns", &uts, err);
	char **dst[] = { &k->release, &k->machine };
	const struct kfield *f[] = { &l->uts_release, &l->uts_machine };

	/*
	 * No data symbols (kdata.c), or no uts_namespace in a module's
	 * DWARF: the banner's release, the ELF machine.
	 */
	if ((r == -ENOENT || (!r && !l->uts_release.found)) &&
	    k->banner_release) {
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

		r = ms_mem_read(k->mem, uts + f[i]->off, buf, n, "init_uts_ns",
				err);
		if (!r && !memchr(buf, '\0', n))
			r = ms_err_set(err, EBADMSG,
				       "%s: init_uts_ns at 0x%" PRIx64
				       " holds no string",
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
	free(k->why_no_btf);
	kdwarf_free(k->dw);
	free(k->own_origin);
}

static int add_core(struct ms_map *map, const struct kern *k,
		    struct ms_err *err)
{
	int r = 0;

	for (size_t i = 0; !r && i < k->ksyms->nsyms; i++) {
		const struct ms_ksym *s = &k->ksyms->syms[i];

		r = ms_map_add_core(map, s->name, kern_moved(k, s->addr),
				    s->type, err);
	}
	return r;
}

/* The tables, or why not: only an I/O failure or memory ends the read. */
static int add_orc(struct ms_map *map, const struct kern *k,
		   struct ms_err *err)
{
	struct ms_err why = { 0 };
	int r = k->elf_machine == EM_AARCH64 ?
			kern_read_a64(k, &map->core_a64, &why) :
		k->elf_machine == EM_386 ?
			kern_read_x86(k, &map->core_x86, &why) :
			kern_read_orc(k, &map->core_orc, &why);

	if (!r)
		return 0;
	if (r == -ENOMEM || ms_mem_io_failure(&why, r)) {
		*err = why;
		return r;
	}
	return (map->why_no_orc = strdup(why.msg)) ?
		       0 :
		       ms_err_errno(err, ENOMEM, "ORC");
}

/* The BTF the walk read its layouts from: memory's or the image's. */
static int add_btf(struct ms_map *map, const struct kern *k,
		   struct ms_err *err)
{
	uint32_t len = 0;
	const void *raw = k->btf ? btf__raw_data(k->btf, &len) : NULL;

	if (!k->btf)
		return (map->why_no_btf = strdup(
				k->why_no_btf ? k->why_no_btf :
						"the kernel has no BTF")) ?
			       0 :
			       ms_err_errno(err, ENOMEM, "BTF");
	if (!raw || !len)
		return ms_err_set(err, EINVAL, "%s: the kernel's BTF",
				  k->origin);
	return ms_map_set_btf(map, raw, len, err);
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
	int r = k->btf ? 0 : kdwarf_for_kernel(k, err);

	/* The release is only for messages until init_uts_ns is read. */
	if (!r)
		r = klayout_read(&(struct ktypes){ k->btf, k->dw,
						   k->banner_release },
				 &l, err);
	if (!r)
		r = read_uts(k, &l, err);
	if (!r)
		r = kmem_read_modules(k, &l, only_module, map, err);
	if (!r && (flags & MS_READ_CORE))
		r = add_core(map, k, err);
	if (!r && (flags & MS_READ_ORC))
		r = add_orc(map, k, err);
	if (!r && (flags & MS_READ_BTF))
		r = add_btf(map, k, err);
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
	struct kern k = { .ctx = src->ctx,
			  .mem = src->mem,
			  .origin = src->mem->origin,
			  .only_at = src->module_at,
			  .find_layout = src->find_layout,
			  .find_arg = src->find_arg,
			  .note = src->note,
			  .note_arg = src->note_arg };
	struct ms_map *map = calloc(1, sizeof(*map));
	int r;

	if (!map)
		return ms_err_errno(err, ENOMEM, "map");
	if (src->kernel_image)
		r = kfind_from_image(&k, src->kernel_image, src->force, err);
	else
		r = kfind_from_memory(&k, err);
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

int ms_kernel_open(const struct ms_mem_src *src, struct ms_kernel **ret,
		   struct ms_err *err)
{
	struct ms_kernel *mk = calloc(1, sizeof(*mk));
	struct kern *k;
	struct klayout l;
	int r;

	if (!mk)
		return ms_err_errno(err, ENOMEM, "kernel");
	k = &mk->k;
	*k = (struct kern){ .ctx = src->ctx,
			    .mem = src->mem,
			    .origin = src->mem->origin };
	if (src->kernel_image)
		r = kfind_from_image(k, src->kernel_image, src->force, err);
	else
		r = kfind_from_memory(k, err);
	if (!r && !k->btf)
		r = ms_err_set(err, ENOTSUP,
			       "%s: the kernel has no BTF, which reading its tasks needs",
			       k->origin);
	if (!r)
		r = klayout_read(&(struct ktypes){ k->btf, NULL, NULL }, &l,
				 err);
	if (!r)
		r = read_uts(k, &l, err);
	if (r) {
		ms_kernel_free(mk);
		return r;
	}
	*ret = mk;
	return 0;
}

void ms_kernel_free(struct ms_kernel *mk)
{
	if (!mk)
		return;
	kern_clear(&mk->k);
	free(mk);
}

const char *ms_kernel_release(const struct ms_kernel *mk)
{
	return mk->k.release;
}

int ms_kernel_elf_machine(const struct ms_kernel *mk)
{
	return mk->k.elf_machine;
}

struct ms_mem *ms_kernel_mem(const struct ms_kernel *mk)
{
	return mk->k.mem;
}
