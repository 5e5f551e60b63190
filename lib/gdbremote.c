// SPDX-License-Identifier: GPL-2.0-or-later
/* The GDB remote serial protocol client: placeholder until written. */
#include <errno.h>

#include "kmem.h"

int ms_remote_open(const char *spec, const struct ms_remote_opts *o,
		   struct ms_mem **ret, struct ms_err *err)
{
	(void)o;
	(void)ret;
	return ms_err_set(err, ENOTSUP, "--remote %s: not implemented yet",
			  spec);
}
