// SPDX-License-Identifier: GPL-2.0-or-later
/* modsect: the command table, and main. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/*
 * From memory, a kernel without BTF has its layouts from a module's or a
 * debug vmlinux's DWARF, found in the --search trees and debug dirs
 * (ms_layout_file_find); the static build reads no memory.
 */
#ifdef MODSECT_STATIC
#define OPT_LAYOUT 0
#else
#define OPT_LAYOUT (OPT_SEARCH | OPT_DEBUG)
#endif

/*
 * Each command with the options it takes and what main sets up for it
 * before it runs (RUN_*; the context always).
 */
const struct cmd commands[] = {
#ifndef MODSECT_STATIC
	{ "gdb", do_gdb,
	  OPT_SOURCE | OPT_FILES | OPT_OUTPUT | OPT_ALL | OPT_INIT |
		  OPT_DEBUG_FILE | OPT_KERNEL,
	  RUN_MAP | RUN_ONE | RUN_FINDER, "MODULE [FILE] | --all",
	  "print gdb add-symbol-file commands", 0, 2 },
	{ "lldb", do_lldb,
	  OPT_SOURCE | OPT_FILES | OPT_OUTPUT | OPT_ALL | OPT_INIT |
		  OPT_DEBUG_FILE | OPT_KERNEL,
	  RUN_MAP | RUN_ONE | RUN_FINDER, "MODULE [FILE] | --all",
	  "print lldb target modules commands", 0, 2 },
	{ "sections", do_sections,
	  OPT_SOURCE | OPT_FILES | OPT_OUTPUT | OPT_JSON | OPT_INIT |
		  OPT_DEBUG_FILE,
	  RUN_MAP | RUN_ONE | RUN_FINDER, "MODULE [FILE]",
	  "show a module's sections, addresses and state", 1, 2 },
	{ "list", do_list, OPT_SOURCE | OPT_FILES | OPT_OUTPUT | OPT_JSON,
	  RUN_MAP | RUN_FINDER, "",
	  "list loaded modules, their files and verification", 0, 0 },
	{ "resolve", do_resolve,
	  OPT_SOURCE | OPT_FILES | OPT_OUTPUT | OPT_JSON | OPT_INDEX,
	  RUN_MAP | RUN_CORE | RUN_FINDER, "[ADDR...]",
	  "addresses (arguments, or standard input) to symbols and source lines",
	  0, 1000000 },
	/* decode reads its map itself: it can do without one. */
	{ "decode", do_decode, OPT_SOURCE | OPT_FILES | OPT_OUTPUT | OPT_INDEX,
	  0, "[FILE]",
	  "annotate kernel log text (oops, WARN, BUG, KASAN) with source lines",
	  0, 1 },
	{ "kallsyms", do_kallsyms, OPT_SOURCE | OPT_OUTPUT | OPT_LAYOUT,
	  RUN_MAP | RUN_CORE | RUN_ORC,
	  "-o FILE", "write the core kernel's symbols (kallsyms) as an ELF file",
	  0, 0, "an ELF file" },
	{ "debuginfo", do_debuginfo,
	  OPT_SOURCE | OPT_FILES | OPT_OUTPUT | OPT_JSON | OPT_ALL |
		  OPT_DEBUG_FILE,
	  RUN_MAP | RUN_ONE_ONLY | RUN_FINDER, "MODULE... | --all",
	  "find each module's debug info and check it is the loaded build", 0,
	  1000000 },
	{ "serve", do_serve, OPT_SERVE | OPT_FORCE, 0, "",
	  "a GDB remote stub on a vmcore or /proc/kcore: every task a thread",
	  0, 0 },
#endif
	{ "capture", do_capture,
	  OPT_SOURCE | OPT_OUTPUT | OPT_KALLSYMS | OPT_LAYOUT, RUN_MAP,
	  "",
	  "write the section map (live, or a capture in format 1) for another machine",
	  0, 0 },
	{ 0 }
};

static const struct cmd *find_cmd(const char *name)
{
	for (const struct cmd *c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static int run(const struct cmd *c, struct opts *o)
{
	struct run run = { .o = o };
	int r = run_setup(c, &run);

	if (!r)
		r = c->fn(&run);
	/* What the finder could not reach, before the error it may explain. */
	run_finder_warn(&run);
	if (r < 0)
		r = report(&run.err, r);
	run_clear(&run);
	return r;
}

int main(int argc, char **argv)
{
	const struct cmd *c;
	struct opts o = { 0 };
	int r;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("modsect %s\n", MODSECT_VERSION);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	c = find_cmd(argv[1]);
	if (!c)
		return usage_error(NULL,
				   argv[1][0] == '-' ? "unknown option '%s'" :
						       "unknown command '%s'",
				   argv[1]);
	for (int i = 2; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--version")) {
			printf("modsect %s\n", MODSECT_VERSION);
			return EXIT_OK;
		}
	r = parse_options(c, argc - 1, argv + 1, &o);
	if (r == 0)
		r = run(c, &o);
	else if (r < 0)
		r = EXIT_OK;
	free(o.search);
	free(o.debug_dirs);
	return r;
}
