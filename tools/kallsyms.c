// SPDX-License-Identifier: GPL-2.0-or-later
/* modsect kallsyms: the core kernel's symbols as an ELF file for debuggers. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"

/* The ELF of the map's core symbols, in memory. */
int kallsyms_elf_bytes(const struct ms_map *map, char **buf_ret,
		       size_t *len_ret, struct ms_err *err)
{
	FILE *tmp = tmpfile();
	off_t len;
	char *buf;
	int r;

	if (!tmp)
		return ms_err_errno(err, errno, "temporary file");
	r = ms_kallsyms_elf(map, fileno(tmp), err);
	if (!r && ((len = lseek(fileno(tmp), 0, SEEK_END)) < 0 ||
		   lseek(fileno(tmp), 0, SEEK_SET) < 0))
		r = ms_err_errno(err, errno, "temporary file");
	if (!r && !(buf = malloc((size_t)len + 1)))
		r = ms_err_errno(err, ENOMEM, "kallsyms ELF");
	if (!r && read(fileno(tmp), buf, (size_t)len) != len) {
		free(buf);
		r = ms_err_errno(err, EIO, "temporary file");
	}
	fclose(tmp);
	if (r)
		return r;
	*buf_ret = buf;
	*len_ret = (size_t)len;
	return 0;
}

int do_kallsyms(struct opts *o)
{
	struct ms_err err = { 0 };
	struct ms_ctx *ctx = NULL;
	struct ms_map *map = NULL;
	char *buf = NULL;
	size_t len;
	int r;

	if (!o->output) {
		fprintf(stderr,
			"modsect: kallsyms writes an ELF file: give -o FILE\n");
		return EXIT_USAGE;
	}
	o->core = true;
	r = setup_ctx(o, &ctx, &err);
	if (!r)
		r = load_map(ctx, o, NULL, &map, &err);
	if (!r)
		r = kallsyms_elf_bytes(map, &buf, &len, &err);
	if (!r)
		r = ms_write_out(o->output, buf, len, &err);
	free(buf);
	ms_map_free(map);
	ms_ctx_free(ctx);
	return r ? report(&err, r) : EXIT_OK;
}
