// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: BTF to DWARF (lib/types/) on hostile BTF, as it
 * comes from a kernel's memory, a capture or a module file. The first
 * byte picks the mode: even, the rest is a kernel's BTF, its FUNCs and
 * VARs given made-up addresses (one name twice); odd, the rest is a
 * module's split BTF on a small base. What libbpf accepts must convert
 * or be refused with a message; what converts must read back with
 * libdw, every DW_AT_type a DIE of the unit.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "modsect.h"

static void walk(Dwarf_Die *d, int depth)
{
	Dwarf_Die c, t;
	Dwarf_Attribute a;

	if (depth > 64)
		abort();
	if (dwarf_attr(d, DW_AT_type, &a) && !dwarf_formref_die(&a, &t))
		abort();
	if (dwarf_child(d, &c))
		return;
	do
		walk(&c, depth + 1);
	while (!dwarf_siblingof(&c, &c));
}

static void check(const struct ms_dwarf *d)
{
	struct ms_dbgsec secs[] = { { ".debug_info", d->info, d->info_len },
				    { ".debug_abbrev", d->abbrev,
				      d->abbrev_len },
				    { ".debug_str", d->str, d->str_len } };
	struct ms_dbgelf de = { EM_X86_64, ELFCLASS64, ELFDATA2LSB, secs, 3 };
	struct ms_err err = { 0 };
	Dwarf_Off off = 0, next;
	size_t hsize, len;
	Dwarf_Die cu;
	char *buf;
	Elf *elf;
	Dwarf *dw;

	if (ms_debug_elf_bytes(&de, &buf, &len, &err))
		abort();
	elf = elf_memory(buf, len);
	dw = elf ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
	if (!dw)
		abort();
	while (!dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL)) {
		if (!dwarf_offdie(dw, off + hsize, &cu))
			abort();
		walk(&cu, 0);
		off = next;
	}
	dwarf_end(dw);
	elf_end(elf);
	free(buf);
}

static struct btf *base_btf(void)
{
	static struct btf *b;

	if (!b) {
		int i;

		b = btf__new_empty();
		i = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
		btf__add_struct(b, "node", 8);
		btf__add_field(b, "v", i, 0, 0);
		btf__add_ptr(b, 2);
		btf__add_typedef(b, "node_t", 2);
	}
	return b;
}

static struct btf *split(const uint8_t *data, size_t size)
{
	struct btf *btf = NULL;
	char path[64];
	int fd = memfd_create("fuzz-btf", MFD_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		btf = btf__parse_raw_split(path, base_btf());
	}
	close(fd);
	return btf;
}

/* A text symbol for each FUNC, a data symbol for each VAR, by name. */
static size_t symbols(const struct btf *btf, struct ms_tsym *s, size_t max,
		      int kind)
{
	size_t n = 0;

	for (unsigned int id = 1; id < btf__type_cnt(btf) && n + 1 < max;
	     id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name = btf__name_by_offset(btf, t->name_off);

		if (btf_kind(t) != kind || !name)
			continue;
		s[n] = (struct ms_tsym){ name, 0xffffffff81000000 + 64 * id,
					 16 };
		if (n == 1) { /* a name twice: left out */
			s[n + 1] = s[n];
			n++;
		}
		n++;
	}
	return n;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(((const struct ms_tsym *)a)->name,
		      ((const struct ms_tsym *)b)->name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ms_tsym f[256], v[256];
	struct ms_types_in in = { 0 };
	struct ms_err err = { 0 };
	struct ms_dwarf d;
	struct btf *btf;

	if (size < 2)
		return 0;
	elf_version(EV_CURRENT);
	libbpf_set_print(NULL);
	btf = data[0] & 1 ? split(data + 1, size - 1) :
			    btf__new(data + 1, (uint32_t)(size - 1));
	if (!btf)
		return 0;
	in.btf = btf;
	in.base = data[0] & 1 ? base_btf() : NULL;
	in.nfuncs = symbols(btf, f, 256, BTF_KIND_FUNC);
	in.nvars = symbols(btf, v, 256, BTF_KIND_VAR);
	qsort(f, in.nfuncs, sizeof(*f), cmp);
	qsort(v, in.nvars, sizeof(*v), cmp);
	in.funcs = f;
	in.vars = v;
	in.percpu_offsets = 0xffffffff82000000;
	in.char_signed = true;
	in.addr_size = 8;
	in.name = "fuzz";
	if (!ms_btf_to_dwarf(&in, &d, &err)) {
		check(&d);
		ms_dwarf_free(&d);
	} else if (!err.msg[0]) {
		abort();
	}
	btf__free(btf);
	return 0;
}
