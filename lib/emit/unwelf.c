// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ELF files a debugger adds beside a module's own, with debug sections
 * only: its unwind tables (.debug_frame at runtime addresses), its types
 * (.debug_info from its BTF). They have no
 * allocated section on purpose: gdb finds an FDE in any objfile, and a
 * section here would overlap the module file's and could take the
 * module's addresses from its symbols.
 */
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"

static Elf_Scn *add_scn(Elf *elf, size_t name, GElf_Word type, void *buf,
			size_t len)
{
	Elf_Scn *scn = elf_newscn(elf);
	GElf_Shdr sh;
	Elf_Data *d;

	if (!scn || !gelf_getshdr(scn, &sh) || !(d = elf_newdata(scn)))
		return NULL;
	sh.sh_name = (GElf_Word)name;
	sh.sh_type = type;
	sh.sh_addralign = 1;
	sh.sh_size = len;
	d->d_buf = buf;
	d->d_size = len;
	d->d_type = ELF_T_BYTE;
	d->d_align = 1;
	return gelf_update_shdr(scn, &sh) ? scn : NULL;
}

static int write_elf(int fd, const struct ms_dbgelf *d, struct ms_err *err)
{
	struct ms_strtab shstr = { 0 };
	uint32_t name;
	Elf *elf;
	GElf_Ehdr eh;
	Elf_Scn *sh;
	int r = 0;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_WRITE, NULL);
	if (!elf || !gelf_newehdr(elf, d->cls) || !gelf_getehdr(elf, &eh))
		goto fail;
	eh.e_ident[EI_DATA] = (unsigned char)d->data;
	eh.e_type = ET_EXEC;
	eh.e_machine = (GElf_Half)d->em;
	eh.e_version = EV_CURRENT;
	for (size_t i = 0; i < d->nsecs; i++) {
		if (ms_strtab_add(&shstr, d->secs[i].name, &name))
			goto oom;
		if (!add_scn(elf, name, SHT_PROGBITS, (void *)d->secs[i].buf,
			     d->secs[i].len))
			goto fail;
	}
	if (ms_strtab_add(&shstr, ".shstrtab", &name))
		goto oom;
	/* libelf reads the table's bytes in elf_update, below */
	if (!(sh = add_scn(elf, name, SHT_STRTAB, shstr.b.buf, shstr.b.len)))
		goto fail;
	eh.e_shstrndx = (GElf_Half)elf_ndxscn(sh);
	if (!gelf_update_ehdr(elf, &eh) || elf_update(elf, ELF_C_WRITE) < 0)
		goto fail;
	goto out;
oom:
	r = ms_err_errno(err, ENOMEM, "debug ELF");
	goto out;
fail:
	r = ms_err_set(err, EIO, "debug ELF: libelf: %s", elf_errmsg(-1));
out:
	elf_end(elf);
	ms_strtab_free(&shstr);
	return r;
}

static int dbg_fd(int fd, const void *arg, struct ms_err *err)
{
	return write_elf(fd, arg, err);
}

int ms_debug_elf_bytes(const struct ms_dbgelf *d, char **buf_ret,
		       size_t *len_ret, struct ms_err *err)
{
	return ms_fd_bytes(dbg_fd, d, buf_ret, len_ret, err);
}

int ms_cfi_elf_bytes(const void *cfi, size_t len, char **buf_ret,
		     size_t *len_ret, struct ms_err *err)
{
	struct ms_dbgsec sec = { ".debug_frame", cfi, len };
	struct ms_dbgelf d = { EM_X86_64, ELFCLASS64, ELFDATA2LSB, &sec, 1 };

	return ms_debug_elf_bytes(&d, buf_ret, len_ret, err);
}

int ms_unwind_elf_bytes(const struct ms_orc *orc, char **buf_ret,
			size_t *len_ret, struct ms_err *err)
{
	void *cfi = NULL;
	size_t len = 0;
	int r = ms_orc_to_debug_frame(orc, 0, NULL, 0, &cfi, &len, NULL, err);

	if (!r)
		r = ms_cfi_elf_bytes(cfi, len, buf_ret, len_ret, err);
	free(cfi);
	return r;
}
