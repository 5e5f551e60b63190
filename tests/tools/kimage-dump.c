// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kimage-dump: what the library reads from a kernel image, for the unit
 * tests of kimage.c and ksymtab.c (tests/t-kimage.sh).
 *
 *   kimage-dump [--syms] [--bytes ADDR LEN]... IMAGE
 *   kimage-dump --blob FILE --base HEX [--ptr 4|8] [--be] [--syms]
 *
 * Prints "kind: ...", "machine: N", "class: N", "build-id: HEX at ADDR",
 * "banner: ADDR TEXT", "btf: N bytes, N types", "range: START END",
 * "kallsyms: N symbols" (or the reason there are none), then with
 * --syms every symbol as "ADDR TYPE NAME", and each --bytes range as
 * "bytes ADDR HEX". With --blob, ms_ksymtab_find over FILE's bytes at
 * address --base: "kallsyms: N symbols, names at +OFF, token table at
 * +OFF" and --syms. Errors go to stderr as "kimage-dump: MESSAGE" with
 * exit 1; usage errors exit 2.
 */
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "modsect.h"

static int fail(const struct ms_err *err, int r)
{
	fprintf(stderr, "kimage-dump: %s\n",
		err->msg[0] ? err->msg : strerror(-r));
	return 1;
}

static void print_syms(const struct ms_ksymtab *t)
{
	for (size_t i = 0; i < t->nsyms; i++)
		printf("%016" PRIx64 " %c %s\n", t->syms[i].addr,
		       t->syms[i].type, t->syms[i].name);
}

/* --blob: the kallsyms finder alone, on a file's bytes. */
static int dump_blob(const char *path, uint64_t base, int ptr, bool be,
		     bool syms)
{
	struct ms_err err = { 0 };
	struct ms_ksymtab *t;
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0, n;
	int r;

	if (!f) {
		perror(path);
		return 1;
	}
	do {
		if (len == cap && !(buf = realloc(buf, cap = cap * 2 + 65536)))
			return 1;
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n);
	fclose(f);
	r = ms_ksymtab_find(buf, len, base, ptr, be, &t, &err);
	free(buf);
	if (r)
		return fail(&err, r);
	printf("kallsyms: %zu symbols, names at +0x%zx, token table at +0x%zx\n",
	       t->nsyms, t->names_off, t->token_table_off);
	if (syms)
		print_syms(t);
	ms_ksymtab_free(t);
	return 0;
}

static void print_btf(const struct ms_kimage *k)
{
	size_t len;
	const void *p = ms_kimage_btf(k, &len);
	struct btf *btf;

	if (!p) {
		printf("btf: none\n");
		return;
	}
	btf = btf__new(p, (uint32_t)len);
	if (libbpf_get_error(btf)) {
		printf("btf: %zu bytes, libbpf cannot parse it\n", len);
		return;
	}
	printf("btf: %zu bytes, %u types\n", len, btf__type_cnt(btf));
	btf__free(btf);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "syms", no_argument, 0, 's' },
		{ "bytes", required_argument, 0, 'b' },
		{ "blob", required_argument, 0, 'B' },
		{ "base", required_argument, 0, 'a' },
		{ "ptr", required_argument, 0, 'p' },
		{ "be", no_argument, 0, 'e' },
		{ 0 },
	};
	struct ms_err err = { 0 };
	struct ms_kimage *k;
	const struct ms_ksymtab *t;
	const char *ranges[32];
	size_t nranges = 0;
	bool syms = false, be = false;
	const char *blob = NULL;
	uint64_t start, end, base = 0;
	int ptr = 8;
	int c, r, rc = 0;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 's': syms = true; break;
		case 'B': blob = optarg; break;
		case 'a': base = strtoull(optarg, NULL, 16); break;
		case 'p': ptr = atoi(optarg); break;
		case 'e': be = true; break;
		case 'b':
			if (nranges == 32 || optind >= argc)
				return 2;
			ranges[nranges++] = optarg;
			ranges[nranges++] = argv[optind++];
			break;
		default: return 2;
		}
	}
	if (blob && optind == argc)
		return dump_blob(blob, base, ptr, be, syms);
	if (blob || optind + 1 != argc) {
		fprintf(stderr, "usage: kimage-dump [--syms] [--bytes ADDR LEN]... IMAGE\n"
				"       kimage-dump --blob FILE --base HEX [--ptr 4|8] [--be] [--syms]\n");
		return 2;
	}
	if ((r = ms_kimage_open(argv[optind], &k, &err)))
		return fail(&err, r);
	printf("kind: %s\n", ms_kimage_kind(k));
	printf("machine: %d\nclass: %d\n", ms_kimage_elf_machine(k),
	       ms_kimage_elf_class(k) == 1 ? 32 : 64);
	if (ms_kimage_build_id(k))
		printf("build-id: %s at 0x%" PRIx64 "\n", ms_kimage_build_id(k),
		       ms_kimage_build_id_addr(k));
	else
		printf("build-id: none\n");
	if (ms_kimage_banner(k))
		printf("banner: 0x%" PRIx64 " %.*s\n", ms_kimage_banner_addr(k),
		       (int)strcspn(ms_kimage_banner(k), "\n"),
		       ms_kimage_banner(k));
	else
		printf("banner: none\n");
	print_btf(k);
	ms_kimage_range(k, &start, &end);
	printf("range: 0x%" PRIx64 " 0x%" PRIx64 "\n", start, end);
	if ((r = ms_kimage_ksymtab(k, &t, &err))) {
		printf("kallsyms: none: %s\n", err.msg);
	} else {
		printf("kallsyms: %zu symbols\n", t->nsyms);
		if (syms)
			print_syms(t);
	}
	for (size_t i = 0; i < nranges; i += 2) {
		uint64_t addr = strtoull(ranges[i], NULL, 16);
		size_t len = strtoul(ranges[i + 1], NULL, 0);
		struct ms_err berr = { 0 };
		const void *p;

		/* the test's own message: the library's names the file */
		if (ms_kimage_bytes(k, addr, len, &p, &berr)) {
			fprintf(stderr, "kimage-dump: 0x%" PRIx64 " (%zu bytes) is not in the image\n",
				addr, len);
			rc = 1;
			continue;
		}
		printf("bytes %" PRIx64 " ", addr);
		for (size_t j = 0; j < len; j++)
			printf("%02x", ((const unsigned char *)p)[j]);
		putchar('\n');
	}
	ms_kimage_free(k);
	return rc;
}
