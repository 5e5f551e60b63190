// SPDX-License-Identifier: GPL-2.0-or-later
/* modsect's options: one table, one loop that parses them, --help. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/*
 * Every option: its getopt entry, the OPT_* flag a command admits it by,
 * its --help line, and where its value goes in struct opts, so one loop
 * parses them all.
 */
enum opt_kind {
	O_FLAG, /* a bool set to true */
	O_STR, /* a const char * */
	O_LIST, /* appended to a const char ** whose count is at noff */
	O_UINT, /* an unsigned int, decimal, min..max, times scale */
	O_ADDR, /* a uint64_t, hex, nonzero */
	O_HELP,
};

struct optdef {
	struct option lo;
	const char *arg, *help;
	const char *bad; /* the usage error for a bad value ('%s' the value) */
	size_t off, noff;
	unsigned int flag;
	enum opt_kind kind;
	unsigned int min, max, scale;
};

#define OFF(field) offsetof(struct opts, field)

static const struct optdef options[] = {
	{ .lo = { "root", required_argument, 0, 'R' },
	  .flag = OPT_ROOT,
	  .arg = "DIR",
	  .help = "read /sys and /proc under DIR",
	  .kind = O_STR, .off = OFF(root) },
	{ .lo = { "capture", required_argument, 0, 'c' },
	  .flag = OPT_CAPTURE,
	  .arg = "FILE",
	  .help = "read the map from a capture instead of the live system",
	  .kind = O_STR, .off = OFF(capture) },
#ifndef MODSECT_STATIC
	{ .lo = { "remote", required_argument, 0, 'r' },
	  .flag = OPT_MEMORY | OPT_SERVE,
	  .arg = "HOST:PORT|TTY",
	  .help = "read the map from kernel memory over the GDB remote protocol",
	  .kind = O_STR, .off = OFF(remote) },
	{ .lo = { "baud", required_argument, 0, 'b' },
	  .flag = OPT_MEMORY | OPT_SERVE,
	  .arg = "N",
	  .help = "with --remote TTY: the line speed (default 115200)",
	  .kind = O_UINT, .off = OFF(baud),
	  .min = 1, .max = 4000000, .scale = 1,
	  .bad = "--baud takes a number, not '%s'" },
	{ .lo = { "timeout", required_argument, 0, 't' },
	  .flag = OPT_MEMORY | OPT_SERVE,
	  .arg = "SECONDS",
	  .help = "with --remote: how long one request may take (default 5)",
	  .kind = O_UINT, .off = OFF(timeout_ms),
	  .min = 1, .max = 3600, .scale = 1000,
	  .bad = "--timeout takes seconds (1-3600), not '%s'" },
	{ .lo = { "vmcore", required_argument, 0, 'v' },
	  .flag = OPT_MEMORY | OPT_SERVE,
	  .arg = "FILE",
	  .help = "read the map from a vmcore (ELF or compressed kdump)",
	  .kind = O_STR, .off = OFF(vmcore) },
	{ .lo = { "kernel-image", required_argument, 0, 'I' },
	  .flag = OPT_MEMORY | OPT_SERVE,
	  .arg = "FILE",
	  .help = "with --remote or --vmcore: the booted vmlinuz or vmlinux, for kallsyms and BTF",
	  .kind = O_STR, .off = OFF(kernel_image) },
	{ .lo = { "module-at", required_argument, 0, 'A' },
	  .flag = OPT_MEMORY,
	  .arg = "ADDR",
	  .help = "with --remote or --vmcore and --all: only the module whose struct module is at ADDR",
	  .kind = O_ADDR, .off = OFF(module_at),
	  .bad = "--module-at takes an address, not '%s'" },
	{ .lo = { "kcore", no_argument, 0, 'W' },
	  .flag = OPT_SERVE,
	  .help = "the running kernel's memory, /proc/kcore (read-only)",
	  .kind = O_FLAG, .off = OFF(kcore) },
	{ .lo = { "listen", required_argument, 0, 'P' },
	  .flag = OPT_SERVE,
	  .arg = "HOST:PORT",
	  .help = "wait for the debugger on this TCP address, not on stdin and stdout",
	  .kind = O_STR, .off = OFF(listen) },
#endif
	{ .lo = { "moddir", required_argument, 0, 'm' },
	  .flag = OPT_MODDIR,
	  .arg = "DIR",
	  .help = "module directory (default /lib/modules/RELEASE)",
	  .kind = O_STR, .off = OFF(moddir) },
	{ .lo = { "search", required_argument, 0, 's' },
	  .flag = OPT_SEARCH,
	  .arg = "DIR",
	  .help = "also look for module files in DIR (repeatable)",
	  .kind = O_LIST, .off = OFF(search), .noff = OFF(nsearch) },
	{ .lo = { "debug-dir", required_argument, 0, 'D' },
	  .flag = OPT_DEBUG,
	  .arg = "DIR",
	  .help = "look for debug info in DIR (repeatable)",
	  .kind = O_LIST, .off = OFF(debug_dirs), .noff = OFF(ndebug_dirs) },
	{ .lo = { "debug-file", required_argument, 0, 'F' },
	  .flag = OPT_DEBUG_FILE,
	  .arg = "FILE",
	  .help = "debug info for MODULE (checked like any other)",
	  .kind = O_STR, .off = OFF(debug_file) },
	{ .lo = { "offline", no_argument, 0, 'N' },
	  .flag = OPT_DEBUG,
	  .help = "never ask debuginfod",
	  .kind = O_FLAG, .off = OFF(offline) },
	{ .lo = { "kallsyms", no_argument, 0, 'K' },
	  .flag = OPT_KALLSYMS,
	  .help = "also the core kernel's symbols from /proc/kallsyms",
	  .kind = O_FLAG, .off = OFF(kallsyms) },
	{ .lo = { "btf", no_argument, 0, 'B' },
	  .flag = OPT_KALLSYMS,
	  .help = "also the core kernel's BTF (types) from /sys/kernel/btf/vmlinux",
	  .kind = O_FLAG, .off = OFF(btf) },
	{ .lo = { "kernel", no_argument, 0, 'k' },
	  .flag = OPT_KERNEL,
	  .help = "also the core kernel's symbols, from kallsyms, first",
	  .kind = O_FLAG, .off = OFF(kernel) },
	{ .lo = { "vmlinux", required_argument, 0, 'L' },
	  .flag = OPT_KERNEL,
	  .arg = "FILE",
	  .help = "with --kernel: this debug vmlinux, checked and KASLR-moved",
	  .kind = O_STR, .off = OFF(vmlinux) },
	{ .lo = { "cache-dir", required_argument, 0, 'C' },
	  .flag = OPT_CACHE,
	  .arg = "DIR",
	  .help = "where decompressed modules go (default $XDG_CACHE_HOME/modsect)",
	  .kind = O_STR, .off = OFF(cache) },
	{ .lo = { "no-index", no_argument, 0, 'X' },
	  .flag = OPT_INDEX,
	  .help = "read the DWARF, not the cache's index of it (nor write one)",
	  .kind = O_FLAG, .off = OFF(no_index) },
	{ .lo = { "output", required_argument, 0, 'o' },
	  .flag = OPT_OUTPUT,
	  .arg = "FILE",
	  .help = "write to FILE atomically instead of stdout",
	  .kind = O_STR, .off = OFF(output) },
	{ .lo = { "json", no_argument, 0, 'j' },
	  .flag = OPT_JSON,
	  .help = "print JSON",
	  .kind = O_FLAG, .off = OFF(json) },
	{ .lo = { "all", no_argument, 0, 'a' },
	  .flag = OPT_ALL,
	  .help = "every loaded module",
	  .kind = O_FLAG, .off = OFF(all) },
	{ .lo = { "force", no_argument, 0, 'f' },
	  .flag = OPT_FORCE,
	  .help = "use a file whose build-id or srcversion differs",
	  .kind = O_FLAG, .off = OFF(force) },
	{ .lo = { "init", no_argument, 0, 'i' },
	  .flag = OPT_INIT,
	  .help = "keep .init sections of live modules (stale, maybe reused)",
	  .kind = O_FLAG, .off = OFF(init) },
	{ .lo = { "help", no_argument, 0, 'h' },
	  .flag = 0,
	  .help = "show this help",
	  .kind = O_HELP },
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

void usage(FILE *out)
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

int usage_error(const struct cmd *c, const char *fmt, const char *arg)
{
	fprintf(stderr, "modsect: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'modsect %s%s--help'.\n", c ? c->name : "",
		c ? " " : "");
	return EXIT_USAGE;
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

static int parse_addr(const char *s, uint64_t *ret)
{
	char *end;

	errno = 0;
	*ret = strtoull(s, &end, 16);
	return errno || end == s || *end || *s == '-' || !*ret ? -1 : 0;
}

/* Puts the value of option d (argument arg) where it goes in o. */
static int store(const struct cmd *c, const struct optdef *d, const char *arg,
		 struct opts *o)
{
	char *field = (char *)o + d->off;
	unsigned int u;

	switch (d->kind) {
	case O_FLAG:
		*(bool *)field = true;
		return 0;
	case O_STR:
		*(const char **)field = arg;
		return 0;
	case O_LIST: {
		const char ***list = (const char ***)field;
		size_t *n = (size_t *)((char *)o + d->noff);

		if (ms_grow(list, *n, sizeof(**list), 4))
			return usage_error(c, "%s", "out of memory");
		(*list)[(*n)++] = arg;
		return 0;
	}
	case O_UINT:
		if (parse_uint(arg, d->min, d->max, &u))
			return usage_error(c, d->bad, arg);
		*(unsigned int *)field = u * d->scale;
		return 0;
	case O_ADDR:
		if (parse_addr(arg, (uint64_t *)field))
			return usage_error(c, d->bad, arg);
		return 0;
	case O_HELP:
		cmd_usage(stdout, c);
		return -1;
	}
	return 0;
}

/* What options exclude or need of each other, and the arguments' count. */
static int check(const struct cmd *c, const struct opts *o)
{
	if (!!o->root + !!o->capture + !!o->remote + !!o->vmcore + o->kcore > 1)
		return usage_error(c, "%s",
				   "--root, --capture, --remote, --vmcore and --kcore exclude each other");
	if ((c->opts & OPT_SERVE) && !o->vmcore && !o->kcore && !o->remote)
		return usage_error(c, "%s",
				   "give --vmcore FILE, --kcore or --remote HOST:PORT");
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
	if (c->writes && !o->output) {
		fprintf(stderr, "modsect: %s writes %s: give -o FILE\n",
			c->name, c->writes);
		return EXIT_USAGE;
	}
	return 0;
}

/*
 * The option getopt_long() just returned or refused, as the user typed it
 * ("--sea" stays "--sea"), without its "=VALUE": not argv[optind - 1],
 * which is the option's separate argument ("--search DIR") or, inside a
 * cluster of short options ("-jo FILE"), the element before. A long option
 * is consumed whole (optind moves past it and its argument); a short one
 * is named by its character, which getopt puts in optopt when it refuses
 * it. before is optind before the call. Returns whether it is long.
 */
static bool typed(char **argv, int before, int ch, char *buf, size_t n)
{
	bool refused = ch == '?' || ch == ':';
	const char *el = optind > before ? argv[optind - 1] : "";

	if (!refused && optarg && optarg == el)
		el = argv[optind - 2];
	if (!strncmp(el, "--", 2)) {
		snprintf(buf, n, "%.*s", (int)strcspn(el, "="), el);
		return true;
	}
	snprintf(buf, n, "-%c", refused ? optopt : ch);
	return false;
}

int parse_options(const struct cmd *c, int argc, char **argv, struct opts *o)
{
	struct option lo[NOPTIONS + 1] = { 0 };

	for (size_t i = 0; i < NOPTIONS; i++)
		lo[i] = options[i].lo;
	optind = 1;
	opterr = 0;
	for (;;) {
		int before = optind, r;
		int ch = getopt_long(argc, argv, ":o:jh", lo, NULL);
		const struct optdef *d = NULL;
		char name[256];
		bool islong;

		if (ch == -1)
			break;
		islong = typed(argv, before, ch, name, sizeof(name));
		if (ch == ':')
			return usage_error(c, "option '%s' needs an argument",
					   name);
		/* getopt puts a known long option given "=VALUE" in optopt. */
		if (ch == '?' && islong && optopt)
			return usage_error(c, "option '%s' takes no argument",
					   name);
		if (ch == '?')
			return usage_error(c, "unknown option '%s'", name);
		for (size_t i = 0; i < NOPTIONS && !d; i++)
			if (options[i].lo.val == ch)
				d = &options[i];
		if (d->flag && !(c->opts & d->flag))
			return usage_error(c, "option '%s' does not apply here",
					   name);
		r = store(c, d, optarg, o);
		if (r)
			return r;
	}
	o->args = argv + optind;
	o->nargs = argc - optind;
	return check(c, o);
}
