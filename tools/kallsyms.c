// SPDX-License-Identifier: GPL-2.0-or-later
/* modsect kallsyms: the core kernel's symbols as an ELF file for debuggers. */
#include <stdlib.h>

#include "cli.h"

int do_kallsyms(struct run *run)
{
	char *buf = NULL;
	size_t len;
	int r = ms_kallsyms_elf_bytes(run->map, &buf, &len, &run->err);

	if (!r)
		r = ms_write_out(run->o->output, buf, len, &run->err);
	/* Asked for with --kernel-image; otherwise the ELF is the symbols. */
	if (!r && run->o->kernel_image) {
		warn_no_orc(run->map);
		warn_no_btf(run->map);
	}
	free(buf);
	return r;
}
