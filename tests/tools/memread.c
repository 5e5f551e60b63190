// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * memread: reads target memory through a memory source, for the unit
 * tests of the sources (fake stubs, memory images, vmcores).
 *
 *   memread (--remote SPEC [--baud N] [--timeout MS] | --vmcore FILE |
 *            --memimg FILE) [--pc] [--vmcoreinfo KEY]... [--stats]
 *           [ADDR LEN]...
 *
 * Prints each read as "ADDR HEX", "pc ADDR", "KEY=VALUE"; errors go to
 * stderr as "memread: MESSAGE" with exit 1; usage errors exit 2.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "modsect.h"

static int fail(const struct ms_err *err, int r)
{
	fprintf(stderr, "memread: %s\n", err->msg[0] ? err->msg : strerror(-r));
	return 1;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "remote", required_argument, 0, 'r' },
		{ "baud", required_argument, 0, 'b' },
		{ "timeout", required_argument, 0, 't' },
		{ "vmcore", required_argument, 0, 'v' },
		{ "memimg", required_argument, 0, 'm' },
		{ "pc", no_argument, 0, 'p' },
		{ "vmcoreinfo", required_argument, 0, 'i' },
		{ "stats", no_argument, 0, 's' },
		{ 0 },
	};
	struct ms_remote_opts ro = { 0 };
	const char *remote = NULL, *vmcore = NULL, *memimg = NULL;
	const char *keys[16];
	size_t nkeys = 0;
	bool pc = false, stats = false;
	struct ms_err err = { 0 };
	struct ms_mem *m = NULL;
	int c, r, rc = 0;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'r': remote = optarg; break;
		case 'b': ro.baud = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 't': ro.timeout_ms = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'v': vmcore = optarg; break;
		case 'm': memimg = optarg; break;
		case 'p': pc = true; break;
		case 's': stats = true; break;
		case 'i':
			if (nkeys == 16)
				return 2;
			keys[nkeys++] = optarg;
			break;
		default: return 2;
		}
	}
	if (!!remote + !!vmcore + !!memimg != 1 || (argc - optind) % 2) {
		fprintf(stderr, "usage: memread SOURCE [--pc] [--vmcoreinfo KEY] [ADDR LEN]...\n");
		return 2;
	}
	if (remote)
		r = ms_remote_open(remote, &ro, &m, &err);
	else if (vmcore)
		r = ms_vmcore_open(vmcore, &m, &err);
	else
		r = ms_memimg_open(memimg, &m, &err);
	if (r)
		return fail(&err, r);
	if (pc) {
		uint64_t v;

		r = m->ops->pc ? m->ops->pc(m, &v, &err)
			       : ms_err_set(&err, ENOTSUP, "no pc");
		if (r)
			rc = fail(&err, r);
		else
			printf("pc %" PRIx64 "\n", v);
	}
	for (size_t i = 0; i < nkeys; i++) {
		struct ms_err verr = { 0 };
		char *v = NULL;

		r = ms_mem_vmcoreinfo_get(m, keys[i], &v, &verr);
		if (r && r != -ENOENT)
			return fail(&verr, r);
		printf("%s=%s\n", keys[i], v ? v : "(none)");
		free(v);
	}
	for (int i = optind; i + 1 < argc && !rc; i += 2) {
		uint64_t addr = strtoull(argv[i], NULL, 16);
		size_t len = strtoul(argv[i + 1], NULL, 0);
		unsigned char *buf = malloc(len ? len : 1);

		if (!buf)
			return 1;
		r = ms_mem_read(m, addr, buf, len, "memory", &err);
		if (r) {
			rc = fail(&err, r);
		} else {
			printf("%" PRIx64 " ", addr);
			for (size_t j = 0; j < len; j++)
				printf("%02x", buf[j]);
			putchar('\n');
		}
		free(buf);
	}
	if (stats)
		printf("requests %" PRIu64 " bytes %" PRIu64 "\n", m->nrequests,
		       m->nbytes);
	ms_mem_free(m);
	return rc;
}
