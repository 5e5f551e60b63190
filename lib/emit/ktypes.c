// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The core kernel's types for the kallsyms ELF: the map's BTF as DWARF
 * (types/), its functions at their kallsyms addresses and sizes, its
 * per-cpu variables through __per_cpu_offset.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "emit.h"

static int cmp_tsym(const void *a, const void *b)
{
	return strcmp(((const struct ms_tsym *)a)->name,
		      ((const struct ms_tsym *)b)->name);
}

/* Plain char is signed on x86 and unsigned on Debian's other ABIs. */
static bool char_signed_on(const char *machine)
{
	return !machine || !strcmp(machine, "x86_64") ||
	       (machine[0] == 'i' && !strcmp(machine + 2, "86"));
}

int ms_map_types(const struct ms_map *map, int addr_size, bool big_endian,
		 struct ms_dwarf *out, struct ms_err *err)
{
	struct ms_tsym *f = malloc((map->ncore + 1) * sizeof(*f));
	struct ms_tsym *v = malloc((map->ncore + 1) * sizeof(*v));
	struct ms_types_in in = { 0 };
	struct btf *btf = NULL;
	size_t nf = 0, nv = 0;
	int r;

	if (!f || !v) {
		r = ms_err_errno(err, ENOMEM, "kernel types");
		goto out;
	}
	if (map->core_btf_len > UINT32_MAX ||
	    !(btf = btf__new(map->core_btf, (uint32_t)map->core_btf_len))) {
		r = ms_err_set(err, EINVAL,
			       "%s: the kernel's BTF is not valid BTF (libbpf)",
			       map->origin);
		goto out;
	}
	for (size_t i = 0; i < map->ncore; i++) {
		const struct ms_ksym *s = &map->core[i];

		if (ms_ksym_is_text(s->type))
			f[nf++] = (struct ms_tsym){ s->name, s->addr,
						    ms_map_core_size(map, i) };
		else
			v[nv++] = (struct ms_tsym){ s->name, s->addr, 0 };
	}
	qsort(f, nf, sizeof(*f), cmp_tsym);
	qsort(v, nv, sizeof(*v), cmp_tsym);
	in.btf = btf;
	in.funcs = f;
	in.nfuncs = nf;
	in.vars = v;
	in.nvars = nv;
	ms_map_core_symbol(map, "__per_cpu_offset", &in.percpu_offsets);
	in.addr_size = addr_size;
	in.big_endian = big_endian;
	in.char_signed = char_signed_on(map->machine);
	in.name = "vmlinux (BTF)";
	r = ms_btf_to_dwarf(&in, out, err);
out:
	btf__free(btf);
	free(f);
	free(v);
	return r;
}

/*
 * libbpf 1.1 (Debian 12) parses split BTF only from a file
 * (btf__new_split came in 1.3): the bytes go through a memfd.
 */
static int split_btf(const void *data, size_t len, struct btf *base,
		     struct btf **ret, struct ms_err *err)
{
	char path[64];
	int fd = memfd_create("modsect-btf", MFD_CLOEXEC);

	*ret = NULL;
	if (fd < 0)
		return ms_err_errno(err, errno, "memfd");
	if (len <= MS_MAX_BTF && write(fd, data, len) == (ssize_t)len) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		*ret = btf__parse_raw_split(path, base);
	}
	close(fd);
	return 0;
}

int ms_module_types(const struct ms_map *map, struct btf **base,
		    const struct ms_modfile *f, int addr_size, bool big_endian,
		    struct ms_dwarf *out, struct ms_err *err)
{
	struct ms_types_in in = { 0 };
	const void *data;
	struct btf *btf;
	size_t len;
	int r;

	if (!map->core_btf)
		return ms_err_set(err, ENOENT, "no kernel BTF");
	if (ms_modfile_btf(f, &data, &len))
		return ms_err_set(err, ENOENT, "%s has no BTF",
				  ms_modfile_path(f));
	if (!*base &&
	    (map->core_btf_len > UINT32_MAX ||
	     !(*base = btf__new(map->core_btf, (uint32_t)map->core_btf_len))))
		return ms_err_set(
			err, EINVAL,
			"%s: the kernel's BTF is not valid BTF (libbpf)",
			map->origin);
	if ((r = split_btf(data, len, *base, &btf, err)))
		return r;
	if (!btf)
		return ms_err_set(
			err, EINVAL,
			"%s: its BTF is not valid on the kernel's (libbpf): not of this kernel's build?",
			ms_modfile_path(f));
	in.btf = btf;
	in.base = *base;
	in.addr_size = addr_size;
	in.big_endian = big_endian;
	in.char_signed = char_signed_on(map->machine);
	in.name = ms_modfile_path(f);
	r = ms_btf_to_dwarf(&in, out, err);
	btf__free(btf);
	return r;
}
