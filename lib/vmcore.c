// SPDX-License-Identifier: GPL-2.0-or-later
/* vmcores through libkdumpfile: placeholder until written. */
#include <errno.h>

#include "kmem.h"

int ms_vmcore_open(const char *path, struct ms_mem **ret, struct ms_err *err)
{
	(void)ret;
	return ms_err_set(err, ENOTSUP, "--vmcore %s: not implemented yet",
			  path);
}
