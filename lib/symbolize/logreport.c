// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where one kernel report ends and the next begins in a stream of log
 * text (a console log, many reports concatenated by a crash collector),
 * so that each is decoded on its own: its machine, its modules, its map.
 *
 * A report opens with the line that says what happened, printed before
 * its register dump and trace: the "cut here" line of a WARN or BUG
 * (include/asm-generic/bug.h CUT_HERE), "WARNING: " (kernel/panic.c
 * __warn), "BUG: " (mm/kasan, x86 page faults, lockdep, the scheduler's
 * "scheduling while atomic"), "kernel BUG at", "Oops" and "Internal
 * error: " (arm, arm64, powerpc die()), "Unable to handle kernel"
 * (arm, arm64, powerpc page faults), "general protection fault" (x86),
 * "Kernel panic - not syncing" (panic()), "INFO: " (hung tasks, RCU
 * stalls), "UBSAN: " (lib/ubsan.c), and dump_stack()'s own header, "CPU:
 * %d PID: %d" ("CPU: %d UID: %u PID: %d" since 6.11; lib/dump_stack.c
 * dump_stack_print_info), with which many a report's excerpt begins. A
 * report prints that header after its first line, so the caller does not
 * end a report at one before that report has frames of its own (nor
 * where lockdep prints it after "stack backtrace:", below the chains it
 * found). A report ends with "---[ end trace" (kernel/panic.c
 * print_oops_end_marker, since 2.6.27) or "---[ end Kernel panic".
 */
#include <ctype.h>
#include <string.h>

#include "symbolize.h"

static const char *const starts[] = {
	"------------[ cut here ]------------",
	"WARNING: ",
	"BUG: ",
	"kernel BUG at ",
	"Oops",
	"Internal error: ",
	"Unable to handle kernel ",
	"general protection fault",
	"Kernel panic - not syncing",
	"INFO: ",
	"UBSAN: ",
};

/* Whether text occurs in line where a word begins. */
static bool has_word(const char *line, const char *text)
{
	for (const char *p = strstr(line, text); p; p = strstr(p + 1, text))
		if (p == line || !isalnum((unsigned char)p[-1]))
			return true;
	return false;
}

/* dump_stack_print_info: "CPU: %d PID: %d" or "CPU: %d UID: %u PID: %d" */
static bool stack_header(const char *line)
{
	for (const char *p = strstr(line, "CPU: "); p;
	     p = strstr(p + 1, "CPU: ")) {
		const char *q = p + 5;

		if ((p != line && isalnum((unsigned char)p[-1])) ||
		    !isdigit((unsigned char)*q))
			continue;
		while (isdigit((unsigned char)*q))
			q++;
		if (strncmp(q, " PID: ", 6) == 0 || strncmp(q, " UID: ", 6) == 0)
			return true;
	}
	return false;
}

bool ms_log_report_start(const char *line)
{
	for (size_t i = 0; i < sizeof(starts) / sizeof(*starts); i++)
		if (has_word(line, starts[i]))
			return true;
	return stack_header(line);
}

bool ms_log_lockdep_stack(const char *line)
{
	return has_word(line, "stack backtrace:");
}

bool ms_log_report_end(const char *line)
{
	return has_word(line, "---[ end trace") ||
	       has_word(line, "---[ end Kernel panic");
}
