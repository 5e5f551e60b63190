// SPDX-License-Identifier: GPL-2.0-or-later
/* The kernel architectures modsect knows, by uname, ELF and debugger names. */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base.h"

/*
 * uname -m of the kernels modsect knows, the ELF they load, and what the
 * debuggers call them: gdb's `set architecture` names (gdb-multiarch
 * 13: `set architecture` with no argument lists them), lldb's triples
 * (lldb 14 `target create --arch`). Several names of one ELF machine: the
 * first is the one messages use.
 */
static const struct ms_arch arches[] = {
	{ "x86_64", EM_X86_64, ELFCLASS64, ELFDATA2LSB, "i386:x86-64",
	  "x86_64-unknown-linux-gnu" },
	{ "aarch64", EM_AARCH64, ELFCLASS64, ELFDATA2LSB, "aarch64",
	  "aarch64-unknown-linux-gnu" },
	{ "riscv64", EM_RISCV, ELFCLASS64, ELFDATA2LSB, "riscv:rv64",
	  "riscv64-unknown-linux-gnu" },
	{ "ppc64le", EM_PPC64, ELFCLASS64, ELFDATA2LSB, "powerpc:common64",
	  "powerpc64le-unknown-linux-gnu" },
	/* Big-endian: a report's MSR line tells it apart (logparse.c). */
	{ "ppc64", EM_PPC64, ELFCLASS64, ELFDATA2MSB, "powerpc:common64",
	  "powerpc64-unknown-linux-gnu" },
	{ "s390x", EM_S390, ELFCLASS64, ELFDATA2MSB, "s390:64-bit",
	  "s390x-unknown-linux-gnu" },
	/* 32-bit x86 says i686 (i586, i486 on older CPUs): the boot CPU's family. */
	{ "i686", EM_386, ELFCLASS32, ELFDATA2LSB, "i386",
	  "i386-unknown-linux-gnu" },
	{ "i586", EM_386, ELFCLASS32, ELFDATA2LSB, "i386",
	  "i386-unknown-linux-gnu" },
	{ "i486", EM_386, ELFCLASS32, ELFDATA2LSB, "i386",
	  "i386-unknown-linux-gnu" },
	{ "i386", EM_386, ELFCLASS32, ELFDATA2LSB, "i386",
	  "i386-unknown-linux-gnu" },
	{ "armv7l", EM_ARM, ELFCLASS32, ELFDATA2LSB, "arm",
	  "armv7-unknown-linux-gnueabihf" },
};

const struct ms_arch *ms_arch_of_machine(const char *uname_m)
{
	for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		if (strcmp(arches[i].machine, uname_m) == 0)
			return &arches[i];
	return NULL;
}

const struct ms_arch *ms_arch_of_elf(int em, int cls, int data)
{
	for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		if (arches[i].em == em && arches[i].cls == cls &&
		    arches[i].data == data)
			return &arches[i];
	return NULL;
}

int ms_machine_elf(const char *m, int *em, int *cls, int *data)
{
	const struct ms_arch *a = ms_arch_of_machine(m);

	if (!a)
		return -ENOTSUP;
	*em = a->em;
	*cls = a->cls;
	*data = a->data;
	return 0;
}

const char *ms_machine_name(int em, int cls)
{
	for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		if (arches[i].em == em && arches[i].cls == cls)
			return arches[i].machine;
	return "unknown";
}

const char *ms_elf_machine_str(int em, int cls, char *buf, size_t size)
{
	snprintf(buf, size, "%s (ELF machine %d, %d-bit)",
		 ms_machine_name(em, cls), em, cls == ELFCLASS64 ? 64 : 32);
	return buf;
}

bool ms_machine_other(const char *a, const char *b)
{
	const struct ms_arch *x = a ? ms_arch_of_machine(a) : NULL;
	const struct ms_arch *y = b ? ms_arch_of_machine(b) : NULL;

	return x && y && (x->em != y->em || x->cls != y->cls);
}
