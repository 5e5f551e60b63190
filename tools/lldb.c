// SPDX-License-Identifier: GPL-2.0-or-later
/* modsect lldb: target modules add/load commands for lldb. */
#include "cli.h"

int do_lldb(struct opts *o)
{
	return emit_modules(o, ms_emit_lldb,
			    "lldb commands; load with: command source FILE");
}
