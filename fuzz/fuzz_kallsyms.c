// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: kallsyms lines through the capture reader ("ADDR TYPE
 * SYMBOL [MOD]", "core ...", "kallsyms ..."), then the map's core symbols
 * written as an ELF file (ms_kallsyms_elf) to a memfd, which libelf must
 * read back with the symbol count it was given.
 */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "modsect.h"

static int fd = -1;

static void check_elf(void)
{
	Elf *e;

	if (lseek(fd, 0, SEEK_SET) < 0)
		abort();
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF)
		abort();
	elf_end(e);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct ms_map *map = NULL;
	struct ms_err err = { 0 };

	if (fd < 0) {
		fd = memfd_create("kallsyms-fuzz", MFD_CLOEXEC);
		if (fd < 0)
			abort();
		elf_version(EV_CURRENT);
	}
	if (ms_map_parse_capture((const char *)data, size, "fuzz", &map,
				 &err) < 0)
		return 0;
	if (ftruncate(fd, 0) < 0 || lseek(fd, 0, SEEK_SET) < 0)
		abort();
	if (ms_kallsyms_elf(map, fd, &err) == 0)
		check_elf();
	else if (!err.msg[0])
		abort();
	ms_map_free(map);
	return 0;
}
