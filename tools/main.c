// SPDX-License-Identifier: GPL-2.0-or-later
/* modsect: the command table and option parsing. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const struct cmd commands[] = {
#ifndef MODSECT_STATIC
	{ "gdb", do_gdb,
	  OPT_SOURCE | OPT_FILES | OPT_OUTPUT | OPT_ALL | OPT_INIT |
		  OPT_DEBUG_FILE | OPT_KERNEL,
	  "MODULE [FILE] | --all", "print gdb add-symbol-file commands", 0, 2 },
	{ "lldb", do_lldb,
	  OPT_SOURCE | OPT_FILES | OPT_OUTPUT | OPT_ALL | OPT_INIT |
		  OPT_DEBUG_FILE | OPT_KERNEL,
	  "MODULE [FILE] | --all", "print lldb target modules commands", 0, 2 },
	{ "sections", do_sections,
	  OPT_SOURCE | OPT_FILES | OPT_OUTPUT | OPT_JSON | OPT_INIT |
		  OPT_DEBUG_FILE,
	  "MODULE [FILE]", "show a module's sections, addresses and state", 1,
	  2 },
	{ "list", do_list, OPT_SOURCE | OPT_FILES | OPT_OUTPUT | OPT_JSON, "",
	  "list loaded modules, their files and verification", 0, 0 },
	{ "resolve", do_resolve,
	  OPT_SOURCE | OPT_FILES | OPT_OUTPUT | OPT_JSON | OPT_INDEX,
	  "[ADDR...]",
	  "addresses (arguments, or standard input) to symbols and source lines",
	  0, 1000000 },
	{ "decode", do_decode, OPT_SOURCE | OPT_FILES | OPT_OUTPUT | OPT_INDEX,
	  "[FILE]",
	  "annotate kernel log text (oops, WARN, BUG, KASAN) with source lines",
	  0, 1 },
	{ "kallsyms", do_kallsyms, OPT_SOURCE | OPT_OUTPUT, "-o FILE",
	  "write the core kernel's symbols (kallsyms) as an ELF file", 0, 0 },
	{ "debuginfo", do_debuginfo,
	  OPT_SOURCE | OPT_FILES | OPT_OUTPUT | OPT_JSON | OPT_ALL |
		  OPT_DEBUG_FILE,
	  "MODULE... | --all",
	  "find each module's debug info and check it is the loaded build", 0,
	  1000000 },
#endif
	{ "capture", do_capture, OPT_SOURCE | OPT_OUTPUT | OPT_KALLSYMS, "",
	  "write the section map (live, or a capture in format 1) for another machine",
	  0, 0 },
	{ 0 }
};

static const struct {
	struct option lo;
	unsigned int flag;
	const char *arg, *help;
} options[] = {
	{ { "root", required_argument, 0, 'R' },
	  OPT_ROOT,
	  "DIR",
	  "read /sys and /proc under DIR" },
	{ { "capture", required_argument, 0, 'c' },
	  OPT_CAPTURE,
	  "FILE",
	  "read the map from a capture instead of the live system" },
#ifndef MODSECT_STATIC
	{ { "remote", required_argument, 0, 'r' },
	  OPT_MEMORY,
	  "HOST:PORT|TTY",
	  "read the map from kernel memory over the GDB remote protocol" },
	{ { "baud", required_argument, 0, 'b' },
	  OPT_MEMORY,
	  "N",
	  "with --remote TTY: the line speed (default 115200)" },
	{ { "timeout", required_argument, 0, 't' },
	  OPT_MEMORY,
	  "SECONDS",
	  "with --remote: how long one request may take (default 5)" },
	{ { "vmcore", required_argument, 0, 'v' },
	  OPT_MEMORY,
	  "FILE",
	  "read the map from a vmcore (ELF or compressed kdump)" },
	{ { "kernel-image", required_argument, 0, 'I' },
	  OPT_MEMORY,
	  "FILE",
	  "with --remote or --vmcore: the booted vmlinuz or vmlinux, for kallsyms and BTF" },
	{ { "module-at", required_argument, 0, 'A' },
	  OPT_MEMORY,
	  "ADDR",
	  "with --remote or --vmcore and --all: only the module whose struct module is at ADDR" },
#endif
	{ { "moddir", required_argument, 0, 'm' },
	  OPT_MODDIR,
	  "DIR",
	  "module directory (default /lib/modules/RELEASE)" },
	{ { "search", required_argument, 0, 's' },
	  OPT_SEARCH,
	  "DIR",
	  "also look for module files in DIR (repeatable)" },
	{ { "debug-dir", required_argument, 0, 'D' },
	  OPT_DEBUG,
	  "DIR",
	  "look for debug info in DIR (repeatable)" },
	{ { "debug-file", required_argument, 0, 'F' },
	  OPT_DEBUG_FILE,
	  "FILE",
	  "debug info for MODULE (checked like any other)" },
	{ { "offline", no_argument, 0, 'N' },
	  OPT_DEBUG,
	  NULL,
	  "never ask debuginfod" },
	{ { "kallsyms", no_argument, 0, 'K' },
	  OPT_KALLSYMS,
	  NULL,
	  "also the core kernel's symbols from /proc/kallsyms" },
	{ { "kernel", no_argument, 0, 'k' },
	  OPT_KERNEL,
	  NULL,
	  "also the core kernel's symbols, from kallsyms, first" },
	{ { "vmlinux", required_argument, 0, 'L' },
	  OPT_KERNEL,
	  "FILE",
	  "with --kernel: this debug vmlinux, checked and KASLR-moved" },
	{ { "cache-dir", required_argument, 0, 'C' },
	  OPT_CACHE,
	  "DIR",
	  "where decompressed modules go (default $XDG_CACHE_HOME/modsect)" },
	{ { "no-index", no_argument, 0, 'X' },
	  OPT_INDEX,
	  NULL,
	  "read the DWARF, not the cache's index of it (nor write one)" },
	{ { "output", required_argument, 0, 'o' },
	  OPT_OUTPUT,
	  "FILE",
	  "write to FILE atomically instead of stdout" },
	{ { "json", no_argument, 0, 'j' }, OPT_JSON, NULL, "print JSON" },
	{ { "all", no_argument, 0, 'a' }, OPT_ALL, NULL, "every loaded module" },
	{ { "force", no_argument, 0, 'f' },
	  OPT_FORCE,
	  NULL,
	  "use a file whose build-id or srcversion differs" },
	{ { "init", no_argument, 0, 'i' },
	  OPT_INIT,
	  NULL,
	  "keep .init sections of live modules (stale, maybe reused)" },
	{ { "help", no_argument, 0, 'h' }, 0, NULL, "show this help" },
};
#define NOPTIONS (sizeof(options) / sizeof(options[0]))

static void cmd_usage(FILE *out, const struct cmd *c)
{
	fprintf(out, "Usage: modsect %s [OPTIONS]%s%s\n%c%s.\n\nOptions:\n",
		c->name, *c->args ? " " : "", c->args, toupper(c->summary[0]),
		c->summary + 1);
	for (size_t i = 0; i < NOPTIONS; i++) {
		char left[64];

		if (options[i].flag && !(c->opts & options[i].flag))
			continue;
		snprintf(left, sizeof(left), "%s%c%s--%s%s%s",
			 strchr("ojh", options[i].lo.val) ? "-" : "",
			 strchr("ojh", options[i].lo.val) ? options[i].lo.val :
							    ' ',
			 strchr("ojh", options[i].lo.val) ? ", " : "  ",
			 options[i].lo.name, options[i].arg ? " " : "",
			 options[i].arg ? options[i].arg : "");
		fprintf(out, "  %-26s %s\n", left + (left[0] == ' '),
			options[i].help);
	}
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: modsect [--version] [--help] COMMAND [OPTIONS] [ARGS]\n"
		"Where a loaded Linux module's sections are, for debuggers.\n\nCommands:\n");
	for (const struct cmd *c = commands; c->name; c++)
		fprintf(out, "  %-10s %s\n", c->name, c->summary);
	fprintf(out,
		"\nRun 'modsect COMMAND --help' for a command's options; see modsect(1).\n"
		"Exit status: 0 success, 1 not found, 2 usage error, 3 refused or failed.\n");
}

static int usage_error(const struct cmd *c, const char *fmt, const char *arg)
{
	fprintf(stderr, "modsect: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'modsect %s%s--help'.\n", c ? c->name : "",
		c ? " " : "");
	return EXIT_USAGE;
}

static int add_str(const char ***list, size_t *n, const char *dir)
{
	const char **nl = realloc(*list, (*n + 1) * sizeof(*nl));

	if (!nl)
		return -1;
	*list = nl;
	nl[(*n)++] = dir;
	return 0;
}

static int parse_uint(const char *s, unsigned int min, unsigned int max,
		      unsigned int *ret)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v < min || v > max)
		return -1;
	*ret = (unsigned int)v;
	return 0;
}

static int parse(const struct cmd *c, int argc, char **argv, struct opts *o)
{
	struct option lo[NOPTIONS + 1] = { 0 };

	for (size_t i = 0; i < NOPTIONS; i++)
		lo[i] = options[i].lo;
	optind = 1;
	opterr = 0;
	for (;;) {
		int idx = -1, ch = getopt_long(argc, argv, ":o:jh", lo, &idx);
		unsigned int flag = 0;

		if (ch == -1)
			break;
		if (ch == '?')
			return usage_error(c, "unknown option '%s'",
					   argv[optind - 1]);
		if (ch == ':')
			return usage_error(c, "option '%s' needs an argument",
					   argv[optind - 1]);
		for (size_t i = 0; i < NOPTIONS; i++)
			if (options[i].lo.val == ch)
				flag = options[i].flag;
		if (flag && !(c->opts & flag))
			return usage_error(c, "option '%s' does not apply here",
					   argv[optind - 1]);
		switch (ch) {
		case 'h':
			cmd_usage(stdout, c);
			return -1;
		case 'R':
			o->root = optarg;
			break;
		case 'c':
			o->capture = optarg;
			break;
		case 'm':
			o->moddir = optarg;
			break;
		case 'r':
			o->remote = optarg;
			break;
		case 'v':
			o->vmcore = optarg;
			break;
		case 'I':
			o->kernel_image = optarg;
			break;
		case 'A':
			{
				char *end;

				errno = 0;
				o->module_at = strtoull(optarg, &end, 16);
				if (errno || end == optarg || *end ||
				    *optarg == '-' || !o->module_at)
					return usage_error(c, "--module-at takes an address, not '%s'",
							   optarg);
			}
			break;
		case 'b':
			if (parse_uint(optarg, 1, 4000000, &o->baud))
				return usage_error(c, "--baud takes a number, not '%s'",
						   optarg);
			break;
		case 't':
			if (parse_uint(optarg, 1, 3600, &o->timeout_ms))
				return usage_error(c, "--timeout takes seconds (1-3600), not '%s'",
						   optarg);
			o->timeout_ms *= 1000;
			break;
		case 's':
			if (add_str(&o->search, &o->nsearch, optarg))
				return usage_error(c, "%s", "out of memory");
			break;
		case 'D':
			if (add_str(&o->debug_dirs, &o->ndebug_dirs, optarg))
				return usage_error(c, "%s", "out of memory");
			break;
		case 'F':
			o->debug_file = optarg;
			break;
		case 'N':
			o->offline = true;
			break;
		case 'X':
			o->no_index = true;
			break;
		case 'K':
			o->kallsyms = true;
			break;
		case 'k':
			o->kernel = true;
			break;
		case 'L':
			o->vmlinux = optarg;
			break;
		case 'C':
			o->cache = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case 'a':
			o->all = true;
			break;
		case 'f':
			o->force = true;
			break;
		case 'i':
			o->init = true;
			break;
		}
	}
	o->args = argv + optind;
	o->nargs = argc - optind;
	if (!!o->root + !!o->capture + !!o->remote + !!o->vmcore > 1)
		return usage_error(c, "%s",
				   "--root, --capture, --remote and --vmcore exclude each other");
	if (o->kernel_image && !o->remote && !o->vmcore)
		return usage_error(c, "%s",
				   "--kernel-image goes with --remote or --vmcore");
	if (o->module_at && ((!o->remote && !o->vmcore) || !o->all))
		return usage_error(c, "%s",
				   "--module-at goes with --all and --remote or --vmcore");
	if ((o->baud || o->timeout_ms) && !o->remote)
		return usage_error(c, "%s",
				   "--baud and --timeout go with --remote");
	if (o->debug_file && (o->all || o->nargs != 1))
		return usage_error(c, "%s",
				   "--debug-file goes with one MODULE");
	if (o->all && o->nargs > 0)
		return usage_error(c, "--all takes no module (got '%s')",
				   o->args[0]);
	if ((c->opts & OPT_ALL) && !o->all && o->nargs == 0)
		return usage_error(c, "%s", "give a MODULE, or --all");
	if (o->nargs < c->min_args)
		return usage_error(c, "%s", "missing MODULE");
	if (o->nargs > c->max_args)
		return usage_error(c, "unexpected argument '%s'",
				   o->args[c->max_args]);
	return 0;
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
	for (c = commands; c->name; c++)
		if (!strcmp(c->name, argv[1]))
			break;
	if (!c->name)
		return usage_error(NULL,
				   argv[1][0] == '-' ? "unknown option '%s'" :
						       "unknown command '%s'",
				   argv[1]);
	for (int i = 2; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--version")) {
			printf("modsect %s\n", MODSECT_VERSION);
			return EXIT_OK;
		}
	r = parse(c, argc - 1, argv + 1, &o);
	if (r == 0)
		r = c->fn(&o);
	else if (r < 0)
		r = EXIT_OK;
	free(o.search);
	free(o.debug_dirs);
	return r;
}
