// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Struct layouts from DWARF, for kernels built without BTF (Debian's
 * 686-pae, armmp, ppc64el and s390x). Any module built with debug info
 * against the kernel's headers describes struct module (for its
 * __this_module, in the unit of its .mod.c) and what it points to; a
 * debug vmlinux describes everything. The file is checked before it is
 * believed: its machine and class are the kernel's, a module's vermagic
 * names the running release, a vmlinux's build-id is the kernel's.
 * The layouts themselves are read by kdwtype.c.
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "kmem-int.h"

/* ---- opening ---- */

static int no_debuginfo(Dwfl_Module *m, void **u, const char *name,
			Dwarf_Addr base, const char *file, const char *link,
			GElf_Word crc, char **ret)
{
	(void)m, (void)u, (void)name, (void)base, (void)file, (void)link;
	(void)crc, (void)ret;
	return -1; /* the file itself carries the DWARF */
}

static const Dwfl_Callbacks kdw_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = no_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* "vermagic=6.1.0-57-686-pae SMP ..." of .modinfo: the release. */
static int read_vermagic(struct kdwarf *d, Elf *elf)
{
	static const char key[] = "vermagic=";
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) ||
		    !(n = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(n, ".modinfo") || !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < data->d_size;) {
			const char *s = (const char *)data->d_buf + i;
			size_t len = strnlen(s, data->d_size - i);

			if (len > sizeof(key) - 1 &&
			    !memcmp(s, key, sizeof(key) - 1)) {
				s += sizeof(key) - 1;
				d->vermagic = strndup(s, strcspn(s, " "));
				return d->vermagic ? 0 : -ENOMEM;
			}
			i += len + 1;
		}
	}
	return 0;
}

static int kdwarf_open(const char *path, struct kdwarf **ret,
		       struct ms_err *err)
{
	struct kdwarf *d = calloc(1, sizeof(*d));
	const unsigned char *id;
	Dwfl_Module *mod;
	Dwarf_Addr bias, vaddr;
	GElf_Ehdr eh;
	Elf *elf;
	int n;

	if (!d || !(d->path = strdup(path)) ||
	    !(d->dwfl = dwfl_begin(&kdw_callbacks))) {
		kdwarf_free(d);
		return ms_err_errno(err, ENOMEM, "DWARF of %s", path);
	}
	mod = dwfl_report_offline(d->dwfl, "layout", path, -1);
	dwfl_report_end(d->dwfl, NULL, NULL);
	elf = mod ? dwfl_module_getelf(mod, &bias) : NULL;
	d->dw = elf ? dwfl_module_getdwarf(mod, &bias) : NULL;
	if (!elf || !gelf_getehdr(elf, &eh) || !d->dw) {
		ms_err_set(err, ENOENT, "%s: %s", path,
			   !elf ? dwfl_errmsg(-1) :
				  "no DWARF (no .debug_info)");
		kdwarf_free(d);
		return -ENOENT;
	}
	d->machine = eh.e_machine;
	d->ptr_size = eh.e_ident[EI_CLASS] == ELFCLASS32 ? 4 : 8;
	/* i386's SysV ABI aligns 8-byte scalars in structs to 4. */
	d->max_align = d->machine == EM_386 ? 4 : 8;
	n = dwfl_module_build_id(mod, &id, &vaddr);
	if (n > 0 && !(d->build_id = ms_hex_dup(id, (size_t)n))) {
		kdwarf_free(d);
		return ms_err_errno(err, ENOMEM, "DWARF of %s", path);
	}
	if (read_vermagic(d, elf)) {
		kdwarf_free(d);
		return ms_err_errno(err, ENOMEM, "DWARF of %s", path);
	}
	*ret = d;
	return 0;
}

void kdwarf_free(struct kdwarf *d)
{
	if (!d)
		return;
	if (d->dwfl)
		dwfl_end(d->dwfl);
	free(d->path);
	free(d->vermagic);
	free(d->build_id);
	free(d);
}

const char *kdwarf_path(const struct kdwarf *d)
{
	return d->path;
}

static bool release_at_least(const char *rel, unsigned int maj,
			     unsigned int min)
{
	unsigned int a = 0, b = 0;

	if (!rel || sscanf(rel, "%u.%u", &a, &b) != 2)
		return false;
	return a > maj || (a == maj && b >= min);
}

/* ---- the file for a kernel ---- */

/* Is d the running kernel's? 0, or why not. */
static int check_file(const struct kern *k, const struct kdwarf *d,
		      const char *rel, struct ms_err *err)
{
	if (d->machine != k->elf_machine || d->ptr_size != k->ptr_size)
		return ms_err_set(
			err, EINVAL,
			"%s is for ELF machine %d (%d-bit), but the kernel is machine %d (%d-bit)",
			d->path, d->machine, 8 * d->ptr_size, k->elf_machine,
			8 * k->ptr_size);
	if (d->vermagic && strcmp(d->vermagic, rel))
		return ms_err_set(
			err, EINVAL,
			"%s was built for kernel %s (its vermagic), but the running kernel is %s: its struct module may differ; give a module built for %s",
			d->path, d->vermagic, rel, rel);
	if (!d->vermagic && d->build_id && k->build_id &&
	    strcmp(d->build_id, k->build_id))
		return ms_err_set(
			err, EINVAL,
			"%s has build-id %s but the running kernel has build-id %s; give its debug vmlinux",
			d->path, d->build_id, k->build_id);
	return 0;
}

static int open_checked(struct kern *k, const char *path, const char *rel,
			struct ms_err *err)
{
	struct kdwarf *d = NULL;
	struct kstruct s;
	int r = kdwarf_open(path, &d, err);

	if (!r)
		r = check_file(k, d, rel, err);
	if (!r)
		r = kdwarf_struct(d, "module", rel, false, &s, err);
	if (r) {
		kdwarf_free(d);
		return r;
	}
	d->v614 = release_at_least(rel, 6, 14);
	k->dw = d;
	return 0;
}

/* Where the layouts came from, for the user (origin and a note). */
static int say_file(struct kern *k, const char *rel, struct ms_err *err)
{
	char *msg, *origin;

	if (asprintf(
		    &msg,
		    "the kernel has no BTF: struct layouts from the DWARF of %s (%s %s)",
		    k->dw->path, k->dw->vermagic ? "built for" : "build-id",
		    k->dw->vermagic ? k->dw->vermagic :
		    k->dw->build_id ? k->dw->build_id :
				      rel) < 0)
		return ms_err_errno(err, ENOMEM, "note");
	if (k->note)
		k->note(k->note_arg, msg);
	free(msg);
	if (asprintf(&origin, "%s, layouts from %s", k->origin, k->dw->path) <
	    0)
		return ms_err_errno(err, ENOMEM, "origin");
	free(k->own_origin);
	k->own_origin = origin;
	k->origin = origin;
	return 0;
}

int kdwarf_for_kernel(struct kern *k, struct ms_err *err)
{
	const char *rel = k->release ? k->release : k->banner_release;
	const char *why = k->why_no_btf ? k->why_no_btf :
					  "the kernel has no BTF";
	char *path = NULL;
	int r;

	if (k->dw)
		return 0;
	if (!rel)
		return ms_err_set(
			err, ENOTSUP,
			"%s; and its release is unknown, so no module's DWARF can be checked against it",
			why);
	if (k->layout_path)
		return open_checked(k, k->layout_path, rel, err) ?:
			       say_file(k, rel, err);
	/* A debug vmlinux given as the image: already checked by build-id. */
	if (k->img && !strcmp(ms_kimage_kind(k->img), "vmlinux") &&
	    !open_checked(k, ms_kimage_path(k->img), rel,
			  &(struct ms_err){ 0 }))
		return say_file(k, rel, err);
	r = k->find_layout ? k->find_layout(k->find_arg, rel, k->elf_machine,
					    k->build_id, &path, err) :
			     ms_err_set(err, ENOENT, "no place to look");
	if (r == -ENOENT) {
		char looked[sizeof(err->msg)];

		snprintf(looked, sizeof(looked), "%s", err->msg);
		return ms_err_set(
			err, ENOTSUP,
			"%s; modsect then needs struct module from DWARF: give a module built with debug info for kernel %s (--search DIR) or its debug vmlinux (--kernel-image, --debug-dir); %s",
			why, rel, looked);
	}
	if (!r)
		r = open_checked(k, path, rel, err);
	free(path);
	return r ? r : say_file(k, rel, err);
}
