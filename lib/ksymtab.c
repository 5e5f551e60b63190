// SPDX-License-Identifier: GPL-2.0-or-later
/* kallsyms tables: placeholder until written (replace this whole file). */
#include <errno.h>

#include "kmem.h"

int ms_ksymtab_find(const void *buf, size_t len, uint64_t base, int ptr_size,
		    bool big_endian, struct ms_ksymtab **ret, struct ms_err *err)
{
	(void)buf, (void)len, (void)base, (void)ptr_size, (void)big_endian;
	(void)ret;
	return ms_err_set(err, ENOTSUP, "kallsyms tables: not implemented yet");
}

void ms_ksymtab_free(struct ms_ksymtab *t)
{
	(void)t;
}

int ms_ksymtab_lookup(const struct ms_ksymtab *t, const char *name,
		      uint64_t *addr_ret)
{
	(void)t, (void)name, (void)addr_ret;
	return -ENOENT;
}
