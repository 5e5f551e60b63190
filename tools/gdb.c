// SPDX-License-Identifier: GPL-2.0-or-later
/* modsect gdb: add-symbol-file commands for gdb to source. */
#include "cli.h"

int do_gdb(struct opts *o)
{
	return emit_modules(o, ms_emit_gdb,
			    "gdb commands; load with: source FILE");
}
